/* stap-unwind: stack backtraces for the SystemTap runtime (overlay's
 * stack.c).
 *
 * The interface is the one the 5.6 tapsets (context-unwind.stp,
 * ucontext-unwind.stp, ucontext-symbols.stp, context-symbols.stp,
 * context-caller.stp) and the translator's generated code use:
 *   _stp_init_stack()                       module init
 *   _stp_get_uregs(c)                       user registers of the probe
 *   _stp_stack_{kernel,user}_get(c, depth)  pc at depth, 0 past the end
 *   _stp_stack_{kernel,user}_print(c, sym_flags)
 *   _stp_stack_{kernel,user}_sprint(str, size, c, sym_flags)
 * with the per-probe caches c->uwcache_{kernel,user} (reset to
 * uwcache_uninitialized by the generated probe prologue and by the
 * print_ubacktrace(pc, sp, fp) variants).
 *
 * User stacks: the stap-unwind core (unwind.c).  Kernel stacks: the
 * kernel's own unwinder (ORC on the supported kernels) through
 * stack_trace_save_regs(), which is what SystemTap 5.6 falls back to when
 * it has no kernel CFI (no kernel debuginfo), so kernel output is unchanged.
 */
#ifndef _STACK_C_
#define _STACK_C_

/* The overlay's sym.c: user addresses are named by stap-unwind/usym.c. */
#include "sym.c"
#include "regs.h"

#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#include "stap-unwind/stack.h"
#include "stap-unwind/entry_x86.h"
#include "stap-unwind/user_walk.h"
#include "stap-unwind/ustop.h"
#include "stap-unwind/udefer.h"
#include "stap-unwind/ustack_snapshot.h"
#include "stap-unwind/uretprobe.h"

#if !defined(__x86_64__)
#error "stap-unwind: stack.c supports x86_64 kernels only"
#endif

/* ------------------------------------------------------------------ */
/* Kernel stacks                                                       */

/* The kernel's stack_trace_save_regs() and stack_trace_save_tsk(), which
 * it does not export (the second is exported by 6.12, not by 6.1): found
 * in kallsyms at module init, and called where indirect branch tracking
 * allows it (ibt_wrapper: a function nothing takes the address of may
 * have no ENDBR).  Without them, no frames. */
static __typeof__(stack_trace_save_regs) *stp_uw_save_regs_fn;
static __typeof__(stack_trace_save_tsk) *stp_uw_save_tsk_fn;

static unsigned int stp_uw_save_regs(struct pt_regs *regs, unsigned long *store,
				     unsigned int size)
{
	if (!regs || !stp_uw_save_regs_fn)
		return 0;
	return ibt_wrapper(unsigned int, (*stp_uw_save_regs_fn)(regs, store, size, 0));
}

static unsigned int stp_uw_save_tsk(struct task_struct *task,
				    unsigned long *store, unsigned int size)
{
	if (!stp_uw_save_tsk_fn)
		return 0;
	return ibt_wrapper(unsigned int, (*stp_uw_save_tsk_fn)(task, store, size, 0));
}

/* Module init, in every module with backtraces: the kernel walker's
 * functions.  Nothing to undo; the parts of the stack code that hold
 * memory or work (snapshots, deferred backtraces) start and stop with the
 * rest of the overlay (stap-unwind/init_exit.c). */
static int _stp_init_stack(void)
{
	stp_uw_save_regs_fn = (void *)kallsyms_lookup_name("stack_trace_save_regs");
	stp_uw_save_tsk_fn = (void *)kallsyms_lookup_name("stack_trace_save_tsk");
	stp_uw_uretprobe_init();	/* stap-unwind/uretprobe.c */
	dbug_unwind(1, "stack_trace_save_regs at %lx, stack_trace_save_tsk at %lx\n",
		    (unsigned long)stp_uw_save_regs_fn,
		    (unsigned long)stp_uw_save_tsk_fn);
	return 0;
}

/* Depth 0 of a kernel stack: where the probe is (for a return probe, the
 * address it returns to). */
static unsigned long stp_uw_kernel_pc0(struct context *c)
{
	if (!c->kregs)
		return 0;
	if (c->probe_type == stp_probe_type_kretprobe && c->ips.krp.pi)
		return (unsigned long)_stp_ret_addr_r(c->ips.krp.pi);
	return REG_IP(c->kregs);
}

