/* stap-unwind: ELF objects for the runtime, through the core's one ELF
 * reader (the core's elfmem.h): its two read sources here, and an object's
 * dynamic symbol table, read from the memory of the current process in
 * probe context.
 *
 * The sources: a file (stp_uw_file_read: kernel_read, process context;
 * vma_object.c's build-ids and bias, usym_dmod.c's -d symbol sizes) and the
 * current process's memory (stp_uw_uelf_read: stp_uw_uread of a checked
 * range, probe context; the names of objects without -d data).
 *
 * Used by usym.c to name user addresses without -d data: a symbol is
 * only ever reported together with its own extent (st_size).
 *
 * Rules: every read of user memory is stp_uw_uread() (stap-unwind/uread.h)
 * of a checked range, every loop is bounded by a constant (usym_elf.c),
 * nothing is allocated, hostile or half-mapped objects give an error, never a fault.
 * Only the current task's memory can be read (stp_uw_uread reads current).
 */
#ifndef STP_UW_USYM_ELF_H
#define STP_UW_USYM_ELF_H

#include <linux/types.h>
#include <linux/elf.h>
#include "stap-unwind/core.h"	/* the ELF reader (the core's elfmem.h) */

#define STP_UW_UELF_NAME_MAX	256	/* bytes of a symbol name kept */

/* The reader's source for a file f (ctx): len bytes at offset off.
 * Process context. */
static int stp_uw_file_read(void *f, uint64_t off, void *buf, uint32_t len);

/* An ELF object mapped in the current process, as the reader saw it. */
struct stp_uw_uelf {
	int compat;			/* the reader's ctx: keep in place */
	struct uw_elf_src src;
	struct uw_elf_hdr h;
	struct uw_elf_phdrs p;
	unsigned long bias;		/* runtime - link-time address */
};

/* Describe the ELF object whose header (file offset 0) is mapped at base.
 * 0, -EFAULT (a read failed) or -ENOEXEC. */
static int stp_uw_uelf_scan(struct stp_uw_uelf *o, unsigned long base,
			    int compat);

/* File offset of runtime address addr, from the PT_LOAD holding it in its
 * file-backed part; -ENOENT if none (bss, or outside the object). */
static int stp_uw_uelf_file_offset(const struct stp_uw_uelf *o,
				   unsigned long addr, unsigned long *off);

/* The GNU build-id from the object's PT_NOTE segments; its length, or 0. */
static unsigned stp_uw_uelf_build_id(struct stp_uw_uelf *o, unsigned char *id,
				     unsigned max);

/* The dynamic symbol table, as found through PT_DYNAMIC. */
struct stp_uw_udynsym {
	unsigned long symtab, strtab, strsz;	/* runtime */
	unsigned long nsyms;
};

/* What .dynsym's readers read at once (384 bytes): a batch of symbols
 * (stp_uw_udynsym_lookup), or of DT_GNU_HASH words (stp_uw_udynsym_find);
 * the caller's, to keep them off the kernel stack. */
union stp_uw_symbuf {
	Elf64_Sym s64[16];
	Elf32_Sym s32[16];
	u32 words[64];
};

/* The object's .dynsym from its dynamic section (read into *dyn, the
 * caller's, like scratch). */
static int stp_uw_udynsym_find(struct stp_uw_uelf *o, int compat,
			       struct stp_uw_udynsym *ds, struct uw_elf_dyn *dyn,
			       union stp_uw_symbuf *scratch);

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
				 int *contains, union stp_uw_symbuf *symbuf);

#endif /* STP_UW_USYM_ELF_H */
