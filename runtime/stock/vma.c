/* stap-unwind: the runtime's vma.c, which brings in the overlay's VMA
 * tracking for every process (stap-unwind/vma_map.c) and the indexes of
 * -d modules' tables that no header searches (stap-unwind/dmod_index.c).
 *
 * SystemTap's own vma.c (linked by the overlay as
 * stap-unwind-stock/vma_c/vma.c) keeps working unchanged: it records the
 * mappings of the modules named with -d/--ldd for _stp_umod_lookup() and
 * the symbol code.  This file includes it with its init and exit
 * functions renamed, so that the translator's _stp_vma_init() and
 * _stp_vma_done() (emitted whenever a script uses user backtraces or
 * symbols) start and stop every part of the overlay, stock's map among
 * them (stap-unwind/init_exit.c); and with its calls that change its map
 * renamed to wrappers that count the changes, for the unwinder's kept
 * answers of that map (stap-unwind/overrides.h, VMA_C).
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

/* A mapping of a -d module inside an entry of the same module is one
 * more segment of a mapping the map holds already: nothing to add.  Stock
 * tells so by comparing the entry's path with the new one's, but it keeps
 * only the last 60 characters of a longer path ("..." and the tail:
 * TASK_FINDER_VMA_ENTRY_PATHLEN, task_finder_vma.c), so for such a path
 * it added an entry per segment; munmap removes only the entry where the
 * unmapped range starts, and the other segments' entries outlived the
 * object: a library mapped later at the same place was taken, in its text
 * segment, for the one unmapped. */
static int stp_uw_stock_map_add(struct task_struct *tsk, unsigned long vm_start,
				unsigned long vm_end, unsigned long offset,
				const char *path, void *user)
{
	unsigned long start, end;
	void *held;
	int rc;

	if (user && stap_find_vma_map_info(tsk, vm_start, &start, &end, NULL,
					   NULL, &held) == 0
	    && held == user && vm_end <= end)
		return 0;
	rc = stap_add_vma_map_info(tsk, vm_start, vm_end, offset, path, user);

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

#define STP_UW_OVERRIDE STP_UW_OVERRIDE_VMA_C
#include "stap-unwind/overrides.h"
#include "stap-unwind-stock/vma_c/vma.c"
#define STP_UW_OVERRIDE STP_UW_OVERRIDE_END
#include "stap-unwind/overrides.h"

#include "stap-unwind/vma_map.c"
#include "stap-unwind/dmod_index.c"

#endif /* STP_UW_VMA_C */