/* Fill the kernel cache in one walk (the kernel's unwinder cannot resume a
 * walk, and one walk of MAXBACKTRACE frames is cheap). */
static void stp_uw_kernel_walk(struct context *c)
{
	struct stp_unwind_cache *uc = &c->uwcache_kernel;
	unsigned long *e = c->kern_bt_entries;
	unsigned int num = 0, i = 0;
	unsigned long pc0 = stp_uw_kernel_pc0(c);

	uc->depth = 0;
	if (c->kregs) {
		uc->pc[uc->depth++] = pc0;
		num = stp_uw_save_regs(c->kregs, e, MAXBACKTRACE);
		/* The walk starts with regs->ip itself. */
		if (num > 0 && (e[0] == REG_IP(c->kregs) || e[0] == pc0))
			i = 1;
	} else {
		/* No registers (begin, timer.s, tracepoints...): where we are
		 * now, without this module's own frames (the handler's): the
		 * stack starts at the caller of the probe. */
		num = stack_trace_save(e, MAXBACKTRACE, 0);
		while (i < num && within_module(e[i], THIS_MODULE))	/* bound: num */
			i++;
	}
	for (; i < num && uc->depth < MAXBACKTRACE; i++) {
		if (e[i] == 0 || e[i] == ULONG_MAX)
			break;
		uc->pc[uc->depth++] = e[i];
	}
	uc->state = uwcache_finished;
}

static unsigned long _stp_stack_kernel_get(struct context *c, unsigned depth)
{
	if (c->uwcache_kernel.state != uwcache_finished)
		stp_uw_kernel_walk(c);
	if (depth >= c->uwcache_kernel.depth)
		return 0;
	return c->uwcache_kernel.pc[depth];
}

/* In place of a backtrace that has no frame: "<no kernel backtrace at
 * PROBE>" in the symbolic forms (as stock prints it), a bare newline in
 * the hex ones. */
static void stp_uw_print_none(struct context *c, int sym_flags,
			      const char *which)
{
	if (sym_flags & _STP_SYM_SYMBOL)
		_stp_printf("<no %s backtrace at %s>\n", which, c->probe_point);
	else
		_stp_print("\n");
}

/* Whether a sprint_ form's string is full (stp_uw_sprint, below): its
 * print loops stop there.  A runtime with no_flush holds back the flush
 * of a full print buffer; one without it (SystemTap 4.8) would send what
 * the buffer held to the output and leave the string the stack's tail,
 * so there the string's room bounds what is printed: a frame's line is
 * far shorter than the buffer, and the string (at most MAXSTRINGLEN) is
 * full before the buffer. */
#if STP_UW_STOCK_LOG_NO_FLUSH
static inline int stp_uw_sprint_full(void)
{
	return 0;
}
#else
static DEFINE_PER_CPU(int, stp_uw_sprint_room);

static int stp_uw_sprint_full(void)
{
	int room = __this_cpu_read(stp_uw_sprint_room);

	return room && per_cpu_ptr(_stp_log_pcpu, raw_smp_processor_id())->len >= room;
}
#endif

static void _stp_stack_kernel_print(struct context *c, int sym_flags)
{
	unsigned n;

	if (c->probe_type == stp_probe_type_kretprobe && c->ips.krp.pi
	    && (sym_flags & _STP_SYM_FULL) == _STP_SYM_FULL) {
		_stp_print("Returning from: ");
		stp_uw_print_addr((unsigned long)_stp_probe_addr_r(c->ips.krp.pi),
				sym_flags, NULL, c);
		_stp_print("Returning to  : ");
	}
	if (_stp_stack_kernel_get(c, 0) == 0 && c->uwcache_kernel.depth == 0) {
		stp_uw_print_none(c, sym_flags, "kernel");
		return;
	}
	/* Frame 0 is the probed pc where there are registers; every other
	 * frame is a return address. */
	for (n = 0; n < c->uwcache_kernel.depth && !stp_uw_sprint_full(); n++)	/* bound: MAXBACKTRACE */
		stp_uw_print_addr(c->uwcache_kernel.pc[n],
				  stp_uw_kframe_sym_flags(sym_flags, n > 0 || !c->kregs),
				  NULL, c);
}

/* ------------------------------------------------------------------ */
/* User stacks                                                         */

