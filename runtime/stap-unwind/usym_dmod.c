/* stap-unwind: names of user addresses from the -d modules' tables: the
 * translator's table (names and addresses, no sizes) with each symbol's
 * st_size, read once at module init (process context) from the ELF file
 * at the module's path (.symtab and .dynsym), and only if that file's
 * build-id is the one the translator saw; looked up in probe context.
 */
#ifndef STP_UW_USYM_DMOD_C
#define STP_UW_USYM_DMOD_C

#include "stap-unwind/usym_lookup.h"

/* ------------------------------------------------------------------ */
/* st_size of the -d modules' symbols, read at module init             */

#define STP_UW_SYMSZ_MAX_SHNUM	4096		/* section headers read */
#define STP_UW_SYMSZ_MAX_STRTAB	(64UL << 20)	/* bytes of a string table */
#define STP_UW_SYMSZ_MAX_SYMS	(4UL << 20)	/* symbols of a section */
#define STP_UW_SYMSZ_CHUNK	128		/* symbols per read */

/* stp_uw_symsz[i][j]: st_size of _stp_modules[i]->sections[0].symbols[j],
 * 0 if not known.  stp_uw_symsz[i] == NULL: none known for that module. */
static unsigned long **stp_uw_symsz;
static unsigned stp_uw_symsz_n;

static int stp_uw_user_module_p(const struct _stp_module *m)
{
	return m && m->path && m->path[0] == '/' && m->num_sections == 1
		&& m->sections[0].name
		&& (strcmp(m->sections[0].name, ".dynamic") == 0
		    || strcmp(m->sections[0].name, ".absolute") == 0);
}

/* The file's NT_GNU_BUILD_ID from its SHT_NOTE sections equals the
 * module's; 1 if so (or if the module has none to compare). */
static int stp_uw_symsz_build_id_ok(struct uw_elf_src *src,
				    const struct uw_elf_hdr *h,
				    const struct _stp_module *m)
{
	unsigned char id[STP_UW_BUILD_ID_MAX];
	struct uw_elf_sec s;
	uint32_t i, len;
	int ok;

	if (m->build_id_len <= 0)
		return 1;
	for (i = 0; i < h->shnum; i++) {	/* bound: STP_UW_SYMSZ_MAX_SHNUM */
		if (uw_elf_read_shdr(src, h, i, &s) < 0)
			return 0;
		if (s.type != SHT_NOTE
		    || uw_elf_note_build_id(src, s.offset, s.size, s.align, id,
					    sizeof(id), &len) != 1)
			continue;
		ok = len == (u32)m->build_id_len
			&& memcmp(id, m->build_id_bits, len) == 0;
		if (!ok)
			_stp_warn("stap-unwind: %s is not the file "
				  "the symbols were taken from "
				  "(build-id); its symbols will "
				  "not be named\n", m->path);
		return ok;
	}
	return 0;
}

