/* stap-unwind: the unwinder core compiled into the module, once: all of
 * runtime/unwind/ (its unwind_all.c), every function internal
 * (stap-unwind/core.h).  Included by the overlay's sym.c, which every
 * module compiles.
 */
#ifndef STP_UW_CORE_C
#define STP_UW_CORE_C

#include "stap-unwind/core.h"
#include "stap-unwind/core/unwind_all.c"

#endif /* STP_UW_CORE_C */
