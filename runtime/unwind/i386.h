/* i386 facts for the unwinder core.
 *
 * DWARF register numbers: System V i386 psABI, table 2.14 (the numbering
 * GCC uses for DWARF on ELF, "svr4"): eax 0, ecx 1, edx 2, ebx 3, esp 4,
 * ebp 5, esi 6, edi 7, eip 8 (return-address column).
 * Addresses are 4 bytes; arithmetic wraps at 2^32.
 */
#ifndef UW_I386_H
#define UW_I386_H

#define UW_I386_EAX	0
#define UW_I386_ECX	1
#define UW_I386_EDX	2
#define UW_I386_EBX	3
#define UW_I386_ESP	4
#define UW_I386_EBP	5
#define UW_I386_ESI	6
#define UW_I386_EDI	7
#define UW_I386_EIP	8	/* return-address column */
#define UW_I386_NREGS	9
#define UW_I386_ADDR_SIZE 4

#define UW_I386_ALL	((uint32_t)0x1ff)	/* registers 0..8 */

/* Callee-saved (i386 psABI): ebx, esi, edi, ebp. */
#define UW_I386_CALLEE_SAVED						\
	(UW_REG_BIT(UW_I386_EBX) | UW_REG_BIT(UW_I386_EBP) |		\
	 UW_REG_BIT(UW_I386_ESI) | UW_REG_BIT(UW_I386_EDI))
/* The same, in the order of a compiled row's slots (uw_internal.h,
 * "Compiled rows"). */
#define UW_I386_SAVED_SLOTS						\
	{ UW_I386_EBX, UW_I386_EBP, UW_I386_ESI, UW_I386_EDI }
#define UW_I386_NSAVED 4

/* struct sigcontext_32 (uapi asm/sigcontext.h): gs, fs, es, ds as u16 +
 * u16 pad (16 bytes), then edi, esi, ebp, esp, ebx, edx, ecx, eax, trapno,
 * err, eip (4 bytes each).  Verified with offsetof on this machine (-m32). */
#define UW_I386_SC_EDI	16
#define UW_I386_SC_ESI	20
#define UW_I386_SC_EBP	24
#define UW_I386_SC_ESP	28
#define UW_I386_SC_EBX	32
#define UW_I386_SC_EDX	36
#define UW_I386_SC_ECX	40
#define UW_I386_SC_EAX	44
#define UW_I386_SC_EIP	56

/* Non-rt signal frame (arch/x86/include/asm/sigframe.h, struct
 * sigframe_ia32): u32 pretcode; int sig; struct sigcontext_32 sc; ...
 * At the restorer pretcode has been popped, so esp points at sig and the
 * sigcontext is at esp + 4.  The vdso's __kernel_sigreturn
 * (arch/x86/entry/vdso/vdso32/sigreturn.S) first pops sig:
 *     58                  pop %eax
 *     b8 77 00 00 00      mov $119 (__NR_sigreturn), %eax
 *     cd 80               int $0x80
 * after the pop (pc one byte further) the sigcontext is at esp. */
#define UW_I386_SIGFRAME_SC		4
#define UW_I386_SIGRETURN_LEN		8
#define UW_I386_SIGRETURN_BYTES						\
	{ 0x58, 0xb8, 0x77, 0x00, 0x00, 0x00, 0xcd, 0x80 }

/* rt signal frame (struct rt_sigframe_ia32): u32 pretcode; int sig;
 * u32 pinfo; u32 puc; compat_siginfo_t info (128 bytes);
 * struct ucontext_ia32 uc; ...  After the pop of pretcode esp points at sig,
 * so uc is at esp + 12 + 128 = 140.  ucontext_ia32: uc_flags 4, uc_link 4,
 * uc_stack (ss_sp, ss_flags, ss_size: 12) then uc_mcontext at 20
 * (offsetof(ucontext_t, uc_mcontext) == 20 with -m32), so the sigcontext
 * is at esp + 160.  __kernel_rt_sigreturn:
 *     b8 ad 00 00 00      mov $173 (__NR_rt_sigreturn), %eax
 *     cd 80               int $0x80 */
#define UW_I386_RT_SIGFRAME_SC		160
#define UW_I386_RT_SIGRETURN_LEN	7
#define UW_I386_RT_SIGRETURN_BYTES					\
	{ 0xb8, 0xad, 0x00, 0x00, 0x00, 0xcd, 0x80 }

#endif /* UW_I386_H */
