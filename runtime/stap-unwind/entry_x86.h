/* stap-unwind: the initial user register set on x86_64 kernels, per way
 * the task entered the kernel ("register sanitizing").
 *
 * A user backtrace taken in kernel context starts from the registers the
 * kernel saved when the task last entered it (task_pt_regs(current)), or
 * from the probe's own registers when the probe hit user code.  Which of
 * those registers still hold the user's values at the interrupted user
 * instruction depends on the entry path.  Registers not known are marked
 * undefined for the unwinder core (never guessed, never zero).
 *
 * Rules (DWARF numbering of the process's ABI: stap-unwind/core/x86_64.h for 64-bit
 * processes, stap-unwind/core/i386.h for 32-bit ones), with the kernel versions the
 * facts hold for.  Checked against 7.2 (the stapvm guest):
 * arch/x86/entry/entry_64.S, entry_64_compat.S, syscall_32.c,
 * arch/x86/entry/vdso/vdso32/system_call.S, asm/entry-common.h.
 *
 * | entry path                  | how it is recognised                       | known registers                                 |
 * |-----------------------------|--------------------------------------------|-------------------------------------------------|
 * | probe hit in user mode      | c->user_mode_p (uprobes; perf and          | all (the probe's own pt_regs)                    |
 * | (USER)                      | timer.profile samples of user code)        |                                                  |
 * | interrupt / exception from  | none of the syscall tests below            | all: every entry saves all GPRs in pt_regs       |
 * | user mode (INTERRUPT)       |                                            | (PUSH_AND_CLEAR_REGS, >= 4.15; all x86_64 before) |
 * | 64-bit `syscall` (SYSCALL64)| orig_ax >= 0, regs->cx == regs->ip and     | all but rcx and r11: the instruction put the     |
 * |                             | regs->r11 == regs->flags (the instruction  | return rip in rcx and rflags in r11 (all         |
 * |                             | itself wrote them: entry_SYSCALL_64)       | kernels).  rax := orig_ax (pt_regs->ax is        |
 * |                             |                                            | -ENOSYS, or the result on the way out)           |
 * | `int $0x80` (INT80), 32-bit | TS_COMPAT in thread_info.status (set by    | all; eax := orig_ax.  int $0x80 changes no       |
 * | or 64-bit process           | syscall_32_enter, cleared on exit to user  | register (>= 4.3: do_int80_syscall_32)           |
 * |                             | mode, >= 5.9) and ip is not the landing pad|                                                  |
 * | 32-bit syscall through the  | TS_COMPAT and regs->ip == vdso +           | eip, esp, ebx, esi, edi, ecx, edx; eax := orig_ax;|
 * | vdso (VSYSCALL32):          | vdso_image->sym_int80_landing_pad          | ebp := the u32 at [esp] on the user stack.       |
 * | __kernel_vsyscall with      | (do_fast_syscall_32 sets regs->ip there,   | __kernel_vsyscall pushed ecx, edx, ebp, then     |
 * | sysenter, syscall or its    | >= 4.3; the int $0x80 fallback returns     | `movl %esp,%ebp; sysenter` or `movl %ecx,%ebp;   |
 * | int $0x80 fallback          | there too)                                 | syscall`: the ebp the kernel saw is esp or ecx,  |
 * |                             |                                            | not the caller's frame.  The kernel reloads its  |
 * |                             |                                            | 6th argument from [esp] into regs->bp (>= 4.3),  |
 * |                             |                                            | but a probe may run before that: read [esp].     |
 * |                             |                                            | At the landing pad (pop ebp; pop edx; pop ecx;   |
 * |                             |                                            | ret) the vdso's CFI restores the rest.           |
 * | no user context (NONE)      | no current->mm, PF_KTHREAD, or the saved   | none: "<no user backtrace at PROBE>"             |
 * |                             | pt_regs are not user-mode (kernel thread)  |                                                  |
 *
 * FRED kernels (>= 6.9, CONFIG_X86_FRED, on FRED hardware): the SYSCALL
 * event does not clobber rcx/r11; the SYSCALL64 test then does not match
 * (rcx != rip in general) and all registers are taken as known, which is
 * what FRED saved.
 */
#ifndef STP_UW_ENTRY_X86_H
#define STP_UW_ENTRY_X86_H

#include <linux/sched.h>
#include <asm/ptrace.h>
#include "unwind/unwind.h"	/* enum stp_uw_entry */
#include "stap-unwind/core.h"

/* How tsk entered the kernel, from regs (its saved entry registers, or the
 * probe's own: probe_in_user_mode): the table above. */
static inline enum stp_uw_entry
stp_uw_classify_entry(struct task_struct *tsk, struct pt_regs *regs,
		      int probe_in_user_mode);

/* Whether entry is a system call's (SYSCALL64, INT80 or VSYSCALL32):
 * orig_ax then holds its number, and ax its return value once set. */
static inline bool stp_uw_entry_is_syscall(enum stp_uw_entry entry);

/* Fill out (DWARF numbering of the process ABI) from regs for entry: the
 * registers the table above says are known. */
static inline void stp_uw_entry_regs(struct uw_regs *out, enum uw_arch arch,
				     enum stp_uw_entry entry,
				     const struct pt_regs *regs);

#endif /* STP_UW_ENTRY_X86_H */
