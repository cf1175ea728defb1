/* x86_64 facts for the unwinder core.
 *
 * DWARF register numbers: System V AMD64 psABI, figure "DWARF Register
 * Number Mapping".  Column 16 is the return address (rip).
 */
#ifndef UW_X86_64_H
#define UW_X86_64_H

#define UW_X86_64_RAX	0
#define UW_X86_64_RDX	1
#define UW_X86_64_RCX	2
#define UW_X86_64_RBX	3
#define UW_X86_64_RSI	4
#define UW_X86_64_RDI	5
#define UW_X86_64_RBP	6
#define UW_X86_64_RSP	7
#define UW_X86_64_R8	8	/* r8..r15 are 8..15 */
#define UW_X86_64_R12	12
#define UW_X86_64_R13	13
#define UW_X86_64_R14	14
#define UW_X86_64_R15	15
#define UW_X86_64_RIP	16	/* return-address column */
#define UW_X86_64_NREGS	17
#define UW_X86_64_ADDR_SIZE 8

#define UW_X86_64_ALL	((uint32_t)0x1ffff)	/* registers 0..16 */

/* Callee-saved registers (psABI 3.2.1): with no CFI rule they keep their
 * value in the caller ("same value"); all others become undefined. */
#define UW_X86_64_CALLEE_SAVED						\
	(UW_REG_BIT(UW_X86_64_RBX) | UW_REG_BIT(UW_X86_64_RBP) |	\
	 UW_REG_BIT(UW_X86_64_R12) | UW_REG_BIT(UW_X86_64_R13) |	\
	 UW_REG_BIT(UW_X86_64_R14) | UW_REG_BIT(UW_X86_64_R15))
/* The same, in the order of a compiled row's slots (uw_internal.h,
 * "Compiled rows"). */
#define UW_X86_64_SAVED_SLOTS						\
	{ UW_X86_64_RBX, UW_X86_64_RBP, UW_X86_64_R12, UW_X86_64_R13,	\
	  UW_X86_64_R14, UW_X86_64_R15 }
#define UW_X86_64_NSAVED 6

/* Signal frames.  The kernel (arch/x86/kernel/signal_64.c) builds
 *     struct rt_sigframe { char *pretcode; struct ucontext uc; siginfo info; }
 * and enters the handler with rsp at pretcode.  When the handler returns to
 * the restorer, pretcode has been popped: rsp points at uc.
 * struct ucontext (uapi asm-generic/ucontext.h): uc_flags 8, uc_link 8,
 * uc_stack (stack_t: ss_sp 8, ss_flags 4 + 4 pad, ss_size 8) = 24, then
 * uc_mcontext (struct sigcontext) at 40.  Checked on this machine with
 * offsetof(ucontext_t, uc_mcontext) == 40 (glibc mirrors the kernel). */
#define UW_X86_64_UC_MCONTEXT		40
/* struct sigcontext (uapi asm/sigcontext.h, 64-bit): r8..r15, rdi, rsi, rbp,
 * rbx, rdx, rax, rcx, rsp, rip, each 8 bytes (verified with offsetof). */
#define UW_X86_64_SC_R8		0	/* r8..r15 at 0, 8, .. 56 */
#define UW_X86_64_SC_RDI	64
#define UW_X86_64_SC_RSI	72
#define UW_X86_64_SC_RBP	80
#define UW_X86_64_SC_RBX	88
#define UW_X86_64_SC_RDX	96
#define UW_X86_64_SC_RAX	104
#define UW_X86_64_SC_RCX	112
#define UW_X86_64_SC_RSP	120
#define UW_X86_64_SC_RIP	128

/* glibc's __restore_rt (sysdeps/unix/sysv/linux/x86_64/libc_sigaction.c):
 *     48 c7 c0 0f 00 00 00    mov $15 (__NR_rt_sigreturn), %rax
 *     0f 05                   syscall
 * Verified on Debian 12 with gdb (x/9xb __restore_rt in libc.so.6). */
#define UW_X86_64_RESTORE_RT_LEN 9
#define UW_X86_64_RESTORE_RT_BYTES					\
	{ 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 }

#endif /* UW_X86_64_H */
