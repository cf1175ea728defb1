/* stap-unwind: every thread's stack at one instant, without stopping
 * anyone (tapset/ustack_snapshot.stp).
 *
 * A probe asks (stp_uw_ustack_snapshot_request: no sleeping, no
 * allocation, NMI safe); an irq_work hands the request to a kernel worker,
 * which may sleep.  The worker runs on the CPU whose probe asked (a
 * CPU-intensive workqueue of our own, bound to that CPU), never on one the
 * scheduler picks: so the threads running on the other CPUs keep them,
 * and each is held only for its own walk by the IPI that reads it.  It
 * yields the CPU between threads.  The worker
 *   1. takes a reference on every thread of the process (or of every
 *      process), at most STP_UW_USTACK_SNAPSHOT_THREADS of them: the rest
 *      are counted as dropped;
 *   2. reads each thread, as it finds it:
 *      - running on another CPU: an IPI to that CPU unwinds it there, in
 *        interrupt context, from the registers it was interrupted at
 *        (user mode: all of them) or, in the kernel, from those saved at
 *        kernel entry (entry_x86.h decides which are valid), with the same
 *        no-fault reads as a probe;
 *      - not running (blocked, runnable, stopped): from the registers saved
 *        at its kernel entry, task_pt_regs(), with its address space taken
 *        up by the worker (kthread_use_mm), so that the unwinder's no-fault
 *        reads read that process's memory.  Nothing is faulted in; a page
 *        not resident stops the stack with memory_unreadable, as in a probe.
 *        If the thread ran while it was read (its context switch count
 *        moved), it is read once more, and marked if it ran again;
 *      a thread whose CPU's SystemTap context was in use (a probe ran
 *      there) is read again after a short sleep, a few times, and only
 *      then counted as busy;
 *      and its kernel stack (stack_trace_save_tsk(), or the interrupted
 *      registers' for a thread running in the kernel);
 *   3. prints the records (the worker again takes up each process's
 *      address space, so that frames are named from the objects' own
 *      headers too), in one of four forms:
 *      threads: per thread, a header, kernel frames, the boundary line of
 *               print_kubacktrace(), user frames and the stop reason;
 *      grouped: threads of one process with the same user stack, once,
 *               with their count and thread ids (pstack | sort | uniq -c);
 *      folded:  "comm;outer;...;inner COUNT" lines (flame graph tools),
 *               with "[REASON]" as the outermost frame of a stack that
 *               does not reach its own (depth_limit...);
 *      raw:     the threads form with user frames as "[PATH+0xFOFF]
 *               {buildid=HEX bias=0xHEX}", for stap-unwind-symbolize,
 *               later or on another machine;
 *      and a summary line that counts every thread: read, exited before
 *      it could be read, dropped.
 * Nobody is stopped or signalled: the reads of a thread that is not running
 * race with nothing but its own wake-up, which the switch count detects.
 * (The session's own start wakes every sleeping thread once; the worker
 * reads none until they are back in their calls: "The session's start".)
 *
 * Bounds: one snapshot at a time (a request while one runs is refused: 0);
 * STP_UW_USTACK_SNAPSHOT_THREADS records of struct
 * stp_uw_ustack_snapshot_thread (under 500 bytes with MAXBACKTRACE 20),
 * allocated by the worker for the snapshot and freed after it; each user
 * walk is a probe's walk (MAXBACKTRACE frames, the work budget).  Module
 * exit cancels a queued request and waits for a running worker, which
 * stops at its next thread.
 */
#ifndef STP_UW_USTACK_SNAPSHOT_C
#define STP_UW_USTACK_SNAPSHOT_C

#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/sort.h>
#include <linux/stacktrace.h>
#include <linux/workqueue.h>
#include <asm/unwind.h>
#include "stap-unwind/ustack_snapshot.h"
#include "stap-unwind/stack.h"
#include "stap-unwind/ustop.h"
#include "stap-unwind/entry_x86.h"
#include "stap-unwind/vma_map.h"

#define STP_UW_USTACK_SNAPSHOT_KFRAMES	24	/* kernel frames of a thread */

/* How a thread was read. */
enum stp_uw_ustack_snapshot_how {
	STP_UW_USTACK_SNAPSHOT_UNREAD,	/* not yet */
	STP_UW_USTACK_SNAPSHOT_IPI,	/* running: on its CPU, by an IPI */
	STP_UW_USTACK_SNAPSHOT_SAVED,	/* not running: its saved registers */
	STP_UW_USTACK_SNAPSHOT_EXITED,	/* gone (no mm) before it was read */
	STP_UW_USTACK_SNAPSHOT_BUSY,	/* its CPU's SystemTap context was
					 * in use */
};

/* One thread, as the snapshot read it. */
struct stp_uw_ustack_snapshot_thread {
	struct task_struct *task;	/* referenced until printed */
	pid_t tgid, tid;
	char comm[TASK_COMM_LEN];
	u8 how;			/* enum stp_uw_ustack_snapshot_how */
	u8 compat;
	u8 ran;			/* ran while it was read (twice) */
	u8 settled;		/* seen in its call after the session's start */
	u8 entering;		/* seen running in its call */
	u64 entering_ns;	/* its run time (se.sum_exec_runtime) then */
	char state;		/* task_state_to_char() */
	int cpu;		/* running on it; -1: not running */
	u32 ipi_ns;		/* how long the IPI held the thread */
	long syscall;		/* in this system call; -1: none */
	unsigned kdepth, udepth;
	unsigned long kpc[STP_UW_USTACK_SNAPSHOT_KFRAMES];
	unsigned long upc[MAXBACKTRACE];
	struct stp_uw_stop_info stop;
};

