/* stap-unwind: finishing a user backtrace that stopped on a page that is
 * not resident, at the task's return to user space (udefer.h).
 */
#ifndef STP_UW_UDEFER_C
#define STP_UW_UDEFER_C

#include <linux/delay.h>
#include "stap-unwind/udefer.h"
#include "stap-unwind/stack.h"
#include "stap-unwind/ustop.h"
#include "stap-unwind/entry_x86.h"
#include "stap-unwind/init_exit.h"

#ifndef STP_UW_DEFER_SLOTS
#define STP_UW_DEFER_SLOTS	32
#endif
#ifndef STP_UW_DEFER_MAX_FAULTS
#define STP_UW_DEFER_MAX_FAULTS	32
#endif

/* Deferral on or off: -DSTP_UNWIND_DEFER, or ubacktrace_defer(). */
static int stp_uw_defer_flag =
#ifdef STP_UNWIND_DEFER
	1;
#else
	0;
#endif

#ifdef HAVE_TASK_FINDER		/* task_work_add() via stp_task_work.c */

enum { STP_UW_DEFER_FREE, STP_UW_DEFER_QUEUED, STP_UW_DEFER_RUNNING };

struct stp_uw_defer {
	struct task_work work;
	atomic_t state;
	struct task_struct *task;	/* referenced while queued */
	u64 exec_id;			/* task->self_exec_id at the probe */
	unsigned long seq;
	int sym_flags;
	int compat;
	struct uw_regs regs;		/* initial registers, sanitized */
	unsigned depth;
	unsigned long pc[MAXBACKTRACE];
	struct stp_uw_stop_info stop;
};

static struct stp_uw_defer stp_uw_defer_slots[STP_UW_DEFER_SLOTS];
static atomic_t stp_uw_defer_seq = ATOMIC_INIT(0);
static atomic_t stp_uw_defer_busy = ATOMIC_INIT(0);	/* slots not free */
static atomic_t stp_uw_defer_closing = ATOMIC_INIT(0);
/* Orders the task work's state changes against stp_uw_defer_exit()'s
 * cancelling (both in process context; probe context never takes it). */
static DEFINE_SPINLOCK(stp_uw_defer_lock);

/* Free a slot; the caller drops the task reference it returns (outside
 * any lock). */
static struct task_struct *stp_uw_defer_free(struct stp_uw_defer *d)
{
	struct task_struct *task = d->task;

	d->task = NULL;
	atomic_set(&d->state, STP_UW_DEFER_FREE);
	smp_mb__before_atomic();
	atomic_dec(&stp_uw_defer_busy);
	return task;
}

/* One walk from the saved registers, in probe context (c held). */
static void stp_uw_defer_walk(struct context *c, struct stp_uw_defer *d)
{
	d->depth = stp_uw_user_walk(c, current, d->compat, STP_UW_ENTRY_USER,
				    &d->regs, d->pc, MAXBACKTRACE, &d->stop);
}

static void stp_uw_defer_print(struct context *c, struct stp_uw_defer *d)
{
	int flags = d->sym_flags;
	unsigned n;

	_stp_printf("<deferred ubacktrace #%lu of %s[%d]>\n", d->seq,
		    current->comm, task_pid_nr(current));
	for (n = 0; n < d->depth; n++)	/* bound: d->depth <= MAXBACKTRACE */
		stp_uw_print_addr(d->pc[n], stp_uw_frame_sym_flags(flags, n),
				current, c);
	stp_uw_stop_print(&d->stop, flags);
}

/* The request's line when there is no stack to print. */
static void stp_uw_defer_print_why(struct stp_uw_defer *d, const char *why)
{
	struct context *c;

	if (atomic_read(&stp_uw_defer_closing))
		return;
	c = _stp_runtime_entryfn_get_context();
	if (!c)
		return;
	_stp_printf("<deferred ubacktrace #%lu of %s[%d]: %s>\n", d->seq,
		    current->comm, task_pid_nr(current), why);
	_stp_print_flush();
	_stp_runtime_entryfn_put_context(c);
}

/* Task work: the task is about to return to user space; may sleep. */
static void stp_uw_defer_fn(struct task_work *work)
{
	struct stp_uw_defer *d = container_of(work, struct stp_uw_defer, work);
	unsigned long limit = d->compat ? 0x100000000UL : TASK_SIZE_MAX;
	struct task_struct *task;
	struct context *c;
	unsigned tries;
	u8 byte;

	spin_lock(&stp_uw_defer_lock);
	atomic_set(&d->state, STP_UW_DEFER_RUNNING);
	spin_unlock(&stp_uw_defer_lock);
	/* Works still queued when the task exits run from do_exit(): too
	 * late, the stack is gone.  After an exec the saved registers are
	 * the old image's. */
	if (!current->mm || (current->flags & PF_EXITING)) {
		stp_uw_defer_print_why(d, "exited first");
		goto out;
	}
	if (current->self_exec_id != d->exec_id) {
		stp_uw_defer_print_why(d, "exec'd first");
		goto out;
	}
	/* bound: STP_UW_DEFER_MAX_FAULTS + 1 walks */
	for (tries = 0; tries <= STP_UW_DEFER_MAX_FAULTS; tries++) {
		if (atomic_read(&stp_uw_defer_closing))
			goto out;
		c = _stp_runtime_entryfn_get_context();
		if (!c)
			goto out;
		stp_uw_defer_walk(c, d);
		_stp_runtime_entryfn_put_context(c);
		if (d->stop.reason != UW_STOP_MEMORY_UNREADABLE
		    || d->stop.addr >= limit)
			break;
		/* Fault the page in; an address that is not mapped at all
		 * fails here, and the stack stops where it stopped. */
		if (copy_from_user(&byte, (const void __user *)d->stop.addr, 1))
			break;
	}
	c = _stp_runtime_entryfn_get_context();
	if (c) {
		if (!atomic_read(&stp_uw_defer_closing)) {
			stp_uw_defer_print(c, d);
			_stp_print_flush();
		}
		_stp_runtime_entryfn_put_context(c);
	}
out:
	spin_lock(&stp_uw_defer_lock);
	task = stp_uw_defer_free(d);
	spin_unlock(&stp_uw_defer_lock);
	put_task_struct(task);
}

