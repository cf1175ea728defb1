/* stap-unwind: the unwinder core (runtime/unwind/, stap-unwind/core/ in
 * the overlay) as the runtime's files see it: its interface, its per-arch
 * numbers and its ELF reader, with every function internal to the
 * module's one translation unit (UW_SINGLE_TU, unwind_core.h).  The
 * runtime's files include this header, never the core's own, so that
 * UW_SINGLE_TU comes before the core's first declaration; the core's
 * bodies are compiled once, by stap-unwind/core.c.
 */
#ifndef STP_UW_CORE_H
#define STP_UW_CORE_H

#define UW_SINGLE_TU
#include "stap-unwind/core/unwind_core.h"
#include "stap-unwind/core/x86_64.h"
#include "stap-unwind/core/i386.h"
#include "stap-unwind/core/elfmem.h"

#endif /* STP_UW_CORE_H */
