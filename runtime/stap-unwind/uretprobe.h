/* stap-unwind: user stacks through uretprobe trampolines (uretprobe.c,
 * brought in by the overlay's unwind.c, whose host ops it adds to:
 * STP_UW_RETURN_ADDRESS, the core's uw_host_ops.return_address).
 */
#ifndef STP_UW_URETPROBE_H
#define STP_UW_URETPROBE_H

/* Module init (stack.c's _stp_init_stack): find the kernel's
 * uprobe_get_trampoline_vaddr() in kallsyms, where the kernel has it. */
static void stp_uw_uretprobe_init(void);

/* Whether a walk of task's user stack may meet a uretprobe's trampoline
 * in place of a return address, and so needs the host's return_address
 * at each step.  Not where task is current and has no return instance:
 * current, in a probe, adds none until the probe returns, so one look
 * serves a whole walk (most walks: stp_uw_ops_no_uretprobe, unwind.c). */
static bool stp_uw_uretprobe_may_meet(struct task_struct *task);

#endif /* STP_UW_URETPROBE_H */
