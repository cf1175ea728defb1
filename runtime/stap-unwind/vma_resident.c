/* stap-unwind: making what probes read of a process's objects resident.
 *
 * Probe handlers read an object's headers and unwind tables from the
 * process's pages without faulting, and a fresh process has usually never
 * touched the segment holding its .eh_frame_hdr/.eh_frame (a child of
 * fork(), not even its headers): a rescan reads one byte per page of them
 * for each object new to the process, and a later mmap
 * over part of it (ld.so maps that segment after the executable one) has
 * that part read again (vma_map.c's top comment: "Residency").  Process
 * context.
 */
#ifndef STP_UW_VMA_RESIDENT_C
#define STP_UW_VMA_RESIDENT_C

#include "stap-unwind/vma_records.h"

/* Where the segment holding o's unwind tables is, [*lo, *hi), with o's
 * ELF header mapped at base.  0 if o has no such segment. */
static int stp_uw_obj_tables_at(const struct stp_uw_obj *o, unsigned long base,
				unsigned long *lo, unsigned long *hi)
{
	if (!o->elf || !o->ehf_hi)
		return 0;
	*lo = base - o->delta + o->ehf_lo;
	*hi = base - o->delta + o->ehf_hi;
	return 1;
}

/* Every extent of o, with its ELF header mapped at base, that probe
 * handlers read from the process's pages: its headers and notes (the ELF
 * scan of each walk's first frame in it) and the segment of its unwind
 * tables.  A process's own loader touched the first when it mapped the
 * object, but a child of fork() has page table entries only for what was
 * written (Linux copies none for a private file mapping never written:
 * mm/memory.c, vma_needs_copy()), so neither is resident there.  Returns
 * how many, at most STP_UW_OBJ_EXTENTS, into lo[] and hi[]. */
static unsigned stp_uw_obj_read_extents(const struct stp_uw_obj *o,
					unsigned long base, unsigned long *lo,
					unsigned long *hi)
{
	unsigned n = 0;

	if (!o->elf)
		return 0;
	if (o->head_size) {
		lo[n] = base;
		hi[n++] = base + o->head_size;
	}
	if (stp_uw_obj_tables_at(o, base, &lo[n], &hi[n]))
		n++;
	return n;
}

/* Make [lo, hi) of tsk's address space resident, one read per page:
 * the unwind tables of an object new to the process, so that probe
 * handlers, which may not fault, find them in the process's own pages.
 * Process context.  At most STP_UW_VMA_PREFAULT_MAX bytes per object. */
static void stp_uw_vma_prefault(struct task_struct *tsk, unsigned long lo,
				unsigned long hi)
{
	unsigned long a;
	unsigned char b;

	if (hi - lo > STP_UW_VMA_PREFAULT_MAX)
		hi = lo + STP_UW_VMA_PREFAULT_MAX;
	/* bound: STP_UW_VMA_PREFAULT_MAX / PAGE_SIZE */
	for (a = lo & PAGE_MASK; a < hi; a += PAGE_SIZE) {
		if (tsk == current) {
			if (get_user(b, (const unsigned char __user *)a))
				break;
		} else if (access_process_vm(tsk, a, &b, 1, 0) != 1) {
			break;
		}
		cond_resched();
	}
}

/* A new mapping [addr, addr + len) of tsk (current) replaced part of the
 * unwind tables of objects it has mapped: make that part resident. */
static void stp_uw_vma_refault(struct task_struct *tsk, unsigned long addr,
			       unsigned long len)
{
	struct stp_uw_proc *p;
	struct stp_uw_snap *s;
	unsigned long lo[4], hi[4];
	unsigned i, n = 0;

	if (!stp_uw_vma_tracks(tsk))
		return;
	rcu_read_lock();
	p = stp_uw_proc_of_rcu(tsk->tgid, tsk->mm);
	if (p && (s = rcu_dereference(p->snap)) != NULL) {
		/* bound: s->n <= STP_UW_VMA_MAX_MAPS */
		for (i = 0; i < s->n && n < 4; i++) {
			unsigned long a, b;

			if (!stp_uw_obj_tables_at(s->map[i].obj, s->map[i].base,
						  &a, &b))
				continue;
			if (a < addr)
				a = addr;
			if (b > addr + len)
				b = addr + len;
			if (a < b && (n == 0 || lo[n - 1] != a)) {
				lo[n] = a;
				hi[n++] = b;
			}
		}
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++)	/* bound: n <= 4 */
		stp_uw_vma_prefault(tsk, lo[i], hi[i]);
}

#endif /* STP_UW_VMA_RESIDENT_C */
