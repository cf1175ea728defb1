/* stap-unwind: the task finder's events that change a process's map: a
 * target of our own (pid 0, no procname: every process) whose callbacks
 * run as task work in the process itself, after the syscall; they rescan
 * the process when a change touches an executable file mapping (or one
 * its record holds), and drop its record at exec and exit (vma_map.c's
 * top comment: "Who writes").
 */
#ifndef STP_UW_VMA_EVENTS_C
#define STP_UW_VMA_EVENTS_C

#include "stap-unwind/vma_records.h"

#ifdef HAVE_TASK_FINDER
static int stp_uw_vma_task_cb(struct stap_task_finder_target *tgt,
			      struct task_struct *tsk, int register_p,
			      int process_p)
{
	if (!process_p)
		return 0;
	if (register_p) {
		/* New process (fork, exec's new image, attached at start):
		 * task work in the process itself. */
		if (tsk == current && stp_uw_vma_known(tsk, 0, 0) < 0)
			stp_uw_vma_rescan(tsk);
	} else {
		/* exec (old image) or exit of the last thread. */
		stp_uw_vma_drop(tsk->tgid);
	}
	return 0;
}

static int stp_uw_vma_mmap_cb(struct stap_task_finder_target *tgt,
			      struct task_struct *tsk, char *path,
			      struct dentry *dentry, unsigned long addr,
			      unsigned long length, unsigned long offset,
			      unsigned long vm_flags)
{
	if (tsk != current)
		return 0;
	if (!(vm_flags & VM_EXEC)) {
		/* ld.so maps an object's read-only segment (where its
		 * unwind tables are) over its first, whole-file mapping after
		 * the executable one: those pages must be made resident
		 * again. */
		stp_uw_vma_refault(tsk, addr, length);
		return 0;
	}
	if (stp_uw_vma_known(tsk, addr, length) == 2)
		return 0;
	stp_uw_vma_rescan(tsk);
	return 0;
}

static int stp_uw_vma_munmap_cb(struct stap_task_finder_target *tgt,
				struct task_struct *tsk, unsigned long addr,
				unsigned long length)
{
	if (tsk == current && stp_uw_vma_known(tsk, addr, length) > 0)
		stp_uw_vma_rescan(tsk);
	return 0;
}

static int stp_uw_vma_mprotect_cb(struct stap_task_finder_target *tgt,
				  struct task_struct *tsk, unsigned long addr,
				  unsigned long length, int prot)
{
	if (tsk != current)
		return 0;
	if ((prot & PROT_EXEC) || stp_uw_vma_known(tsk, addr, length) > 0)
		stp_uw_vma_rescan(tsk);
	return 0;
}

static struct stap_task_finder_target stp_uw_vma_target = {
	.pid = 0,
	.procname = NULL,
	.build_id_len = 0,
	.purpose = "stap-unwind vma map",
	.callback = &stp_uw_vma_task_cb,
	.mmap_callback = &stp_uw_vma_mmap_cb,
	.munmap_callback = &stp_uw_vma_munmap_cb,
	.mprotect_callback = &stp_uw_vma_mprotect_cb,
};
#endif

#endif /* STP_UW_VMA_EVENTS_C */
