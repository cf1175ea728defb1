/* stap-unwind: why a user backtrace stopped, and kernel-then-user stacks
 * (ustop.h).
 */
#ifndef STP_UW_USTOP_C
#define STP_UW_USTOP_C

#include "stap-unwind/ustop.h"
#include "stap-unwind/stack.h"
#include "stap-unwind/user_walk.h"

/* Print the stop reason after the last frame of print_ubacktrace() and
 * friends (symbolic forms only).  Off unless -DSTP_UNWIND_SHOW_STOP;
 * ubacktrace_show_stop() changes it for the session. */
static int stp_uw_show_stop_flag =
#ifdef STP_UNWIND_SHOW_STOP
	1;
#else
	0;
#endif

/* A walk that kept its frames without the core stopping (MAXBACKTRACE
 * frames kept, or a pc outside user space): does the stack go on?  One
 * more step tells, and leaves the cursor stopped either way: depth_limit
 * if it goes on, else why the frame kept last is the outermost. */
static void stp_uw_stop_past_cut(struct uw_cursor *cur)
{
	if (cur->stop.reason != UW_STOP_NONE)
		return;
	if (uw_step(cur) == 1) {
		cur->max_depth = cur->depth;
		(void)uw_step(cur);	/* stops: depth limit */
	}
}

static unsigned stp_uw_user_frames(struct context *c)
{
	struct stp_unwind_cache *cache = &c->uwcache_user;
	unsigned n;

	/* No user registers or no mm: the walk never begins (and the
	 * cursor may hold an older probe hit's state). */
	if (!current->mm || !_stp_get_uregs(c))
		return 0;
	if (cache->state != uwcache_finished)
		(void)_stp_stack_user_get(c, MAXBACKTRACE - 1);
	n = min_t(unsigned, cache->depth, MAXBACKTRACE);
	if (n > 0 && cache->pc[n - 1] == 0)
		n--;
	return n;
}

static unsigned stp_uw_user_settle(struct context *c)
{
	struct stp_unwind_cache *cache = &c->uwcache_user;
	struct uw_cursor *cur = &c->uwcontext_user.cursor;
	unsigned n = stp_uw_user_frames(c);

	if (n == 0 || !c->uwcontext_user.host.task)
		return n;
	stp_uw_stop_past_cut(cur);
	if (!cache->cfa[n - 1])
		cache->cfa[n - 1] = stp_uw_frame_cfa(cur, n - 1);
	return n;
}

static void stp_uw_user_stop(struct context *c, struct stp_uw_stop_info *out)
{
	struct stp_unwind_cache *cache = &c->uwcache_user;
	struct stp_unwind_context *uc = &c->uwcontext_user;
	struct uw_cursor *cur = &uc->cursor;
	unsigned n;

	memset(out, 0, sizeof(*out));
	if (!current->mm || !_stp_get_uregs(c))
		return;
	n = stp_uw_user_settle(c);
	out->frames = n;
	if (!uc->host.task)	/* no user context (kernel thread...) */
		return;
	out->reason = cur->stop.reason;
	out->pc = (unsigned long)cur->stop.pc;
	out->addr = (unsigned long)cur->stop.addr;
	out->module = cur->stop.module;
	if (out->reason == UW_STOP_DEPTH_LIMIT && n > 0) {
		out->pc = cache->pc[n - 1];
		out->addr = n;
		out->module = NULL;
	}
	if (!out->module && out->pc && out->reason != UW_STOP_NONE) {
		const char *name = NULL;
		unsigned long off = 0, vs = 0, ve = 0;

		(void)_stp_umod_lookup(out->pc, current, &name, &off, &vs, &ve);
		out->module = name;
	}
}

static long stp_uw_frame_size(const struct stp_unwind_cache *cache,
			      unsigned n, unsigned i)
{
	if (i >= n || !cache->cfa[i] || cache->cfa[i] <= cache->sp[i])
		return -1;
	return (long)(cache->cfa[i] - cache->sp[i]);
}

static unsigned long stp_uw_user_stack_bytes(struct context *c)
{
	const struct stp_unwind_cache *cache = &c->uwcache_user;
	unsigned long top = 0;
	unsigned i, n = stp_uw_user_settle(c);

	for (i = 0; i < n; i++)	/* bound: MAXBACKTRACE frames */
		if (cache->cfa[i])
			top = cache->cfa[i];
	return top > cache->sp[0] ? top - cache->sp[0] : 0;
}

