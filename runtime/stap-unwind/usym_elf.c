/* stap-unwind: the ELF reader's two read sources in the kernel, and an
 * object's .dynsym read from the current process's memory (usym_elf.h).
 */
#ifndef STP_UW_USYM_ELF_C
#define STP_UW_USYM_ELF_C

#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include "stap-unwind/usym_elf.h"
#include "stap-unwind/uread.h"

#define STP_UW_UELF_MAX_BUCKETS	65536	/* DT_GNU_HASH buckets examined */
#define STP_UW_UELF_MAX_CHAIN	65536	/* DT_GNU_HASH chain words examined */
#define STP_UW_UELF_MAX_SYMS	65536	/* .dynsym entries examined */

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

static int stp_uw_file_read(void *f, uint64_t off, void *buf, uint32_t len)
{
	loff_t pos = off;

	return kernel_read(f, buf, len, &pos) == (ssize_t)len ? 0 : -EIO;
}

/* The reader's source for the current process's memory (probe context);
 * ctx points to the compat flag. */
static int stp_uw_uelf_read(void *compat, uint64_t addr, void *buf,
			    uint32_t len)
{
	return stp_uw_uread(buf, addr, len, *(const int *)compat);
}

static int stp_uw_uelf_scan(struct stp_uw_uelf *o, unsigned long base,
			    int compat)
{
	int rc;

	o->compat = compat;
	uw_elf_src_mem(&o->src, stp_uw_uelf_read, &o->compat, base);
	rc = uw_elf_read_header(&o->src, &o->h);
	if (rc == UW_ELFMEM_OK)
		rc = uw_elf_read_phdrs(&o->src, &o->h, &o->p);
	if (rc == UW_ELFMEM_UNREADABLE)
		return -EFAULT;
	if (rc != UW_ELFMEM_OK || (o->h.is64 && compat))
		return -ENOEXEC;
	o->bias = o->src.bias;
	return 0;
}

static int stp_uw_uelf_file_offset(const struct stp_uw_uelf *o,
				   unsigned long addr, unsigned long *off)
{
	uint64_t at;

	if (uw_elf_file_offset(&o->p, addr - o->bias, 1, &at))
		return -ENOENT;
	*off = at;
	return 0;
}

static unsigned stp_uw_uelf_build_id(struct stp_uw_uelf *o, unsigned char *id,
				     unsigned max)
{
	uint32_t len;

	return uw_elf_build_id(&o->src, &o->p, id, max, &len) == 1 ? len : 0;
}

/* A pointer from .dynamic, as a runtime address (0: not in the object). */
static unsigned long stp_uw_udyn_ptr(const struct stp_uw_uelf *o,
				     const struct uw_elf_dyn *d,
				     enum uw_elf_dyn_tag tag)
{
	uint64_t link;

	if (!(d->present & (1u << tag))
	    || !uw_elf_dyn_addr(&o->src, &o->p, d->val[tag], &link))
		return 0;
	return link + o->bias;
}

/* Number of symbols from DT_GNU_HASH: one past the highest symbol index
 * reached from any bucket's chain. */
static int stp_uw_ugnu_hash_count(const struct stp_uw_uelf *o, int compat,
				  unsigned long h, unsigned long *nsyms,
				  union stp_uw_symbuf *scratch)
{
	u32 hdr[4], *const buf = scratch->words;
	unsigned long nb, symoff, bloom, buckets, i, j, max = 0, chain;
	unsigned steps = 0;

	if (stp_uw_uread(hdr, h, sizeof(hdr), compat))
		return -EFAULT;
	nb = hdr[0];
	symoff = hdr[1];
	bloom = hdr[2];
	if (nb == 0 || nb > STP_UW_UELF_MAX_BUCKETS || bloom > (1UL << 20))
		return -ENOEXEC;
	buckets = h + 16 + bloom * (o->h.is64 ? 8 : 4);
	for (i = 0; i < nb; i += 64) {		/* bound: MAX_BUCKETS / 64 */
		unsigned long cnt = min(nb - i, 64UL);

		if (stp_uw_uread(buf, buckets + i * 4, cnt * 4, compat))
			return -EFAULT;
		for (j = 0; j < cnt; j++)
			if (buf[j] > max)
				max = buf[j];
	}
	if (max < symoff) {
		*nsyms = symoff;
		return 0;
	}
	chain = buckets + nb * 4;
	for (;;) {				/* bound: MAX_CHAIN words */
		unsigned long cnt = 64;

		if (stp_uw_uread(buf, chain + (max - symoff) * 4, cnt * 4, compat)) {
			/* near the end of the mapping: one word at a time */
			cnt = 1;
			if (stp_uw_uread(buf, chain + (max - symoff) * 4, 4, compat))
				return -EFAULT;
		}
		for (j = 0; j < cnt; j++, max++) {
			if (buf[j] & 1) {
				*nsyms = max + 1;
				return 0;
			}
			if (++steps > STP_UW_UELF_MAX_CHAIN)
				return -ENOEXEC;
		}
	}
}

static int stp_uw_udynsym_find(struct stp_uw_uelf *o, int compat,
			       struct stp_uw_udynsym *ds, struct uw_elf_dyn *dyn,
			       union stp_uw_symbuf *scratch)
{
	unsigned long hash, gnu_hash, syment;
	struct uw_elf_dyn *const d = dyn;

