/* stap-unwind: the runtime's stp_task_work.c, on kernels whose
 * task_work_cancel() takes the callback_head.
 *
 * Linux 6.11 renamed the cancel-by-function call task_work_cancel_func()
 * and gave task_work_cancel() a callback_head to cancel instead, and the
 * stable kernels took the change (Debian's 6.1.0-2x and later).  A stock
 * runtime that predates it (SystemTap 4.8) looks the function up by the
 * name "task_work_cancel" and calls it with the old arguments: its module
 * does not build on those kernels, whatever the script (stock is broken
 * on Debian 12's own kernel).  There (STP_UW_TASK_WORK_CANCEL_ADAPTER,
 * stap-unwind/features.h), stock's file, included unchanged below, is
 * told the call is exported, so it looks nothing up and calls
 * task_work_cancel(task, func) directly, which is renamed to ours:
 * task_work_cancel_func(), found in kallsyms by our stp_task_work_init()
 * before stock's.  Elsewhere stock's file serves as it is.
 *
 * stp_uw_task_work_cancel_func(task, func): cancel the first queued work
 * of task that runs func, on every runtime and kernel (the deferred
 * backtraces, stap-unwind/udefer.h).
 */
#ifndef STP_UW_STP_TASK_WORK_C
#define STP_UW_STP_TASK_WORK_C

#include <linux/task_work.h>
#include "stap-unwind/features.h"

#ifdef STP_UW_TASK_WORK_CANCEL_ADAPTER
static __typeof__(task_work_cancel_func) *stp_uw_task_work_cancel_func_fn;

static struct callback_head *
stp_uw_task_work_cancel_func(struct task_struct *task, task_work_func_t func)
{
	if (!stp_uw_task_work_cancel_func_fn)
		return NULL;
	return ibt_wrapper(struct callback_head *,
			   (*stp_uw_task_work_cancel_func_fn)(task, func));
}

#define task_work_cancel stp_uw_task_work_cancel_func
#define stp_task_work_init stp_uw_stock_task_work_init
#endif

#include "stap-unwind-stock/stp_task_work_c/stp_task_work.c"

#ifdef STP_UW_TASK_WORK_CANCEL_ADAPTER
#undef task_work_cancel
#undef stp_task_work_init

static int stp_task_work_init(void)
{
	stp_uw_task_work_cancel_func_fn =
		(void *)kallsyms_lookup_name("task_work_cancel_func");
	if (!stp_uw_task_work_cancel_func_fn) {
		_stp_error("Can't resolve task_work_cancel_func!");
		return -ENOENT;
	}
	return stp_uw_stock_task_work_init();
}
#else
static struct callback_head *
stp_uw_task_work_cancel_func(struct task_struct *task, task_work_func_t func)
{
	return task_work_cancel(task, func);	/* stock's: cancel by function */
}
#endif

#endif /* STP_UW_STP_TASK_WORK_C */