/* A frame's name in the folded form: room for "NAME+0xOFF/0xSIZE [PATH]"
 * of most C++ names (a longer one is printed cut). */
#define STP_UW_USTACK_SNAPSHOT_NAME_MAX	512

/* The one snapshot: its request, worker and records. */
struct stp_uw_ustack_snapshot {
	struct irq_work irq_work;
	struct workqueue_struct *wq;	/* per-CPU, CPU intensive */
	struct work_struct work;
	atomic_t busy;		/* a request is queued or its worker runs */
	atomic_t closing;	/* module exit */
	unsigned long seq;	/* the request's number */
	pid_t pid;		/* 0: every process */
	int form;
	char what[24];		/* "pid N", "every process" */
	atomic_long_t done;	/* number of the last snapshot finished */
	struct stp_uw_ustack_snapshot_thread *recs;
	unsigned nrecs;
	struct stp_uw_mapping map;	/* raw form: off the kernel stack */
	char name[STP_UW_USTACK_SNAPSHOT_NAME_MAX];	/* folded form: one
							 * frame's name */
};

static struct stp_uw_ustack_snapshot stp_uw_ustack_snapshot;
static atomic_long_t stp_uw_ustack_snapshot_seq = ATOMIC_LONG_INIT(0);

/* What a snapshot counted, for its summary line. */
struct stp_uw_ustack_snapshot_counts {
	unsigned threads, procs, ipi, saved, exited, busy, ran, dropped;
	unsigned settle_ms;	/* waited for the session's start */
	int cpu;		/* the worker's (bound to it) */
	u32 ipi_max_ns;		/* the longest any thread was held */
	u64 start_ns, end_ns;	/* ktime_get_ns() around the reads */
};

/* ------------------------------------------------------------------ */
/* Reading one thread                                                  */

/* Walk rec's user stack from regs (kernel entry registers, or the
 * interrupted user registers: probe_in_user_mode), with rec->task's memory
 * the current address space; c held. */
static void stp_uw_ustack_snapshot_walk(struct context *c,
					struct stp_uw_ustack_snapshot_thread *rec,
					struct pt_regs *regs,
					int probe_in_user_mode)
{
	struct task_struct *t = rec->task;
	enum stp_uw_entry entry = stp_uw_classify_entry(t, regs,
							probe_in_user_mode);
	struct uw_regs r;

	rec->compat = _stp_is_compat_task2(t);
	rec->syscall = -1;
	if (stp_uw_entry_is_syscall(entry))
		rec->syscall = (long)regs->orig_ax;
	stp_uw_entry_regs(&r, rec->compat ? UW_ARCH_I386 : UW_ARCH_X86_64,
			  entry, regs);
	rec->udepth = stp_uw_user_walk(c, t, rec->compat, entry, &r, rec->upc,
				       MAXBACKTRACE, &rec->stop);
}

/* The registers the IPI interrupted: the first entry frame below this
 * handler on the kernel stack.  x86's call-function IPI does not publish
 * them through get_irq_regs(), which only some interrupts set. */
static struct pt_regs *stp_uw_ustack_snapshot_irq_regs(void)
{
	struct unwind_state state;
	struct pt_regs *regs;
	unsigned n;

	for (n = 0, unwind_start(&state, current, NULL, NULL);
	     n < 64 && !unwind_done(&state);
	     n++, unwind_next_frame(&state)) {	/* bound: 64 frames */
		regs = unwind_get_entry_regs(&state, NULL);
		if (regs)
			return regs;
	}
	return NULL;
}

/* On the CPU the thread runs on, in interrupt context. */
static void stp_uw_ustack_snapshot_ipi(void *info)
{
	struct stp_uw_ustack_snapshot_thread *rec = info;
	u64 start = ktime_get_ns();
	struct pt_regs *regs;
	struct context *c;

	if (current != rec->task)
		return;		/* it left: rec->how stays unread */
	c = _stp_runtime_entryfn_get_context();
	if (!c) {
		rec->how = STP_UW_USTACK_SNAPSHOT_BUSY;
		return;
	}
	rec->cpu = smp_processor_id();
	regs = stp_uw_ustack_snapshot_irq_regs();
	if (regs && user_mode(regs)) {
		/* In user code: all its registers, and no kernel stack of
		 * its own. */
		rec->kdepth = 0;
		stp_uw_ustack_snapshot_walk(c, rec, regs, 1);
	} else {
		/* In the kernel: its kernel stack from where the IPI came,
		 * its user stack from its kernel entry. */
		rec->kdepth = stp_uw_save_regs(regs, rec->kpc,
					       STP_UW_USTACK_SNAPSHOT_KFRAMES);
		stp_uw_ustack_snapshot_walk(c, rec, task_pt_regs(current), 0);
	}
	rec->how = STP_UW_USTACK_SNAPSHOT_IPI;
	_stp_runtime_entryfn_put_context(c);
	rec->ipi_ns = (u32)min_t(u64, ktime_get_ns() - start, U32_MAX);
}

