/* stap-unwind: a rescan: the record of one process rebuilt from its mm,
 * and the scan of every process at module init.
 *
 * A rescan reads the process's executable file mappings under its mmap
 * lock, finds the object of each, notes the objects new to the process,
 * builds a new snapshot, publishes it (or drops the record, if the
 * process has gone on to a new image meanwhile), and last makes the new
 * objects' unwind tables resident.  It rebuilds the whole list, so a
 * missed or reordered event is repaired by the next one.  Process
 * context; sleeps (mmap lock, allocation, file reads).
 */
#ifndef STP_UW_VMA_RESCAN_C
#define STP_UW_VMA_RESCAN_C

#include "stap-unwind/vma_records.h"

/* One executable file mapping, as read under the mmap lock. */
struct stp_uw_scan_ent {
	unsigned long start, end, pgoff, base;
	struct file *file;		/* referenced */
	struct stp_uw_obj *obj;
	unsigned nfault;		/* extents to make resident */
	unsigned long fault_lo[STP_UW_OBJ_EXTENTS], fault_hi[STP_UW_OBJ_EXTENTS];
};

/* The executable file mappings of mm, in address order, at most
 * STP_UW_VMA_MAX_MAPS, into ents (each file referenced).  Returns how
 * many. */
static unsigned stp_uw_scan_read_mappings(struct mm_struct *mm,
					  struct stp_uw_scan_ent *ents)
{
	struct vm_area_struct *vma;
	const struct inode *hdr_ino = NULL;
	unsigned long hdr_start = 0;
	unsigned n = 0;

	mmap_read_lock(mm);
	{
		/* In address order: the maple tree's iterator, or, on kernels
		 * without it (stap-unwind/features.h), find_vma() from each
		 * mapping's end to the next. */
#ifdef STP_UW_HAVE_FOR_EACH_VMA
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma) {	/* bound: mm->map_count */
#else
		for (vma = find_vma(mm, 0); vma;	/* bound: mm->map_count */
		     vma = find_vma(mm, vma->vm_end)) {
#endif
			struct file *f = vma->vm_file;

			if (!f)
				continue;
			/* The object's ELF header: the mapping of file
			 * offset 0, below its other mappings. */
			if (vma->vm_pgoff == 0) {
				hdr_ino = file_inode(f);
				hdr_start = vma->vm_start;
			}
			if (!(vma->vm_flags & VM_EXEC) || n >= STP_UW_VMA_MAX_MAPS)
				continue;
			ents[n].start = vma->vm_start;
			ents[n].end = vma->vm_end;
			ents[n].pgoff = vma->vm_pgoff << PAGE_SHIFT;
			if (hdr_ino == file_inode(f) && hdr_start <= vma->vm_start)
				ents[n].base = hdr_start;
			else
				ents[n].base = vma->vm_start - ents[n].pgoff;
			ents[n].file = get_file(f);
			ents[n].obj = NULL;
			n++;
		}
	}
	mmap_read_unlock(mm);
	return n;
}

/* The object record of each mapping (NULL where the budget refused). */
static void stp_uw_scan_get_objects(struct stp_uw_scan_ent *ents, unsigned n,
				    char *pathbuf)
{
	unsigned i;

	for (i = 0; i < n; i++) {	/* bound: n <= STP_UW_VMA_MAX_MAPS */
		ents[i].obj = stp_uw_obj_get(ents[i].file, pathbuf);
		ents[i].nfault = 0;
	}
}

/* Objects new to process tgid of image mm (not at the same base earlier
 * in ents, nor in its last snapshot): the extents probes read of them
 * (stp_uw_obj_read_extents), to make resident once the snapshot is
 * published. */
static void stp_uw_scan_note_new_objects(pid_t tgid, struct mm_struct *mm,
					 struct stp_uw_scan_ent *ents,
					 unsigned n)
{
	struct stp_uw_proc *p;
	struct stp_uw_snap *old;
	unsigned i, k;

	rcu_read_lock();
	p = stp_uw_proc_of_rcu(tgid, mm);
	old = p ? rcu_dereference(p->snap) : NULL;
	for (i = 0; i < n; i++) {	/* bound: n <= STP_UW_VMA_MAX_MAPS */
		struct stp_uw_obj *o = ents[i].obj;
		int seen = 0;

		if (!o)
			continue;
		for (k = 0; k < i && !seen; k++)	/* bound: i */
			seen = ents[k].obj == o && ents[k].base == ents[i].base;
		/* bound: old->n */
		for (k = 0; old && k < old->n && !seen; k++)
			seen = old->map[k].obj == o && old->map[k].base == ents[i].base;
		if (seen)
			continue;
		ents[i].nfault = stp_uw_obj_read_extents(o, ents[i].base,
							 ents[i].fault_lo,
							 ents[i].fault_hi);
	}
	rcu_read_unlock();
}

/* A snapshot of the mappings whose object is known, which takes over
 * their references (ents[i].obj NULL after); NULL if the budget refuses.
 * Adjacent mappings of one object with the same base (the same segment
 * split by mprotect) stay separate entries: cheap. */
static struct stp_uw_snap *
stp_uw_scan_build_snapshot(struct stp_uw_scan_ent *ents, unsigned n)
{
	size_t size = sizeof(struct stp_uw_snap) + n * sizeof(struct stp_uw_map);
	struct stp_uw_snap *s = stp_uw_vma_alloc(size, false);
	unsigned i, k;

	if (!s)
		return NULL;
	s->charged = size;
	/* bound: n <= STP_UW_VMA_MAX_MAPS */
	for (i = 0, k = 0; i < n; i++) {
		if (!ents[i].obj)
			continue;
		s->map[k].start = ents[i].start;
		s->map[k].end = ents[i].end;
		s->map[k].pgoff = ents[i].pgoff;
		s->map[k].base = ents[i].base;
		s->map[k].obj = ents[i].obj;
		ents[i].obj = NULL;
		k++;
	}
	s->n = k;
	s->generation = atomic_long_inc_return(&stp_uw_vma_generation);
	atomic_add(k, &stp_uw_vma_nmaps);
	return s;
}

