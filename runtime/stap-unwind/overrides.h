/* stap-unwind: every stock name the overlay takes over, in one place.
 *
 * The overlay changes no stock file.  Where stock's code must reach ours,
 * or ours stands in for a stock function, a macro renames the stock name
 * (or tells stock's configuration something), and every such macro is
 * here, in a section for the stock code it applies to.  The sections, in
 * the order a module meets them:
 *
 * CONFIG, before stock's runtime.h reads its configuration
 * (stock/runtime.h), where an adapter applies (features.h):
 *   STAPCONF_TASK_WORK_CANCEL_EXPORTED 1: stock then looks nothing up at
 *     module init and calls task_work_cancel() directly, which TASK_WORK_C
 *     renames;
 *   STAPCONF_UPROBE_REGISTER_EXPORTED 1, STAPCONF_UPROBE_UNREGISTER_EXPORTED
 *     1: the same for the uprobe calls, which UPROBES_INODE_C renames
 *     (stock would look up "uprobe_unregister", gone since Linux 6.12, at
 *     every module's init).
 * TASK_WORK_C, around stock's stp_task_work.c (stock/stp_task_work.c),
 * with the task_work adapter:
 *   task_work_cancel -> stp_uw_task_work_cancel_func: Linux 6.11 (and its
 *     stable kernels) gave task_work_cancel() a callback_head; cancelling
 *     by function is task_work_cancel_func(), found in kallsyms;
 *   stp_task_work_init -> stp_uw_stock_task_work_init: stock's, renamed so
 *     that ours, which looks task_work_cancel_func() up first, takes its
 *     name.
 * VMA_C, around stock's vma.c (stock/vma.c):
 *   _stp_vma_init, _stp_vma_done -> stp_uw_stock_vma_init,
 *     stp_uw_stock_vma_done: the translator's calls start and stop every
 *     part of the overlay, stock's map among them (stap-unwind/init_exit.c);
 *   stap_add_vma_map_info, stap_extend_vma_map_info,
 *     stap_remove_vma_map_info, stap_drop_vma_maps -> stp_uw_stock_map_add,
 *     _extend, _remove, _drop: they count the changes to stock's map, for
 *     the unwinder's answers kept across walks.
 * USYM, once the overlay's sym.c has defined the replacements
 * (stap-unwind/usym.c), for every later caller (stack.c, the tapsets'
 * embedded C):
 *   _stp_snprint_addr, _stp_print_addr -> stp_uw_snprint_addr,
 *     stp_uw_print_addr: stap-unwind's names for user addresses; kernel
 *     addresses go on to stock's functions;
 *   _stp_umod_lookup -> stp_uw_umod_lookup: the object of any user
 *     address, also one stock's map does not know.
 * STRINGS, after stock's runtime.h (stock/runtime.h), for the rest of the
 * module:
 *   strlcpy -> stp_uw_strlcpy, given the source array's size: stock's
 *     copies of a task's comm (execname() and the like) cannot meet the
 *     kernel's FORTIFY_SOURCE check while exec() rewrites that comm
 *     (stap-unwind/strlcpy.h).
 * UPROBES_INODE_C, around stock's linux/uprobes-inode.c
 * (stock/linux/uprobes-inode.c), with the uprobe adapter:
 *   uprobe_register, uprobe_unregister -> stp_uw_uprobe_register,
 *     stp_uw_uprobe_unregister: Linux 6.12's uprobe_register() returns
 *     the uprobe, which unregistering takes.
 *
 * Not renames, but also where the overlay stands in for stock: the files
 * of runtime/stock/ that replace stock's whole (stack.c, unwind.c and
 * the headers of unwind/: runtime/README.md), and the names this runtime spells
 * differently (stp_unwind_context, ibt_wrapper: features.h).
 *
 * A file selects a section and includes this header; a section around
 * one stock file is ended after it by END, which undoes that section's
 * renames (CONFIG, STRINGS and USYM hold for the rest of the module):
 *
 *	#define STP_UW_OVERRIDE STP_UW_OVERRIDE_VMA_C
 *	#include "stap-unwind/overrides.h"
 *	#include "stap-unwind-stock/vma_c/vma.c"
 *	#define STP_UW_OVERRIDE STP_UW_OVERRIDE_END
 *	#include "stap-unwind/overrides.h"
 *
 * No include guard: each inclusion applies its section, then forgets the
 * selection.
 */
#ifndef STP_UW_OVERRIDE_CONFIG
#define STP_UW_OVERRIDE_END		0
#define STP_UW_OVERRIDE_CONFIG		1
#define STP_UW_OVERRIDE_TASK_WORK_C	2
#define STP_UW_OVERRIDE_VMA_C		3
#define STP_UW_OVERRIDE_USYM		4
#define STP_UW_OVERRIDE_UPROBES_INODE_C	5
#define STP_UW_OVERRIDE_STRINGS		6
#endif