static unsigned stp_uw_user_walk(struct context *c, struct task_struct *task,
				 int compat, enum stp_uw_entry entry,
				 const struct uw_regs *r, unsigned long *pc,
				 unsigned max, struct stp_uw_stop_info *out)
{
	struct stp_unwind_context *uc = &c->uwcontext_user;
	unsigned long next;
	unsigned depth = 0, ask, got, i;

	memset(out, 0, sizeof(*out));
	next = stp_uw_user_begin_regs(uc, task, compat, entry, r);
	if (!next && !uc->host.task)
		return 0;	/* no user context: reason none */
	if (next && max > 0)
		pc[depth++] = next;
	/* The core's frames many to a call, up to a pc outside user space.
	 * bound: max frames; each call but the last gives ask */
	while (next && depth < max) {
		ask = min_t(unsigned, max - depth, STP_UW_STEPPED);
		got = stp_uw_user_many(uc, ask);
		for (i = 0; i < got; i++) {	/* bound: STP_UW_STEPPED */
			next = (unsigned long)uc->stepped[i].pc;
			if (!stp_uw_user_pc_ok(uc, next)) {
				next = 0;
				break;
			}
			pc[depth++] = next;
		}
		if (got < ask)
			break;
	}
	if (depth > 0)
		stp_uw_stop_past_cut(&uc->cursor);
	out->reason = uc->cursor.stop.reason;
	out->pc = (unsigned long)uc->cursor.stop.pc;
	out->addr = (unsigned long)uc->cursor.stop.addr;
	out->frames = depth;
	if (out->reason == UW_STOP_DEPTH_LIMIT && depth > 0) {
		out->pc = pc[depth - 1];
		out->addr = depth;
	}
	return depth;
}

static void stp_uw_stop_format(char *buf, size_t size,
				const struct stp_uw_stop_info *s)
{
	enum uw_stop_detail form;
	const char *key;
	int len;

	if (size == 0)
		return;
	len = scnprintf(buf, size, "%s", uw_stop_reason_id(s->reason));
	if (s->reason == UW_STOP_NONE)
		return;
	if (s->pc)
		len += scnprintf(buf + len, size - len, " pc=0x%lx", s->pc);
	if (s->module)
		len += scnprintf(buf + len, size - len, " module=%s", s->module);
	key = uw_stop_reason_detail(s->reason, &form);
	if (form == UW_STOP_DETAIL_HEX)
		scnprintf(buf + len, size - len, " %s=0x%lx", key, s->addr);
	else if (form == UW_STOP_DETAIL_DEC)
		scnprintf(buf + len, size - len, " %s=%lu", key, s->addr);
}

static void stp_uw_stop_print(const struct stp_uw_stop_info *s, int sym_flags)
{
	char buf[384];		/* reason, numbers and a module path */

	if (!stp_uw_show_stop_flag || !(sym_flags & _STP_SYM_SYMBOL))
		return;
	stp_uw_stop_format(buf, sizeof(buf), s);
	_stp_printf("%s<stop: %s>%s", (sym_flags & _STP_SYM_PRE_SPACE) ? " " : "",
		    buf, (sym_flags & _STP_SYM_NEWLINE) ? "\n" : " ");
}

static void stp_uw_stop_print_line(struct context *c, int sym_flags)
{
	struct stp_uw_stop_info s;

	if (!stp_uw_show_stop_flag || !(sym_flags & _STP_SYM_SYMBOL))
		return;
	stp_uw_user_stop(c, &s);
	stp_uw_stop_print(&s, sym_flags);
}

/* ------------------------------------------------------------------ */
/* Kernel frames, then user frames                                     */

static void stp_uw_stack_kernel_user_print(struct context *c, int sym_flags)
{
	/* The task's kernel frames exist only if the probe hit kernel
	 * code; a probe in user mode (uprobe, a sample of user code) has
	 * none of its own (the kernel stack there is the interrupt's and
	 * SystemTap's, not the task's).  Without the probe's kernel
	 * registers the kernel walk leaves out this module's own frames
	 * (stack.c). */
	if (!c->user_mode_p)
		_stp_stack_kernel_print(c, sym_flags);
	_stp_printf("%s%s%s", (sym_flags & _STP_SYM_PRE_SPACE) ? " " : "",
		    STP_UW_KU_MARKER,
		    (sym_flags & _STP_SYM_NEWLINE) ? "\n" : " ");
	/* No deferred rest here: it would be printed without its kernel
	 * part (stap-unwind/udefer.h). */
	stp_uw_user_print_nodefer(c, sym_flags);
}

/* Into a string: stack.c's print-into-string helper. */
static void stp_uw_stack_kernel_user_sprint(char *str, int size,
					  struct context *c, int sym_flags)
{
	stp_uw_sprint(str, size, c, sym_flags, stp_uw_stack_kernel_user_print);
}

#endif /* STP_UW_USTOP_C */
