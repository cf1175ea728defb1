/* stap-unwind: the VMA tracking's memory budget.
 *
 * Every allocation of the tracking that outlives a rescan (process
 * records, snapshots, objects with their paths and indexes) is charged to
 * one byte budget, STP_UW_VMA_MAX_BYTES, before it is made, and uncharged
 * when it is freed (vma_map.c's top comment: "Memory bound").
 */
#ifndef STP_UW_VMA_BUDGET_C
#define STP_UW_VMA_BUDGET_C

#include "stap-unwind/vma_records.h"

static atomic_long_t stp_uw_vma_bytes = ATOMIC_LONG_INIT(0);
static atomic_long_t stp_uw_vma_peak = ATOMIC_LONG_INIT(0);
static atomic_t stp_uw_vma_refused = ATOMIC_INIT(0);

/* Charge size bytes to the budget; 0 if it fits. */
static int stp_uw_vma_charge(size_t size)
{
	long now = atomic_long_add_return(size, &stp_uw_vma_bytes);
	long peak;

	if (now > (long)STP_UW_VMA_MAX_BYTES) {
		atomic_long_sub(size, &stp_uw_vma_bytes);
		atomic_inc(&stp_uw_vma_refused);
		return -ENOMEM;
	}
	peak = atomic_long_read(&stp_uw_vma_peak);
	/* bound: one retry per charger that raised the peak meanwhile */
	while (now > peak) {
		long old = atomic_long_cmpxchg(&stp_uw_vma_peak, peak, now);
		if (old == peak)
			break;
		peak = old;
	}
	return 0;
}

static void stp_uw_vma_uncharge(size_t size)
{
	atomic_long_sub(size, &stp_uw_vma_bytes);
}

/* size bytes, charged to the budget: from kzalloc(), or, if large (an
 * .eh_frame index), from kvmalloc() and not zeroed.  NULL, with nothing
 * charged, when the budget or the allocator refuses.  Process context. */
static void *stp_uw_vma_alloc(size_t size, bool large)
{
	void *m;

	if (stp_uw_vma_charge(size))
		return NULL;
	m = large ? kvmalloc(size, GFP_KERNEL) : kzalloc(size, GFP_KERNEL);
	if (!m)
		stp_uw_vma_uncharge(size);
	return m;
}

/* Free m, of size bytes from stp_uw_vma_alloc(), and uncharge it. */
static void stp_uw_vma_free(void *m, size_t size)
{
	kvfree(m);
	stp_uw_vma_uncharge(size);
}

#endif /* STP_UW_VMA_BUDGET_C */
