/* uprobe_get_trampoline_vaddr(): the address that a uretprobe writes in
 * the slots it hijacks, for current's mm, declared by <linux/uprobes.h>
 * (not in Linux 6.1, where the kernel keeps it to itself: there
 * stap-unwind/uretprobe.c knows the trampoline by where it lies). */
#include <linux/uprobes.h>
unsigned long (*stp_uw_kf_tramp)(void) = uprobe_get_trampoline_vaddr;
