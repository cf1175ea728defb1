/* stap-unwind: the "unwind/unwind.h" of the SystemTap runtime overlay.
 *
 * What the rest of the SystemTap runtime and the translator's generated
 * code need from this header:
 *   - struct stp_unwind_cache (per-probe cache of unwound pcs, reset by the
 *     generated probe prologue through uwcache_{user,kernel}.state) and
 *     struct stp_unwind_context (uwcontext_{user,kernel}), both members of
 *     struct context (common_probe_context.h) when STP_NEED_UNWIND_DATA;
 *   - MAXBACKTRACE;
 *   - for line tables (sym.c, sym2.c with STP_NEED_LINE_DATA): the
 *     DW_EH_PE_* / DW_FORM_* / DW_LNCT_* constants and
 *     read_pointer(&p, end, encoding, user, compat_task).
 * The unwinding itself is the stap-unwind core (stap-unwind/core/ = runtime/unwind/),
 * driven by unwind.c and stack.c of this overlay.
 */
#ifndef _STP_UNWIND_H_
#define _STP_UNWIND_H_

/* The names of the per-probe types below, as this runtime spells them. */
#include "stap-unwind/features.h"

#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20
#endif

#if defined(STP_USE_DWARF_UNWINDER) || defined(STP_NEED_LINE_DATA)

#if defined(__x86_64__)
#include "unwind/x86_64.h"
#else
#error "stap-unwind: only x86_64 kernels are supported"
#endif

/* The core's DWARF numbers, under their standard names, plus the names
 * stock's sym.c and sym2.c use for four of them and for the two masks. */
#include "stap-unwind/core/dwarf.h"
#define DW_EH_PE_leb128		DW_EH_PE_uleb128
#define DW_EH_PE_data2		DW_EH_PE_udata2
#define DW_EH_PE_data4		DW_EH_PE_udata4
#define DW_EH_PE_data8		DW_EH_PE_udata8
#define DW_EH_PE_FORM		0x07	/* the size, without the sign bit */
#define DW_EH_PE_ADJUST		DW_EH_PE_APPL_MASK

/* DWARF 5 forms and line-table content types used by sym2.c. */
#define DW_FORM_udata		0x0f
#define DW_FORM_data16		0x1e
#define DW_FORM_line_strp	0x1f
#define DW_LNCT_path		0x1
#define DW_LNCT_directory_index	0x2

typedef unsigned long uleb128_t;
typedef signed long sleb128_t;

/* One number of the given DW_EH_PE encoding from the line-table bytes at
 * *pLoc, not reading at or past end (stap-unwind/read_pointer.c, on the
 * core's reader). */
static unsigned long read_pointer(const u8 **pLoc, const void *end,
				  signed ptrType, int user, int compat_task);

#endif /* STP_USE_DWARF_UNWINDER || STP_NEED_LINE_DATA */

#ifdef STP_USE_DWARF_UNWINDER

/* Where a user unwind starts: how the task entered the kernel (the rules
 * are in entry_x86.h). */
enum stp_uw_entry {
	STP_UW_ENTRY_NONE = 0,		/* no user context (kernel thread...) */
	STP_UW_ENTRY_USER,		/* probe hit in user mode (uprobe, perf
					 * or timer sample of user code) */
	STP_UW_ENTRY_INTERRUPT,		/* interrupt/exception from user mode */
	STP_UW_ENTRY_SYSCALL64,		/* 64-bit `syscall` instruction */
	STP_UW_ENTRY_INT80,		/* `int $0x80` outside the vdso */
	STP_UW_ENTRY_VSYSCALL32,	/* 32-bit syscall through the vdso's
					 * __kernel_vsyscall (sysenter, syscall
					 * or its int $0x80 fallback) */
	STP_UW_ENTRY_CALLER,		/* registers given by the script
					 * (print_ubacktrace(pc, sp, fp)) */
};

/* One frame as the SystemTap runtime sees it: a pt_regs with the frame's
 * pc (ip) and sp, plus which registers are known (DWARF numbering of the
 * frame's ABI, see the core's x86_64.h and i386.h). */
struct unwind_frame_info {
	struct pt_regs regs;
	u32 defined;
	u8 compat;		/* 32-bit process: i386 numbering, 4-byte addresses */
	u8 entry;		/* enum stp_uw_entry of the initial frame */
};

