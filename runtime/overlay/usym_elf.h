/* stap-unwind: an ELF object's headers, dynamic symbol table and build-id,
 * read from the memory of the current process in probe context.
 *
 * Used by usym.c to name user addresses honestly without -d data: a
 * symbol is only ever reported together with its own extent (st_size).
 *
 * Rules: every read of user memory is copy_from_user_nofault() of a checked
 * range, every loop is bounded by a constant below, nothing is allocated,
 * hostile or half-mapped objects give an error, never a fault.  Only the
 * current task's memory can be read (copy_from_user_nofault reads current).
 */
#ifndef STP_UW_USYM_ELF_H
#define STP_UW_USYM_ELF_H

#include <linux/elf.h>
#include <linux/uaccess.h>

#define STP_UW_UELF_MAX_PHNUM	64	/* program headers examined */
#define STP_UW_UELF_MAX_LOADS	8 	/* PT_LOAD entries kept */
#define STP_UW_UELF_MAX_NOTES	4	/* PT_NOTE segments kept */
#define STP_UW_UELF_MAX_NOTE_ITEMS 16	/* notes examined per segment */
#define STP_UW_UELF_MAX_DYN	512	/* PT_DYNAMIC entries examined */
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
#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif
#ifndef DT_GNU_HASH
#define DT_GNU_HASH 0x6ffffef5
#endif

struct stp_uw_uelf {
	unsigned long base;		/* runtime address of the ELF header */
	unsigned long bias;		/* runtime - link-time address */
	unsigned long lo, hi;		/* runtime extent of the PT_LOADs */
	int is64;
	unsigned e_type;
	unsigned nloads, nnotes;
	struct {
		unsigned long vaddr, offset, filesz, memsz;
	} load[STP_UW_UELF_MAX_LOADS];
	struct {
		unsigned long vaddr, size;
	} note[STP_UW_UELF_MAX_NOTES];
	unsigned long dyn_vaddr, dyn_size;	/* link-time; size 0: none */
};

/* Read len bytes of the current process at addr; 0 or -EFAULT. */
static int stp_uw_uread(void *dst, unsigned long addr, size_t len, int compat)
{
	unsigned long limit = compat ? 0x100000000UL : TASK_SIZE_MAX;

	if (len == 0 || addr >= limit || len > limit - addr)
		return -EFAULT;
	return copy_from_user_nofault(dst, (const void __user *)addr, len)
		? -EFAULT : 0;
}

/* Describe the ELF object whose header (file offset 0) is mapped at base. */
static int stp_uw_uelf_scan(struct stp_uw_uelf *o, unsigned long base,
			    int compat)
{
	union { Elf64_Ehdr e64; Elf32_Ehdr e32; } eh;
	union { Elf64_Phdr p64; Elf32_Phdr p32; } ph;
	unsigned long phoff, phentsize, phnum, i, link0 = 0;
	int have_link0 = 0;

	memset(o, 0, sizeof(*o));
	o->base = base;
	if (stp_uw_uread(&eh, base, sizeof(eh.e32), compat))
		return -EFAULT;
	if (memcmp(eh.e32.e_ident, ELFMAG, SELFMAG) != 0
	    || eh.e32.e_ident[EI_DATA] != ELFDATA2LSB)
		return -ENOEXEC;
	if (eh.e32.e_ident[EI_CLASS] == ELFCLASS64 && !compat) {
		if (stp_uw_uread(&eh, base, sizeof(eh.e64), compat))
			return -EFAULT;
		o->is64 = 1;
		o->e_type = eh.e64.e_type;
		phoff = eh.e64.e_phoff;
		phentsize = eh.e64.e_phentsize;
		phnum = eh.e64.e_phnum;
		if (phentsize != sizeof(Elf64_Phdr))
			return -ENOEXEC;
	} else if (eh.e32.e_ident[EI_CLASS] == ELFCLASS32) {
		o->e_type = eh.e32.e_type;
		phoff = eh.e32.e_phoff;
		phentsize = eh.e32.e_phentsize;
		phnum = eh.e32.e_phnum;
		if (phentsize != sizeof(Elf32_Phdr))
			return -ENOEXEC;
	} else {
		return -ENOEXEC;
	}
	if ((o->e_type != ET_EXEC && o->e_type != ET_DYN)
	    || phnum == 0 || phnum > STP_UW_UELF_MAX_PHNUM || phoff > 65536)
		return -ENOEXEC;

	for (i = 0; i < phnum; i++) {		/* bound: MAX_PHNUM */
		unsigned long type, vaddr, offset, filesz, memsz;

		if (stp_uw_uread(&ph, base + phoff + i * phentsize, phentsize,
				 compat))
			return -EFAULT;
		if (o->is64) {
			type = ph.p64.p_type; vaddr = ph.p64.p_vaddr;
			offset = ph.p64.p_offset; filesz = ph.p64.p_filesz;
			memsz = ph.p64.p_memsz;
		} else {
			type = ph.p32.p_type; vaddr = ph.p32.p_vaddr;
			offset = ph.p32.p_offset; filesz = ph.p32.p_filesz;
			memsz = ph.p32.p_memsz;
		}
		if (type == PT_LOAD && o->nloads < STP_UW_UELF_MAX_LOADS) {
			if (!have_link0 && offset < PAGE_SIZE && vaddr >= offset) {
				/* link-time address of file offset 0 */
				link0 = (vaddr - offset) & PAGE_MASK;
				have_link0 = 1;
			}
			o->load[o->nloads].vaddr = vaddr;
			o->load[o->nloads].offset = offset;
			o->load[o->nloads].filesz = filesz;
			o->load[o->nloads].memsz = memsz;
			o->nloads++;
		} else if (type == PT_DYNAMIC && !o->dyn_size) {
			o->dyn_vaddr = vaddr;
			o->dyn_size = filesz < memsz ? filesz : memsz;
		} else if (type == PT_NOTE && o->nnotes < STP_UW_UELF_MAX_NOTES) {
			o->note[o->nnotes].vaddr = vaddr;
			o->note[o->nnotes].size = filesz;
			o->nnotes++;
		}
	}
	if (!have_link0)
		return -ENOEXEC;
	o->bias = base - link0;
	if (o->e_type == ET_EXEC && o->bias != 0)
		return -ENOEXEC;
	o->lo = ULONG_MAX;
	for (i = 0; i < o->nloads; i++) {
		unsigned long s = o->load[i].vaddr + o->bias;
		unsigned long e = s + o->load[i].memsz;

		if (e < s)
			return -ENOEXEC;
		if (s < o->lo)
			o->lo = s;
		if (e > o->hi)
			o->hi = e;
	}
	return 0;
}

