/* A task's uretprobe return instances, readable by a module: struct
 * uprobe_task and struct return_instance in <linux/uprobes.h> with the
 * fields the unwinder reads (the stack slot a uretprobe hijacked, the
 * return address it held, the next instance).  Linux 6.1 has them; where
 * the trampoline's address comes from: uretprobe_trampoline_vaddr.c and
 * stap-unwind/uretprobe.c. */
#include <linux/sched.h>
#include <linux/uprobes.h>
unsigned long stp_uw_kf_ri(struct task_struct *t)
{
	struct return_instance *ri = t->utask->return_instances;

	_Static_assert(__builtin_types_compatible_p(typeof(ri->stack), unsigned long), "stack");
	_Static_assert(__builtin_types_compatible_p(typeof(ri->orig_ret_vaddr), unsigned long), "orig_ret_vaddr");
	_Static_assert(__builtin_types_compatible_p(typeof(ri->next), struct return_instance *), "next");
	return ri->stack + ri->orig_ret_vaddr + (unsigned long)ri->next;
}
