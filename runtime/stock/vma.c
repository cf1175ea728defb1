/* stap-unwind: the runtime's vma.c, extended with VMA tracking for every
 * process (stap-unwind/vma_map.c).
 *
 * SystemTap's own vma.c (linked by the overlay as stap-unwind-stock/vma_c/vma.c)
 * keeps working unchanged: it records the mappings of the modules named
 * with -d/--ldd for _stp_umod_lookup() and the symbol code.  This file
 * includes it with its init and exit functions renamed, and puts ours
 * next to them, so that the translator's calls to _stp_vma_init() and
 * _stp_vma_done() (emitted whenever a script uses user backtraces or
 * symbols) also start and stop our tracking.  Its calls that change its
 * map are renamed too, to wrappers that count the changes (for the
 * unwinder's kept answers of that map).  _stp_vma_init() runs at
 * module init before the task finder starts, which is when a task-finder
 * target must be registered.  They also set up and free what the
 * honest-symbol code keeps (stap-unwind/usym.c, included after this file
 * by the overlay's sym.c): the -d modules' symbol sizes, its name cache;
 * and the indexes of -d modules' tables that no header searches
 * (stap-unwind/dmod_index.h).
 */
#ifndef STP_UW_VMA_C
#define STP_UW_VMA_C

/* Stock's map of -d modules' mappings (task_finder_vma.c), defined here
 * before the renames below, so that they rename only stock vma.c's calls. */
#include "task_finder_vma.c"

/* Changes made to stock's map so far, counted after each change is in
 * the map.  The unwinder keeps what the map said across walks
 * (stp_unwind_context.dmod_memo in unwind.c) only while this count is the
 * one it read before asking the map: stock's map has no such count, and
 * only stock's vma.c, included below, changes it. */
static atomic_long_t stp_uw_stock_map_changes = ATOMIC_LONG_INIT(0);

static void stp_uw_stock_map_changed(void)
{
	smp_mb__before_atomic();
	atomic_long_inc(&stp_uw_stock_map_changes);
}

static int stp_uw_stock_map_add(struct task_struct *tsk, unsigned long vm_start,
				unsigned long vm_end, unsigned long offset,
				const char *path, void *user)
{
	int rc = stap_add_vma_map_info(tsk, vm_start, vm_end, offset, path, user);

	stp_uw_stock_map_changed();
	return rc;
}

static int stp_uw_stock_map_extend(struct task_struct *tsk,
				   unsigned long vm_start, unsigned long vm_end)
{
	int rc = stap_extend_vma_map_info(tsk, vm_start, vm_end);

	stp_uw_stock_map_changed();
	return rc;
}

static int stp_uw_stock_map_remove(struct task_struct *tsk,
				   unsigned long vm_start)
{
	int rc = stap_remove_vma_map_info(tsk, vm_start);

	stp_uw_stock_map_changed();
	return rc;
}

static int stp_uw_stock_map_drop(struct task_struct *tsk)
{
	int rc = stap_drop_vma_maps(tsk);

	stp_uw_stock_map_changed();
	return rc;
}

#define _stp_vma_init _stp_vma_init_stock
#define _stp_vma_done _stp_vma_done_stock
#define stap_add_vma_map_info stp_uw_stock_map_add
#define stap_extend_vma_map_info stp_uw_stock_map_extend
#define stap_remove_vma_map_info stp_uw_stock_map_remove
#define stap_drop_vma_maps stp_uw_stock_map_drop
#include "stap-unwind-stock/vma_c/vma.c"
#undef _stp_vma_init
#undef _stp_vma_done
#undef stap_add_vma_map_info
#undef stap_extend_vma_map_info
#undef stap_remove_vma_map_info
#undef stap_drop_vma_maps

#include "stap-unwind/vma_map.c"
#include "stap-unwind/dmod_index.h"

static void stp_uw_usym_init(void);	/* stap-unwind/usym.c */
static void stp_uw_usym_exit(void);

/* Set while tracking runs: from _stp_vma_init() to _stp_vma_done(). */
static int stp_uw_vma_running;
/* Work of the stack code (stap-unwind/udefer.h, when stack.c is in the
 * module) to finish at _stp_vma_done() before anything is freed. */
static void (*stp_uw_vma_done_hook)(void);

static int _stp_vma_init(void)
{
	int rc = _stp_vma_init_stock();

	if (rc)
		return rc;
	rc = stp_uw_vma_init();
	if (rc) {
		_stp_error("Couldn't start stap-unwind vma tracking: %d\n", rc);
		_stp_vma_done_stock();
		return rc;
	}
	stp_uw_usym_init();
	stp_uw_dmod_index_init();
	stp_uw_vma_running = 1;
	return 0;
}

static void _stp_vma_done(void)
{
	if (stp_uw_vma_done_hook)
		stp_uw_vma_done_hook();
	stp_uw_vma_running = 0;
	stp_uw_vma_done();
	_stp_vma_done_stock();
	/* Every probe is unregistered by now; handlers still running hold
	 * preemption off, which synchronize_rcu() waits out. */
	synchronize_rcu();
	stp_uw_usym_exit();
	stp_uw_dmod_index_exit();
}

#endif /* STP_UW_VMA_C */
