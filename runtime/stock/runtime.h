/* stap-unwind: the runtime's runtime.h, the first file of the runtime
 * every module includes: what the overlay must settle before stock's own
 * code reads its configuration (stap-unwind/features.h: which adapters
 * replace stock's calls on kernels newer than it), then stock's runtime.h
 * unchanged. */
#ifndef STP_UW_RUNTIME_H
#define STP_UW_RUNTIME_H

#include "stap-unwind/features.h"
#include "stap-unwind-stock/runtime_h/runtime.h"

#endif /* STP_UW_RUNTIME_H */