/* A copy of t's kernel entry registers (task_pt_regs), made under RCU:
 * the snapshot's reference on t does not pin its stack, which t frees as
 * it dies (put_task_stack, to pin it, is not exported to modules), and
 * since Linux 5.18 that free waits for RCU (kernel/fork.c:
 * thread_stack_delayed_free).  A stack kept in the per-CPU cache may be
 * another task's by then: its words are only registers to walk from,
 * which any values are.  false: t has no stack left. */
static bool stp_uw_ustack_snapshot_entry_regs(struct task_struct *t,
					      struct pt_regs *out)
{
	bool ok;

	rcu_read_lock();
	ok = READ_ONCE(t->stack) != NULL;
	if (ok)
		*out = *task_pt_regs(t);
	rcu_read_unlock();
	return ok;
}

/* A thread that is not running, with its mm taken up (process context). */
static void
stp_uw_ustack_snapshot_saved(struct stp_uw_ustack_snapshot_thread *rec)
{
	struct task_struct *t = rec->task;
	struct context *c;
	struct pt_regs regs;

	if (!stp_uw_ustack_snapshot_entry_regs(t, &regs)) {
		rec->how = STP_UW_USTACK_SNAPSHOT_EXITED;
		return;
	}
	c = _stp_runtime_entryfn_get_context();
	if (!c) {
		rec->how = STP_UW_USTACK_SNAPSHOT_BUSY;
		return;
	}
	rec->kdepth = stp_uw_save_tsk(t, rec->kpc,
				      STP_UW_USTACK_SNAPSHOT_KFRAMES);
	stp_uw_ustack_snapshot_walk(c, rec, &regs, 0);
	rec->how = STP_UW_USTACK_SNAPSHOT_SAVED;
	_stp_runtime_entryfn_put_context(c);
}

static unsigned long stp_uw_ustack_snapshot_switches(struct task_struct *t)
{
	return READ_ONCE(t->nvcsw) + READ_ONCE(t->nivcsw);
}

/* How often a thread whose CPU's SystemTap context was in use is read
 * again, and how long the worker sleeps first: a context is held only for
 * one probe's run (a timer probe on that CPU when the IPI came, say), so a
 * later try finds it free; under TCG a probe can run for milliseconds. */
#define STP_UW_USTACK_SNAPSHOT_BUSY_RETRIES	8
#define STP_UW_USTACK_SNAPSHOT_BUSY_SLEEP_US	500

/* Read one thread once: on its CPU by an IPI if it runs on another one,
 * else from its saved registers.  Returns the thread's switch count
 * before the read, for stp_uw_ustack_snapshot_read to see whether it ran
 * meanwhile. */
static unsigned long
stp_uw_ustack_snapshot_read_once(struct stp_uw_ustack_snapshot_thread *rec)
{
	struct task_struct *t = rec->task;
	unsigned long sw = stp_uw_ustack_snapshot_switches(t);
	int cpu = task_cpu(t);
	struct mm_struct *mm;

	if (READ_ONCE(t->on_cpu) && cpu != raw_smp_processor_id()) {
		rec->how = STP_UW_USTACK_SNAPSHOT_UNREAD;
		smp_call_function_single(cpu, stp_uw_ustack_snapshot_ipi, rec, 1);
		if (rec->how != STP_UW_USTACK_SNAPSHOT_UNREAD)
			return sw;
		/* It left that CPU before the IPI came: read it from its
		 * saved registers. */
	}
	mm = get_task_mm(t);
	if (!mm || (t->flags & PF_EXITING)) {
		if (mm)
			mmput(mm);
		rec->how = STP_UW_USTACK_SNAPSHOT_EXITED;
		return sw;
	}
	kthread_use_mm(mm);
	stp_uw_ustack_snapshot_saved(rec);
	kthread_unuse_mm(mm);
	mmput(mm);
	return sw;
}

/* Read one thread (the worker, process context): again once if it ran
 * while read from its saved registers (then marked if it ran again), and
 * again after a sleep while its CPU's context was busy. */
static void
stp_uw_ustack_snapshot_read(struct stp_uw_ustack_snapshot_thread *rec)
{
	struct task_struct *t = rec->task;
	unsigned reread = 0, busy = 0;

	rec->state = task_state_to_char(t);
	rec->cpu = -1;		/* the IPI sets it, if it reads the thread */
	for (;;) {	/* bound: 1 reread + BUSY_RETRIES */
		unsigned long sw = stp_uw_ustack_snapshot_read_once(rec);

		if (rec->how == STP_UW_USTACK_SNAPSHOT_BUSY) {
			if (busy++ == STP_UW_USTACK_SNAPSHOT_BUSY_RETRIES)
				return;
			usleep_range(STP_UW_USTACK_SNAPSHOT_BUSY_SLEEP_US,
				     2 * STP_UW_USTACK_SNAPSHOT_BUSY_SLEEP_US);
			continue;
		}
		if (rec->how != STP_UW_USTACK_SNAPSHOT_SAVED)
			return;
		rec->ran = stp_uw_ustack_snapshot_switches(t) != sw
			   || READ_ONCE(t->on_cpu);
		if (!rec->ran || reread++ == 1)
			return;
	}
}

/* ------------------------------------------------------------------ */
/* Printing                                                            */