/* The vdso of the process being unwound, described from its mapped ELF
 * image (found once per unwind, see unwind.c). */
struct stp_uw_vdso {
	unsigned long start, end;	/* mapped text: [start, end) */
	unsigned long bias;		/* runtime = link-time + bias */
	unsigned long hdr_addr, hdr_size;	/* .eh_frame_hdr, link-time */
	int state;			/* 0 unknown, 1 usable, -1 none */
};

/* What stock's vma map says of a pc (_stp_umod_lookup), for one
 * find_tables (unwind.c). */
struct stp_uw_where {
	int looked;
	struct _stp_module *mod;	/* a -d module, or NULL */
	const char *name;		/* the mapped object, or NULL */
	unsigned long offset, vm_start, vm_end;
};

/* What find_tables' tracked source needs of the VMA tracking's record
 * (unwind.c: stp_uw_tracked_find). */
struct stp_uw_tracked {
	unsigned long base, start, end;
	const char *path;
	u64 ident;
	const struct stp_uw_eh_index *index;	/* see struct stp_uw_mapping */
	const struct uw_compiled_table *compiled;	/* (the same) */
	struct uw_step_counts __percpu *steps;		/* (the same) */
};

/* Host state of one unwind (the core's host pointer). */
struct stp_uw_host {
	struct task_struct *task;
	int compat;
	int warned;
	struct stp_uw_vdso vdso;
	const char *missing;		/* module without unwind data, for the warning */
	/* Last object found through VMA tracking (not named with -d): its
	 * tables from its own pages, for frames in [vm_start, vm_end). */
	unsigned long vm_start, vm_end;
	struct uw_tables vm_tables;
	/* find_tables' answers of stock's map and of the VMA tracking: here,
	 * not on the kernel stack under the ELF scan (the core's stack
	 * budget, unwind_core.h). */
	struct stp_uw_where where;
	struct stp_uw_tracked tracked;
};

/* Row cache (struct uw_cache of the core) of each probe context, kept
 * across unwinds: STP_UW_ROW_CACHE entries (240 bytes each; 0 disables it)
 * for tables the translator copied into the module (-d/--ldd), whose
 * identity (data pointers, bias) names the same CFI bytes in every process,
 * and for tables read from process memory (the vdso, objects not named
 * with -d), keyed also by uw_tables.ident: what the object is (build-id,
 * or the vdso), where it is mapped, and the mm, so never reused for
 * another address space (see stp_uw_ident in unwind.c).  An object
 * without a build-id is not cached.
 *
 * Size: a sampler over a handful of processes touches a few hundred
 * distinct pcs per CPU (bench/profile-cost.sh: 5 processes, ~14 frames a
 * sample); with 64 entries a sample cost 0.42 of stock's, with 512 0.26-0.30
 * (direct-mapped, so conflicts fall with size).  512 entries are 120 KiB
 * per CPU (one context per possible CPU), and struct uw_cache holds 128
 * more, kept by the pcs their rows hold for, the tables' tags and the
 * CIEs parsed (54 KiB: UW_CACHE_RANGES, UW_CACHE_TABLES and UW_CACHE_CIES
 * in the core); -DSTP_UW_ROW_CACHE=N (a power of two) trades memory for
 * misses. */
#ifndef STP_UW_ROW_CACHE
#define STP_UW_ROW_CACHE 512
#endif
#define STP_UW_HAVE_ROW_CACHE 1

/* Objects whose scanned tables each context keeps (elf_memo below): a
 * walk meets a handful (the program, libc, the loader, a few more). */
#define STP_UW_ELF_MEMO 8

/* Frames a user walk takes from the core at once (uw_step_many; stepped
 * below): a whole stack of the default MAXBACKTRACE in one call. */
#define STP_UW_STEPPED 32

/* Address spaces whose tables each context keeps across walks (space
 * below; uw_cache.space): a sampler walks a few processes in turn. */
#define STP_UW_SPACES 8

/* Mappings of -d modules whose tables each context keeps (dmod_memo
 * below): a walk meets a few, and a sampler a few per process. */
#define STP_UW_DMOD_MEMO 8

