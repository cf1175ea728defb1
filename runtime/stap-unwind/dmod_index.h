/* stap-unwind: indexes of the unwind tables of user modules named with
 * -d/--ldd that no .eh_frame_hdr searches.
 *
 * The translator copies each module's .eh_frame, .eh_frame_hdr and
 * .debug_frame into its struct _stp_module.  A lookup in .eh_frame goes
 * through the header's binary-search table, but a .debug_frame (gcc's
 * -fno-asynchronous-unwind-tables, some i386 builds) or an .eh_frame
 * whose header the lookup cannot search would be scanned entry by entry
 * in the probe, and the scan of a module of a few hundred functions
 * already costs more than a backtrace's work budget.  So at module init
 * (_stp_vma_init, process context) each such module gets a sorted index
 * of the FDEs of both sections (uw_index_build), and every user module's
 * tables are compiled (compiled.h); unwind.c's tables of -d modules carry
 * both (stp_uw_dmod_tables).  Both are freed at _stp_vma_done, after the
 * probes are gone.  A module whose index cannot be made (allocation, CFI
 * the core refuses) is scanned within the budget.
 * dmod_index.c, included by the overlay's vma.c.
 */
#ifndef STP_UW_DMOD_INDEX_H
#define STP_UW_DMOD_INDEX_H

#include "stap-unwind/core.h"

struct _stp_module;

/* The sections of module m that the translator copied, as the core's
 * tables (link-time addresses; no bias, no index). */
static void stp_uw_dmod_sections(const struct _stp_module *m,
				 struct uw_tables *t);

/* m's tables as a step takes them: stp_uw_dmod_sections', with the index
 * of those no header searches and the table compiled from them, where
 * module init made them.  Probe context: reads only. */
static void stp_uw_dmod_tables(const struct _stp_module *m,
			       struct uw_tables *t);

/* Module init and exit (process context; at exit no probe handler runs). */
static int stp_uw_dmod_index_init(void);
static void stp_uw_dmod_index_exit(void);

#endif /* STP_UW_DMOD_INDEX_H */
