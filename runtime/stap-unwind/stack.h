/* stap-unwind: what the overlay's stack.c (runtime/stock/stack.c) gives
 * the parts it brings in (ustop.c, udefer.c, ustack_snapshot.c), besides
 * the user walk of unwind.c: this probe hit's cached walks, kernel stacks
 * of other tasks, and printing into a string.
 */
#ifndef STP_UW_STACK_H
#define STP_UW_STACK_H

#include <linux/ptrace.h>
#include <linux/sched.h>
#include "stap-unwind/core.h"

struct context;

/* Stock's interface (the tapsets' and the translator's), on the core. */

/* The user registers of this probe hit, or NULL. */
static struct pt_regs *_stp_get_uregs(struct context *c);

/* The pc at depth of this probe hit's user (kernel) walk, walking as far
 * as needed; 0 past the end. */
static unsigned long _stp_stack_user_get(struct context *c, unsigned depth);
static unsigned long _stp_stack_kernel_get(struct context *c, unsigned depth);

/* This probe hit's kernel backtrace, printed with sym_flags. */
static void _stp_stack_kernel_print(struct context *c, int sym_flags);

/* Ours. */

/* The kernel's stack_trace_save_regs() (NULL regs: none) and
 * stack_trace_save_tsk(): at most size frames into store; their number, 0
 * where the kernel gave the module neither. */
static unsigned int stp_uw_save_regs(struct pt_regs *regs, unsigned long *store,
				     unsigned int size);
static unsigned int stp_uw_save_tsk(struct task_struct *task,
				    unsigned long *store, unsigned int size);

/* The CFA of frame i of the cursor's walk, if the cursor's last step was
 * the one out of frame i: 0 if it did not compute one. */
static unsigned long stp_uw_frame_cfa(const struct uw_cursor *cur, unsigned i);

/* This probe hit's user backtrace, printed with sym_flags, and never
 * deferred (the sprint_ forms; stap-unwind/udefer.h). */
static void stp_uw_user_print_nodefer(struct context *c, int sym_flags);

/* What print(c, sym_flags) prints, into str (at most size - 1 bytes and a
 * NUL) instead of the output: the sprint_ forms of the print_ functions. */
static void stp_uw_sprint(char *str, int size, struct context *c,
			  int sym_flags,
			  void (*print)(struct context *c, int sym_flags));

#endif /* STP_UW_STACK_H */
