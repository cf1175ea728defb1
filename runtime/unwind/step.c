/* Stepping: one frame per uw_step().
 *
 * For the current frame: find its module and FDE, compute the row for its
 * pc (parse, then execute: cfi.c, row.c), then apply the row to the
 * current registers to get the caller's (this file).  Where no CFI covers
 * the pc, a signal trampoline is recognised by its bytes (arch.c), and, if
 * the caller asked for it, the frame-pointer chain is followed.
 *
 * The pc looked up is pc - 1 for frames whose pc is a return address (so a
 * call at the very end of a function finds that function), and pc itself
 * for the initial frame and for a frame interrupted by a signal.
 */
#include "uw_internal.h"

UW_INTERNAL int uw_fail(struct uw_cursor *c, enum uw_stop_reason reason,
			uint64_t addr)
{
	c->stop.reason = reason;
	c->stop.addr = addr;
	return -1;
}

UW_API const char *uw_stop_reason_name(enum uw_stop_reason reason)
{
	switch (reason) {
	case UW_STOP_NONE:		return "none";
	case UW_STOP_END_OF_STACK:	return "end of stack";
	case UW_STOP_NO_UNWIND_DATA:	return "no unwind data";
	case UW_STOP_MEMORY_UNREADABLE:	return "memory unreadable";
	case UW_STOP_REG_UNDEFINED:	return "register undefined";
	case UW_STOP_BAD_CFI:		return "bad CFI";
	case UW_STOP_DEPTH_LIMIT:	return "depth limit";
	case UW_STOP_NO_PROGRESS:	return "no progress";
	case UW_STOP_BAD_ARGUMENT:	return "bad argument";
	}
	return "unknown";
}

UW_API int uw_init(struct uw_cursor *c, enum uw_arch arch,
		   const struct uw_host_ops *ops, void *host,
		   const struct uw_regs *initial)
{
	const struct uw_arch_desc *ad = uw_arch_get(arch);
	int i;

	c->max_depth = UW_DEFAULT_MAX_DEPTH;
	c->policy = 0;
	c->arch = arch;
	c->cfa = 0;
	c->depth = 0;
	c->pc_is_exact = 1;
	c->how = UW_HOW_NONE;
	c->work = 0;
	c->stop = (struct uw_stop){ UW_STOP_NONE, 0, 0, NULL };
	c->ad = ad;
	c->ops = ops;
	c->host = host;
	c->ws.sec = NULL;
	c->ws.cache_len = 0;
	c->ws.tables = (struct uw_tables){ .module = NULL };
	c->pc = 0;
	c->regs.defined = 0;
	if (!ad || !ops || !ops->read_mem || !ops->find_tables || !initial) {
		c->ops = NULL;
		return uw_fail(c, UW_STOP_BAD_ARGUMENT, 0);
	}
	for (i = 0; i < UW_NREGS; i++)
		c->regs.val[i] = initial->val[i] & ad->addr_mask;
	c->regs.defined = initial->defined & (UW_REG_BIT(ad->nregs) - 1);
	if (!(c->regs.defined & UW_REG_BIT(ad->ra_reg)))
		return uw_fail(c, UW_STOP_BAD_ARGUMENT, ad->ra_reg);
	c->pc = c->regs.val[ad->ra_reg];
	return 0;
}

UW_API uint64_t uw_pc(const struct uw_cursor *c)
{
	return c->pc;
}

UW_API uint64_t uw_sp(const struct uw_cursor *c)
{
	uint64_t sp = 0;

	uw_get_reg(c, c->ad ? c->ad->sp_reg : 0, &sp);
	return sp;
}

UW_API uint64_t uw_cfa(const struct uw_cursor *c)
{
	return c->cfa;
}

UW_API int uw_get_reg(const struct uw_cursor *c, unsigned regno, uint64_t *val)
{
	if (!c->ad || regno >= c->ad->nregs ||
	    !(c->regs.defined & UW_REG_BIT(regno)))
		return -1;
	*val = c->regs.val[regno];
	return 0;
}

static void uw_step_trace(struct uw_cursor *c, enum uw_trace_event ev,
			  uint64_t a, uint64_t b)
{
	if (c->ops && c->ops->trace)
		c->ops->trace(c->host, ev, a, b);
}

/* A register's value could not be recovered (unreadable save slot, needed
 * register undefined).  Only the return address is essential: any other
 * register just becomes undefined, as in elfutils.  Malformed CFI stops. */
static int uw_step_lost(struct uw_cursor *c, unsigned reg, unsigned ra,
			struct uw_regs *next)
{
	if (reg == ra || c->stop.reason == UW_STOP_BAD_CFI)
		return -1;
	uw_step_trace(c, UW_TR_REG_LOST, reg, c->stop.addr);
	c->stop.reason = UW_STOP_NONE;
	c->stop.addr = 0;
	next->defined &= ~UW_REG_BIT(reg);
	return 0;
}

