/* stap-unwind: what the SystemTap runtime expects of "unwind/i386.h".
 *
 * Only 32-bit *processes* on x86_64 kernels are supported (they are
 * unwound with the core's UW_ARCH_I386 and the facts in the core's
 * i386.h).  An i386 kernel is not supported: stack.c refuses to build
 * there, and this header says why if anything includes it first.
 */
#ifndef STP_UW_COMPAT_I386_H
#define STP_UW_COMPAT_I386_H

#ifdef __i386__
#error "stap-unwind: i386 kernels are not supported (32-bit processes on x86_64 kernels are)"
#endif

#include "unwind/x86_64.h"

#endif /* STP_UW_COMPAT_I386_H */
