/* stap-unwind: what the stock runtime and the kernel offer the overlay,
 * in one place.  Nothing in the overlay asks for a SystemTap or Linux
 * version number: each difference is found where it can be seen.
 *
 *   - The stock runtime: stap-unwind/stock_runtime.h, STP_UW_STOCK_*,
 *     written by runtime/stock-features.sh from the stock sources when the
 *     overlay is made (mkoverlay.sh).
 *   - The kernel, where its headers' macros cannot tell (an inline
 *     function, an enum, a changed signature): STP_UW_KF_*, passed as -D
 *     options by the stap-unwind wrapper from runtime/kfeatures.sh, a
 *     kbuild test per feature, cached per kernel release.
 *   - The kernel, where the preprocessor can tell: below.
 *
 * Builds "as on an older kernel" (the compile matrix) leave out the
 * STP_UW_KF_* options and define the STP_UW_NO_* macros below.
 */
#ifndef STP_UW_FEATURES_H
#define STP_UW_FEATURES_H

#include <linux/mm.h>		/* for_each_vma */
#include "stap-unwind/stock_runtime.h"

#ifndef STP_UW_KFEATURES
#error "stap-unwind: the kernel's features are not known: run stap through the stap-unwind wrapper, which passes them (runtime/kfeatures.sh)"
#endif

/* get_unaligned() and put_unaligned(): <linux/unaligned.h> since Linux
 * 6.12, <asm/unaligned.h> before. */
#if __has_include(<linux/unaligned.h>)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* __access_ok() without the warning of access_ok() in interrupts, and
 * user_read_access_begin() and unsafe_get_user(), for the word-at-a-time
 * reader of user memory (stap-unwind/uread.h): the generic access_ok.h
 * came with them (Linux 5.18). */
#if __has_include(<asm-generic/access_ok.h>) && defined(CONFIG_X86) \
	&& !defined(STP_UW_NO_ACCESS_OK)
#define STP_UW_HAVE_ACCESS_OK 1
#endif

/* for_each_vma(): the VMA iterator over the maple tree (Linux 6.1).
 * Without it, the VMAs are walked with find_vma() from one end to the
 * next (stap-unwind/vma_rescan.c). */
#if defined(for_each_vma) && !defined(STP_UW_NO_FOR_EACH_VMA)
#define STP_UW_HAVE_FOR_EACH_VMA 1
#endif

/* Calls through pointers found in kallsyms (functions the kernel does not
 * export): a runtime without ibt_wrapper() cannot make them on a kernel
 * with indirect branch tracking, whose functions that nothing takes the
 * address of may have no ENDBR. */
#if !STP_UW_STOCK_IBT_WRAPPER
#ifdef CONFIG_X86_KERNEL_IBT
#error "stap-unwind: this SystemTap's runtime has no ibt_wrapper(), which calls to unexported kernel functions need on a kernel with CONFIG_X86_KERNEL_IBT"
#endif
#define ibt_wrapper(rettype, call) ({ (call); })
#endif

/* Where stock is broken on a kernel newer than itself, the overlay
 * carries the fix: an adapter over the kernel's new interface, switched on
 * here, before stock's runtime.h (runtime/stock/runtime.h includes this
 * header first), because stock decides at its top what to look up in
 * kallsyms at module init:
 *   - the cancel-by-function call task_work_cancel_func() (Linux 6.11 and
 *     stable kernels): runtime/stock/stp_task_work.c;
 *   - uprobe_register() returning the uprobe, and
 *     uprobe_unregister_nosync() (Linux 6.12): stock looks up
 *     "uprobe_unregister", which no longer exists, at every module's init,
 *     and its inode uprobes do not build: runtime/stock/linux/uprobes-inode.c.
 * What stock is told, and which of its calls the adapters rename to
 * theirs: stap-unwind/overrides.h.  Where the fault is stock's translator
 * rather than its runtime (a tracepoint query that redefines the kernel's
 * COUNT_ARGS(): STP_UW_KF_TRACEPOINT_WIDE_COUNT_ARGS), the fix is a kbuild
 * option that kfeatures.sh gives the wrapper, not code here. */
#if defined(STP_UW_KF_TASK_WORK_CANCEL_FUNC) && !STP_UW_STOCK_TASK_WORK_CANCEL_FUNC
#define STP_UW_TASK_WORK_CANCEL_ADAPTER 1
#endif
#if defined(STP_UW_KF_UPROBE_HANDLE) && !STP_UW_STOCK_UPROBE_HANDLE
#define STP_UW_UPROBE_HANDLE_ADAPTER 1
#endif

/* A runtime whose flush drops a record when the relay's sub-buffer has
 * less room left than the record's header (SystemTap 4.8) gets ours,
 * which writes the record as a stream of bytes across sub-buffers:
 * runtime/stock/print_flush.c. */
#if !STP_UW_STOCK_FLUSH_PADS_HEADER
#define STP_UW_FLUSH_AS_STREAM 1
#endif

/* A task's uretprobe return instances (STP_UW_KF_URETPROBE_INSTANCES:
 * struct return_instance in <linux/uprobes.h>, Linux 6.1 and later): user
 * stacks go on through a return probe's trampoline, with the real return
 * address of each hijacked slot; without them they end at the trampoline.
 * Where the kernel tells the trampoline's address
 * (STP_UW_KF_URETPROBE_TRAMPOLINE_VADDR: uprobe_get_trampoline_vaddr()
 * declared, not in Linux 6.1), it is known by it, else by where it lies.
 * stap-unwind/uretprobe.c. */

/* The stock names of the unwinder's per-probe types: SystemTap 5.6 renamed
 * them (struct stp_unwind_context, stp_unwind_cache) when Linux 6.17 took
 * the old ones for its own; the overlay uses the new names, which mean the
 * old ones for an older runtime. */
#if !STP_UW_STOCK_UNWIND_PREFIX
#define stp_unwind_context unwind_context
#define stp_unwind_cache unwind_cache
#endif

#endif /* STP_UW_FEATURES_H */
