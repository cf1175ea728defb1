/* stap-unwind: ELF objects for the runtime, through the core's one ELF
 * reader (the core's elfmem.h): its two read sources here, and an object's
 * dynamic symbol table, read from the memory of the current process in
 * probe context.
 *
 * The sources: a file (stp_uw_file_read: kernel_read, process context;
 * vma_map.c's build-ids and bias, usym.c's -d symbol sizes) and the
 * current process's memory (stp_uw_uelf_read: stp_uw_uread of a checked
 * range, probe context; the names of objects without -d data).
 *
 * Used by usym.c to name user addresses honestly without -d data: a
 * symbol is only ever reported together with its own extent (st_size).
 *
 * Rules: every read of user memory is stp_uw_uread() (stap-unwind/uread.h)
 * of a checked range, every loop is bounded by a constant below, nothing is
 * allocated, hostile or half-mapped objects give an error, never a fault.
 * Only the current task's memory can be read (stp_uw_uread reads current).
 */
#ifndef STP_UW_USYM_ELF_H
#define STP_UW_USYM_ELF_H

#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include "stap-unwind/uread.h"

#include "stap-unwind/core.h"	/* the ELF reader (the core's elfmem.h) */

#define STP_UW_UELF_MAX_BUCKETS	65536	/* DT_GNU_HASH buckets examined */
#define STP_UW_UELF_MAX_CHAIN	65536	/* DT_GNU_HASH chain words examined */
#define STP_UW_UELF_MAX_SYMS	65536	/* .dynsym entries examined */
#define STP_UW_UELF_NAME_MAX	256	/* bytes of a symbol name kept */
#ifndef STP_UW_BUILD_ID_MAX		/* also in vma_map.h */
#define STP_UW_BUILD_ID_MAX	64
#endif

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

/* The reader's source for a file f (ctx): len bytes at offset off.
 * Process context. */
static int stp_uw_file_read(void *f, uint64_t off, void *buf, uint32_t len)
{
	loff_t pos = off;

	return kernel_read(f, buf, len, &pos) == (ssize_t)len ? 0 : -EIO;
}

/* An ELF object mapped in the current process, as the reader saw it. */
struct stp_uw_uelf {
	int compat;			/* the reader's ctx: keep in place */
	struct uw_elf_src src;
	struct uw_elf_hdr h;
	struct uw_elf_phdrs p;
	unsigned long bias;		/* runtime - link-time address */
};

/* The reader's source for the current process's memory (probe context);
 * ctx points to the compat flag. */
static int stp_uw_uelf_read(void *compat, uint64_t addr, void *buf,
			    uint32_t len)
{
	return stp_uw_uread(buf, addr, len, *(const int *)compat);
}

/* Describe the ELF object whose header (file offset 0) is mapped at base.
 * 0, -EFAULT (a read failed) or -ENOEXEC. */
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

/* File offset of runtime address addr, from the PT_LOAD holding it in its
 * file-backed part; -ENOENT if none (bss, or outside the object). */
static int stp_uw_uelf_file_offset(const struct stp_uw_uelf *o,
				   unsigned long addr, unsigned long *off)
{
	const struct uw_elf_seg *l = uw_elf_load_of(&o->p, addr - o->bias, 1);

	if (!l)
		return -ENOENT;
	*off = addr - o->bias - l->vaddr + l->offset;
	return 0;
}

/* The GNU build-id from the object's PT_NOTE segments; its length, or 0. */
static unsigned stp_uw_uelf_build_id(struct stp_uw_uelf *o, unsigned char *id,
				     unsigned max)
{
	uint32_t len;

	return uw_elf_build_id(&o->src, &o->p, id, max, &len) == 1 ? len : 0;
}

/* The dynamic symbol table, as found through PT_DYNAMIC. */
struct stp_uw_udynsym {
	unsigned long symtab, strtab, strsz;	/* runtime */
	unsigned long nsyms;
};

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

/* What .dynsym's readers read at once (384 bytes): a batch of symbols
 * (stp_uw_udynsym_lookup), or of DT_GNU_HASH words (stp_uw_udynsym_find);
 * the caller's, to keep them off the kernel stack. */
union stp_uw_symbuf {
	Elf64_Sym s64[16];
	Elf32_Sym s32[16];
	u32 words[64];
};

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

/* The object's .dynsym from its dynamic section (read into *d, the
 * caller's, like scratch). */
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

/* The defined function or object symbol of .dynsym that names runtime
 * address addr: the one whose extent [st_value, st_value + st_size)
 * contains it (*contains = 1); else one that starts at starts_at, when
 * that is not 0 (*contains = 1: the caller looks up a return address's
 * byte before it, and a signal handler's return address starts a
 * trampoline); else the nearest one starting at or before addr
 * (*contains = 0: what SystemTap names such an address after).  A global
 * symbol is preferred to local or weak aliases.  Fills name
 * (NUL-terminated, possibly truncated), *start (runtime) and *size (its
 * st_size).  -ENOENT if none of these exists. */
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

#endif /* STP_UW_USYM_ELF_H */