	memset(ds, 0, sizeof(*ds));
	if (uw_elf_read_dynamic(&o->src, &o->h, &o->p, d) < 0)
		return -EFAULT;
	ds->symtab = stp_uw_udyn_ptr(o, d, UW_ELF_DYN_SYMTAB);
	ds->strtab = stp_uw_udyn_ptr(o, d, UW_ELF_DYN_STRTAB);
	ds->strsz = d->present & (1u << UW_ELF_DYN_STRSZ) ? d->val[UW_ELF_DYN_STRSZ] : 0;
	syment = d->present & (1u << UW_ELF_DYN_SYMENT) ? d->val[UW_ELF_DYN_SYMENT] : 0;
	hash = stp_uw_udyn_ptr(o, d, UW_ELF_DYN_HASH);
	gnu_hash = stp_uw_udyn_ptr(o, d, UW_ELF_DYN_GNU_HASH);
	if (!ds->symtab || !ds->strtab || !ds->strsz)
		return -ENOENT;
	if (syment && syment != (o->h.is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym)))
		return -ENOEXEC;
	if (hash) {
		u32 h[2];

		if (stp_uw_uread(h, hash, sizeof(h), compat))
			return -EFAULT;
		ds->nsyms = h[1];
	} else if (gnu_hash) {
		int rc = stp_uw_ugnu_hash_count(o, compat, gnu_hash, &ds->nsyms,
						scratch);

		if (rc)
			return rc;
	} else {
		return -ENOENT;
	}
	if (ds->nsyms > STP_UW_UELF_MAX_SYMS)
		ds->nsyms = STP_UW_UELF_MAX_SYMS;
	return 0;
}

/* Copy the NUL-terminated string at addr (at most max - 1 bytes, and not
 * past limit) into buf.  Returns 0, or -EFAULT if no byte could be read. */
static int stp_uw_ustr(char *buf, unsigned max, unsigned long addr,
		       unsigned long limit, int compat)
{
	unsigned got = 0;

	while (got < max - 1 && addr + got < limit) {	/* bound: max */
		unsigned want = min_t(unsigned long, 32, max - 1 - got);
		unsigned k;

		want = min_t(unsigned long, want, limit - (addr + got));
		if (stp_uw_uread(buf + got, addr + got, want, compat)) {
			/* the string may end just before an unreadable page */
			if (stp_uw_uread(buf + got, addr + got, 1, compat))
				break;
			want = 1;
		}
		for (k = 0; k < want; k++)
			if (buf[got + k] == '\0')
				return 0;
		got += want;
	}
	buf[got] = '\0';
	return got ? 0 : -EFAULT;
}

static int stp_uw_udynsym_lookup(const struct stp_uw_uelf *o, int compat,
				 const struct stp_uw_udynsym *ds,
				 unsigned long addr, unsigned long starts_at,
				 char *name, unsigned max,
				 unsigned long *start, unsigned long *size,
				 int *contains, union stp_uw_symbuf *symbuf)
{
	union stp_uw_symbuf *const b = symbuf;
	unsigned long i, entsz = o->h.is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	/* [0]: containing, [1]: nearest before, [2]: starting at starts_at */
	unsigned long best_name[3] = { 0, 0, 0 }, best_start[3] = { 0, 0, 0 };
	unsigned long best_size[3] = { 0, 0, 0 };
	int found[3] = { 0, 0, 0 }, best_global[3] = { 0, 0, 0 }, k;

	for (i = 0; i < ds->nsyms; i += 16) {	/* bound: MAX_SYMS / 16 */
		unsigned long cnt = min(ds->nsyms - i, 16UL), j;

		if (stp_uw_uread(b, ds->symtab + i * entsz, cnt * entsz, compat)) {
			if (found[0] || found[1] || found[2])
				break;
			return -EFAULT;
		}
		for (j = 0; j < cnt; j++) {
			unsigned long value, sz, nm, s;
			unsigned info, shndx, type, bind;
			int global;

			if (o->h.is64) {
				value = b->s64[j].st_value; sz = b->s64[j].st_size;
				nm = b->s64[j].st_name; info = b->s64[j].st_info;
				shndx = b->s64[j].st_shndx;
			} else {
				value = b->s32[j].st_value; sz = b->s32[j].st_size;
				nm = b->s32[j].st_name; info = b->s32[j].st_info;
				shndx = b->s32[j].st_shndx;
			}
			type = ELF_ST_TYPE(info);
			bind = ELF_ST_BIND(info);
			if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE
			    || (type != STT_FUNC && type != STT_OBJECT
				&& type != STT_GNU_IFUNC) || nm >= ds->strsz)
				continue;
			s = value + o->bias;
			global = bind == STB_GLOBAL;
			if (starts_at && s == starts_at && sz)
				k = 2;
			else if (addr < s)
				continue;
			else
				k = sz && addr - s < sz ? 0 : 1;
			if (found[k] && (k == 1 ? s < best_start[1] ||
					 (s == best_start[1] && (best_global[1] || !global))
					 : best_global[k] || !global))
				continue;
			found[k] = 1;
			best_global[k] = global;
			best_name[k] = nm;
			best_start[k] = s;
			best_size[k] = sz;
		}
		if (found[0] && best_global[0])
			break;
	}
	k = found[0] ? 0 : found[2] ? 2 : 1;
	if (!found[k])
		return -ENOENT;
	if (stp_uw_ustr(name, max, ds->strtab + best_name[k],
			ds->strtab + ds->strsz, compat) || name[0] == '\0')
		return -EFAULT;
	*start = best_start[k];
	*size = best_size[k];
	*contains = k != 1;
	return 0;
}

#endif /* STP_UW_USYM_ELF_C */