/* First index of sec's (address-sorted) table with address >= a. */
static unsigned stp_uw_table_lower(const struct _stp_section *sec,
				   unsigned long a)
{
	unsigned lo = 0, hi = sec->num_symbols;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (sec->symbols[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Sizes of m's table entries from one symbol table section of the file. */
static void stp_uw_symsz_section(struct file *f, const struct _stp_module *m,
				 unsigned long *sizes, int is64,
				 unsigned long symoff, unsigned long symsize,
				 unsigned long stroff, unsigned long strsize,
				 unsigned long link0)
{
	const struct _stp_section *sec = &m->sections[0];
	int absolute = strcmp(sec->name, ".absolute") == 0;
	unsigned long entsz = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	unsigned long n = symsize / entsz, i;
	char *str;
	void *buf;

	if (strsize == 0 || strsize > STP_UW_SYMSZ_MAX_STRTAB
	    || n > STP_UW_SYMSZ_MAX_SYMS)
		return;
	str = vmalloc(strsize + 1);
	buf = kmalloc(STP_UW_SYMSZ_CHUNK * entsz, GFP_KERNEL);
	if (!str || !buf || stp_uw_file_read(f, stroff, str, strsize))
		goto out;
	str[strsize] = '\0';
	for (i = 0; i < n; i += STP_UW_SYMSZ_CHUNK) {
		unsigned long cnt = min(n - i, (unsigned long)STP_UW_SYMSZ_CHUNK), j;

		if (stp_uw_file_read(f, symoff + i * entsz, buf, cnt * entsz))
			break;
		for (j = 0; j < cnt; j++) {
			unsigned long value, sz, nm, t;
			unsigned shndx, k;

			if (is64) {
				const Elf64_Sym *s = (const Elf64_Sym *)buf + j;
				value = s->st_value; sz = s->st_size;
				nm = s->st_name; shndx = s->st_shndx;
			} else {
				const Elf32_Sym *s = (const Elf32_Sym *)buf + j;
				value = s->st_value; sz = s->st_size;
				nm = s->st_name; shndx = s->st_shndx;
			}
			if (shndx == SHN_UNDEF || sz == 0 || nm >= strsize)
				continue;
			t = absolute ? value : value - link0;
			for (k = stp_uw_table_lower(sec, t);
			     k < sec->num_symbols && sec->symbols[k].addr == t; k++)
				if (sec->symbols[k].symbol
				    && strcmp(sec->symbols[k].symbol, str + nm) == 0
				    && sz > sizes[k])
					sizes[k] = sz;
		}
		cond_resched();
	}
out:
	kfree(buf);
	vfree(str);
}

/* st_size of every entry of m's table, from the file at m->path; NULL if
 * the file cannot be read or is not the one the table was made from. */
static unsigned long *stp_uw_symsz_file(const struct _stp_module *m)
{
	struct uw_elf_src src;
	struct uw_elf_hdr h;
	struct uw_elf_phdrs *p;
	struct uw_elf_sec s, str;
	struct file *f;
	unsigned long *sizes = NULL;
	uint32_t i;

	f = filp_open(m->path, O_RDONLY | O_LARGEFILE, 0);
	if (IS_ERR(f))
		return NULL;
	uw_elf_src_file(&src, stp_uw_file_read, f);
	p = kmalloc(sizeof(*p), GFP_KERNEL);
	/* The program headers give the link-time address of file offset 0:
	 * table addresses of ET_DYN modules are relative to it. */
	if (!p || uw_elf_read_header(&src, &h) || uw_elf_read_phdrs(&src, &h, p)
	    || h.shnum == 0 || h.shnum > STP_UW_SYMSZ_MAX_SHNUM
	    || !stp_uw_symsz_build_id_ok(&src, &h, m))
		goto out;
	sizes = vzalloc(sizeof(*sizes) * (m->sections[0].num_symbols + 1));
	if (!sizes)
		goto out;
	for (i = 0; i < h.shnum; i++) {		/* bound: STP_UW_SYMSZ_MAX_SHNUM */
		if (uw_elf_read_shdr(&src, &h, i, &s) < 0) {
			vfree(sizes);
			sizes = NULL;
			goto out;
		}
		if ((s.type == SHT_SYMTAB || s.type == SHT_DYNSYM)
		    && uw_elf_read_shdr(&src, &h, s.link, &str) == 0)
			stp_uw_symsz_section(f, m, sizes, h.is64, s.offset, s.size,
					     str.offset, str.size, p->link0);
	}
out:
	kfree(p);
	filp_close(f, NULL);
	return sizes;
}

static void stp_uw_symsz_load(void)
{
	unsigned i;

	if (stp_uw_symsz || _stp_num_modules == 0)
		return;
	stp_uw_symsz = vzalloc(sizeof(*stp_uw_symsz) * _stp_num_modules);
	if (!stp_uw_symsz)
		return;
	stp_uw_symsz_n = _stp_num_modules;
	for (i = 0; i < _stp_num_modules; i++) {
		struct _stp_module *m = _stp_modules[i];

		if (stp_uw_user_module_p(m) && m->sections[0].num_symbols > 0)
			stp_uw_symsz[i] = stp_uw_symsz_file(m);
		dbug_sym(1, "stap-unwind: symbol sizes of %s: %s\n",
			 m && m->path ? m->path : "?",
			 stp_uw_symsz[i] ? "read" : "none");
	}
}

/* Module exit: no probe handler is running. */
static void stp_uw_symsz_free(void)
{
	unsigned i;

	if (!stp_uw_symsz)
		return;
	for (i = 0; i < stp_uw_symsz_n; i++)
		vfree(stp_uw_symsz[i]);
	vfree(stp_uw_symsz);
	stp_uw_symsz = NULL;
	stp_uw_symsz_n = 0;
}

static const unsigned long *stp_uw_symsz_of(const struct _stp_module *m)
{
	unsigned i;

	if (!stp_uw_symsz)
		return NULL;
	for (i = 0; i < stp_uw_symsz_n; i++)
		if (_stp_modules[i] == m)
			return stp_uw_symsz[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Lookup (probe context)                                              */

/* Look back this many table entries for one whose extent contains the
 * address (a large symbol may start before smaller ones). */
#define STP_UW_TABLE_LOOKBACK	16

/* The -d table entry naming rel (table-relative): the one whose extent
 * contains it (0, u->contains = 1), else, for the byte before a return
 * address (caller), one that starts at that address (0, u->contains = 1:
 * a signal trampoline), else the nearest entry before it (1,
 * u->contains = 0; its st_size, 0 if not known); -ENOENT if none. */
static int stp_uw_usym_table(struct stp_uw_usym *u, struct _stp_module *m,
			     unsigned long rel, unsigned long rel_base,
			     int caller)
{
	const struct _stp_section *sec = &m->sections[0];
	const unsigned long *sizes = stp_uw_symsz_of(m);
	unsigned k, n, below;

	if (!sizes || sec->num_symbols == 0)
		return -ENOENT;
	below = stp_uw_table_lower(sec, rel + 1);	/* first entry > rel */
	for (k = below, n = 0; k > 0 && n < STP_UW_TABLE_LOOKBACK; n++) { /* bound: LOOKBACK */
		k--;
		if (sizes[k] && rel - sec->symbols[k].addr < sizes[k]
		    && sec->symbols[k].symbol) {
			u->name = sec->symbols[k].symbol;
			u->contains = 1;
			u->sym_start = sec->symbols[k].addr + rel_base;
			u->sym_size = sizes[k];
			return 0;
		}
	}
	if (caller && below < sec->num_symbols && sizes[below]
	    && sec->symbols[below].addr == rel + 1 && sec->symbols[below].symbol) {
		u->name = sec->symbols[below].symbol;
		u->contains = 1;
		u->sym_start = sec->symbols[below].addr + rel_base;
		u->sym_size = sizes[below];
		return 0;
	}
	for (k = below, n = 0; k > 0 && n < STP_UW_TABLE_LOOKBACK; n++) { /* bound: LOOKBACK */
		k--;
		if (sec->symbols[k].symbol) {
			u->name = sec->symbols[k].symbol;
			u->contains = 0;
			u->sym_start = sec->symbols[k].addr + rel_base;
			u->sym_size = sizes[k];
			return 1;
		}
	}
	return -ENOENT;
}

/* The -d module of the file at path whose build-id is bid (bid_len 0:
 * not known), or NULL. */
static struct _stp_module *stp_uw_dmod_by_path(const char *path,
					       const unsigned char *bid,
					       unsigned bid_len)
{
	unsigned i;

	for (i = 0; i < _stp_num_modules; i++) {	/* bound: the -d modules */
		struct _stp_module *m = _stp_modules[i];

		if (!m->path || !stp_uw_user_module_p(m) || strcmp(m->path, path))
			continue;
		if (bid_len && m->build_id_len > 0
		    && (m->build_id_len != bid_len
			|| memcmp(m->build_id_bits, bid, bid_len)))
			continue;
		return m;
	}
	return NULL;
}

#endif /* STP_UW_USYM_DMOD_C */