#define STP_UW_USTACK_SNAPSHOT_SYM_FLAGS	_STP_SYM_FULL

/* Whether the thread's stacks were read (by either way). */
static int
stp_uw_ustack_snapshot_was_read(const struct stp_uw_ustack_snapshot_thread *rec)
{
	return rec->how == STP_UW_USTACK_SNAPSHOT_IPI
		|| rec->how == STP_UW_USTACK_SNAPSHOT_SAVED;
}

/* The thread's state, as a word. */
static const char *stp_uw_ustack_snapshot_state_name(
	const struct stp_uw_ustack_snapshot_thread *rec)
{
	switch (rec->state) {
	case 'R': return rec->cpu >= 0 ? "running" : "runnable";
	case 'S': return "sleeping";
	case 'D': return "uninterruptible";
	case 'T': return "stopped";
	case 't': return "traced";
	case 'Z': return "zombie";
	case 'X': return "dead";
	case 'I': return "idle";
	default: return "other";
	}
}

/* "<thread TID of COMM[PID] ABI STATE...>" */
static void stp_uw_ustack_snapshot_print_header(
	const struct stp_uw_ustack_snapshot_thread *rec)
{
	_stp_printf("<thread %d of %s[%d] %s %s", rec->tid, rec->comm,
		    rec->tgid, rec->compat ? "i386" : "x86_64",
		    stp_uw_ustack_snapshot_state_name(rec));
	if (rec->cpu >= 0)
		_stp_printf(" on cpu %d", rec->cpu);
	if (rec->syscall >= 0)
		_stp_printf(" in syscall %ld", rec->syscall);
	if (rec->how == STP_UW_USTACK_SNAPSHOT_IPI)
		_stp_print(" read by ipi");
	if (rec->ran)
		_stp_print(" (ran while read: frames may mix two moments)");
	_stp_print(">\n");
}

/* User frame n as stap-unwind-symbolize's raw form names it. */
static void stp_uw_ustack_snapshot_print_raw(struct context *c,
					     struct task_struct *t,
					     unsigned long pc, unsigned n)
{
	struct stp_uw_mapping *m = &stp_uw_ustack_snapshot.map;
	unsigned i;

	if (stp_uw_vma_find(t, pc, m) != 0) {
		stp_uw_print_addr(pc, stp_uw_frame_sym_flags(
					  STP_UW_USTACK_SNAPSHOT_SYM_FLAGS, n),
				  t, c);
		return;
	}
	_stp_printf(" 0x%lx : [%s+0x%lx] {buildid=", pc, m->path,
		    pc - m->start + m->pgoff);
	/* bound: STP_UW_BUILD_ID_MAX bytes */
	for (i = 0; i < m->build_id_len && i < STP_UW_BUILD_ID_MAX; i++)
		_stp_printf("%02x", m->build_id[i]);
	_stp_printf(" bias=0x%lx}\n", m->bias_known ? m->bias : 0UL);
}

static void
stp_uw_ustack_snapshot_print_user(struct context *c,
				  const struct stp_uw_ustack_snapshot_thread *rec,
				  int raw)
{
	unsigned n;

	for (n = 0; n < rec->udepth; n++) {	/* bound: MAXBACKTRACE */
		if (raw)
			stp_uw_ustack_snapshot_print_raw(c, rec->task,
							 rec->upc[n], n);
		else
			stp_uw_print_addr(rec->upc[n], stp_uw_frame_sym_flags(
					  STP_UW_USTACK_SNAPSHOT_SYM_FLAGS, n),
					  rec->task, c);
	}
	/* Always: a snapshot's stacks say why they end. */
	{
		char buf[384];

		stp_uw_stop_format(buf, sizeof(buf), &rec->stop);
		_stp_printf(" <stop: %s>\n", buf);
	}
}

/* One thread: header, kernel frames, boundary, user frames, stop. */
static void
stp_uw_ustack_snapshot_print_thread(struct context *c,
				    const struct stp_uw_ustack_snapshot_thread *rec,
				    int raw)
{
	/* A sleeping task's kernel frames are all return addresses. */
	int kflags = stp_uw_kframe_sym_flags(STP_UW_USTACK_SNAPSHOT_SYM_FLAGS, 1);
	unsigned n;

	stp_uw_ustack_snapshot_print_header(rec);
	switch (rec->how) {
	case STP_UW_USTACK_SNAPSHOT_EXITED:
		_stp_print(" <exited before it could be read>\n");
		return;
	case STP_UW_USTACK_SNAPSHOT_BUSY:
		_stp_print(" <not read: a probe was running on its cpu>\n");
		return;
	case STP_UW_USTACK_SNAPSHOT_UNREAD:
		_stp_print(" <not read: the module is unloading>\n");
		return;
	}
	for (n = 0; n < rec->kdepth; n++)	/* bound: KFRAMES */
		stp_uw_print_addr(rec->kpc[n], kflags, NULL, c);
	_stp_printf(" %s\n", STP_UW_KU_MARKER);
	stp_uw_ustack_snapshot_print_user(c, rec, raw);
}