/* The user registers of this probe hit.  In user mode (uprobes, samples
 * of user code) they are the probe's; otherwise the registers saved when
 * the task entered the kernel.  On x86_64 every entry path saves all
 * general registers (which of them still hold user values is decided per
 * entry path by entry_x86.h), so they are marked full. */
static struct pt_regs *_stp_get_uregs(struct context *c)
{
	if (c->uregs && c->user_mode_p) {
		c->full_uregs_p = 1;
	} else if (c->uregs == NULL) {
		c->uregs = _stp_current_pt_regs();
		c->full_uregs_p = c->uregs != NULL;
	}
	return c->uregs;
}

/* The first frame of this probe hit's user walk, the walk begun: its pc,
 * or 0 where there is no user stack.  In a uretprobe, the pc the probed
 * function returns to. */
static unsigned long stp_uw_user_first(struct context *c)
{
	struct stp_unwind_context *uc = &c->uwcontext_user;
	struct pt_regs *regs = _stp_get_uregs(c);
	enum stp_uw_entry entry;
	unsigned long pc;

	if (!current->mm || !regs)
		return 0;
	entry = stp_uw_classify_entry(current, regs, c->user_mode_p);
	pc = stp_uw_user_begin(uc, regs, entry);
#ifdef STAPCONF_UPROBE_GET_PC
	if (pc && c->probe_type == stp_probe_type_uretprobe && c->ips.ri)
		pc = c->ips.ri->ret_addr;
#endif
	return pc;
}

/* A caller's pc the walk found, pc (its frame's sp: sp), or, where a
 * uretprobe's trampoline stands in its place, the address it stands for,
 * which the kernel's uprobes know. */
static unsigned long stp_uw_user_real_pc(struct context *c, unsigned long pc,
					 unsigned long sp)
{
#ifdef STAPCONF_UPROBE_GET_PC
	struct uretprobe_instance *ri = NULL;
	unsigned long real;

	if (c->probe_type == stp_probe_type_uretprobe)
		ri = c->ips.ri;
	else if (c->probe_type == stp_probe_type_uprobe)
		ri = GET_PC_URETPROBE_NONE;
	if (ri) {
		real = uprobe_get_pc(ri, pc, sp);
		if (real)
			pc = real;
	}
#endif
	return pc;
}

static unsigned long stp_uw_frame_cfa(const struct uw_cursor *cur, unsigned i)
{
	if (cur->depth == i + 1)	/* stepped out of frame i */
		return (unsigned long)uw_cfa(cur);
	if (cur->depth == i)		/* stopped in frame i */
		return (unsigned long)uw_frame_cfa(cur);
	return 0;
}

/* Keep frame i of this probe hit's user walk (pc 0: the walk ended before
 * it): its pc and sp, and the CFA of the frame below, which the step to it
 * computed. */
static void stp_uw_user_keep(struct context *c, unsigned i, unsigned long pc)
{
	struct stp_unwind_cache *cache = &c->uwcache_user;
	const struct stp_unwind_context *uc = &c->uwcontext_user;

	cache->pc[i] = pc;
	cache->sp[i] = pc ? UNW_SP(&uc->info) : 0;
	cache->cfa[i] = 0;
	if (i > 0)
		cache->cfa[i - 1] = stp_uw_frame_cfa(&uc->cursor, i - 1);
}

/* The walk ends at frame cache->depth, which is kept as pc 0 (sp and CFA
 * unknown): cfa is the CFA of the frame below it. */
static void stp_uw_user_end(struct context *c, unsigned long cfa)
{
	struct stp_unwind_cache *cache = &c->uwcache_user;
	unsigned i = cache->depth;

	cache->pc[i] = 0;
	cache->sp[i] = 0;
	cache->cfa[i] = 0;
	cache->cfa[i - 1] = cfa;
	cache->depth++;
	cache->state = uwcache_finished;
}

/* This probe hit's user walk kept on, from its first frame, until the
 * cache holds want frames (at most MAXBACKTRACE) or the walk ends: the
 * core's frames taken many to a call (stp_uw_user_many); a pc outside
 * user space ends it, as the core's stop does. */
