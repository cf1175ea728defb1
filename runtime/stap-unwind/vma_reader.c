/* stap-unwind: the VMA tracking's readers: a process's mappings looked up
 * without a lock or an allocation, from probe context (stp_uw_vma_find)
 * or from the task finder's callbacks (stp_uw_vma_known).  What a reader
 * finds is an immutable snapshot published with RCU, valid until the end
 * of its read-side critical section: for a probe handler, which runs with
 * preemption disabled, the rest of the handler (vma_map.c's top comment:
 * "Readers").
 */
#ifndef STP_UW_VMA_READER_C
#define STP_UW_VMA_READER_C

#include "stap-unwind/vma_records.h"

static struct stp_uw_proc *stp_uw_proc_find_rcu(pid_t tgid)
{
	struct stp_uw_proc *p;

	/* bound: one hash chain */
	hlist_for_each_entry_rcu(p, &stp_uw_proc_hash[stp_uw_vma_hash(tgid)],
				 hnode) {
		if (p->tgid == tgid)
			return p;
	}
	return NULL;
}

/* The record of process tgid for the image mm (not one of an old image or
 * of a recycled pid), or NULL.  Under rcu_read_lock(). */
static struct stp_uw_proc *stp_uw_proc_of_rcu(pid_t tgid,
					      const struct mm_struct *mm)
{
	struct stp_uw_proc *p = stp_uw_proc_find_rcu(tgid);

	return p && READ_ONCE(p->mm) == mm ? p : NULL;
}

static int stp_uw_vma_find(struct task_struct *tsk, unsigned long addr,
			   struct stp_uw_mapping *out)
{
	struct stp_uw_proc *p;
	struct stp_uw_snap *s;
	const struct stp_uw_map *m = NULL;
	unsigned lo, hi;
	int rc = -ENOENT;

	if (!tsk || !tsk->mm || !atomic_read(&stp_uw_vma_active))
		return -ENOENT;
	rcu_read_lock();
	p = stp_uw_proc_of_rcu(tsk->tgid, tsk->mm);
	if (!p)
		goto out;
	s = rcu_dereference(p->snap);
	if (!s)
		goto out;
	lo = 0;
	hi = s->n;
	while (lo < hi) {		/* bound: log2(STP_UW_VMA_MAX_MAPS) */
		unsigned mid = lo + (hi - lo) / 2;

		if (addr < s->map[mid].start)
			hi = mid;
		else if (addr >= s->map[mid].end)
			lo = mid + 1;
		else {
			m = &s->map[mid];
			break;
		}
	}
	if (!m)
		goto out;
	out->start = m->start;
	out->end = m->end;
	out->pgoff = m->pgoff;
	out->base = m->base;
	out->bias = m->obj->elf ? m->base - m->obj->delta : 0;
	out->bias_known = m->obj->elf;
	out->path = m->obj->path;
	out->build_id_len = m->obj->build_id_len;
	memcpy(out->build_id, m->obj->build_id, m->obj->build_id_len);
	out->index = m->obj->index;
	out->compiled = m->obj->compiled ? &m->obj->compiled->table : NULL;
	out->compiled_parse_rows = m->obj->compiled ? m->obj->compiled->parse_rows : 0;
	out->steps = m->obj->steps;
	out->generation = s->generation;
	rc = 0;
out:
	rcu_read_unlock();
	return rc;
}

/* 1 if tsk's process has a record for its current mm whose snapshot has
 * a mapping intersecting [addr, addr + len) (len 0: containing addr); 2
 * if that mapping is [addr, addr + len) exactly; 0 if none does; -1 if
 * the process has no record for its current mm. */
static int stp_uw_vma_known(struct task_struct *tsk, unsigned long addr,
			    unsigned long len)
{
	struct stp_uw_proc *p;
	struct stp_uw_snap *s;
	unsigned i;
	int rc = 0;

	rcu_read_lock();
	p = stp_uw_proc_of_rcu(tsk->tgid, tsk->mm);
	if (!p) {
		rc = -1;		/* no record for this image */
	} else if ((s = rcu_dereference(p->snap)) != NULL) {
		/* bound: s->n <= STP_UW_VMA_MAX_MAPS */
		for (i = 0; i < s->n; i++) {
			if (s->map[i].start < addr + (len ? len : 1)
			    && s->map[i].end > addr) {
				rc = 1;
				/* mmap: an exact, already recorded mapping
				 * needs no rescan (2); anything else does. */
				if (s->map[i].start == addr
				    && s->map[i].end == addr + len)
					rc = 2;
				break;
			}
		}
	}
	rcu_read_unlock();
	return rc;
}

#endif /* STP_UW_VMA_READER_C */
