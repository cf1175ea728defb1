/* stap-unwind: the names of user addresses.
 *
 * Every stock function prints SystemTap's own grammar, so that scripts and
 * tools that parse " 0xADDR : NAME+0xOFF/0xSIZE [PATH]" keep working; two
 * things differ from SystemTap 5.6.  SIZE is the symbol's own st_size
 * (stock prints the distance to the next symbol of its table), so an
 * address that the symbol does not contain -- stock names such an address
 * after the nearest symbol before it, however far away, e.g.
 * "error_at_line+0x9b59/0x24761" -- shows OFF >= SIZE.  And objects stock
 * knows nothing of are named too: every object of the process from its
 * own .dynsym, and the vdso ("vdso", e.g. "__kernel_vsyscall+0x9/0x14
 * [vdso]").  With usym_explicit(1) (-DSTP_USYM_EXPLICIT) an address that no
 * symbol contains is printed as its object and file offset instead,
 * "[/path/of/object+0xOFFSET]".
 *
 * Where symbols and extents come from:
 *   - modules named with -d/--ldd: the translator's table (names and
 *     addresses, no sizes) plus each symbol's st_size, read once at module
 *     init (process context) from the ELF file at the module's path
 *     (.symtab and .dynsym), and only if that file's build-id is the one
 *     the translator saw;
 *   - any other mapped ELF object: its dynamic symbol table read from the
 *     process's memory in probe context (usym_elf.h: PT_DYNAMIC -> DT_SYMTAB,
 *     DT_STRTAB, DT_STRSZ, count from DT_HASH or DT_GNU_HASH; every read
 *     copy_from_user_nofault, every loop bounded).
 * The object containing an address: stp_uw_vma_find() (VMA tracking for
 * every process, vma_map.h), else SystemTap's own vma map (processes the
 * task finder tracks: -c/-x targets and -d modules), else the vdso of the
 * address space (mm->context); umodname() finds it the same way
 * (stp_uw_umod_lookup).
 *
 * How it is wired in: the overlay's sym.c (runtime/stock/sym.c), which every
 * module includes, includes this file right after stock's sym.c, and this
 * file then defines _stp_snprint_addr and _stp_print_addr as macros
 * naming its own functions, so that every later caller -- stack.c's
 * backtraces and the tapsets' embedded C (usymname, usymdata, print_usyms,
 * sprint_ubacktrace, ...), all emitted after sym.c -- goes through here.
 * Kernel addresses (task == NULL) are passed to SystemTap's own functions
 * unchanged.  The -d symbol sizes (and the cache of names read from
 * .dynsym, below) are set up by the overlay's
 * _stp_vma_init() (runtime/stock/vma.c) at module init, and freed by its
 * _stp_vma_done() at exit, after every probe is unregistered and an RCU
 * grace period has let running handlers finish: the translator emits
 * those two calls whenever a script uses user symbols or backtraces,
 * the only users of the sizes.
 *
 * Printed forms (flags as in sym.h): a symbol names the address (by
 * default also the nearest one before an address no symbol contains) / no
 * symbol does (explicit form, or no symbol before it at all):
 *   _STP_SYM_FULL    " 0xADDR : name+0xoff/0xsize [path]"  " 0xADDR : [path+0xfoff]"
 *   _STP_SYM_SIMPLE  "name+0xoff [base]"                   "[base+0xfoff]"
 *   _STP_SYM_BRIEF   "name+0xoff"                          "[path+0xfoff]"
 *   _STP_SYM_DATA    "name+0xoff/0xsize [path]"            "[path+0xfoff]"
 *   _STP_SYM_SYMBOL  "name"                                "0xADDR"
 * (base: the path's last component.)  0xfoff is the file offset of ADDR in
 * the object: the code is at that offset of that file, whatever the load
 * address.  An address in no known object is printed as "0xADDR" alone;
 * in a known object outside its file-backed part, as "[path]".
 *
 * Caller frames: every frame of a user backtrace above the first one has
 * a return address for its pc, and is named with STP_UW_SYM_CALLER, which
 * stp_uw_frame_sym_flags() adds (stack.c, snapshot.h, udefer.h, the
 * tapset's usymframe_pid()).  The symbol and the source line are then
 * looked up for pc - 1, the call instruction's last byte, so that a call
 * to a noreturn function at the very end of a function (whose return
 * address is the next function's first byte) is named after the caller,
 * and a call followed by the next line's code is given its own line; the
 * printed address and offset are still those of pc (the offset may then
 * equal the size).  A signal handler's return address, which no call
 * precedes, is a trampoline's first byte: where no symbol contains pc - 1,
 * a symbol that starts at pc names it.
 */