/* Grouping: by process, then user stack. */
static int stp_uw_ustack_snapshot_cmp(const void *a, const void *b)
{
	const struct stp_uw_ustack_snapshot_thread *x = a, *y = b;
	unsigned n;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->how != y->how)
		return x->how < y->how ? -1 : 1;
	if (x->udepth != y->udepth)
		return x->udepth < y->udepth ? -1 : 1;
	for (n = 0; n < x->udepth; n++)		/* bound: MAXBACKTRACE */
		if (x->upc[n] != y->upc[n])
			return x->upc[n] < y->upc[n] ? -1 : 1;
	if (x->stop.reason != y->stop.reason)
		return x->stop.reason < y->stop.reason ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int
stp_uw_ustack_snapshot_same(const struct stp_uw_ustack_snapshot_thread *x,
			    const struct stp_uw_ustack_snapshot_thread *y)
{
	return x->tgid == y->tgid && x->how == y->how && x->udepth == y->udepth
		&& x->stop.reason == y->stop.reason
		&& !memcmp(x->upc, y->upc, x->udepth * sizeof(x->upc[0]));
}

/* The effective uid of a record's process, as the tools' namer checks a
 * perf map's owner against it (symbolize/perfmap.h). */
static long
stp_uw_ustack_snapshot_euid(const struct stp_uw_ustack_snapshot_thread *rec)
{
	long euid;

	rcu_read_lock();
	euid = from_kuid_munged(&init_user_ns, task_euid(rec->task));
	rcu_read_unlock();
	return euid;
}

/* "comm;outer;...;inner COUNT".  Built with STP_UW_USTACK_SNAPSHOT_TOKENS
 * (stap-unwind-pstack -f), each frame is instead a token of the tools'
 * stream (symbolize/filter.h: "US u PID EUID N 0xPC TEXT US"), which the
 * tool's namer names, from debug files and perf maps too. */
static void
stp_uw_ustack_snapshot_print_folded(struct context *c,
				    const struct stp_uw_ustack_snapshot_thread *rec,
				    unsigned count)
{
	char *name = stp_uw_ustack_snapshot.name;
#ifdef STP_UW_USTACK_SNAPSHOT_TOKENS
	const int tokens = 1, sym_flags = _STP_SYM_DATA;
#else
	const int tokens = 0, sym_flags = _STP_SYM_SYMBOL;
#endif
	long euid = tokens ? stp_uw_ustack_snapshot_euid(rec) : -1;
	unsigned n;

	_stp_printf("%s", rec->comm);
	/* A stack that does not reach its outermost frame says why, where
	 * that frame would be. */
	if (rec->udepth && rec->stop.reason != UW_STOP_END_OF_STACK)
		_stp_printf(";[%s]", uw_stop_reason_id(rec->stop.reason));
	for (n = rec->udepth; n-- > 0;) {	/* bound: MAXBACKTRACE */
		stp_uw_snprint_addr(name, sizeof(stp_uw_ustack_snapshot.name),
				    rec->upc[n],
				    stp_uw_frame_sym_flags(sym_flags, n),
				    rec->task, c);
		if (tokens)
			_stp_printf(";\037u %d %ld %u %#lx %s\037", rec->tgid,
				    euid, n, rec->upc[n], name);
		else
			_stp_printf(";%s", name);
	}
	if (!stp_uw_ustack_snapshot_was_read(rec))
		_stp_print(";[not read]");
	_stp_printf(" %u\n", count);
}

/* One group [first, first + count) of identical stacks. */
static void
stp_uw_ustack_snapshot_print_group(struct context *c,
				   const struct stp_uw_ustack_snapshot_thread *first,
				   unsigned count)
{
	unsigned i;

	_stp_printf("<%u thread%s of %s[%d]:", count, count == 1 ? "" : "s",
		    first->comm, first->tgid);
	for (i = 0; i < count; i++)		/* bound: the group */
		_stp_printf(" %d", first[i].tid);
	_stp_print(">\n");
	if (first->how == STP_UW_USTACK_SNAPSHOT_EXITED)
		_stp_print(" <exited before it could be read>\n");
	else if (!stp_uw_ustack_snapshot_was_read(first))
		_stp_print(" <not read>\n");
	else
		stp_uw_ustack_snapshot_print_user(c, first, 0);
}

/* Print at most 16 threads or groups of records [i, end) of one process,
 * with its address space taken up (names from the objects' own headers
 * too): no CPU is held long, and the transport gets them a few at a time.
 * Returns the first record not printed. */
static unsigned
stp_uw_ustack_snapshot_print_some(struct stp_uw_ustack_snapshot *s,
				  unsigned i, unsigned end)
{
	int grouping = s->form == STP_UW_USTACK_SNAPSHOT_GROUPED
		|| s->form == STP_UW_USTACK_SNAPSHOT_FOLDED;
	struct context *c;
	unsigned j, units;

	c = _stp_runtime_entryfn_get_context();
	if (!c)
		return end;
	for (units = 0; i < end && units < 16; units++) {	/* bound: 16 */
		j = i + 1;
		while (grouping && j < end
		       && stp_uw_ustack_snapshot_same(&s->recs[i], &s->recs[j]))
			j++;		/* bound: end */
		if (s->form == STP_UW_USTACK_SNAPSHOT_GROUPED)
			stp_uw_ustack_snapshot_print_group(c, &s->recs[i], j - i);
		else if (s->form == STP_UW_USTACK_SNAPSHOT_FOLDED)
			stp_uw_ustack_snapshot_print_folded(c, &s->recs[i], j - i);
		else
			stp_uw_ustack_snapshot_print_thread(c, &s->recs[i],
				s->form == STP_UW_USTACK_SNAPSHOT_RAW);
		i = j;
	}
	_stp_print_flush();
	_stp_runtime_entryfn_put_context(c);
	return i;
}