static void stp_uw_user_take(struct context *c, unsigned want)
{
	struct stp_unwind_cache *cache = &c->uwcache_user;
	struct stp_unwind_context *uc = &c->uwcontext_user;
	const struct uw_stepped_frame *f;
	unsigned ask, got, i;

	want = min_t(unsigned, want, MAXBACKTRACE);
	/* bound: MAXBACKTRACE frames; each call but the last gives ask */
	while (cache->state != uwcache_finished && cache->depth < want) {
		ask = min_t(unsigned, want - cache->depth, STP_UW_STEPPED);
		got = stp_uw_user_many(uc, ask);
		for (i = 0; i < got; i++) {	/* bound: STP_UW_STEPPED */
			f = &uc->stepped[i];
			if (!stp_uw_user_pc_ok(uc, (unsigned long)f->pc)) {
				stp_uw_user_end(c, (unsigned long)f->cfa);
				return;
			}
			cache->pc[cache->depth] = stp_uw_user_real_pc(c,
				(unsigned long)f->pc, (unsigned long)f->sp);
			cache->sp[cache->depth] = (unsigned long)f->sp;
			cache->cfa[cache->depth] = 0;
			cache->cfa[cache->depth - 1] = (unsigned long)f->cfa;
			cache->depth++;
		}
		if (got < ask) {
			/* Stopped in the frame kept last. */
			stp_uw_user_end(c, stp_uw_frame_cfa(&uc->cursor,
							    cache->depth - 1));
			return;
		}
		if (cache->depth >= MAXBACKTRACE)
			cache->state = uwcache_finished;
	}
}

static unsigned long _stp_stack_user_get(struct context *c, unsigned depth)
{
	struct stp_unwind_cache *cache = &c->uwcache_user;
	unsigned long pc = 0;

	if (cache->state == uwcache_uninitialized) {
		cache->depth = 0;
		cache->state = uwcache_partial;
	}
	if (unlikely(depth >= MAXBACKTRACE))
		return 0;
	if (depth < cache->depth)
		return cache->pc[depth];
	if (cache->state == uwcache_finished)
		return 0;
	if (cache->depth == 0) {
		pc = stp_uw_user_first(c);
		stp_uw_user_keep(c, 0, pc);
		cache->depth = 1;
		if (pc == 0 || cache->depth >= MAXBACKTRACE) {
			cache->state = uwcache_finished;
			return pc;
		}
	}
	stp_uw_user_take(c, depth + 1);
	return depth < cache->depth ? cache->pc[depth] : 0;
}

/* The print_ forms; defer: may queue the rest of a stack that stopped on
 * a page not resident (stap-unwind/udefer.h). */
static void stp_uw_user_print(struct context *c, int sym_flags, int defer)
{
	struct pt_regs *regs = _stp_get_uregs(c);
	unsigned n;
	unsigned long pc;

	if (!current->mm || !regs || _stp_stack_user_get(c, 0) == 0) {
		stp_uw_print_none(c, sym_flags, "user");
		return;
	}
	(void)_stp_stack_user_get(c, MAXBACKTRACE - 1);	/* the walk at once */
#ifdef STAPCONF_UPROBE_GET_PC
	if (c->probe_type == stp_probe_type_uretprobe && c->ips.ri
	    && (sym_flags & _STP_SYM_FULL) == _STP_SYM_FULL) {
		_stp_print("Returning from: ");
		stp_uw_print_addr(c->ips.ri->rp->u.vaddr, sym_flags, current, c);
		_stp_print("Returning to  : ");
	}
#endif
	for (n = 0; n < MAXBACKTRACE && !stp_uw_sprint_full(); n++) {
		pc = _stp_stack_user_get(c, n);
		if (pc == 0)
			break;
		stp_uw_print_addr(pc, stp_uw_frame_sym_flags(sym_flags, n),
				current, c);
	}
	stp_uw_stop_print_line(c, sym_flags);	/* stap-unwind/ustop.h */
	if (defer && (sym_flags & _STP_SYM_SYMBOL)) {
		unsigned long seq = stp_uw_defer_maybe(c, sym_flags);

		if (seq)
			_stp_printf("%s<deferred #%lu>%s",
				    (sym_flags & _STP_SYM_PRE_SPACE) ? " " : "",
				    seq, (sym_flags & _STP_SYM_NEWLINE) ? "\n" : " ");
	}
}

static void _stp_stack_user_print(struct context *c, int sym_flags)
{
	stp_uw_user_print(c, sym_flags, 1);
}

/* For the sprint_ forms: a string now, no deferred printing. */
static void stp_uw_user_print_nodefer(struct context *c, int sym_flags)
{
	stp_uw_user_print(c, sym_flags, 0);
}

