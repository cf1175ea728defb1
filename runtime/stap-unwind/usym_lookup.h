/* stap-unwind: what is known about one user address, and the working
 * memory of finding it out: the types the parts of the naming of user
 * addresses share (usym.c lists the parts).
 */
#ifndef STP_UW_USYM_LOOKUP_H
#define STP_UW_USYM_LOOKUP_H

#include "stap-unwind/vma_map.h"
#include "stap-unwind/usym_elf.h"

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

/* What stp_uw_usym_lookup() must find out (the rest costs reads). */
#define STP_UW_USYM_NAME	1	/* an honest symbol */
#define STP_UW_USYM_FOFF	2	/* the file offset, also if named */
#define STP_UW_USYM_BUILDID	4	/* the build-id */
#define STP_UW_USYM_COMPAT	8	/* (not a want) a 32-bit process */

#endif /* STP_UW_USYM_LOOKUP_H */
