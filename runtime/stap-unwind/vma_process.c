/* stap-unwind: the VMA tracking's process records: which processes may
 * have one, and a record's snapshot replaced, or the record dropped (exec
 * of a new image, exit).  Writers only, under stp_uw_vma_lock; what a
 * writer takes out is freed a grace period later, since a probe handler
 * may still hold it (vma_reader.c).
 */
#ifndef STP_UW_VMA_PROCESS_C
#define STP_UW_VMA_PROCESS_C

#include "stap-unwind/vma_records.h"

/* Whether tsk's process may be tracked: always, unless the script runs
 * unprivileged, where only the user's own processes may (vma_map.c's top
 * comment: "Unprivileged scripts"). */
static bool stp_uw_vma_tracks(struct task_struct *tsk)
{
#if STP_PRIVILEGE_CONTAINS(STP_PRIVILEGE, STP_PR_STAPDEV) || \
    STP_PRIVILEGE_CONTAINS(STP_PRIVILEGE, STP_PR_STAPSYS)
	return true;
#else
	return from_kuid_munged(current_user_ns(), task_euid(tsk)) == _stp_uid;
#endif
}

/* The record of process tgid, or NULL.  stp_uw_vma_lock held. */
static struct stp_uw_proc *stp_uw_proc_find_locked(pid_t tgid)
{
	struct stp_uw_proc *p;

	/* bound: one hash chain */
	hlist_for_each_entry(p, &stp_uw_proc_hash[stp_uw_vma_hash(tgid)], hnode) {
		if (p->tgid == tgid)
			return p;
	}
	return NULL;
}

/* Drop a snapshot's object references and free it after a grace period.
 * Called with stp_uw_vma_lock held. */
static void stp_uw_snap_release_locked(struct stp_uw_snap *s)
{
	unsigned i;

	if (!s)
		return;
	/* Counted before anything is queued for freeing: a walk that read
	 * the old count runs in its probe handler, which the grace period
	 * waits for (stp_uw_vma_releases). */
	atomic_long_inc(&stp_uw_vma_release_count);
	smp_mb__after_atomic();
	for (i = 0; i < s->n; i++) {	/* bound: s->n <= STP_UW_VMA_MAX_MAPS */
		stp_uw_obj_put_locked(s->map[i].obj);
	}
	atomic_sub(s->n, &stp_uw_vma_nmaps);
	stp_uw_vma_uncharge(s->charged);
	kfree_rcu(s, rcu);
}

/* Take p out of the table of processes and free it, with its snapshot,
 * after a grace period (readers may still hold either).  Called with
 * stp_uw_vma_lock held. */
static void stp_uw_proc_unlink_locked(struct stp_uw_proc *p)
{
	hlist_del_rcu(&p->hnode);
	stp_uw_snap_release_locked(rcu_dereference_protected(p->snap, 1));
	atomic_dec(&stp_uw_vma_nprocs);
	stp_uw_vma_uncharge(sizeof(*p));
	kfree_rcu(p, rcu);
}

/* Make s the snapshot of process tgid, whose mm is mm: in its record p
 * if it has one (the old snapshot is released), else in newp, a new
 * record from stp_uw_vma_alloc(), then linked.  Returns whether newp was
 * used; with neither, s is released.  stp_uw_vma_lock held. */
static bool stp_uw_proc_publish_locked(struct stp_uw_proc *p, pid_t tgid,
				       struct mm_struct *mm,
				       struct stp_uw_snap *s,
				       struct stp_uw_proc *newp)
{
	if (p) {
		struct stp_uw_snap *old = rcu_dereference_protected(p->snap, 1);

		WRITE_ONCE(p->mm, mm);
		rcu_assign_pointer(p->snap, s);
		stp_uw_snap_release_locked(old);
		return false;
	}
	if (!newp) {
		stp_uw_snap_release_locked(s);
		return false;
	}
	newp->tgid = tgid;
	newp->mm = mm;
	RCU_INIT_POINTER(newp->snap, s);
	hlist_add_head_rcu(&newp->hnode, &stp_uw_proc_hash[stp_uw_vma_hash(tgid)]);
	atomic_inc(&stp_uw_vma_nprocs);
	return true;
}

/* Forget process tgid (exec of a new image, exit).  Any context but a
 * probe handler's: spinlock only. */
static void stp_uw_vma_drop(pid_t tgid)
{
	struct stp_uw_proc *p;
	unsigned long flags;

	spin_lock_irqsave(&stp_uw_vma_lock, flags);
	p = stp_uw_proc_find_locked(tgid);
	if (p)
		stp_uw_proc_unlink_locked(p);
	spin_unlock_irqrestore(&stp_uw_vma_lock, flags);
}

#endif /* STP_UW_VMA_PROCESS_C */
