/* stap-unwind: why a user backtrace stopped, and kernel-then-user stacks.
 *
 * ustop.c, brought in by the overlay's stack.c.  Used by stack.c (the
 * stop line), udefer.c and ustack_snapshot.c (whole walks), and the
 * tapsets ubacktrace_stop.stp, ustack_usage.stp, stack_id.stp and
 * kubacktrace.stp.
 *
 * Semantics of the stop report: it describes the user backtrace of this
 * probe hit, the one in c->uwcache_user (shared with print_ubacktrace(),
 * ubacktrace(), ucallers() ...).  If that walk is not finished (no user
 * backtrace taken yet in this probe, or only its first frames, as
 * ucallers(1) takes), it is finished first, up to MAXBACKTRACE frames,
 * so the report always says why the complete walk stopped.
 *
 * The walk keeps at most MAXBACKTRACE frames.  When it holds that many and
 * the core has not stopped by itself, one more step tells whether the
 * stack really goes on: if it does, the report is depth_limit (pc: the
 * last frame kept, addr: the number of frames kept); if it does not, the
 * core's own reason (end_of_stack for a stack exactly MAXBACKTRACE frames
 * deep).  The extra step changes nothing that is printed.
 */
#ifndef STP_UW_USTOP_H
#define STP_UW_USTOP_H

#include <linux/types.h>
#include "unwind/unwind.h"	/* enum stp_uw_entry, struct stp_unwind_cache */
#include "stap-unwind/core.h"

struct context;
struct task_struct;

/* Why a user backtrace stopped: the core's stop reason and its detail. */
struct stp_uw_stop_info {
	int reason;		/* enum uw_stop_reason; UW_STOP_NONE: no user
				 * backtrace in this probe hit */
	unsigned long pc;	/* frame that could not be unwound */
	unsigned long addr;	/* reason-specific (see ubacktrace_stop_addr) */
	const char *module;	/* module of pc, or NULL */
	unsigned frames;	/* frames in the walk */
};

/* Why this probe hit's user backtrace stopped, finishing its walk first. */
static void stp_uw_user_stop(struct context *c, struct stp_uw_stop_info *out);

/* This probe hit's user walk, finished up to MAXBACKTRACE frames (the
 * one walk that print_ubacktrace(), ubacktrace() and the rest share):
 * its frames, 0 without a user stack. */
static unsigned stp_uw_user_frames(struct context *c);

/* stp_uw_user_frames(), and where the walk kept MAXBACKTRACE frames
 * without stopping, one step more: the cursor then says why the stack
 * ends (stp_uw_stop_past_cut), and that step gives the last frame's CFA,
 * for its size. */
static unsigned stp_uw_user_settle(struct context *c);

/* The size in bytes of frame i of this probe hit's user backtrace of n
 * frames, settled (stp_uw_user_settle; 0 the innermost): its CFA minus
 * its sp, so the return address, saved registers and locals.  -1 if the
 * backtrace has no frame i, or the CFA is not known (the walk stopped in
 * the frame, other than at the outermost frame). */
static long stp_uw_frame_size(const struct stp_unwind_cache *cache,
			      unsigned n, unsigned i);

/* The bytes of user stack this probe hit's backtrace spans: from the
 * innermost frame's sp to the CFA of the outermost frame whose CFA is
 * known.  0 without a user backtrace.  (A signal handler on an alternate
 * stack spans two stacks; the figure then means little.) */
static unsigned long stp_uw_user_stack_bytes(struct context *c);

/* A whole walk of task's user stack from r (sanitized for entry; task's
 * memory is the current address space): at most max frames into pc[],
 * and why it stopped into *out (module NULL: it may not outlive the
 * walk).  For stacks kept past the probe hit (stap-unwind/udefer.h,
 * stap-unwind/ustack_snapshot.h); c held.  Returns the number of frames. */
static unsigned stp_uw_user_walk(struct context *c, struct task_struct *task,
				 int compat, enum stp_uw_entry entry,
				 const struct uw_regs *r, unsigned long *pc,
				 unsigned max, struct stp_uw_stop_info *out);

/* "REASON pc=0x... module=PATH DETAIL" into buf (always terminated). */
static void stp_uw_stop_format(char *buf, size_t size,
				const struct stp_uw_stop_info *s);

/* "<stop: ...>" for s as one more line of a listing printed with
 * sym_flags, if stop lines are on. */
static void stp_uw_stop_print(const struct stp_uw_stop_info *s, int sym_flags);

/* The stop line after a printed user backtrace (stack.c calls this from
 * _stp_stack_user_print). */
static void stp_uw_stop_print_line(struct context *c, int sym_flags);

/* The line between the kernel and the user part of a kernel-then-user
 * backtrace. */
#define STP_UW_KU_MARKER "-- kernel/user boundary --"

/* print_kubacktrace(): this probe hit's kernel frames, the boundary line,
 * its user frames; and the same into a string (sprint_kubacktrace). */
static void stp_uw_stack_kernel_user_print(struct context *c, int sym_flags);
static void stp_uw_stack_kernel_user_sprint(char *str, int size,
					    struct context *c, int sym_flags);

#endif /* STP_UW_USTOP_H */