/* Every record, process by process (records are in process order). */
static void stp_uw_ustack_snapshot_print(struct stp_uw_ustack_snapshot *s)
{
	unsigned i = 0, end;

	while (i < s->nrecs && !atomic_read(&s->closing)) {	/* bound: nrecs */
		struct mm_struct *mm;

		for (end = i + 1; end < s->nrecs
		     && s->recs[end].tgid == s->recs[i].tgid; end++)
			;		/* bound: nrecs */
		mm = get_task_mm(s->recs[i].task);
		if (mm)
			kthread_use_mm(mm);
		while (i < end)		/* bound: each call prints >= 1 */
			i = stp_uw_ustack_snapshot_print_some(s, i, end);
		if (mm) {
			kthread_unuse_mm(mm);
			mmput(mm);
		}
		cond_resched();
	}
}

/* ------------------------------------------------------------------ */
/* The session's start                                                 */

/* As the session starts, after its begin probes, SystemTap's task finder
 * attaches to every thread (for the VMA tracker's map events:
 * vma_events.c) and interrupts it: a sleeping thread wakes, leaves its
 * call (to restart it, or with EINTR to its caller's loop), runs the
 * attach's task work and goes back into its call.  A snapshot asked for
 * by a begin probe races that, and would read some threads on their way:
 * at a restarted call's pc, or in the caller's retry loop, so that
 * threads blocked in one place would not group.  So the worker first
 * waits for the session's start to end, then while a thread to be read
 * is still on its way; at most SETTLE_MS in all. */
#define STP_UW_USTACK_SNAPSHOT_SETTLE_MS	5000

/* How long a thread seen running inside a system call it has not
 * returned from is waited for, in its own run time: one woken by the
 * session's start and back in its restarted call has yet to sleep there,
 * and needs little CPU time to do so, however long it waits for a CPU
 * (under TCG, on a loaded host, a vCPU can stand still for tens of ms:
 * counted in polls, a thread in pause() was read on its way in, without
 * the pause frame).  One that works in its calls all the time is taken
 * as it is once it has run this long. */
#define STP_UW_USTACK_SNAPSHOT_ENTERING_RUN_MS	100

enum stp_uw_ustack_snapshot_way {
	STP_UW_WAY_SETTLED,	/* asleep, or in user code */
	STP_UW_WAY_ON,		/* on its way out of its call and back */
	STP_UW_WAY_ENTERING,	/* running inside a call not yet returned */
};

/* Where t is on its way out of a system call and back: running or
 * runnable, with task work queued (the attach's, or any), or with its
 * kernel entry a system call that has a signal pending (woken for it, not
 * yet out) or its return value set (at entry it is -ENOSYS): ON; running
 * or runnable with a system call's entry and no return value yet:
 * ENTERING; asleep, or in user code (its last entry an interrupt's):
 * SETTLED. */
static enum stp_uw_ustack_snapshot_way
stp_uw_ustack_snapshot_way(struct task_struct *t)
{
	struct pt_regs regs;

	if ((t->flags & PF_EXITING) || !READ_ONCE(t->mm) || !task_is_running(t))
		return STP_UW_WAY_SETTLED;
	if (READ_ONCE(t->task_works))
		return STP_UW_WAY_ON;
	if (!stp_uw_ustack_snapshot_entry_regs(t, &regs)
	    || !stp_uw_entry_is_syscall(stp_uw_classify_entry(t, &regs, 0)))
		return STP_UW_WAY_SETTLED;
	if ((long)regs.ax != -ENOSYS || signal_pending(t))
		return STP_UW_WAY_ON;
	return STP_UW_WAY_ENTERING;
}

/* Whether rec, seen entering its call, has run ENTERING_RUN_MS since it
 * was first seen so.  Its run time is brought up to date at each tick
 * and switch, so a thread that runs is not undercounted by more than a
 * tick. */
static bool
stp_uw_ustack_snapshot_entered(struct stp_uw_ustack_snapshot_thread *rec)
{
	u64 ran = READ_ONCE(rec->task->se.sum_exec_runtime);

	if (!rec->entering) {
		rec->entering = 1;
		rec->entering_ns = ran;
		return false;
	}
	return ran - rec->entering_ns >=
		STP_UW_USTACK_SNAPSHOT_ENTERING_RUN_MS * NSEC_PER_MSEC;
}

/* Wait for the session's start to end, then until each thread has been
 * seen once not on its way (a thread that makes system calls all the time
 * is seen so soon enough; none is waited for twice), nor entering its
 * call with less than ENTERING_RUN_MS of its own run time spent there
 * since first seen so.  Returns the ms waited. */
