/* stap-unwind: the initial user register set per kernel entry path, as
 * the table in entry_x86.h gives it.
 */
#ifndef STP_UW_ENTRY_X86_C
#define STP_UW_ENTRY_X86_C

#include <linux/sched.h>
#include <asm/ptrace.h>
#include <asm/thread_info.h>
#include <asm/vdso.h>
#include "stap-unwind/entry_x86.h"
#include "stap-unwind/uread.h"

static inline int stp_uw_in_compat_syscall(struct task_struct *tsk)
{
#ifdef TS_COMPAT
	return (tsk->thread_info.status & TS_COMPAT) != 0;
#else
	return 0;
#endif
}

/* The vdso's int80_landing_pad in tsk, or 0. */
static inline unsigned long stp_uw_vsyscall_landing_pad(struct task_struct *tsk)
{
#ifdef CONFIG_IA32_EMULATION
	const struct vdso_image *img;
	unsigned long base;

	if (!tsk->mm)
		return 0;
	img = READ_ONCE(tsk->mm->context.vdso_image);
	base = (unsigned long)READ_ONCE(tsk->mm->context.vdso);
	if (!img || !base || img->sym_int80_landing_pad <= 0)
		return 0;
	return base + img->sym_int80_landing_pad;
#else
	return 0;
#endif
}

/* The entry path (the table in entry_x86.h). */
static inline enum stp_uw_entry
stp_uw_classify_entry(struct task_struct *tsk, struct pt_regs *regs,
		      int probe_in_user_mode)
{
	if (!regs || !tsk->mm || (tsk->flags & PF_KTHREAD))
		return STP_UW_ENTRY_NONE;
	if (probe_in_user_mode)
		return STP_UW_ENTRY_USER;
	if (!user_mode(regs))
		return STP_UW_ENTRY_NONE;
	if (stp_uw_in_compat_syscall(tsk)) {
		unsigned long pad = stp_uw_vsyscall_landing_pad(tsk);

		if (pad && regs->ip == pad)
			return STP_UW_ENTRY_VSYSCALL32;
		return STP_UW_ENTRY_INT80;
	}
	if ((long)regs->orig_ax >= 0 && regs->cx == regs->ip
	    && regs->r11 == regs->flags)
		return STP_UW_ENTRY_SYSCALL64;
	return STP_UW_ENTRY_INTERRUPT;
}

static inline bool stp_uw_entry_is_syscall(enum stp_uw_entry entry)
{
	return entry == STP_UW_ENTRY_SYSCALL64 || entry == STP_UW_ENTRY_INT80
	       || entry == STP_UW_ENTRY_VSYSCALL32;
}

/* The known registers of entry (the table in entry_x86.h). */
static inline void stp_uw_entry_regs(struct uw_regs *out, enum uw_arch arch,
				     enum stp_uw_entry entry,
				     const struct pt_regs *regs)
{
	uint32_t all = arch == UW_ARCH_I386 ? UW_I386_ALL : UW_X86_64_ALL;
	int ax = arch == UW_ARCH_I386 ? UW_I386_EAX : UW_X86_64_RAX;

	switch (entry) {
	case STP_UW_ENTRY_USER:
	case STP_UW_ENTRY_INTERRUPT:
	case STP_UW_ENTRY_CALLER:
		uw_regs_from_pt_regs(out, arch, regs, all);
		return;
	case STP_UW_ENTRY_SYSCALL64:
		uw_regs_from_pt_regs(out, arch, regs, all
				     & ~UW_REG_BIT(UW_X86_64_RCX)
				     & ~UW_REG_BIT(UW_X86_64_R8 + 3 /* r11 */));
		break;
	case STP_UW_ENTRY_INT80:
		uw_regs_from_pt_regs(out, arch, regs, all);
		break;
	case STP_UW_ENTRY_VSYSCALL32: {
		u32 ebp;

		uw_regs_from_pt_regs(out, arch, regs, all
				     & ~UW_REG_BIT(UW_I386_EBP));
		if (stp_uw_uread(&ebp, (u32)regs->sp, 4, 1) == 0) {
			out->val[UW_I386_EBP] = ebp;
			out->defined |= UW_REG_BIT(UW_I386_EBP);
		}
		break;
	}
	default:
		out->defined = 0;
		return;
	}
	/* The user's eax/rax at the syscall instruction was the number. */
	out->val[ax] = arch == UW_ARCH_I386 ? (u32)regs->orig_ax : regs->orig_ax;
	out->defined |= UW_REG_BIT(ax);
}

#endif /* STP_UW_ENTRY_X86_C */
