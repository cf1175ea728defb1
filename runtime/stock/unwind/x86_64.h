/* stap-unwind: what the SystemTap runtime expects of "unwind/x86_64.h".
 *
 * In the runtime overlay this file is installed as unwind/x86_64.h.  The
 * per-architecture facts of the unwinder itself (DWARF register numbers,
 * signal frame layouts) stay in the core's own x86_64.h and i386.h
 * (stap-unwind/core/ in the overlay); this header only adds the macros the rest of
 * the SystemTap runtime and our stack.c use on frames.
 */
#ifndef STP_UW_COMPAT_X86_64_H
#define STP_UW_COMPAT_X86_64_H

#include <linux/sched.h>
#include <asm/ptrace.h>
#include <linux/uaccess.h>
#include "stap-unwind/features.h"	/* get_unaligned */

#include "stap-unwind/core.h"

/* Unaligned loads from unwind and line tables copied into the module. */
#define _stp_get_unaligned(ptr) get_unaligned(ptr)

/* The pc and sp of a frame (struct unwind_frame_info, unwind/unwind.h).
 * Every kernel this project supports has the unified x86 pt_regs names. */
#define UNW_PC(frame) ((frame)->regs.ip)
#define UNW_SP(frame) ((frame)->regs.sp)

#endif /* STP_UW_COMPAT_X86_64_H */
