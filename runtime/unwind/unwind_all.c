/* The whole unwinder core as one translation unit, for inclusion into the
 * SystemTap runtime (or any kernel module):
 *
 *     #define UW_SINGLE_TU
 *     #include "unwind/unwind_all.c"
 *
 * Every function then has internal linkage.  File-local names carry a
 * per-file prefix (uw_stop_, uw_cursor_, uw_mem_, uw_rowcache_, uw_tables_, uw_cfi_, uw_row_, uw_compile_,
 * uw_expr_, uw_arch_, uw_step_, uw_nocfi_, uw_elfmem_), so the files
 * cannot collide when concatenated.
 */
#ifndef UW_UNWIND_ALL_C
#define UW_UNWIND_ALL_C
#ifndef UW_SINGLE_TU
#define UW_SINGLE_TU
#endif
#include "stop.c"
#include "cursor.c"
#include "mem.c"
#include "cfi.c"
#include "row.c"
#include "expr.c"
#include "arch.c"
#include "rowcache.c"
#include "tables.c"
#include "compile.c"
#include "step.c"
#include "nocfi.c"
#include "elfmem.c"
#endif /* UW_UNWIND_ALL_C */