static unsigned
stp_uw_ustack_snapshot_settle(struct stp_uw_ustack_snapshot *s)
{
	u64 start = ktime_get_ns(), waited = 0;
	unsigned i, pending;

	/* bound: SETTLE_MS, in sleeps of at least 1 ms */
	while (waited < STP_UW_USTACK_SNAPSHOT_SETTLE_MS * NSEC_PER_MSEC
	       && !atomic_read(&s->closing)) {
		/* The session's start (stock's transport.c: the begin
		 * probes, the task finder's start and its second wake-up
		 * of each thread group's leader) is over. */
		if (READ_ONCE(_stp_probes_started)) {
			pending = 0;
			for (i = 0; i < s->nrecs; i++) {	/* bound: nrecs */
				struct stp_uw_ustack_snapshot_thread *rec =
					&s->recs[i];

				if (rec->settled)
					continue;
				switch (stp_uw_ustack_snapshot_way(rec->task)) {
				case STP_UW_WAY_ON:
					pending++;
					break;
				case STP_UW_WAY_ENTERING:
					if (!stp_uw_ustack_snapshot_entered(rec)) {
						pending++;
						break;
					}
					fallthrough;
				case STP_UW_WAY_SETTLED:
					rec->settled = 1;
					break;
				}
			}
			if (!pending)
				break;
		}
		usleep_range(1000, 2000);
		waited = ktime_get_ns() - start;
	}
	return (unsigned)div_u64(waited, NSEC_PER_MSEC);
}

/* ------------------------------------------------------------------ */
/* The worker                                                          */

/* Keep a reference on t if there is room, else count it as dropped. */
static void stp_uw_ustack_snapshot_take(struct stp_uw_ustack_snapshot *s,
					struct stp_uw_ustack_snapshot_counts *n,
					struct task_struct *t)
{
	if (s->nrecs >= STP_UW_USTACK_SNAPSHOT_THREADS) {
		n->dropped++;
		return;
	}
	get_task_struct(t);
	s->recs[s->nrecs++].task = t;
}

/* Take a reference on every user thread (not a kernel thread) of the
 * request's process(es), in process order, as room allows.  A thread that
 * has exited (no mm: a zombie, or the leader of a live thread group that
 * called pthread_exit) is taken too: its record says it exited, in both
 * forms of request.  Returns -ESRCH if the pid names no process. */
static int stp_uw_ustack_snapshot_collect(struct stp_uw_ustack_snapshot *s,
					  struct stp_uw_ustack_snapshot_counts *n)
{
	struct task_struct *p, *t;
	pid_t last = 0;

	rcu_read_lock();
	if (s->pid) {
		p = pid_task(find_vpid(s->pid), PIDTYPE_PID);
		if (!p || (p->flags & PF_KTHREAD)) {
			rcu_read_unlock();
			return -ESRCH;
		}
		p = p->group_leader;
		for_each_thread(p, t)		/* bound: the process's threads */
			stp_uw_ustack_snapshot_take(s, n, t);
	} else {
		for_each_process_thread(p, t) {	/* bound: every thread */
			if (!(t->flags & PF_KTHREAD))
				stp_uw_ustack_snapshot_take(s, n, t);
		}
	}
	rcu_read_unlock();
	for (; n->threads < s->nrecs; n->threads++) {	/* bound: nrecs */
		struct stp_uw_ustack_snapshot_thread *rec = &s->recs[n->threads];

		rec->tid = task_pid_nr(rec->task);
		rec->tgid = task_tgid_nr(rec->task);
		get_task_comm(rec->comm, rec->task);
		if (rec->tgid != last)
			n->procs++;
		last = rec->tgid;
	}
	return 0;
}

static void stp_uw_ustack_snapshot_work_fn(struct work_struct *work)
{
	struct stp_uw_ustack_snapshot *s =
		container_of(work, struct stp_uw_ustack_snapshot, work);
	struct stp_uw_ustack_snapshot_counts n = {};
	struct context *c;
	unsigned i;
	int rc;

	s->nrecs = 0;
	s->recs = kvcalloc(STP_UW_USTACK_SNAPSHOT_THREADS, sizeof(*s->recs),
			   GFP_KERNEL);
	rc = s->recs ? stp_uw_ustack_snapshot_collect(s, &n) : -ENOMEM;
	if (rc == 0)
		n.settle_ms = stp_uw_ustack_snapshot_settle(s);
	n.cpu = raw_smp_processor_id();
	n.start_ns = ktime_get_ns();
	for (i = 0; rc == 0 && i < s->nrecs; i++) {	/* bound: nrecs */
		struct stp_uw_ustack_snapshot_thread *rec = &s->recs[i];

		if (atomic_read(&s->closing))
			break;
		cond_resched();	/* its own CPU's other tasks */
		stp_uw_ustack_snapshot_read(rec);
		n.ipi += rec->how == STP_UW_USTACK_SNAPSHOT_IPI;
		n.saved += rec->how == STP_UW_USTACK_SNAPSHOT_SAVED;
		n.exited += rec->how == STP_UW_USTACK_SNAPSHOT_EXITED;
		n.busy += rec->how == STP_UW_USTACK_SNAPSHOT_BUSY;
		n.ran += rec->ran;
		n.ipi_max_ns = max(n.ipi_max_ns, rec->ipi_ns);
	}
	n.end_ns = ktime_get_ns();
	if (rc == 0 && !atomic_read(&s->closing)) {
		if (s->form == STP_UW_USTACK_SNAPSHOT_GROUPED
		    || s->form == STP_UW_USTACK_SNAPSHOT_FOLDED)
			sort(s->recs, s->nrecs, sizeof(*s->recs),
			     stp_uw_ustack_snapshot_cmp, NULL);
		stp_uw_ustack_snapshot_print(s);
	}
	c = atomic_read(&s->closing) ? NULL : _stp_runtime_entryfn_get_context();
	if (c) {
		if (rc == -ESRCH)
			_stp_printf("<snapshot #%lu: no process %d>\n", s->seq,
				    s->pid);
		else if (rc)
			_stp_printf("<snapshot #%lu: no memory for %u records>\n",
				    s->seq, (unsigned)STP_UW_USTACK_SNAPSHOT_THREADS);
		else
			_stp_printf("<snapshot #%lu of %s: %u threads in %u "
				    "processes, %u by ipi (longest %u ns), %u from saved registers, "
				    "%u ran while read, %u exited first, %u busy, "
				    "%u dropped (room for %u); %u ms for the "
				    "threads the session's start woke; read in %llu us "
				    "(monotonic %llu to %llu ns) on cpu %d>\n",
				    s->seq, s->what, n.threads, n.procs, n.ipi,
				    n.ipi_max_ns, n.saved,
				    n.ran, n.exited, n.busy, n.dropped,
				    (unsigned)STP_UW_USTACK_SNAPSHOT_THREADS,
				    n.settle_ms,
				    (n.end_ns - n.start_ns) / 1000,
				    n.start_ns, n.end_ns, n.cpu);
		_stp_print_flush();
		_stp_runtime_entryfn_put_context(c);
	}
	for (i = 0; s->recs && i < s->nrecs; i++)	/* bound: nrecs */
		put_task_struct(s->recs[i].task);
	kvfree(s->recs);
	s->recs = NULL;
	atomic_long_set(&s->done, s->seq);
	smp_mb__before_atomic();
	atomic_set(&s->busy, 0);
}