struct stp_unwind_context {
	/* What every walk touches comes first, the cursor's own first part
	 * last (cursor.h: uw_cursor_state): under TCG each page a sample
	 * touches after a context switch costs a TLB refill. */
	struct unwind_frame_info info;
	struct stp_uw_host host;
	unsigned long deferred;		/* request number of this walk's
					 * deferred rest (udefer.h), or 0 */
	/* The frames one uw_step_many gives, before stack.c keeps them in
	 * the probe hit's struct stp_unwind_cache: here, not on the kernel
	 * stack. */
	struct uw_stepped_frame stepped[STP_UW_STEPPED];
	/* Kept across unwinds (see above; a context is never used by two
	 * probes at once). */
	int rows_ready;			/* cache initialised */
	/* The row cache's spaces (stp_uw_space in unwind.c): for each of
	 * the last few address spaces walked, the number given and what it
	 * stands for. */
	u64 last_space;			/* the last number given (the
					 * context starts zeroed: none) */
	unsigned int space_next;	/* the record replaced next */
	struct {
		u64 id;			/* 0: none */
		u64 mm_id;		/* mm->context.ctx_id */
		unsigned int mm_seq;	/* mm->mm_lock_seq */
		long stock_changes;	/* stp_uw_stock_map_changes */
		long tracked_releases;	/* stp_uw_vma_releases() */
	} space[STP_UW_SPACES];
	struct uw_cursor cursor;	/* ~12 KiB: lives in struct context */
	/* find_tables' ELF scans (the vdso, tracked objects, stock's map):
	 * their result and working memory (~1.1 KiB), here rather than on
	 * the kernel stack, where the unwinder's deepest chain has 1 KiB
	 * (the core's unwind_core.h), and outside host, which each walk
	 * clears: nothing in them outlives a scan. */
	struct uw_elfmem_info elf_info;
	struct uw_elfmem_scratch elf_scratch;
	struct uw_cache rows;
	struct stp_uw_vdso vdso_saved;	/* the vdso of mm vdso_mm_id */
	u64 vdso_mm_id;
	/* The tables the ELF scans of tracked objects found (find_tables'
	 * tracked source), by uw_tables.ident: each scan reads the headers,
	 * the build-id note and PT_DYNAMIC from the process, 20,000 TCG
	 * cycles and more, once per object in every walk otherwise.  The
	 * ident names the object (build-id), where it is mapped and the mm,
	 * as it does for the row cache, so an entry never needs forgetting:
	 * the same ident scans to the same tables.  Scans that failed are
	 * not kept.  Replaced in turn. */
	struct {
		u64 ident;		/* 0: empty */
		struct uw_tables tables;
	} elf_memo[STP_UW_ELF_MEMO];
	unsigned elf_memo_next;
	/* The tables of -d modules that stock's map gave (find_tables'
	 * dmod source), by the process and the mapping: asking the map and
	 * making the tables cost 700-2,200 TCG cycles in a syscall probe's
	 * loop, 7,000 in a sample, for each object of every walk otherwise.
	 * An entry holds while stock's map is unchanged since it was asked
	 * (the count of changes, stp_uw_stock_map_changes in vma.c, is the
	 * one read then); any change anywhere forgets them all.  Replaced in
	 * turn. */
	struct {
		const struct task_struct *leader;	/* NULL: empty */
		long changes;
		struct uw_tables tables;	/* pc_lo, pc_hi: the mapping */
	} dmod_memo[STP_UW_DMOD_MEMO];
	unsigned dmod_memo_next;
	struct uw_cache_entry row_entries[STP_UW_ROW_CACHE > 0 ? STP_UW_ROW_CACHE : 1];
};

#else /* !STP_USE_DWARF_UNWINDER */
struct stp_unwind_context { };
#endif /* STP_USE_DWARF_UNWINDER */

/* pc[0 .. depth-1] are the frames unwound so far in this probe hit.  For
 * the user stack also each frame's sp and CFA (0: not known), whose
 * difference is the frame's size (stap-unwind/ustop.h). */
struct stp_unwind_cache {
	enum uwcache_state {
		uwcache_uninitialized,
		uwcache_partial,
		uwcache_finished
	} state;
	unsigned depth;
	unsigned long pc[MAXBACKTRACE];
	unsigned long sp[MAXBACKTRACE];
	unsigned long cfa[MAXBACKTRACE];
};

#endif /* _STP_UNWIND_H_ */
