/* stap-unwind: a walk of the current address space's user stack, its
 * frames many at a time, as the overlay's unwind.c (runtime/stock/unwind.c,
 * the core's host in the kernel) gives it to stack.c and its parts.  Each walk
 * lives in a struct stp_unwind_context (unwind/unwind.h): the probe hit's
 * c->uwcontext_user.
 */
#ifndef STP_UW_USER_WALK_H
#define STP_UW_USER_WALK_H

#include <linux/ptrace.h>
#include <linux/sched.h>
#include "unwind/unwind.h"	/* struct stp_unwind_context, enum stp_uw_entry */
#include "stap-unwind/core.h"

/* Begin a walk of task's user stack from r (DWARF numbering of the
 * task's ABI, validity included).  task's memory must be the current
 * address space: current itself, or a task whose mm a kernel thread has
 * taken up (kthread_use_mm: stap-unwind/ustack_snapshot.c).  Returns the
 * first pc, 0 if the walk cannot begin. */
static unsigned long stp_uw_user_begin_regs(struct stp_unwind_context *uc,
					     struct task_struct *task,
					     int compat, enum stp_uw_entry entry,
					     const struct uw_regs *r);

/* Begin a user walk of the current task from regs (the probe's,
 * task_pt_regs(current), or the script's), sanitized for entry, how they
 * were obtained (stap-unwind/entry_x86.h), or STP_UW_ENTRY_NONE.  Returns
 * the pc of the first frame, or 0 if there is no user stack. */
static unsigned long stp_uw_user_begin(struct stp_unwind_context *uc,
					struct pt_regs *regs,
					enum stp_uw_entry entry);

/* The walk's next frames, up to max (at most STP_UW_STEPPED), in
 * uc->stepped, in one call to the core: their number.  Fewer than max:
 * the walk stopped after them (the cursor's stop says why).  Their pcs
 * are the core's, which stp_uw_user_pc_ok has yet to pass. */
static unsigned stp_uw_user_many(struct stp_unwind_context *uc, unsigned max);

/* Is pc, a frame's the core gave, one of user space?  A walk ends before
 * a frame whose pc is not. */
static int stp_uw_user_pc_ok(const struct stp_unwind_context *uc,
			     unsigned long pc);

/* Forget every cached row of this context, and what scans of the vdso and
 * tracked objects found (benchmarks: a cold cache). */
static void stp_uw_row_cache_clear(struct stp_unwind_context *uc);

#endif /* STP_UW_USER_WALK_H */