/* File offset of runtime address addr, from the PT_LOAD holding it in its
 * file-backed part; -ENOENT if none (bss, or outside the object). */
static int stp_uw_uelf_file_offset(const struct stp_uw_uelf *o,
				   unsigned long addr, unsigned long *off)
{
	unsigned long v = addr - o->bias, i;

	for (i = 0; i < o->nloads; i++) {
		if (v >= o->load[i].vaddr
		    && v - o->load[i].vaddr < o->load[i].filesz) {
			*off = v - o->load[i].vaddr + o->load[i].offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* The GNU build-id from the object's PT_NOTE segments; its length, or 0. */
static unsigned stp_uw_uelf_build_id(const struct stp_uw_uelf *o, int compat,
				     unsigned char *id, unsigned max)
{
	unsigned n, k;

	for (n = 0; n < o->nnotes; n++) {	/* bound: MAX_NOTES */
		unsigned long p = o->note[n].vaddr + o->bias;
		unsigned long end = p + o->note[n].size;

		if (end < p || p < o->lo || end > o->hi)
			continue;
		for (k = 0; k < STP_UW_UELF_MAX_NOTE_ITEMS && p + 12 <= end; k++) {
			u32 hdr[3];
			char name[4];
			unsigned long namesz, descsz, desc;

			if (stp_uw_uread(hdr, p, sizeof(hdr), compat))
				break;
			namesz = hdr[0];
			descsz = hdr[1];
			if (namesz > 256 || descsz > 4096)
				break;
			desc = p + 12 + ((namesz + 3) & ~3UL);
			if (hdr[2] == NT_GNU_BUILD_ID && namesz == 4
			    && desc + descsz <= end
			    && stp_uw_uread(name, p + 12, 4, compat) == 0
			    && memcmp(name, "GNU", 4) == 0 && descsz > 0) {
				if (descsz > max)
					descsz = max;
				if (stp_uw_uread(id, desc, descsz, compat))
					return 0;
				return descsz;
			}
			p = desc + ((descsz + 3) & ~3UL);
		}
	}
	return 0;
}

/* The dynamic symbol table, as found through PT_DYNAMIC. */
struct stp_uw_udynsym {
	unsigned long symtab, strtab, strsz;	/* runtime */
	unsigned long nsyms;
};

/* A pointer from .dynamic: ld.so relocates them in place, the kernel-mapped
 * image before ld.so ran (and the vdso) has link-time ones. */
static unsigned long stp_uw_udyn_ptr(const struct stp_uw_uelf *o,
				     unsigned long v)
{
	if (v >= o->lo && v < o->hi)
		return v;
	if (v + o->bias >= o->lo && v + o->bias < o->hi)
		return v + o->bias;
	return 0;
}

/* Number of symbols from DT_GNU_HASH: one past the highest symbol index
 * reached from any bucket's chain. */
static int stp_uw_ugnu_hash_count(const struct stp_uw_uelf *o, int compat,
				  unsigned long h, unsigned long *nsyms)
{
	u32 hdr[4], buf[64];
	unsigned long nb, symoff, bloom, buckets, i, j, max = 0, chain;
	unsigned steps = 0;

	if (stp_uw_uread(hdr, h, sizeof(hdr), compat))
		return -EFAULT;
	nb = hdr[0];
	symoff = hdr[1];
	bloom = hdr[2];
	if (nb == 0 || nb > STP_UW_UELF_MAX_BUCKETS || bloom > (1UL << 20))
		return -ENOEXEC;
	buckets = h + 16 + bloom * (o->is64 ? 8 : 4);
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

static int stp_uw_udynsym_find(const struct stp_uw_uelf *o, int compat,
			       struct stp_uw_udynsym *ds)
{
	unsigned long i, n, hash = 0, gnu_hash = 0, syment = 0;
	unsigned long d[2 * 16];

	memset(ds, 0, sizeof(*ds));
	if (!o->dyn_size)
		return -ENOENT;
	n = o->dyn_size / (o->is64 ? 16 : 8);
	if (n > STP_UW_UELF_MAX_DYN)
		n = STP_UW_UELF_MAX_DYN;
	for (i = 0; i < n; i += 16) {		/* bound: MAX_DYN / 16 */
		unsigned long cnt = min(n - i, 16UL), j;
		unsigned long at = o->dyn_vaddr + o->bias + i * (o->is64 ? 16 : 8);
		int end = 0;

		if (o->is64) {
			if (stp_uw_uread(d, at, cnt * 16, compat))
				return -EFAULT;
		} else {
			u32 d32[2 * 16];

			if (stp_uw_uread(d32, at, cnt * 8, compat))
				return -EFAULT;
			for (j = 0; j < 2 * cnt; j++)
				d[j] = d32[j];
		}
		for (j = 0; j < cnt; j++) {
			unsigned long tag = d[2 * j], val = d[2 * j + 1];

			if (tag == DT_NULL) {
				end = 1;
				break;
			}
			switch (tag) {
			case DT_SYMTAB: ds->symtab = stp_uw_udyn_ptr(o, val); break;
			case DT_STRTAB: ds->strtab = stp_uw_udyn_ptr(o, val); break;
			case DT_STRSZ: ds->strsz = val; break;
			case DT_SYMENT: syment = val; break;
			case DT_HASH: hash = stp_uw_udyn_ptr(o, val); break;
			case DT_GNU_HASH: gnu_hash = stp_uw_udyn_ptr(o, val); break;
			}
		}
		if (end)
			break;
	}
	if (!ds->symtab || !ds->strtab || !ds->strsz)
		return -ENOENT;
	if (syment && syment != (o->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym)))
		return -ENOEXEC;
	if (hash) {
		u32 h[2];

		if (stp_uw_uread(h, hash, sizeof(h), compat))
			return -EFAULT;
		ds->nsyms = h[1];
	} else if (gnu_hash) {
		int rc = stp_uw_ugnu_hash_count(o, compat, gnu_hash, &ds->nsyms);

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
				 int *contains)
{
	union { Elf64_Sym s64[16]; Elf32_Sym s32[16]; } b;
	unsigned long i, entsz = o->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	/* [0]: containing, [1]: nearest before, [2]: starting at starts_at */
	unsigned long best_name[3] = { 0, 0, 0 }, best_start[3] = { 0, 0, 0 };
	unsigned long best_size[3] = { 0, 0, 0 };
	int found[3] = { 0, 0, 0 }, best_global[3] = { 0, 0, 0 }, k;

	for (i = 0; i < ds->nsyms; i += 16) {	/* bound: MAX_SYMS / 16 */
		unsigned long cnt = min(ds->nsyms - i, 16UL), j;

		if (stp_uw_uread(&b, ds->symtab + i * entsz, cnt * entsz, compat)) {
			if (found[0] || found[1] || found[2])
				break;
			return -EFAULT;
		}
		for (j = 0; j < cnt; j++) {
			unsigned long value, sz, nm, s;
			unsigned info, shndx, type, bind;
			int global;

			if (o->is64) {
				value = b.s64[j].st_value; sz = b.s64[j].st_size;
				nm = b.s64[j].st_name; info = b.s64[j].st_info;
				shndx = b.s64[j].st_shndx;
			} else {
				value = b.s32[j].st_value; sz = b.s32[j].st_size;
				nm = b.s32[j].st_name; info = b.s32[j].st_info;
				shndx = b.s32[j].st_shndx;
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