/* ------------------------------------------------------------------ */
/* Backtraces into strings: print into this CPU's (flushed) print buffer,
 * copy it out, and drop it. */

static void stp_uw_sprint(char *str, int size, struct context *c,
			   int sym_flags,
			   void (*print)(struct context *c, int sym_flags))
{
	struct _stp_log *log;
	unsigned long flags;
	int bytes;

	if (size <= 0)
		return;
	if (!_stp_print_trylock_irqsave(&flags)) {
		*str = '\0';
		return;
	}
	log = per_cpu_ptr(_stp_log_pcpu, raw_smp_processor_id());
	__stp_print_flush(log);
	/* Where the runtime can, it holds back the flush of a full buffer
	 * (what does not fit is dropped); elsewhere the print loops stop
	 * when the string is full (stp_uw_sprint_full). */
#if STP_UW_STOCK_LOG_NO_FLUSH
	log->no_flush = true;
#else
	__this_cpu_write(stp_uw_sprint_room, size);
#endif
	print(c, sym_flags);
#if !STP_UW_STOCK_LOG_NO_FLUSH
	__this_cpu_write(stp_uw_sprint_room, 0);
#endif
	bytes = min_t(int, size - 1, log->len);
	memcpy(str, log->buf, bytes);
	str[bytes] = '\0';
#if STP_UW_STOCK_LOG_NO_FLUSH
	log->no_flush = false;
	log->is_full = false;
#endif
	log->len = 0;
	_stp_print_unlock_irqrestore(&flags);
}

static void _stp_stack_kernel_sprint(char *str, int size, struct context *c,
				     int sym_flags)
{
	stp_uw_sprint(str, size, c, sym_flags, _stp_stack_kernel_print);
}

/* ubacktrace() (_STP_SYM_NONE): "0x<hex> " per frame, what
 * _stp_print_addr prints for it (%p is %#llx since stap 1.3), written
 * straight into str: no print buffer, no formatter.  0 = not handled (no
 * user stack: the general path prints what it prints for that). */
static int stp_uw_sprint_hex(char *str, int size, struct context *c)
{
#if STAP_COMPAT_VERSION >= STAP_VERSION(1,3)
	static const char hex[] = "0123456789abcdef";
	const struct stp_unwind_cache *cache = &c->uwcache_user;
	struct pt_regs *regs = _stp_get_uregs(c);
	unsigned long pc;
	unsigned n;
	int len = 0, k, digits, width;
	char tmp[2 * sizeof(unsigned long) + 3], *out;

	if (size < 1 || !current->mm || !regs || _stp_stack_user_get(c, 0) == 0)
		return 0;
	(void)_stp_stack_user_get(c, MAXBACKTRACE - 1);	/* the walk at once */
	/* The walk is done: its frames are the cache's, up to a pc 0.  Each
	 * is "0x", its digits and a space, written in place where it fits,
	 * else in tmp, of which what fits ends the string. */
	for (n = 0; n < cache->depth && cache->pc[n]; n++) {	/* bound: MAXBACKTRACE */
		pc = cache->pc[n];
		digits = (fls64(pc) + 3) / 4;
		width = digits + 3;
		out = len + width <= size - 1 ? str + len : tmp;
		out[0] = '0';
		out[1] = 'x';
		for (k = 1 + digits; k > 1; k--) {	/* bound: 16 digits */
			out[k] = hex[pc & 15];
			pc >>= 4;
		}
		out[2 + digits] = ' ';
		if (out == tmp) {
			memcpy(str + len, tmp, size - 1 - len);
			len = size - 1;
			break;
		}
		len += width;
	}
	str[len] = '\0';
	return 1;
#else
	return 0;
#endif
}

static void _stp_stack_user_sprint(char *str, int size, struct context *c,
				   int sym_flags)
{
	if (sym_flags == _STP_SYM_NONE && stp_uw_sprint_hex(str, size, c))
		return;
	stp_uw_sprint(str, size, c, sym_flags, stp_uw_user_print_nodefer);
}

/* The parts that build on the user stacks above: why a backtrace stopped,
 * deferred backtraces, snapshots of every thread. */
#include "stap-unwind/ustop.c"
#include "stap-unwind/udefer.c"
#include "stap-unwind/ustack_snapshot.c"

#endif /* _STACK_C_ */
