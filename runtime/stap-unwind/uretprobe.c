/* stap-unwind: user stacks through uretprobe trampolines.
 *
 * A uretprobe (probe process(...).function(...).return) replaces the
 * return address of each call of its function, on the user stack, with
 * the address of a trampoline in the task's "[uprobes]" page (the xol
 * area), and keeps what it replaced in the task's list of return
 * instances, newest first: current->utask->return_instances, one struct
 * return_instance per live call, with orig_ret_vaddr (the real return
 * address) and stack (the stack pointer at the function's entry, which is
 * the address of the return address's slot: kernel/events/uprobes.c,
 * prepare_uretprobe(), and arch/x86/kernel/uprobes.c,
 * arch_uretprobe_hijack_return_addr(), which reads and writes the word
 * at regs->sp, 8 bytes for a 64-bit task, 4 for an i386 one).  A chained
 * instance (a probed function tail-called by another) holds the real
 * address already.
 *
 * The unwinder's step asks (uw_host_ops.return_address) whether the
 * caller's pc it read from the slot below the CFA is the trampoline; if
 * so, the instance whose stack is that slot gives the real one, so that
 * recursion (several instances of one function) maps each frame to its
 * own call.  Every reader of user stacks (print_ubacktrace(), ubacktrace(),
 * deferred stacks, snapshots, the tools) walks through here.
 *
 * The trampoline is the first slot of the xol area of the task's mm, the
 * "[uprobes]" page.  Where the kernel says where that is
 * (uprobe_get_trampoline_vaddr(), unexported: from kallsyms at module
 * init, stack.c; STP_UW_KF_URETPROBE_TRAMPOLINE_VADDR), a trampoline with
 * no instance of its slot stops the walk with UW_STOP_TRAMPOLINE
 * ("return_trampoline") instead of reporting it as a frame.  Where it does
 * not (Linux 6.1: the function is the kernel's own), a return address is
 * taken for the trampoline when it starts a page, as the xol area does,
 * and an instance holds its slot:
 * the slot the kernel hijacked, holding the value the kernel wrote there.
 * Where the instances cannot be read (STP_UW_KF_URETPROBE_INSTANCES), the
 * walk ends at the trampoline as with stock.
 *
 * Another thread's list (a snapshot's worker reading a blocked thread of
 * the same process) changes only when that thread runs: if it wakes
 * while it is read, its list moves as its stack does, which every read of
 * another thread's stack already meets.  The reads are nofault and
 * bounded; an address read from a list that moved is judged by the
 * step's checks like any other.
 */
#ifndef STP_UW_URETPROBE_C
#define STP_UW_URETPROBE_C

#include <linux/uaccess.h>
#include <linux/uprobes.h>
#include "stap-unwind/uretprobe.h"
#include "unwind/unwind.h"	/* struct stp_uw_host */
#include "stap-unwind/features.h"	/* ibt_wrapper */

#ifdef STP_UW_KF_URETPROBE_INSTANCES

/* The kernel keeps at most MAX_URETPROBE_DEPTH (64) instances per task
 * (kernel/events/uprobes.c: deeper calls are not hijacked); a list longer
 * than this is not one to trust. */
#define STP_UW_URETPROBE_MAX 64

/* Is ra where the trampoline of current's mm may lie, the first slot of
 * its xol area, which starts a page?  -1 where it may (an instance that
 * holds ra's slot decides: one exists only where the area does), 0 where
 * it cannot. */
static int stp_uw_uretprobe_at_trampoline(unsigned long ra)
{
	return (ra & (PAGE_SIZE - 1)) == 0 ? -1 : 0;
}

#ifdef STP_UW_KF_URETPROBE_TRAMPOLINE_VADDR
static __typeof__(uprobe_get_trampoline_vaddr) *stp_uw_uretprobe_tramp_fn;

static void stp_uw_uretprobe_init(void)
{
	stp_uw_uretprobe_tramp_fn =
		(void *)kallsyms_lookup_name("uprobe_get_trampoline_vaddr");
}

/* Is ra the trampoline of current's mm?  1 or 0 as the kernel says; -1
 * where it may be (the kernel's function not found). */
static int stp_uw_uretprobe_is_trampoline(unsigned long ra)
{
	unsigned long tramp;

	if (!stp_uw_uretprobe_tramp_fn)
		return stp_uw_uretprobe_at_trampoline(ra);
	/* -1 where the mm has no xol area (no uprobe hit yet). */
	tramp = ibt_wrapper(unsigned long, (*stp_uw_uretprobe_tramp_fn)());
	return tramp != -1UL && ra == tramp;
}
#else
static void stp_uw_uretprobe_init(void)
{
}

/* Linux 6.1: the kernel keeps the trampoline's address to itself. */
static int stp_uw_uretprobe_is_trampoline(unsigned long ra)
{
	return stp_uw_uretprobe_at_trampoline(ra);
}
#endif

/* The real return address of the uretprobe instance of task whose
 * hijacked slot is slot; 0 and *real, or -1. */
static int stp_uw_uretprobe_instance(struct task_struct *task,
				     unsigned long slot, uint64_t *real)
{
	struct uprobe_task *utask = READ_ONCE(task->utask);
	struct return_instance *ri;
	unsigned i;

	/* Current's own list changes only in current (never while this
	 * probe runs on it but from inside the uprobes code a probe may
	 * hit); another task's whenever it runs, and its utask goes when it
	 * exits: every read is a nofault read. */
	if (!utask || copy_from_kernel_nofault(&ri, &utask->return_instances,
					       sizeof(ri)))
		return -1;
	/* bound: STP_UW_URETPROBE_MAX instances */
	for (i = 0; ri && i < STP_UW_URETPROBE_MAX; i++) {
		unsigned long stack, orig;
		struct return_instance *next;

		if (copy_from_kernel_nofault(&stack, &ri->stack, sizeof(stack))
		    || copy_from_kernel_nofault(&orig, &ri->orig_ret_vaddr,
						sizeof(orig))
		    || copy_from_kernel_nofault(&next, &ri->next, sizeof(next)))
			return -1;
		if (stack == slot) {
			*real = orig;
			return 0;
		}
		ri = next;
	}
	return -1;
}

static bool stp_uw_uretprobe_may_meet(struct task_struct *task)
{
	return task != current || (READ_ONCE(current->utask)
				   && READ_ONCE(current->utask->return_instances));
}

/* uw_host_ops.return_address (stp_uw_ops, unwind.c). */
static int stp_uw_return_address(void *h, uint64_t ra, uint64_t slot,
				 uint64_t *real)
{
	struct stp_uw_host *host = h;
	int tramp;

	if (!current->mm || host->task->mm != current->mm
	    || !stp_uw_uretprobe_may_meet(host->task))
		return 0;
	tramp = stp_uw_uretprobe_is_trampoline((unsigned long)ra);
	if (tramp == 0)
		return 0;
	if (stp_uw_uretprobe_instance(host->task, (unsigned long)slot,
				      real) == 0)
		return 1;
	/* The trampoline with no instance of its slot: a stop; where it
	 * only may be the trampoline, a return address as any other. */
	return tramp > 0 ? -1 : 0;
}

#define STP_UW_RETURN_ADDRESS stp_uw_return_address

#else /* !STP_UW_KF_URETPROBE_INSTANCES */

static void stp_uw_uretprobe_init(void)
{
}

static bool stp_uw_uretprobe_may_meet(struct task_struct *task)
{
	return false;
}

#define STP_UW_RETURN_ADDRESS NULL

#endif /* STP_UW_KF_URETPROBE_INSTANCES */

#endif /* STP_UW_URETPROBE_C */
