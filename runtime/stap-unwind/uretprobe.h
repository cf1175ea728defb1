/* stap-unwind: user stacks through uretprobe trampolines (uretprobe.c,
 * brought in by the overlay's unwind.c, whose host ops it adds to:
 * STP_UW_RETURN_ADDRESS, the core's uw_host_ops.return_address).
 */
#ifndef STP_UW_URETPROBE_H
#define STP_UW_URETPROBE_H

/* Module init (stack.c's _stp_init_stack): find the kernel's
 * uprobe_get_trampoline_vaddr() in kallsyms, where the kernel has it. */
static void stp_uw_uretprobe_init(void);

#endif /* STP_UW_URETPROBE_H */
