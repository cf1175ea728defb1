/* stap-unwind: the steps of every user backtrace by where their CFI row
 * came from (the cursor's counters: unwind_core.h, steps_compiled ...),
 * summed per CPU at the end of each walk (stock/unwind.c), read by
 * uw_vma_stats() (tapset/uw_vma.stp).  Here, not in unwind.c, because a
 * script may ask for the statistics without walking a user stack.
 */
#ifndef STP_UW_STEP_COUNTS_H
#define STP_UW_STEP_COUNTS_H

#include <linux/percpu.h>
#include "stap-unwind/core.h"

struct stp_uw_step_counts {
	unsigned long compiled, full, marked, uncompiled;
};

static DEFINE_PER_CPU(struct stp_uw_step_counts, stp_uw_step_counts);

/* Probe context: the walk of c has ended. */
static inline void stp_uw_step_counts_add(const struct uw_cursor *c)
{
	struct stp_uw_step_counts *n = this_cpu_ptr(&stp_uw_step_counts);

	n->compiled += c->steps_compiled;
	n->full += c->steps_full;
	n->marked += c->steps_marked;
	n->uncompiled += c->steps_uncompiled;
}

static inline void stp_uw_step_counts_get(struct stp_uw_step_counts *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {	/* bound: nr_cpu_ids */
		const struct stp_uw_step_counts *n =
			per_cpu_ptr(&stp_uw_step_counts, cpu);

		sum->compiled += READ_ONCE(n->compiled);
		sum->full += READ_ONCE(n->full);
		sum->marked += READ_ONCE(n->marked);
		sum->uncompiled += READ_ONCE(n->uncompiled);
	}
}

#endif /* STP_UW_STEP_COUNTS_H */
