/* stap-unwind: rescans asked for when the unwinder misses: a pc of a
 * tracked process that no mapping of its snapshot covers (a moved
 * mapping: the task finder does not report mremap).  The probe handler
 * notes the process in a static set of slots and kicks, through
 * irq_work, a worker that rescans it in process context (vma_map.c's top
 * comment: "Who writes").
 */
#ifndef STP_UW_VMA_MISS_C
#define STP_UW_VMA_MISS_C

#include "stap-unwind/vma_records.h"

/* Rescans asked for on a miss: tgids, 0 = free slot. */
static atomic_t stp_uw_vma_miss_tgid[STP_UW_VMA_MISS_SLOTS];
static atomic_t stp_uw_vma_miss_asked = ATOMIC_INIT(0);
static void stp_uw_vma_miss_kick(struct irq_work *iw);
static struct irq_work stp_uw_vma_miss_irq_work = IRQ_WORK_INIT(stp_uw_vma_miss_kick);

/* The unwinder found no mapping for a pc of tsk's process (stp_uw_vma_find
 * failed): if the process is tracked, ask for a rescan of its map.  Probe
 * context: no lock, no allocation; a request that finds every slot taken
 * is dropped (the next miss asks again). */
static void stp_uw_vma_missed(struct task_struct *tsk)
{
	struct stp_uw_proc *p;
	unsigned long last, now = jiffies | 1;	/* 0 means never */
	unsigned i;

	if (!tsk || !tsk->mm || !atomic_read(&stp_uw_vma_active))
		return;
	rcu_read_lock();
	p = stp_uw_proc_of_rcu(tsk->tgid, tsk->mm);
	if (!p)
		goto out;
	last = READ_ONCE(p->miss_asked);
	if (last && time_before(now, last + STP_UW_VMA_MISS_INTERVAL))
		goto out;
	if (cmpxchg(&p->miss_asked, last, now) != last)
		goto out;		/* another CPU asked just now */
	/* bound: STP_UW_VMA_MISS_SLOTS */
	for (i = 0; i < STP_UW_VMA_MISS_SLOTS; i++) {
		if (atomic_cmpxchg(&stp_uw_vma_miss_tgid[i], 0, tsk->tgid) == 0) {
			atomic_inc(&stp_uw_vma_miss_asked);
			irq_work_queue(&stp_uw_vma_miss_irq_work);
			break;
		}
	}
out:
	rcu_read_unlock();
}

/* The rescans asked for on misses (stp_uw_vma_missed), in a worker: any
 * process, like module init's scan. */
static void stp_uw_vma_miss_work_fn(struct work_struct *work)
{
	unsigned i;

	/* bound: STP_UW_VMA_MISS_SLOTS */
	for (i = 0; i < STP_UW_VMA_MISS_SLOTS; i++) {
		pid_t tgid = atomic_xchg(&stp_uw_vma_miss_tgid[i], 0);
		struct task_struct *t = NULL;
		struct pid *pid;

		if (!tgid)
			continue;
		pid = find_get_pid(tgid);	/* the worker's namespace: init's */
		if (pid) {
			t = get_pid_task(pid, PIDTYPE_TGID);
			put_pid(pid);
		}
		if (!t)
			continue;
		if (!(t->flags & PF_EXITING))
			stp_uw_vma_rescan(t);
		put_task_struct(t);
	}
}

static DECLARE_WORK(stp_uw_vma_miss_work, stp_uw_vma_miss_work_fn);

/* irq_work: from any context the probe ran in, to one that may queue work. */
static void stp_uw_vma_miss_kick(struct irq_work *iw)
{
	schedule_work(&stp_uw_vma_miss_work);
}

#endif /* STP_UW_VMA_MISS_C */