#if !defined(STP_UW_OVERRIDE)
#error "stap-unwind/overrides.h: select a section with STP_UW_OVERRIDE"
#elif STP_UW_OVERRIDE == STP_UW_OVERRIDE_END && !defined(STP_UW_OVERRIDE_OPEN)
#error "stap-unwind/overrides.h: END without a section around a stock file"
#endif

/* The section being ended, if END is selected. */
#if STP_UW_OVERRIDE == STP_UW_OVERRIDE_END
#define STP_UW_OVERRIDE_ENDING STP_UW_OVERRIDE_OPEN
#else
#define STP_UW_OVERRIDE_ENDING -1
#endif

#if STP_UW_OVERRIDE == STP_UW_OVERRIDE_CONFIG
#ifdef STP_UW_TASK_WORK_CANCEL_ADAPTER
#define STAPCONF_TASK_WORK_CANCEL_EXPORTED 1
#endif
#ifdef STP_UW_UPROBE_HANDLE_ADAPTER
#define STAPCONF_UPROBE_REGISTER_EXPORTED 1
#define STAPCONF_UPROBE_UNREGISTER_EXPORTED 1
#endif
#endif

#ifdef STP_UW_TASK_WORK_CANCEL_ADAPTER
#if STP_UW_OVERRIDE == STP_UW_OVERRIDE_TASK_WORK_C
#define task_work_cancel	stp_uw_task_work_cancel_func
#define stp_task_work_init	stp_uw_stock_task_work_init
#elif STP_UW_OVERRIDE_ENDING == STP_UW_OVERRIDE_TASK_WORK_C
#undef task_work_cancel
#undef stp_task_work_init
#endif
#endif

#if STP_UW_OVERRIDE == STP_UW_OVERRIDE_VMA_C
#define _stp_vma_init			stp_uw_stock_vma_init
#define _stp_vma_done			stp_uw_stock_vma_done
#define stap_add_vma_map_info		stp_uw_stock_map_add
#define stap_extend_vma_map_info	stp_uw_stock_map_extend
#define stap_remove_vma_map_info	stp_uw_stock_map_remove
#define stap_drop_vma_maps		stp_uw_stock_map_drop
#elif STP_UW_OVERRIDE_ENDING == STP_UW_OVERRIDE_VMA_C
#undef _stp_vma_init
#undef _stp_vma_done
#undef stap_add_vma_map_info
#undef stap_extend_vma_map_info
#undef stap_remove_vma_map_info
#undef stap_drop_vma_maps
#endif

/* Stock's callers pass the probe context where its functions take it
 * (STP_UW_STOCK_SYM_CONTEXT, stap-unwind/stock_runtime.h). */
#if STP_UW_OVERRIDE == STP_UW_OVERRIDE_USYM
#if STP_UW_STOCK_SYM_CONTEXT
#define _stp_snprint_addr	stp_uw_snprint_addr
#define _stp_print_addr		stp_uw_print_addr
#else
#define _stp_snprint_addr(str, len, address, flags, task) \
	stp_uw_snprint_addr(str, len, address, flags, task, NULL)
#define _stp_print_addr(address, flags, task) \
	stp_uw_print_addr(address, flags, task, NULL)
#endif
#define _stp_umod_lookup	stp_uw_umod_lookup
#endif

#if STP_UW_OVERRIDE == STP_UW_OVERRIDE_STRINGS
#include "stap-unwind/strlcpy.h"
#undef strlcpy
#define strlcpy(dest, src, size) \
	stp_uw_strlcpy((dest), (src), (size), __builtin_object_size((src), 1))
#endif

#ifdef STP_UW_UPROBE_HANDLE_ADAPTER
#if STP_UW_OVERRIDE == STP_UW_OVERRIDE_UPROBES_INODE_C
#define uprobe_register		stp_uw_uprobe_register
#define uprobe_unregister	stp_uw_uprobe_unregister
#elif STP_UW_OVERRIDE_ENDING == STP_UW_OVERRIDE_UPROBES_INODE_C
#undef uprobe_register
#undef uprobe_unregister
#endif
#endif

/* Which section around a stock file is open, for its END. */
#if STP_UW_OVERRIDE == STP_UW_OVERRIDE_END
#undef STP_UW_OVERRIDE_OPEN
#elif STP_UW_OVERRIDE == STP_UW_OVERRIDE_TASK_WORK_C
#define STP_UW_OVERRIDE_OPEN STP_UW_OVERRIDE_TASK_WORK_C
#elif STP_UW_OVERRIDE == STP_UW_OVERRIDE_VMA_C
#define STP_UW_OVERRIDE_OPEN STP_UW_OVERRIDE_VMA_C
#elif STP_UW_OVERRIDE == STP_UW_OVERRIDE_UPROBES_INODE_C
#define STP_UW_OVERRIDE_OPEN STP_UW_OVERRIDE_UPROBES_INODE_C
#endif
#undef STP_UW_OVERRIDE_ENDING
#undef STP_UW_OVERRIDE
