/* Freestanding integer types for the unwinder core.
 *
 * The core is compiled both inside a kernel module (where <stdint.h> does
 * not exist and <linux/types.h> provides the same names) and in user space
 * for tests and the fuzzer.  Nothing else from either environment is used.
 */
#ifndef UW_TYPES_H
#define UW_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#else
#include <stdint.h>
#include <stddef.h>
#endif

#endif /* UW_TYPES_H */
