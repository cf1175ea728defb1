/* stap-unwind: the one reader of the current process's memory from probe
 * context (the unwinder's read_mem host, the symbol code's ELF reader);
 * stap-unwind/uread.c.
 */
#ifndef STP_UW_UREAD_H
#define STP_UW_UREAD_H

#include <linux/types.h>

/* len bytes at user address addr of the current task into dst: 0, or
 * -EFAULT if any byte is outside the task's address space (4 GiB for a
 * compat task), not mapped, or not resident.  Never faults a page in and
 * never sleeps: any context, NMI included (x86). */
static int stp_uw_uread(void *dst, unsigned long addr, size_t len, int compat);

#endif /* STP_UW_UREAD_H */