#ifndef STP_UW_USYM_C
#define STP_UW_USYM_C

#include "stap-unwind/vma_map.h"
#include "stap-unwind/usym_elf.h"

#include <linux/fs.h>
#include <linux/vmalloc.h>
#include <linux/sched.h>
#include <asm/vdso.h>

/* Not a SystemTap flag: the address is a return address (see above). */
#define STP_UW_SYM_CALLER	(1 << 24)

/* The flags that name frame n (0: the innermost) of a user backtrace. */
static inline int stp_uw_frame_sym_flags(int flags, unsigned n)
{
	return n ? flags | STP_UW_SYM_CALLER : flags;
}

/* What is known about one user address. */
struct stp_uw_usym {
	const char *path;		/* object, NULL: in no known object */
	int have_foff;
	unsigned long foff;		/* file offset of the address */
	const char *name;		/* the symbol naming it, or NULL */
	int contains;			/* 1: the symbol's extent contains the
					 * address; 0: it is the nearest symbol
					 * before it (what stock names it after) */
	unsigned long sym_start, sym_size;
	struct _stp_module *mod;	/* -d module, if any */
	unsigned build_id_len;
	unsigned char build_id[STP_UW_BUILD_ID_MAX];
	char namebuf[STP_UW_UELF_NAME_MAX];
};

/* The working memory of naming one user address (about 2.5 KiB: the
 * answer with its name, the object's headers, its .dynsym, a batch of
 * symbols, the text of its source line), per CPU, off the kernel stack, where the unwinder keeps to
 * 1 KiB (runtime/README.md, "The kernel stack budget").  Used only with
 * this CPU's SystemTap context held (a probe handler, or the deferred
 * path's _stp_runtime_entryfn_get_context), which keeps preemption off
 * and lets no second user in: one address is named at a time. */
#define STP_UW_USYM_AT_MAX	160

struct stp_uw_usym_scratch {
	struct stp_uw_usym u;		/* stp_uw_snprint_addr, ubuildid,
					 * umodoffset */
	struct stp_uw_uelf o;		/* stp_uw_usym_from_elf */
	struct stp_uw_udynsym ds;
	struct uw_elf_dyn dyn;
	union stp_uw_symbuf syms;
	struct stp_uw_mapping map;	/* stp_uw_usym_lookup */
	char at[STP_UW_USYM_AT_MAX];	/* stp_uw_snprint_addr: " at file:line" */
};
static struct stp_uw_usym_scratch __percpu *stp_uw_usym_scratch;

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

static void stp_uw_symsz_load(void);
static void stp_uw_symsz_free(void);

/* Module init and exit (process context), from the overlay's
 * _stp_vma_init() and _stp_vma_done(): the -d symbol sizes and the cache
 * of names from .dynsym (declared below). */
static void stp_uw_usym_cache_alloc(void);
static void stp_uw_usym_cache_free(void);

static void stp_uw_usym_init(void)
{
	stp_uw_symsz_load();
	stp_uw_usym_cache_alloc();
	/* Without it, user addresses are named as stock names them. */
	stp_uw_usym_scratch = __alloc_percpu(sizeof(struct stp_uw_usym_scratch),
					     __alignof__(struct stp_uw_usym_scratch));
}

