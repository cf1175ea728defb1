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
	case UW_STOP_BAD_RETURN_ADDRESS: return "bad return address";
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
	c->cache = NULL;
	for (i = 0; i < UW_CIE_CACHE; i++)
		c->ws.cies[i].valid = 0;
	c->ws.cie_next = 0;
	c->ws.cie_slot = 0;
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
	c->trace = ops ? ops->trace : NULL;
	c->ws.sec = NULL;
	c->ws.cache_len = 0;
	c->ws.tables = (struct uw_tables){ .module = NULL };
	c->ws.tables_for_pc = 0;
	c->ws.tables_reusable = 0;
	c->pc = 0;
	c->regs.defined = 0;
	if (!ad || !ops || !ops->read_mem || !ops->find_tables || !initial) {
		c->ops = NULL;
		c->trace = NULL;
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
	if (__builtin_expect(c->trace != NULL, 0))
		c->trace(c->host, ev, a, b);
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
			uint64_t cfa, struct uw_regs *next,
			const struct uw_reg_rule *rule)
{
	const struct uw_arch_desc *ad = c->ad;
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

/* ---- row cache (struct uw_cache, see unwind_core.h) ---- */

/* Largest run of save slots read with one host call (bytes). */
#define UW_CACHE_MAX_SPAN 256	/* x86_64 sigcontext: 17 slots, 136 */

UW_API void uw_cache_clear(struct uw_cache *cache)
{
	uint32_t i;

	if (!cache->entries)
		return;
	for (i = 0; i <= cache->mask; i++)	/* bound: number of entries */
		cache->entries[i].valid = 0;
}

UW_API void uw_cache_init(struct uw_cache *cache,
			  struct uw_cache_entry *entries, uint32_t n)
{
	uint32_t size = 1;

	cache->hits = 0;
	cache->misses = 0;
	if (!entries || n == 0) {
		cache->entries = NULL;
		cache->mask = 0;
		return;
	}
	while (size <= n / 2)			/* bound: 32 iterations */
		size *= 2;
	cache->entries = entries;
	cache->mask = size - 1;
	uw_cache_clear(cache);
}

static void uw_step_cache_key(const struct uw_tables *t, uint64_t pc,
			      struct uw_cache_key *k)
{
	const struct uw_section *sec[3] = {
		&t->eh_frame_hdr, &t->eh_frame, &t->debug_frame
	};
	int i;

	k->pc = pc;
	k->bias = t->bias;
	k->text_base = t->text_base;
	k->data_base = t->data_base;
	k->ident = t->ident;
	for (i = 0; i < 3; i++) {
		k->sec[i][0] = (uint64_t)(uintptr_t)sec[i]->data;
		k->sec[i][1] = sec[i]->addr;
		k->sec[i][2] = sec[i]->size;
	}
}

/* Does the entry's key name these tables at this pc?  Every cached step
 * compares all fourteen words, so it is one OR of differences rather than
 * a branch per word. */
static int uw_step_cache_key_is(const struct uw_cache_key *k,
				const struct uw_tables *t, uint64_t pc)
{
	uint64_t d;

	d = (k->pc ^ pc) | (k->bias ^ t->bias) |
	    (k->text_base ^ t->text_base) | (k->data_base ^ t->data_base) |
	    (k->ident ^ t->ident);
	d |= (k->sec[0][0] ^ (uint64_t)(uintptr_t)t->eh_frame_hdr.data) |
	     (k->sec[0][1] ^ t->eh_frame_hdr.addr) |
	     (k->sec[0][2] ^ t->eh_frame_hdr.size);
	d |= (k->sec[1][0] ^ (uint64_t)(uintptr_t)t->eh_frame.data) |
	     (k->sec[1][1] ^ t->eh_frame.addr) |
	     (k->sec[1][2] ^ t->eh_frame.size);
	d |= (k->sec[2][0] ^ (uint64_t)(uintptr_t)t->debug_frame.data) |
	     (k->sec[2][1] ^ t->debug_frame.addr) |
	     (k->sec[2][2] ^ t->debug_frame.size);
	return d == 0;
}

static struct uw_cache_entry *uw_step_cache_slot(struct uw_cache *cache,
						 uint64_t pc)
{
	uint64_t h = pc * 0x9e3779b97f4a7c15ull;

	return &cache->entries[(uint32_t)(h >> 40) & cache->mask];
}

/* Value of an address-sized little-endian slot in a span buffer. */
static uint64_t uw_step_span_word(const uint8_t *p, uint32_t addr_size)
{
	uint64_t v = p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
		     (uint64_t)p[3] << 24;

	if (addr_size == 8)
		v |= (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
		     (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
	return v;
}

/* Apply a cached row: the same result, trace events and failures as
 * uw_step_cfi's rule loop (and uw_expr_eval for the cached expression
 * shapes), with the trivial rules (same value, callee-saved default,
 * undefined) done by mask.  1 = done, -1 = stopped. */
static int uw_step_cache_apply(struct uw_cursor *c,
			       const struct uw_cache_entry *e,
			       struct uw_regs *next, uint64_t *cfa, int *signal)
{
	const struct uw_arch_desc *ad = c->ad;
	struct uw_reg_rule rule = { 0 };
	unsigned reg, base, ra = e->ra_reg;
	uint32_t todo;
	uint64_t span_addr = 0;
	uint8_t span[UW_CACHE_MAX_SPAN];
	int have_span = 0;

	c->ws.cie.ra_reg = e->ra_reg;
	c->ws.cie.signal = e->signal;
	c->ws.fde.pc_begin = e->fde_begin;
	c->ws.fde.pc_end = e->fde_end;
	reg = e->cfa_reg;
	if (reg >= ad->nregs || !(c->regs.defined & UW_REG_BIT(reg)))
		return uw_fail(c, UW_STOP_REG_UNDEFINED, reg);
	*cfa = (c->regs.val[reg] + (uint64_t)e->cfa_offset) & ad->addr_mask;
	if (e->cfa_deref) {
		c->work++;	/* as uw_expr_eval's two operations */
		c->work++;
		if (uw_read_target(c, *cfa, ad->addr_size, cfa) < 0)
			return -1;
		*cfa &= ad->addr_mask;
	}
	uw_step_trace(c, UW_TR_CFA, *cfa, e->cfa_deref);
	if (ra >= ad->nregs)
		return uw_fail(c, UW_STOP_BAD_CFI, e->fde_begin);
	if (e->kind[ra] == UW_RULE_UNDEFINED ||
	    e->kind[ra] == UW_RULE_UNSPECIFIED)
		return uw_fail(c, UW_STOP_END_OF_STACK, 0);

	*next = c->regs;
	next->defined = c->regs.defined & e->keep;
	if (e->kind[ad->sp_reg] == UW_RULE_UNSPECIFIED) {
		next->val[ad->sp_reg] = *cfa;
		next->defined |= UW_REG_BIT(ad->sp_reg);
	}
	/* The save slots in one host read when they are close together (a
	 * failed read falls back to one read per slot, so the result is the
	 * same either way). */
	base = e->span_base;
	if (e->span_len != 0 &&
	    (base == UW_NREGS || (c->regs.defined & UW_REG_BIT(base)))) {
		span_addr = base == UW_NREGS ? *cfa : c->regs.val[base];
		span_addr = (span_addr + (uint64_t)(int64_t)e->span_lo) &
			    ad->addr_mask;
		if (c->ops->read_mem(c->host, span_addr, span,
				     e->span_len) == 0)
			have_span = 1;
	}
	/* bound: one iteration per bit, < UW_NREGS */
	for (todo = e->compute; todo != 0; todo &= todo - 1) {
		uint64_t addr;

		reg = (unsigned)__builtin_ctz(todo);
		if (e->kind[reg] == UW_RULE_OFFSET) {
			addr = (*cfa + (uint64_t)(int64_t)e->offset[reg]) &
			       ad->addr_mask;
		} else if (e->kind[reg] == UW_RULE_EXPRESSION) {
			/* "DW_OP_breg<src> offset", the CFA pushed first */
			unsigned src = e->reg[reg];

			c->work++;
			if (!(c->regs.defined & UW_REG_BIT(src))) {
				uw_fail(c, UW_STOP_REG_UNDEFINED, src);
				if (uw_step_lost(c, reg, ra, next) < 0)
					return -1;
				continue;
			}
			addr = (c->regs.val[src] +
				(uint64_t)(int64_t)e->offset[reg]) &
			       ad->addr_mask;
		} else {
			rule.kind = e->kind[reg];
			rule.reg = e->reg[reg];
			rule.offset = e->offset[reg];
			if (uw_step_rule(c, reg, ra, *cfa, next, &rule) < 0)
				return -1;
			continue;
		}
		/* A memory slot: from the span if it lies inside it. */
		if (have_span && addr - span_addr < e->span_len &&
		    e->span_len - (addr - span_addr) >= ad->addr_size) {
			next->val[reg] = uw_step_span_word(
				span + (addr - span_addr), ad->addr_size) &
				ad->addr_mask;
		} else if (uw_read_target(c, addr, ad->addr_size,
					  &next->val[reg]) < 0) {
			if (uw_step_lost(c, reg, ra, next) < 0)
				return -1;
			continue;
		} else {
			next->val[reg] &= ad->addr_mask;
		}
		next->defined |= UW_REG_BIT(reg);
	}
	if (!(next->defined & UW_REG_BIT(ra)))
		return uw_fail(c, UW_STOP_REG_UNDEFINED, ra);
	next->val[ad->ra_reg] = next->val[ra];
	next->defined |= UW_REG_BIT(ad->ra_reg);
	*signal = e->signal;
	return 1;
}

/* Decode a DWARF expression block of the shape "DW_OP_breg<reg> off" (and
 * then DW_OP_deref if deref) from a local section, with reg < nregs and
 * off in 32 bits, without touching the cursor's stop state.  1 = that
 * shape, 0 = anything else (then the row is not cached). */
static int uw_step_cache_breg(const struct uw_cursor *c,
			      const struct uw_block *b, int deref,
			      uint8_t *reg, int32_t *off)
{
	const struct uw_section *sec = c->ws.sec;
	const uint8_t *p;
	uint64_t v = 0;
	uint32_t i, n, shift = 0;

	if (!sec || !sec->data || b->len < 2 || b->len > 7 ||
	    b->len > sec->size || b->pos > sec->size - b->len)
		return 0;
	p = sec->data + b->pos;
	n = (uint32_t)b->len - (deref ? 1 : 0);
	if (n < 2)
		return 0;
	if (p[0] < 0x70 || p[0] - 0x70 >= c->ad->nregs)	/* DW_OP_breg0 */
		return 0;
	if (deref && p[n] != 0x06)			/* DW_OP_deref */
		return 0;
	/* The SLEB128 offset must end exactly at byte n - 1. */
	for (i = 1; i < n; i++) {		/* bound: n <= 7 */
		v |= (uint64_t)(p[i] & 0x7f) << shift;
		shift += 7;
		if (!(p[i] & 0x80) != (i == n - 1))
			return 0;
	}
	if (v & ((uint64_t)1 << (shift - 1)))
		v |= ~(uint64_t)0 << shift;
	if ((int64_t)v != (int64_t)(int32_t)(int64_t)v)
		return 0;
	*reg = (uint8_t)(p[0] - 0x70);
	*off = (int32_t)(int64_t)v;
	return 1;
}

/* Remember c->ws.row if it is simple enough to be compacted. */
static void uw_step_cache_store(struct uw_cursor *c, struct uw_cache_entry *e,
				const struct uw_cache_key *k)
{
	const struct uw_row *row = &c->ws.row;
	const struct uw_arch_desc *ad = c->ad;
	uint8_t breg[UW_NREGS], cfa_reg;
	int32_t boff[UW_NREGS], cfa_off;
	int i;

	/* Decide first, so that an uncacheable row leaves the slot as it
	 * was. */
	if (row->cfa_kind == UW_CFA_EXPRESSION) {
		if (!uw_step_cache_breg(c, &row->cfa_expr, 1, &cfa_reg,
					&cfa_off))
			return;
	} else if (row->cfa_kind != UW_CFA_REG_OFFSET) {
		return;
	}
	for (i = 0; i < UW_NREGS; i++) {	/* bound: UW_NREGS */
		const struct uw_reg_rule *rule = &row->rule[i];

		if (rule->kind == UW_RULE_VAL_EXPRESSION ||
		    rule->offset != (int64_t)(int32_t)rule->offset)
			return;
		/* Registers past nregs are never applied: any rule. */
		if (rule->kind == UW_RULE_EXPRESSION && i < ad->nregs &&
		    !uw_step_cache_breg(c, &rule->expr, 0, &breg[i], &boff[i]))
			return;
	}
	e->valid = 0;
	if (row->cfa_kind == UW_CFA_EXPRESSION) {
		e->cfa_deref = 1;
		e->cfa_reg = cfa_reg;
		e->cfa_offset = cfa_off;
	} else {
		e->cfa_deref = 0;
		e->cfa_reg = row->cfa_reg;
		e->cfa_offset = row->cfa_offset;
	}
	e->keep = 0;
	e->compute = 0;
	for (i = 0; i < UW_NREGS; i++) {	/* bound: UW_NREGS */
		e->kind[i] = row->rule[i].kind;
		e->reg[i] = row->rule[i].reg;
		e->offset[i] = (int32_t)row->rule[i].offset;
		switch (row->rule[i].kind) {
		case UW_RULE_UNSPECIFIED:
			if (i != ad->sp_reg && i < ad->nregs &&
			    (ad->callee_saved & UW_REG_BIT(i)))
				e->keep |= UW_REG_BIT(i);
			break;
		case UW_RULE_SAME_VALUE:
			if (i < ad->nregs)
				e->keep |= UW_REG_BIT(i);
			break;
		case UW_RULE_UNDEFINED:
			break;
		default:
			if (i >= ad->nregs)
				break;
			e->compute |= UW_REG_BIT(i);
			if (row->rule[i].kind == UW_RULE_EXPRESSION) {
				e->reg[i] = breg[i];
				e->offset[i] = boff[i];
			}
			break;
		}
	}
	/* The span of the memory slots, if small (see uw_step_cache_apply):
	 * those relative to the CFA if there are any, else those relative to
	 * the base register of the first expression rule. */
	e->span_len = 0;
	e->span_lo = 0;
	e->span_base = UW_NREGS;
	for (i = 0; i < UW_NREGS; i++)		/* bound: UW_NREGS */
		if ((e->compute & UW_REG_BIT(i)) &&
		    e->kind[i] == UW_RULE_OFFSET)
			break;
	if (i == UW_NREGS)
		for (i = 0; i < UW_NREGS; i++)	/* bound: UW_NREGS */
			if ((e->compute & UW_REG_BIT(i)) &&
			    e->kind[i] == UW_RULE_EXPRESSION) {
				e->span_base = e->reg[i];
				break;
			}
	{
		int64_t lo = 0, hi = 0;
		int any = 0;

		for (i = 0; i < UW_NREGS; i++) {	/* bound: UW_NREGS */
			int64_t off = e->offset[i];

			if (!(e->compute & UW_REG_BIT(i)))
				continue;
			if (e->span_base == UW_NREGS ?
			    e->kind[i] != UW_RULE_OFFSET :
			    e->kind[i] != UW_RULE_EXPRESSION ||
			    e->reg[i] != e->span_base)
				continue;
			if (!any || off < lo)
				lo = off;
			if (!any || off > hi)
				hi = off;
			any = 1;
		}
		if (any && hi - lo + ad->addr_size <= UW_CACHE_MAX_SPAN) {
			e->span_lo = (int32_t)lo;
			e->span_len = (uint32_t)(hi - lo + ad->addr_size);
		}
	}
	e->key = *k;
	e->arch = (uint8_t)c->arch;
	e->ra_reg = (uint8_t)c->ws.cie.ra_reg;
	e->signal = c->ws.cie.signal;
	e->fde_begin = c->ws.fde.pc_begin;
	e->fde_end = c->ws.fde.pc_end;
	e->valid = 1;
}

/* c->ws.tables for the pc looked up: the last frame's if they cover it,
 * else the host's.  0 = found; -1 = none, and c->ws.tables keep only why
 * (unreadable, with its module) for the stop report. */
static inline int uw_step_tables(struct uw_cursor *c, uint64_t lookup)
{
	uint64_t unreadable;
	const char *module;

	if (c->ws.tables_reusable &&
	    lookup - c->ws.tables.pc_lo < c->ws.tables.pc_hi - c->ws.tables.pc_lo)
		return 0;
	if (c->ops->find_tables(c->host, lookup, &c->ws.tables) == 0) {
		c->ws.tables.unreadable = 0;
		c->ws.tables_reusable = c->ws.tables.pc_hi > c->ws.tables.pc_lo;
		return 0;
	}
	unreadable = c->ws.tables.unreadable;
	module = unreadable ? c->ws.tables.module : NULL;
	c->ws.tables = (struct uw_tables){ .module = module,
					   .unreadable = unreadable };
	c->ws.tables_reusable = 0;
	return -1;
}

/* Unwind with CFI.  1 = done, 0 = no CFI covers pc, -1 = stopped. */
static int uw_step_cfi(struct uw_cursor *c, uint64_t lookup,
		       struct uw_regs *next, uint64_t *cfa, int *signal)
{
	const struct uw_arch_desc *ad = c->ad;
	const struct uw_row *row = &c->ws.row;
	struct uw_cache_entry *slot = NULL;
	struct uw_cache_key key;
	uint64_t link_pc;
	unsigned reg, ra;

	c->work++;
	c->ws.tables_for_pc = 1;
	if (uw_step_tables(c, lookup) < 0)
		return 0;
	uw_step_trace(c, UW_TR_TABLES, c->ws.tables.bias, lookup);
	link_pc = (lookup - c->ws.tables.bias) & ad->addr_mask;
	if (c->cache && c->cache->entries) {
		slot = uw_step_cache_slot(c->cache, lookup);
		if (slot->valid && slot->arch == (uint8_t)c->arch &&
		    uw_step_cache_key_is(&slot->key, &c->ws.tables, lookup)) {
			c->cache->hits++;
			uw_step_trace(c, UW_TR_FDE, slot->fde_begin,
				      slot->fde_end);
			return uw_step_cache_apply(c, slot, next, cfa, signal);
		}
		c->cache->misses++;
	}
	if (uw_cfi_find(c, link_pc) < 0) {
		if (c->stop.reason != UW_STOP_NO_UNWIND_DATA)
			return -1;
		c->stop.reason = UW_STOP_NONE;
		return 0;
	}
	if (uw_row_compute(c, link_pc) < 0)
		return -1;
	if (slot) {
		uw_step_cache_key(&c->ws.tables, lookup, &key);
		uw_step_cache_store(c, slot, &key);
	}

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
		if (uw_step_rule(c, reg, ra, *cfa, next,
				 &c->ws.row.rule[reg]) < 0)
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

/* Is ra, the caller's pc that a step found, plainly not a return address?
 * Wrong CFI (glibc's i386 memcpy does not describe a push) hands over some
 * other word of the stack; reported as a frame, it would be a lie, and the
 * next step would only say "no unwind data" there.  Judged only where no
 * unwind tables cover ra (tables are the host's word that code is there)
 * and by positive evidence: code read before ra, with no call ending at
 * ra (nor a signal trampoline at it).  Unreadable memory is not judged.
 * The lookup is the one the next step makes anyway: tables found are kept
 * for it to reuse. */
static int uw_step_ra_is_bogus(struct uw_cursor *c, uint64_t ra)
{
	const char *module = c->ws.tables.module;

	if (uw_step_tables(c, (ra - 1) & c->ad->addr_mask) == 0)
		return 0;
	c->work++;
	/* A stop here reports this frame's module; the next step (if any)
	 * looks the caller up again. */
	c->ws.tables.module = module;
	if (c->ws.tables.unreadable)
		return 0;
	return uw_arch_ra_plausible(c, ra) == 0;
}

static int uw_step_stopped(struct uw_cursor *c)
{
	c->stop.pc = c->pc;
	c->stop.module = c->ws.tables_for_pc ? c->ws.tables.module : NULL;
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
	/* c->ws.tables still holds the last frame's tables (find_tables sets
	 * every field when it succeeds): reused if they cover this pc. */
	c->ws.tables_for_pc = 0;
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
		signal = 0;
		rc = uw_nocfi_step(c, &next, &cfa, &how);
		if (rc == 1)
			uw_step_trace(c, UW_TR_NOCFI, c->pc, how);
	}
	if (rc == 0 && (c->policy & UW_POLICY_FP_FALLBACK)) {
		c->work++;
		rc = uw_step_fp(c, &next, &cfa);
		how = UW_HOW_FRAME_POINTER;
		signal = 0;
	}
	if (rc == 0 && c->ws.tables_for_pc && c->ws.tables.unreadable)
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
	/* After a signal frame the pc is where the signal came, not a
	 * return address. */
	if (!signal && uw_step_ra_is_bogus(c, next.val[ad->ra_reg])) {
		uw_fail(c, UW_STOP_BAD_RETURN_ADDRESS, next.val[ad->ra_reg]);
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