/* Make s (NULL: the budget refused) the snapshot of tsk's process of
 * image mm, with newp as its record if it has none; drop the references
 * of the objects s did not take.  A process that exited or exec'd
 * meanwhile keeps no record.  Returns whether newp was used. */
static bool stp_uw_scan_publish(struct task_struct *tsk, struct mm_struct *mm,
				struct stp_uw_scan_ent *ents, unsigned n,
				struct stp_uw_snap *s, struct stp_uw_proc *newp)
{
	struct stp_uw_proc *p;
	unsigned long flags;
	bool used = false;
	unsigned i;

	spin_lock_irqsave(&stp_uw_vma_lock, flags);
	for (i = 0; i < n; i++) {	/* bound: n <= STP_UW_VMA_MAX_MAPS */
		if (ents[i].obj)
			stp_uw_obj_put_locked(ents[i].obj);
	}
	p = stp_uw_proc_find_locked(tsk->tgid);
	if (READ_ONCE(tsk->mm) != mm || !s) {
		if (p)
			stp_uw_proc_unlink_locked(p);
		stp_uw_snap_release_locked(s);
	} else {
		used = stp_uw_proc_publish_locked(p, tsk->tgid, mm, s, newp);
	}
	spin_unlock_irqrestore(&stp_uw_vma_lock, flags);
	return used;
}

/* Make what probes read of the new objects resident, and let go of the
 * files. */
static void stp_uw_scan_finish(struct task_struct *tsk,
			       struct stp_uw_scan_ent *ents, unsigned n)
{
	unsigned i, k;

	for (i = 0; i < n; i++) {	/* bound: n <= STP_UW_VMA_MAX_MAPS */
		/* bound: nfault <= STP_UW_OBJ_EXTENTS */
		for (k = 0; k < ents[i].nfault; k++)
			stp_uw_vma_prefault(tsk, ents[i].fault_lo[k],
					    ents[i].fault_hi[k]);
		fput(ents[i].file);
	}
}

/* Rebuild the record of tsk's process from its mm.  Process context
 * (task work of the process itself, the miss worker, or module init for
 * any process).  Sleeps (mmap lock, allocation, file reads). */
static void stp_uw_vma_rescan(struct task_struct *tsk)
{
	struct mm_struct *mm;
	struct stp_uw_scan_ent *ents;
	struct stp_uw_snap *s;
	struct stp_uw_proc *newp = NULL;
	unsigned n;
	char *pathbuf;

	if (!atomic_read(&stp_uw_vma_active))
		return;
	if (!stp_uw_vma_tracks(tsk)) {
		/* Another user's, or no longer ours (a set-user-ID program
		 * that dropped to our euid and took its own back). */
		stp_uw_vma_drop(tsk->tgid);
		return;
	}
	mm = get_task_mm(tsk);
	if (!mm)
		return;
	ents = kvmalloc_array(STP_UW_VMA_MAX_MAPS, sizeof(*ents), GFP_KERNEL);
	pathbuf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!ents || !pathbuf)
		goto out_free;

	mutex_lock(&stp_uw_vma_rescan_mutex);
	if (!atomic_read(&stp_uw_vma_active)) {	/* stp_uw_vma_done() ran */
		mutex_unlock(&stp_uw_vma_rescan_mutex);
		goto out_free;
	}
	atomic_inc(&stp_uw_vma_rescans);
	n = stp_uw_scan_read_mappings(mm, ents);
	stp_uw_scan_get_objects(ents, n, pathbuf);
	stp_uw_scan_note_new_objects(tsk->tgid, mm, ents, n);
	stp_uw_vdso_compile(READ_ONCE(mm->context.vdso_image));
	s = stp_uw_scan_build_snapshot(ents, n);
	if (s)
		newp = stp_uw_vma_alloc(sizeof(*newp), false);
	if (stp_uw_scan_publish(tsk, mm, ents, n, s, newp))
		newp = NULL;
	mutex_unlock(&stp_uw_vma_rescan_mutex);

	if (newp)
		stp_uw_vma_free(newp, sizeof(*newp));
	stp_uw_scan_finish(tsk, ents, n);
out_free:
	kfree(pathbuf);
	kvfree(ents);
	mmput(mm);
}

/* Scan every process that exists now.  Module init: process context. */
static void stp_uw_vma_scan_all(void)
{
	struct task_struct *p, **tasks;
	unsigned n = 0, cap = 0, i;

	rcu_read_lock();
	for_each_process(p)	/* bound: the processes */
		cap++;
	rcu_read_unlock();
	cap += 64;
	tasks = kvmalloc_array(cap, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return;
	rcu_read_lock();
	for_each_process(p) {	/* bound: the processes */
		if (n >= cap)
			break;
		if (p->flags & (PF_KTHREAD | PF_EXITING) || !p->mm)
			continue;
		get_task_struct(p);
		tasks[n++] = p;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {	/* bound: n <= cap */
		stp_uw_vma_rescan(tasks[i]);
		put_task_struct(tasks[i]);
	}
	kvfree(tasks);
}

#endif /* STP_UW_VMA_RESCAN_C */