static void stp_uw_ustack_snapshot_irq_work_fn(struct irq_work *iw)
{
	struct stp_uw_ustack_snapshot *s =
		container_of(iw, struct stp_uw_ustack_snapshot, irq_work);

	if (atomic_read(&s->closing)) {
		atomic_set(&s->busy, 0);
		return;
	}
	/* On this CPU: the one whose probe asked. */
	queue_work_on(smp_processor_id(), s->wq, &s->work);
}

static unsigned long stp_uw_ustack_snapshot_request(pid_t pid,
						    enum stp_uw_ustack_snapshot_form form)
{
	struct stp_uw_ustack_snapshot *s = &stp_uw_ustack_snapshot;

	if (atomic_read(&s->closing) || !s->irq_work.func
	    || atomic_cmpxchg(&s->busy, 0, 1) != 0)
		return 0;
	s->pid = pid;
	s->form = form;
	if (pid)
		snprintf(s->what, sizeof(s->what), "pid %d", pid);
	else
		strscpy(s->what, "every process", sizeof(s->what));
	s->seq = (unsigned long)
		atomic_long_inc_return(&stp_uw_ustack_snapshot_seq);
	irq_work_queue(&s->irq_work);
	return s->seq;
}

static int stp_uw_ustack_snapshot_printed(unsigned long n)
{
	return n > 0
		&& (unsigned long)atomic_long_read(&stp_uw_ustack_snapshot.done)
		   >= n;
}

/* A per-CPU workqueue.  Since 6.17 (include/linux/workqueue.h) a caller
 * says so with WQ_PERCPU, and newer kernels warn at alloc_workqueue() if
 * neither it nor WQ_UNBOUND is given; before, per-CPU was the default.
 * Stable kernels have it too (Debian's 6.12), so the kernel is asked
 * (stap-unwind/features.h), not its version. */
#if defined(STP_UW_KF_WQ_PERCPU)
#define STP_UW_USTACK_SNAPSHOT_WQ_PERCPU	WQ_PERCPU
#else
#define STP_UW_USTACK_SNAPSHOT_WQ_PERCPU	0
#endif

/* WQ_CPU_INTENSIVE: a worker that reads for a second does not hold up the
 * other work items of its CPU's pool. */
static int stp_uw_ustack_snapshot_init(void)
{
	struct stp_uw_ustack_snapshot *s = &stp_uw_ustack_snapshot;

	s->wq = alloc_workqueue("stap_uw_ustack_snapshot",
				STP_UW_USTACK_SNAPSHOT_WQ_PERCPU | WQ_CPU_INTENSIVE, 1);
	if (!s->wq) {
		printk(KERN_ERR "stap-unwind: no workqueue for snapshots\n");
		return -ENOMEM;
	}
	init_irq_work(&s->irq_work, stp_uw_ustack_snapshot_irq_work_fn);
	INIT_WORK(&s->work, stp_uw_ustack_snapshot_work_fn);
	return 0;
}

static void stp_uw_ustack_snapshot_exit(void)
{
	struct stp_uw_ustack_snapshot *s = &stp_uw_ustack_snapshot;

	if (!s->irq_work.func)
		return;
	atomic_set(&s->closing, 1);
	synchronize_rcu();	/* probe handlers still running */
	irq_work_sync(&s->irq_work);
	if (cancel_work_sync(&s->work))
		atomic_set(&s->busy, 0);	/* queued, never ran */
	destroy_workqueue(s->wq);
	s->wq = NULL;
}

#endif /* STP_UW_USTACK_SNAPSHOT_C */
