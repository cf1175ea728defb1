/* stap-unwind: the runtime's runtime.h, the first file of the runtime
 * every module includes: what the overlay must settle before stock's own
 * code reads its configuration (stap-unwind/features.h: which adapters
 * replace stock's calls on kernels newer than it; stap-unwind/overrides.h:
 * what stock is told of them), then stock's runtime.h unchanged, then
 * what stock's runtime and tapsets use from here on (overrides.h,
 * STRINGS). */
#ifndef STP_UW_RUNTIME_H
#define STP_UW_RUNTIME_H

#include "stap-unwind/features.h"
#define STP_UW_OVERRIDE STP_UW_OVERRIDE_CONFIG
#include "stap-unwind/overrides.h"
#include "stap-unwind-stock/runtime_h/runtime.h"
#define STP_UW_OVERRIDE STP_UW_OVERRIDE_STRINGS
#include "stap-unwind/overrides.h"

#endif /* STP_UW_RUNTIME_H */
