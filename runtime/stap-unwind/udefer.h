/* stap-unwind: finishing a user backtrace that stopped on a page that is
 * not resident, at the task's return to user space.
 *
 * In probe context no user page may be faulted in, so a backtrace whose
 * CFI or stack lies on a page that is not in memory stops there with
 * memory_unreadable (a process's .eh_frame is often never touched before
 * its first exception).  With deferral on (-DSTP_UNWIND_DEFER or
 * ubacktrace_defer(1), tapset/ubacktrace_defer.stp), print_ubacktrace() and
 * its print_ relatives then also queue task work on the current task:
 *
 *   probe hit:  frames so far, then " <deferred #N>"
 *   later, when the task returns to user space (a context that may sleep
 *   and fault), before it runs any user code:
 *               "<deferred ubacktrace #N of COMM[TID]>", the whole stack,
 *               and the stop line if stop lines are on.
 *
 * The task work unwinds again from the registers the probe saw (saved,
 * already sanitized for the entry path, in the request), with the same
 * no-fault reads; each time it stops on an unreadable user address it
 * faults that one page in (copy_from_user, outside any probe context) and
 * tries again, at most STP_UW_DEFER_MAX_FAULTS times.  Between the probe
 * and the task work the task runs no user code, so its registers and
 * stack are those the probe saw (other threads of the process may run;
 * that is no worse than for any sample), unless the system call was an
 * exec that succeeded (the registers then belong to the old image) or the
 * task exits first (its work then runs in do_exit, after its memory is
 * gone).  Those requests print why instead of a stack, so that every
 * "<deferred #N>" has its "<deferred ubacktrace #N ...>" line:
 *               "<deferred ubacktrace #N of COMM[TID]: exec'd first>"
 *               "<deferred ubacktrace #N of COMM[TID]: exited first>"
 *
 * Bounds: STP_UW_DEFER_SLOTS requests in flight at once, in a static
 * array (no allocation in probe context); a hit that finds every slot
 * taken is not deferred (ubacktrace_deferred() is then 0).  Requests are
 * only made while VMA tracking runs; at module exit, queued ones are
 * cancelled and running ones waited for (stp_uw_defer_exit(), called from
 * the overlay's _stp_vma_done()).  Deferral is off in the sprint_ forms
 * and ubacktrace(): their result is a string, now.
 *
 * udefer.c, brought in by the overlay's stack.c.
 */
#ifndef STP_UW_UDEFER_H
#define STP_UW_UDEFER_H

struct context;

/* In probe context, after a user backtrace was printed: queue the rest of
 * it if it stopped on unreadable user memory.  Returns the request's
 * number, 0 if none was queued. */
static unsigned long stp_uw_defer_maybe(struct context *c, int sym_flags);

/* Module exit (process context), after every probe is unregistered: no
 * new requests; cancel the queued ones; wait for running ones. */
static void stp_uw_defer_exit(void);

#endif /* STP_UW_UDEFER_H */
