/* stap-unwind: the overlay's start-up and shutdown, in one ordered table.
 *
 * The translator calls three of stock's functions for the runtime's
 * parts: _stp_init_stack() at module init in a module with backtraces
 * (pragma:unwind); _stp_vma_init() at module init and _stp_vma_done() at
 * exit in a module that tracks mappings (pragma:vma: user backtraces and
 * symbols), after every probe is unregistered.
 *   - _stp_vma_init() starts the parts of stp_uw_parts[] in order; when
 *     one fails, it stops those it started, in reverse order, and fails.
 *   - _stp_vma_done() stops them all, in reverse order.
 *   - _stp_init_stack() (stock/stack.c) only looks up the kernel stack
 *     walker's two functions in kallsyms.  It has nothing to undo, and
 *     nothing stops it: a module with kernel backtraces alone calls
 *     neither _stp_vma_init() nor _stp_vma_done(), which is why every part
 *     that holds memory or work is in the table.
 *   - Not here: what stock starts itself (the task finder, and
 *     stp_task_work_init(), whose adapter the overlay carries:
 *     stap-unwind/overrides.h).
 * Included at the end of the overlay's sym.c, which every module
 * compiles; the parts that stack.c brings in (pragma:unwind, which
 * defines STP_NEED_UNWIND_DATA before any runtime file) are declared by
 * their headers.
 */
#ifndef STP_UW_INIT_EXIT_C
#define STP_UW_INIT_EXIT_C

#include <linux/rcupdate.h>
#include "stap-unwind/init_exit.h"
#include "stap-unwind/vma_map.h"
#include "stap-unwind/usym.h"
#include "stap-unwind/dmod_index.h"
#ifdef STP_NEED_UNWIND_DATA
#include "stap-unwind/udefer.h"
#include "stap-unwind/ustack_snapshot.h"
#endif

/* Stock's own _stp_vma_init() and _stp_vma_done(), renamed
 * (stap-unwind/overrides.h, VMA_C): its map of the -d modules. */
static int stp_uw_stock_vma_init(void);
static void stp_uw_stock_vma_done(void);

/* Every probe is unregistered by now; handlers still running hold
 * preemption off, which synchronize_rcu() waits out. */
static void stp_uw_wait_for_handlers(void)
{
	synchronize_rcu();
}

struct stp_uw_part {
	const char *name;	/* for the error if it does not start */
	int (*init)(void);	/* NULL: nothing to start */
	void (*exit)(void);	/* NULL: nothing to stop */
};

/* In start-up order; shutdown runs it backwards.  What probe handlers
 * read (symbol sizes and names, -d indexes) is freed only once the
 * handlers still running have finished; the work that prints after the
 * probes (snapshots, deferred backtraces) stops first. */
static const struct stp_uw_part stp_uw_parts[] = {
	{ "symbol names", stp_uw_usym_init, stp_uw_usym_exit },
	{ "-d modules' indexes", stp_uw_dmod_index_init, stp_uw_dmod_index_exit },
	{ "probe handlers' end", NULL, stp_uw_wait_for_handlers },
	{ "stock's vma map", stp_uw_stock_vma_init, stp_uw_stock_vma_done },
	{ "vma tracking", stp_uw_vma_init, stp_uw_vma_done },
#ifdef STP_NEED_UNWIND_DATA
	{ "deferred backtraces", NULL, stp_uw_defer_exit },
	{ "snapshots", stp_uw_ustack_snapshot_init, stp_uw_ustack_snapshot_exit },
#endif
};

/* How many parts have started, in order. */
static unsigned stp_uw_parts_started;
static int stp_uw_parts_all_running;

static int stp_uw_parts_running(void)
{
	return READ_ONCE(stp_uw_parts_all_running);
}

/* Stop the parts started, the last first. */
static void stp_uw_parts_stop(void)
{
	while (stp_uw_parts_started > 0) {	/* bound: ARRAY_SIZE(stp_uw_parts) */
		const struct stp_uw_part *p = &stp_uw_parts[--stp_uw_parts_started];

		if (p->exit)
			p->exit();
	}
}

static int _stp_vma_init(void)
{
	int rc;

	/* bound: ARRAY_SIZE(stp_uw_parts) */
	for (stp_uw_parts_started = 0;
	     stp_uw_parts_started < ARRAY_SIZE(stp_uw_parts);
	     stp_uw_parts_started++) {
		const struct stp_uw_part *p = &stp_uw_parts[stp_uw_parts_started];

		rc = p->init ? p->init() : 0;
		if (rc) {
			_stp_error("Couldn't start stap-unwind's %s: %d\n",
				   p->name, rc);
			stp_uw_parts_stop();
			return rc;
		}
	}
	WRITE_ONCE(stp_uw_parts_all_running, 1);
	return 0;
}

static void _stp_vma_done(void)
{
	WRITE_ONCE(stp_uw_parts_all_running, 0);
	stp_uw_parts_stop();
}

#endif /* STP_UW_INIT_EXIT_C */