static unsigned long stp_uw_defer_maybe(struct context *c, int sym_flags)
{
	struct stp_unwind_context *uc = &c->uwcontext_user;
	struct stp_uw_stop_info s;
	struct stp_uw_defer *d = NULL;
	struct pt_regs *regs;
	unsigned long limit;
	unsigned i;

	if (!stp_uw_defer_flag || !stp_uw_parts_running()
	    || atomic_read(&stp_uw_defer_closing) || !current->mm
	    || (current->flags & (PF_EXITING | PF_KTHREAD)))
		return 0;
	if (uc->deferred)	/* this walk's rest is queued already */
		return uc->deferred;
	stp_uw_user_stop(c, &s);
	limit = uc->host.compat ? 0x100000000UL : TASK_SIZE_MAX;
	if (s.reason != UW_STOP_MEMORY_UNREADABLE || s.addr >= limit)
		return 0;
	regs = _stp_get_uregs(c);
	if (!regs || uc->info.entry == STP_UW_ENTRY_NONE)
		return 0;
	for (i = 0; i < STP_UW_DEFER_SLOTS; i++) {	/* bound: STP_UW_DEFER_SLOTS */
		if (atomic_cmpxchg(&stp_uw_defer_slots[i].state, STP_UW_DEFER_FREE,
				   STP_UW_DEFER_QUEUED) == STP_UW_DEFER_FREE) {
			d = &stp_uw_defer_slots[i];
			break;
		}
	}
	if (!d)
		return 0;
	atomic_inc(&stp_uw_defer_busy);
	d->compat = uc->host.compat;
	d->sym_flags = sym_flags;
	stp_uw_entry_regs(&d->regs, d->compat ? UW_ARCH_I386 : UW_ARCH_X86_64,
			  uc->info.entry, regs);
	d->seq = (unsigned long)(unsigned)atomic_inc_return(&stp_uw_defer_seq);
	get_task_struct(current);
	d->task = current;
	d->exec_id = current->self_exec_id;
	stp_init_task_work(&d->work, stp_uw_defer_fn);
	if (task_work_add(current, &d->work, TWA_RESUME) != 0) {
		/* The task is exiting.  No lock: the work was never queued,
		 * and stp_uw_defer_exit() waits for probe handlers first. */
		put_task_struct(stp_uw_defer_free(d));
		return 0;
	}
	uc->deferred = d->seq;
	return d->seq;
}

static void stp_uw_defer_exit(void)
{
	unsigned i;

	atomic_set(&stp_uw_defer_closing, 1);
	synchronize_rcu();	/* probe handlers still running (preemption off) */
	for (i = 0; i < STP_UW_DEFER_SLOTS; i++) {	/* bound: STP_UW_DEFER_SLOTS */
		struct stp_uw_defer *d = &stp_uw_defer_slots[i];
		struct task_struct *task;

		/* Cancelling takes the first queued work of ours on that
		 * task, which may be another slot's: free whichever it was,
		 * until this slot is no longer queued.  bound: each turn but
		 * the last frees a queued slot, and no slot is queued again
		 * (closing is set): STP_UW_DEFER_SLOTS turns in all. */
		do {
			struct task_work *w = NULL;

			task = NULL;
			spin_lock(&stp_uw_defer_lock);
			if (atomic_read(&d->state) == STP_UW_DEFER_QUEUED)
				w = stp_uw_task_work_cancel_func(d->task, stp_uw_defer_fn);
			if (w)
				task = stp_uw_defer_free(container_of(w, struct stp_uw_defer, work));
			spin_unlock(&stp_uw_defer_lock);
			if (task)
				put_task_struct(task);
		} while (task);
	}
	/* bound: the works that were running finish; closing makes each
	 * stop before its next walk (at most STP_UW_DEFER_MAX_FAULTS + 1). */
	while (atomic_read(&stp_uw_defer_busy))
		msleep(10);
}

#else /* !HAVE_TASK_FINDER */

static unsigned long stp_uw_defer_maybe(struct context *c, int sym_flags)
{
	return 0;
}

static void stp_uw_defer_exit(void)
{
}

#endif /* HAVE_TASK_FINDER */

#endif /* STP_UW_UDEFER_C */