/* Apply the rule of register reg; cfa is the current frame's CFA. */
static int uw_step_rule(struct uw_cursor *c, unsigned reg, unsigned ra,
			uint64_t cfa, struct uw_regs *next)
{
	const struct uw_arch_desc *ad = c->ad;
	const struct uw_reg_rule *rule = &c->ws.row.rule[reg];
	const struct uw_regs *cur = &c->regs;
	uint64_t v = 0;
	unsigned src;

	switch (rule->kind) {
	case UW_RULE_UNSPECIFIED:
		/* ABI default: the caller's SP is the CFA, callee-saved
		 * registers keep their value, the others are lost. */
		if (reg == ad->sp_reg) {
			v = cfa;
			break;
		}
		if (!(ad->callee_saved & UW_REG_BIT(reg)))
			return 0;
		if (!(cur->defined & UW_REG_BIT(reg)))
			return 0;
		v = cur->val[reg];
		break;
	case UW_RULE_UNDEFINED:
		return 0;
	case UW_RULE_SAME_VALUE:
		if (!(cur->defined & UW_REG_BIT(reg)))
			return 0;
		v = cur->val[reg];
		break;
	case UW_RULE_OFFSET:
		if (uw_read_target(c, (cfa + (uint64_t)rule->offset) &
				   ad->addr_mask, ad->addr_size, &v) < 0)
			return uw_step_lost(c, reg, ra, next);
		break;
	case UW_RULE_VAL_OFFSET:
		v = cfa + (uint64_t)rule->offset;
		break;
	case UW_RULE_REGISTER:
		src = rule->reg;
		if (src >= ad->nregs || !(cur->defined & UW_REG_BIT(src))) {
			uw_fail(c, UW_STOP_REG_UNDEFINED, src);
			return uw_step_lost(c, reg, ra, next);
		}
		v = cur->val[src];
		break;
	case UW_RULE_EXPRESSION:
	case UW_RULE_VAL_EXPRESSION:
		if (uw_expr_eval(c, &rule->expr, cur, 1, cfa, 1, &v) < 0)
			return uw_step_lost(c, reg, ra, next);
		if (rule->kind == UW_RULE_EXPRESSION &&
		    uw_read_target(c, v, ad->addr_size, &v) < 0)
			return uw_step_lost(c, reg, ra, next);
		break;
	default:
		return uw_fail(c, UW_STOP_BAD_CFI, c->ws.fde.pc_begin);
	}
	next->val[reg] = v & ad->addr_mask;
	next->defined |= UW_REG_BIT(reg);
	return 0;
}

/* Unwind with CFI.  1 = done, 0 = no CFI covers pc, -1 = stopped. */
static int uw_step_cfi(struct uw_cursor *c, uint64_t lookup,
		       struct uw_regs *next, uint64_t *cfa, int *signal)
{
	const struct uw_arch_desc *ad = c->ad;
	const struct uw_row *row = &c->ws.row;
	uint64_t link_pc;
	unsigned reg, ra;

	c->work++;
	if (c->ops->find_tables(c->host, lookup, &c->ws.tables) < 0) {
		/* Keep only why it failed (uw_step reports it). */
		uint64_t unreadable = c->ws.tables.unreadable;
		const char *module = unreadable ? c->ws.tables.module : NULL;

		c->ws.tables = (struct uw_tables){ .module = module,
						   .unreadable = unreadable };
		return 0;
	}
	c->ws.tables.unreadable = 0;
	uw_step_trace(c, UW_TR_TABLES, c->ws.tables.bias, lookup);
	link_pc = (lookup - c->ws.tables.bias) & ad->addr_mask;
	if (uw_cfi_find(c, link_pc) < 0) {
		if (c->stop.reason != UW_STOP_NO_UNWIND_DATA)
			return -1;
		c->stop.reason = UW_STOP_NONE;
		return 0;
	}
	if (uw_row_compute(c, link_pc) < 0)
		return -1;

	switch (row->cfa_kind) {
	case UW_CFA_REG_OFFSET:
		reg = row->cfa_reg;
		if (reg >= ad->nregs || !(c->regs.defined & UW_REG_BIT(reg)))
			return uw_fail(c, UW_STOP_REG_UNDEFINED, reg);
		*cfa = (c->regs.val[reg] + (uint64_t)row->cfa_offset) &
		       ad->addr_mask;
		break;
	case UW_CFA_EXPRESSION:
		if (uw_expr_eval(c, &row->cfa_expr, &c->regs, 0, 0, 0, cfa) < 0)
			return -1;
		break;
	default:
		return uw_fail(c, UW_STOP_BAD_CFI, c->ws.fde.pc_begin);
	}
	uw_step_trace(c, UW_TR_CFA, *cfa, row->cfa_kind == UW_CFA_EXPRESSION);

	/* An undefined return address marks the outermost frame (_start,
	 * thread start); with no rule at all there is no caller either. */
	ra = c->ws.cie.ra_reg;
	if (ra >= ad->nregs)
		return uw_fail(c, UW_STOP_BAD_CFI, c->ws.fde.pc_begin);
	if (row->rule[ra].kind == UW_RULE_UNDEFINED ||
	    row->rule[ra].kind == UW_RULE_UNSPECIFIED)
		return uw_fail(c, UW_STOP_END_OF_STACK, 0);