static void stp_uw_usym_exit(void)
{
	free_percpu(stp_uw_usym_scratch);
	stp_uw_usym_scratch = NULL;
	stp_uw_usym_cache_free();
	stp_uw_symsz_free();
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

/* ------------------------------------------------------------------ */
/* Names from .dynsym in process memory: a per-CPU cache               */

/* Finding the .dynsym symbol that contains an address means reading the
 * object's ELF headers and scanning its dynamic symbols (thousands in
 * libc) through no-fault reads: about 260 us per frame in the TCG guest.
 * The answer depends only on the file's contents, so it is cached per CPU,
 * keyed by the object's build-id and the address's distance from where
 * the object's ELF header is mapped: one entry serves every process that
 * maps the same file.  Negative answers (no symbol contains it) are kept
 * too.  Objects without a build-id, and names longer than the entry's
 * buffer, are not cached.  Direct-mapped, STP_UW_USYM_CACHE entries of
 * 136 bytes per CPU (34 KiB; 0 turns it off), allocated at module init;
 * used only in probe context, where a CPU runs one probe at a time. */
#ifndef STP_UW_USYM_CACHE
#define STP_UW_USYM_CACHE	256	/* a power of two */
#endif
#define STP_UW_USYM_CACHE_NAME	88

struct stp_uw_usym_cached {
	u64 bid;			/* hash of the build-id; 0: empty */
	unsigned long rel;		/* key: (lookup address - ELF header
					 * address) << 1 | 1 for a caller */
	unsigned long start_rel, size;	/* the symbol */
	unsigned char found, contains;	/* found 0: no symbol names it */
	char name[STP_UW_USYM_CACHE_NAME];
};

static struct stp_uw_usym_cached __percpu *stp_uw_usym_cache;

/* Also the build-id part of unwind.c's row-cache identity of tables read
 * from process memory (stp_uw_tables_ident). */
static u64 stp_uw_bid_hash(const unsigned char *bid, unsigned len)
{
	u64 h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	unsigned i;

	for (i = 0; i < len; i++)
		h = (h ^ bid[i]) * 0x100000001b3ULL;
	h ^= len;
	return h ? h : 1;
}

static struct stp_uw_usym_cached *stp_uw_usym_cache_slot(u64 bid, unsigned long rel)
{
	u64 k = (bid ^ rel) * 0x9e3779b97f4a7c15ULL;

	return this_cpu_ptr(stp_uw_usym_cache)
		+ (unsigned)(k >> 32) % (STP_UW_USYM_CACHE > 0 ? STP_UW_USYM_CACHE : 1);
}

static void stp_uw_usym_cache_alloc(void)
{
	if (STP_UW_USYM_CACHE > 0 && !stp_uw_usym_cache)
		stp_uw_usym_cache = __alloc_percpu(sizeof(struct stp_uw_usym_cached)
						   * STP_UW_USYM_CACHE,
						   __alignof__(struct stp_uw_usym_cached));
}

static void stp_uw_usym_cache_free(void)
{
	free_percpu(stp_uw_usym_cache);
	stp_uw_usym_cache = NULL;
}

/* 1 and u->name set (or left NULL: no symbol names it) on a hit. */
static int stp_uw_usym_cache_get(struct stp_uw_usym *u, u64 bid,
				 unsigned long base, unsigned long key)
{
	struct stp_uw_usym_cached *e;

	if (!stp_uw_usym_cache || !bid)
		return 0;
	e = stp_uw_usym_cache_slot(bid, key);
	if (e->bid != bid || e->rel != key)
		return 0;
	if (e->found) {
		strscpy(u->namebuf, e->name, sizeof(u->namebuf));
		u->name = u->namebuf;
		u->contains = e->contains;
		u->sym_start = base + e->start_rel;
		u->sym_size = e->size;
	}
	return 1;
}

static void stp_uw_usym_cache_put(const struct stp_uw_usym *u, u64 bid,
				  unsigned long base, unsigned long key)
{
	struct stp_uw_usym_cached *e;

	if (!stp_uw_usym_cache || !bid
	    || (u->name && strlen(u->name) >= sizeof(e->name)))
		return;
	e = stp_uw_usym_cache_slot(bid, key);
	e->bid = bid;
	e->rel = key;
	e->found = !!u->name;
	e->contains = u->name && u->contains;
	e->size = u->name ? u->sym_size : 0;
	e->start_rel = u->name ? u->sym_start - base : 0;
	if (u->name)
		strscpy(e->name, u->name, sizeof(e->name));
}

/* The vdso of task, which SystemTap knows only where a vdso file of
 * /lib/modules matches it: [*start, *end) from the address space's own
 * record (a task whose address space is the current one).  0 if addr
 * is in it. */
static int stp_uw_vdso_range(struct task_struct *task, unsigned long addr,
			     unsigned long *start, unsigned long *end)
{
	const struct vdso_image *img;
	unsigned long base;

	if (!task->mm || task->mm != current->mm)
		return -ENOENT;
	base = (unsigned long)READ_ONCE(task->mm->context.vdso);
	img = READ_ONCE(task->mm->context.vdso_image);
	if (!base || !img || addr < base || addr - base >= img->size)
		return -ENOENT;
	*start = base;
	*end = base + img->size;
	return 0;
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

/* _stp_umod_lookup() for every object of the process: SystemTap's answer
 * (objects named with -d, and what its task finder tracks), else the VMA
 * tracking of every process (stap-unwind/vma_map.c: the object's path),
 * else the vdso, named "vdso" as SystemTap names it.  The -d module is
 * returned as SystemTap returns it; *name, *offset (the file offset mapped
 * at *vm_start) and the range are filled for the others too.  Every later
 * caller, umodname() included, goes through here (see the end). */
static struct _stp_module *stp_uw_umod_lookup(unsigned long addr,
					      struct task_struct *task,
					      const char **name,
					      unsigned long *offset,
					      unsigned long *vm_start,
					      unsigned long *vm_end)
{
	const char *n = NULL;
	unsigned long off = 0, start = 0, end = 0;
	struct _stp_module *m;
	struct stp_uw_mapping map;

	m = _stp_umod_lookup(addr, task, &n, &off, &start, &end);
	if (!n) {
		if (_stp_is_compat_task2(task))
			addr &= 0xffffffffUL;
		if (stp_uw_vma_find(task, addr, &map) == 0) {
			n = map.path;
			off = map.pgoff;
			start = map.start;
			end = map.end;
			/* A -d module SystemTap has not seen mapped in this
			 * process: its task finder reports a process's
			 * mappings when a thread of it next runs, and a
			 * snapshot reads threads that never do.  Its offset
			 * is then SystemTap's: the distance from the
			 * module's first mapping. */
			m = stp_uw_dmod_by_path(map.path, map.build_id,
						min_t(unsigned, map.build_id_len,
						      sizeof(map.build_id)));
			if (m)
				off = map.start - map.base;
		} else if (stp_uw_vdso_range(task, addr, &start, &end) == 0) {
			n = "vdso";
			off = 0;
		}
	}
	if (name)
		*name = n;
	if (offset)
		*offset = off;
	if (vm_start)
		*vm_start = start;
	if (vm_end)
		*vm_end = end;
	return m;
}

/* What stp_uw_usym_lookup() must find out (the rest costs reads). */
#define STP_UW_USYM_NAME	1	/* an honest symbol */
#define STP_UW_USYM_FOFF	2	/* the file offset, also if named */
#define STP_UW_USYM_BUILDID	4	/* the build-id */
#define STP_UW_USYM_COMPAT	8	/* (not a want) a 32-bit process */

/* The name cache's key of lookup in the object at base: a caller's name
 * (lookup = addr - 1) may be a symbol starting at addr, not the same
 * answer as for lookup itself. */
static inline unsigned long stp_uw_usym_ckey(unsigned long base,
					     unsigned long addr,
					     unsigned long lookup)
{
	return (lookup - base) << 1 | (lookup != addr);
}

/* The rest of stp_uw_usym_lookup from the object's own headers in the
 * current process's memory: the file offset, the build-id (want has
 * STP_UW_USYM_BUILDID) and the name from its .dynsym (STP_UW_USYM_NAME),
 * with the CPU's scratch; STP_UW_USYM_COMPAT in want for a 32-bit
 * process.  Six arguments: a seventh would be passed on the stack, in
 * the caller's frame, which is on the naming's deepest chain
 * (runtime/README.md, "The kernel stack budget"). */
static void stp_uw_usym_from_elf(struct stp_uw_usym *u, unsigned long base,
				 unsigned long addr, unsigned long lookup,
				 int want, u64 bid)
{
	int compat = (want & STP_UW_USYM_COMPAT) != 0;
	struct stp_uw_usym_scratch *s = this_cpu_ptr(stp_uw_usym_scratch);
	struct stp_uw_uelf *o = &s->o;
	struct stp_uw_udynsym *ds = &s->ds;

	if (stp_uw_uelf_scan(o, base, compat) != 0)
		return;
	if (!u->have_foff && stp_uw_uelf_file_offset(o, addr, &u->foff) == 0)
		u->have_foff = 1;
	if ((want & STP_UW_USYM_BUILDID) && !u->build_id_len)
		u->build_id_len = stp_uw_uelf_build_id(o, u->build_id,
						       STP_UW_BUILD_ID_MAX);
	/* The object's own .dynsym, from memory. */
	if (!(want & STP_UW_USYM_NAME))
		return;
	if (stp_uw_udynsym_find(o, compat, ds, &s->dyn, &s->syms) != 0)
		return;		/* not read: nothing to remember */
	if (stp_uw_udynsym_lookup(o, compat, ds, lookup,
				  lookup != addr ? addr : 0, u->namebuf,
				  sizeof(u->namebuf), &u->sym_start,
				  &u->sym_size, &u->contains, &s->syms) == 0)
		u->name = u->namebuf;
	stp_uw_usym_cache_put(u, bid, base,
			      stp_uw_usym_ckey(base, addr, lookup));
}

/* What is known about user address addr of task; lookup is the address
 * the symbol must contain (addr, or addr - 1 for a return address).
 * Without a symbol, the file offset is always looked for.  The caller
 * holds the CPU's context and has checked stp_uw_usym_scratch. */
static void stp_uw_usym_lookup(struct task_struct *task, unsigned long addr,
			       unsigned long lookup, int want,
			       struct stp_uw_usym *u)
{
	struct stp_uw_mapping *const map = &this_cpu_ptr(stp_uw_usym_scratch)->map;
	struct _stp_module *m = NULL;
	const char *name = NULL;
	unsigned long offset = 0, vm_start = 0, vm_end = 0, base = 0;
	int compat = _stp_is_compat_task2(task), have_base = 0;
	/* The task's memory is the current address space: current, or
	 * a task whose mm the snapshot's worker took up. */
	int readable = task->mm && task->mm == current->mm, table_complete = 0;
	int name_done = 0;		/* the name came from the cache */
	u64 bid = 0;

	memset(u, 0, offsetof(struct stp_uw_usym, namebuf));
	u->namebuf[0] = '\0';
	if (compat) {
		addr &= 0xffffffffUL;
		lookup &= 0xffffffffUL;
	}

	if (stp_uw_vma_find(task, addr, map) == 0) {
		u->path = map->path;
		u->foff = addr - map->start + map->pgoff;
		u->have_foff = 1;
		base = map->base;
		have_base = 1;
		if (map->build_id_len) {
			u->build_id_len = min_t(unsigned, map->build_id_len,
						sizeof(map->build_id));
			memcpy(u->build_id, map->build_id, u->build_id_len);
		}
	}
	m = stp_uw_umod_lookup(addr, task, &name, &offset, &vm_start, &vm_end);
	if (m && !stp_uw_user_module_p(m))
		m = NULL;
	if (!u->path && name) {
		u->path = m ? m->path : name;
		if (vm_start >= offset) {
			base = vm_start - offset;
			have_base = 1;
		}
		/* SystemTap's map keeps the mmap file offset for objects it
		 * has no -d data for (for -d modules, offset is the distance
		 * from the module's first mapping instead). */
		if (!m && addr >= vm_start) {
			u->foff = addr - vm_start + offset;
			u->have_foff = 1;
		}
	}
	if (!u->path)
		return;
	u->mod = m;
	if (m && m->build_id_len > 0 && !u->build_id_len) {
		u->build_id_len = min_t(unsigned, m->build_id_len,
					STP_UW_BUILD_ID_MAX);
		memcpy(u->build_id, m->build_id_bits, u->build_id_len);
	}

	/* -d table with sizes from the file (it holds every symbol of the
	 * file's .symtab or .dynsym: no need to read .dynsym again). */
	if ((want & STP_UW_USYM_NAME) && m && vm_start >= offset) {
		int absolute = strcmp(m->sections[0].name, ".absolute") == 0;
		unsigned long rel_base = absolute ? 0 : vm_start - offset;

		table_complete = stp_uw_symsz_of(m) != NULL;
		if (lookup >= rel_base)
			(void)stp_uw_usym_table(u, m, lookup - rel_base, rel_base,
						lookup != addr);
	}

	if (!readable || !have_base)
		return;
	if ((want & STP_UW_USYM_NAME) && !u->name && !table_complete && u->build_id_len) {
		bid = stp_uw_bid_hash(u->build_id, u->build_id_len);
		if (stp_uw_usym_cache_get(u, bid, base,
					  stp_uw_usym_ckey(base, addr, lookup)))
			name_done = 1;
	}
	if (((want & STP_UW_USYM_NAME) && !u->name && !table_complete && !name_done)
	    || (!u->have_foff && (!u->name || !u->contains || (want & STP_UW_USYM_FOFF)))
	    || ((want & STP_UW_USYM_BUILDID) && !u->build_id_len))
		stp_uw_usym_from_elf(u, base, addr, lookup,
				     ((want & STP_UW_USYM_NAME) && !u->name
				      && !table_complete && !name_done
				      ? STP_UW_USYM_NAME : 0)
				     | (want & STP_UW_USYM_BUILDID)
				     | (compat ? STP_UW_USYM_COMPAT : 0), bid);
}

/* ------------------------------------------------------------------ */
/* Printing                                                            */

/* The form of an address that no symbol contains (usym_explicit() in
 * tapset/usym_explicit.stp, or stap -DSTP_USYM_EXPLICIT):
 *   0 (default): SystemTap's grammar, named after the nearest symbol before
 *     it with that symbol's st_size, "name+0xoff/0xsize [path]", where
 *     off >= size tells that the address lies beyond the symbol;
 *   1: the object and file offset, "[path+0xfoff]". */
#ifdef STP_USYM_EXPLICIT
static int stp_uw_usym_explicit = 1;
#else
static int stp_uw_usym_explicit;
#endif

/* Stock's own symbol functions, which take the probe context last where
 * this SystemTap's do (STP_UW_STOCK_SYM_CONTEXT, stock_runtime.h). */
static int stp_uw_stock_snprint_addr(char *str, size_t len,
				     unsigned long address, int flags,
				     struct task_struct *task, struct context *c)
{
#if STP_UW_STOCK_SYM_CONTEXT
	return _stp_snprint_addr(str, len, address, flags, task, c);
#else
	return _stp_snprint_addr(str, len, address, flags, task);
#endif
}

static unsigned long stp_uw_stock_linenumber(unsigned long address,
					     struct task_struct *task,
					     char **filename, int need_filename,
					     struct context *c)
{
#if STP_UW_STOCK_SYM_CONTEXT
	return _stp_linenumber_lookup(address, task, filename, need_filename, c);
#else
	return _stp_linenumber_lookup(address, task, filename, need_filename);
#endif
}

static int stp_uw_snprint_addr(char *str, size_t len, unsigned long address,
			       int flags, struct task_struct *task,
			       struct context *c)
{
	struct stp_uw_usym *u;
	const char *pre, *post, *ex, *mod, *name;
	char *filename = NULL;
	unsigned long linenumber = 0, off = 0;
	/* What is named: the call before a return address (see the top). */
	unsigned long lookup = (flags & STP_UW_SYM_CALLER) && address
		? address - 1 : address;
	int f;

	flags &= ~STP_UW_SYM_CALLER;
	/* Kernel addresses, and forms that name no symbol: SystemTap's. */
	if (!task || !(flags & (_STP_SYM_SYMBOL | _STP_SYM_MODULE)) ||
	    !stp_uw_usym_scratch)
		return stp_uw_stock_snprint_addr(str, len, address, flags, task, c);

	u = &this_cpu_ptr(stp_uw_usym_scratch)->u;
	stp_uw_usym_lookup(task, address, lookup, STP_UW_USYM_NAME, u);
	if (_stp_is_compat_task2(task))
		address &= 0xffffffffUL;
	pre = (flags & _STP_SYM_PRE_SPACE) ? " " : "";
	ex = ((flags & _STP_SYM_INEXACT) && (flags & _STP_SYM_SYMBOL))
		? " (inexact)" : "";
	post = (flags & _STP_SYM_POST_SPACE) ? " "
		: (flags & _STP_SYM_NEWLINE) ? "\n" : "";
	name = u->contains || !stp_uw_usym_explicit ? u->name : NULL;
	if (name && name[0] == '.')
		name++;
	if (name)
		off = address - u->sym_start;
	mod = u->path;
	if (mod && (flags & _STP_SYM_MODULE_BASENAME) && strrchr(mod, '/'))
		mod = strrchr(mod, '/') + 1;
	if (name && (flags & (_STP_SYM_LINENUMBER | _STP_SYM_FILENAME)))
		linenumber = stp_uw_stock_linenumber(lookup, task, &filename,
						     !!(flags & _STP_SYM_FILENAME), c);

	f = flags & ~_STP_SYM_INEXACT;
	if (f == _STP_SYM_SYMBOL) {
		if (name)
			return _stp_snprintf(str, len, "%s%s%s%s", pre, name, ex, post);
		return _stp_snprintf(str, len, "%s%p%s%s", pre, (int64_t)address,
				     ex, post);
	}

	if (name) {
		char *at = this_cpu_ptr(stp_uw_usym_scratch)->at;

		at[0] = '\0';
		if (filename && linenumber)
			snprintf(at, STP_UW_USYM_AT_MAX, " at %.128s:%lu", filename, linenumber);
		else if (filename)
			snprintf(at, STP_UW_USYM_AT_MAX, " at %.128s", filename);
		if (f == _STP_SYM_FULL || f == _STP_SYM_FULLER
		    || (f & _STP_SYM_HEX_SYMBOL))
			return _stp_snprintf(str, len, "%s%p : %s+%#lx/%#lx%s [%s]%s%s",
					     pre, (int64_t)address, name, off,
					     u->sym_size, at, mod, ex, post);
		if (f & _STP_SYM_SIZE)
			return _stp_snprintf(str, len, "%s%s+%#lx/%#lx [%s]%s%s",
					     pre, name, off, u->sym_size, mod,
					     ex, post);
		if (f & _STP_SYM_MODULE)
			return _stp_snprintf(str, len, "%s%s+%#lx [%s]%s%s", pre,
					     name, off, mod, ex, post);
		return _stp_snprintf(str, len, "%s%s+%#lx%s%s", pre, name, off,
				     ex, post);
	}

	/* No symbol contains the address: object and file offset. */
	if (mod && u->have_foff && (f & _STP_SYM_HEX_SYMBOL))
		return _stp_snprintf(str, len, "%s%p : [%s+%#lx]%s%s", pre,
				     (int64_t)address, mod, u->foff, ex, post);
	if (mod && u->have_foff)
		return _stp_snprintf(str, len, "%s[%s+%#lx]%s%s", pre, mod, u->foff,
				     ex, post);
	if (mod && (f & _STP_SYM_HEX_SYMBOL))
		return _stp_snprintf(str, len, "%s%p : [%s]%s%s", pre,
				     (int64_t)address, mod, ex, post);
	if (mod)
		return _stp_snprintf(str, len, "%s[%s]%s%s", pre, mod, ex, post);
	return _stp_snprintf(str, len, "%s%p%s%s", pre, (int64_t)address, ex, post);
}

static void stp_uw_print_addr(unsigned long address, int flags,
			      struct task_struct *task, struct context *c)
{
	if (!task)
		stp_uw_stock_snprint_addr(NULL, 0, address,
					  flags & ~STP_UW_SYM_CALLER, task, c);
	else
		stp_uw_snprint_addr(NULL, 0, address, flags, task, c);
}

/* The build-id of the object containing user address addr of the current
 * task, as lowercase hex, into buf (at least 2 * STP_UW_BUILD_ID_MAX + 1
 * bytes); "" if not known. */
static void stp_uw_ubuildid(char *buf, size_t len, unsigned long addr)
{
	struct stp_uw_usym *u;
	unsigned i;

	buf[0] = '\0';
	if (!current->mm || !stp_uw_usym_scratch)
		return;
	u = &this_cpu_ptr(stp_uw_usym_scratch)->u;
	stp_uw_usym_lookup(current, addr, addr, STP_UW_USYM_BUILDID, u);
	for (i = 0; i < u->build_id_len && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", u->build_id[i]);
}

/* File offset of user address addr in its object, or -1. */
static long long stp_uw_umodoffset(unsigned long addr)
{
	struct stp_uw_usym *u;

	if (!current->mm || !stp_uw_usym_scratch)
		return -1;
	u = &this_cpu_ptr(stp_uw_usym_scratch)->u;
	stp_uw_usym_lookup(current, addr, addr, STP_UW_USYM_FOFF, u);
	return u->path && u->have_foff ? (long long)u->foff : -1;
}

/* Every later caller names user addresses, and finds their objects,
 * through the functions above; stock's callers pass the probe context
 * where its functions take it. */
#if STP_UW_STOCK_SYM_CONTEXT
#define _stp_snprint_addr stp_uw_snprint_addr
#define _stp_print_addr stp_uw_print_addr
#else
#define _stp_snprint_addr(str, len, address, flags, task) \
	stp_uw_snprint_addr(str, len, address, flags, task, NULL)
#define _stp_print_addr(address, flags, task) \
	stp_uw_print_addr(address, flags, task, NULL)
#endif
#define _stp_umod_lookup stp_uw_umod_lookup

#endif /* STP_UW_USYM_C */