	next->defined = 0;
	for (reg = 0; reg < ad->nregs; reg++)	/* bound: <= UW_NREGS */
		if (uw_step_rule(c, reg, ra, *cfa, next) < 0)
			return -1;
	if (!(next->defined & UW_REG_BIT(ra)))
		return uw_fail(c, UW_STOP_REG_UNDEFINED, ra);
	next->val[ad->ra_reg] = next->val[ra];
	next->defined |= UW_REG_BIT(ad->ra_reg);
	*signal = c->ws.cie.signal;
	return 1;
}

/* Frame-pointer fallback (UW_POLICY_FP_FALLBACK): the frame was built by
 * "push %bp; mov %sp,%bp", so [bp] = caller's bp, [bp + size] = return
 * address, and the caller's sp is bp + 2 * size.  1 = done, 0 = no frame
 * pointer, -1 = stopped. */
static int uw_step_fp(struct uw_cursor *c, struct uw_regs *next, uint64_t *cfa)
{
	const struct uw_arch_desc *ad = c->ad;
	uint64_t bp, ra, saved_bp;

	if (!(c->regs.defined & UW_REG_BIT(ad->fp_reg)))
		return 0;
	bp = c->regs.val[ad->fp_reg];
	uw_step_trace(c, UW_TR_FP_FALLBACK, c->pc, bp);
	if (uw_read_target(c, (bp + ad->addr_size) & ad->addr_mask,
			   ad->addr_size, &ra) < 0 ||
	    uw_read_target(c, bp, ad->addr_size, &saved_bp) < 0)
		return -1;
	*next = c->regs;
	next->defined &= ad->callee_saved;
	*cfa = (bp + 2u * ad->addr_size) & ad->addr_mask;
	next->val[ad->fp_reg] = saved_bp;
	next->val[ad->sp_reg] = *cfa;
	next->val[ad->ra_reg] = ra;
	next->defined |= UW_REG_BIT(ad->fp_reg) | UW_REG_BIT(ad->sp_reg) |
			 UW_REG_BIT(ad->ra_reg);
	return 1;
}

static int uw_step_stopped(struct uw_cursor *c)
{
	c->stop.pc = c->pc;
	c->stop.module = c->ws.tables.module;
	uw_step_trace(c, UW_TR_STOP, c->stop.reason, c->pc);
	return 0;
}

UW_API int uw_step(struct uw_cursor *c)
{
	const struct uw_arch_desc *ad = c->ad;
	struct uw_regs next;
	uint64_t lookup, cfa = 0;
	enum uw_how how = UW_HOW_CFI;
	int rc, signal = 0;

	if (c->stop.reason != UW_STOP_NONE)
		return 0;
	c->work = 0;
	c->ws.sec = NULL;
	c->ws.cache_len = 0;
	c->ws.tables = (struct uw_tables){ .module = NULL };
	uw_step_trace(c, UW_TR_STEP, c->pc, c->depth);
	if (c->depth >= c->max_depth) {
		uw_fail(c, UW_STOP_DEPTH_LIMIT, c->depth);
		return uw_step_stopped(c);
	}

	lookup = c->pc_is_exact ? c->pc : (c->pc - 1) & ad->addr_mask;
	rc = uw_step_cfi(c, lookup, &next, &cfa, &signal);
	if (rc == 0) {
		c->work++;
		rc = uw_arch_sigframe(c, &next, &cfa);
		how = UW_HOW_SIGFRAME;
		signal = 1;
	}
	if (rc == 0 && (c->policy & UW_POLICY_FP_FALLBACK)) {
		c->work++;
		rc = uw_step_fp(c, &next, &cfa);
		how = UW_HOW_FRAME_POINTER;
		signal = 0;
	}
	if (rc == 0 && c->ws.tables.unreadable)
		uw_fail(c, UW_STOP_MEMORY_UNREADABLE, c->ws.tables.unreadable);
	else if (rc == 0)
		uw_fail(c, UW_STOP_NO_UNWIND_DATA, lookup);
	if (rc <= 0)
		return uw_step_stopped(c);

	/* Stacks grow down: each caller's CFA lies above its callee's.  A
	 * signal frame may switch stacks (sigaltstack), so it is exempt. */
	if (!signal && c->depth > 0 && cfa <= c->cfa) {
		uw_fail(c, UW_STOP_NO_PROGRESS, cfa);
		return uw_step_stopped(c);
	}
	if (next.val[ad->ra_reg] == 0) {
		uw_fail(c, UW_STOP_END_OF_STACK, 0);
		return uw_step_stopped(c);
	}
	c->regs = next;
	c->pc = next.val[ad->ra_reg];
	c->cfa = cfa;
	c->depth++;
	c->pc_is_exact = signal;
	c->how = how;
	return 1;
}
