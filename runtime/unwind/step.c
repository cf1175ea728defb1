/* Stepping: one frame per uw_step().
 *
 * For the current frame: find its module and FDE, compute the row for its
 * pc (parse, then execute: cfi.c, row.c), then apply the row to the
 * current registers to get the caller's (this file).  Where no CFI covers
 * the pc, a signal trampoline is recognised by its bytes (arch.c), and, if
 * the caller asked for it, the frame-pointer chain is followed.
 *
 * Most steps are one row of a compiled table (compile.c), found by the pc
 * and applied in place, with the checks on the caller made at once: that
 * step is whole in uw_step_fast_run, and any frame it cannot take goes the
 * general way (uw_step_general), from the start, as if it had not been
 * tried.  So the two cannot differ in what they find; the unit suite's
 * oracles and the differential check of compiled.exp see both.
 *
 * The pc looked up is pc - 1 for frames whose pc is a return address (so a
 * call at the very end of a function finds that function), and pc itself
 * for the initial frame and for a frame interrupted by a signal.
 */
#include "uw_internal.h"

/* c->sp for the frame whose registers are regs (uw_sp). */
static void uw_step_set_sp(struct uw_cursor *c, const struct uw_regs *regs)
{
	const unsigned sp = c->state.arch_desc->sp_reg;

	c->sp = regs->defined & UW_REG_BIT(sp) ? regs->val[sp] : 0;
}

UW_API int uw_init(struct uw_cursor *c, enum uw_arch arch,
		   const struct uw_host_ops *ops, void *host,
		   const struct uw_regs *initial)
{
	const struct uw_arch_desc *ad = uw_arch_get(arch);
	struct uw_regs *regs = &c->state.regs[0];
	int i;

	uw_cursor_reset(c, ad, ops, host);
	c->arch = arch;
	if (!ad || !ops || !ops->read_mem || !ops->find_tables || !initial) {
		c->state.ops = NULL;
		c->state.trace = NULL;
		return uw_fail(c, UW_STOP_BAD_ARGUMENT, 0);
	}
	if (ad->addr_mask == ~(uint64_t)0)
		__builtin_memcpy(regs->val, initial->val, sizeof(regs->val));
	else
		for (i = 0; i < UW_NREGS; i++)	/* bound: UW_NREGS */
			regs->val[i] = initial->val[i] & ad->addr_mask;
	regs->defined = initial->defined & (UW_REG_BIT(ad->nregs) - 1);
	if (!(regs->defined & UW_REG_BIT(ad->ra_reg)))
		return uw_fail(c, UW_STOP_BAD_ARGUMENT, ad->ra_reg);
	c->pc = regs->val[ad->ra_reg];
	uw_step_set_sp(c, regs);
	return 0;
}

UW_API int uw_index_build(struct uw_cursor *scratch, enum uw_arch arch,
			  const struct uw_tables *t,
			  struct uw_index_entry *out, uint32_t max)
{
	struct uw_cursor *c = scratch;
	const struct uw_arch_desc *ad = uw_arch_get(arch);

	if (!ad || !t)
		return -1;
	/* No host: the sections are local, nothing is read_mem'd. */
	uw_cursor_reset(c, ad, NULL, NULL);
	c->arch = arch;
	c->max_work = 2 * UW_MAX_SCAN_ENTRIES * UW_WORK_SCAN_ENTRY;
	*c->state.tables = *t;
	c->state.tables->index = NULL;
	c->state.tables->index_count = 0;
	return uw_cfi_index(c, out, max);
}

UW_API int uw_hdr_searchable(struct uw_cursor *scratch, enum uw_arch arch,
			     const struct uw_section *hdr,
			     uint64_t *eh_frame_addr)
{
	struct uw_cursor *c = scratch;
	const struct uw_arch_desc *ad = uw_arch_get(arch);
	int usable;

	*eh_frame_addr = 0;
	if (!ad || !hdr || !hdr->data || !hdr->size)
		return 0;
	uw_cursor_reset(c, ad, NULL, NULL);
	c->arch = arch;
	*c->state.tables = (struct uw_tables){ .eh_frame_hdr = *hdr };
	usable = uw_cfi_hdr_usable(c);
	/* The header's eh_frame_ptr, where it could be read. */
	if (c->state.tables->eh_frame.size)
		*eh_frame_addr = c->state.tables->eh_frame.addr;
	return usable;
}

UW_API uint64_t uw_cfa(const struct uw_cursor *c)
{
	return c->cfa;
}

UW_API uint64_t uw_frame_cfa(const struct uw_cursor *c)
{
	return c->frame_cfa;
}

UW_API int uw_get_reg(const struct uw_cursor *c, unsigned regno, uint64_t *val)
{
	if (!c->state.arch_desc || regno >= c->state.arch_desc->nregs ||
	    !(c->regs->defined & UW_REG_BIT(regno)))
		return -1;
	*val = c->regs->val[regno];
	return 0;
}

static void uw_step_trace(struct uw_cursor *c, enum uw_trace_event ev,
			  uint64_t a, uint64_t b)
{
	if (__builtin_expect(c->state.trace != NULL, 0))
		c->state.trace(c->state.host, ev, a, b);
}

/* A register's value could not be recovered (unreadable save slot, needed
 * register undefined).  Only the return address is essential: any other
 * register just becomes undefined, as in elfutils.  Malformed CFI stops.
 * 0 = go on without reg, -1 = stopped. */
static int uw_step_lost(struct uw_cursor *c, unsigned reg, unsigned ra)
{
	if (reg == ra || c->stop.reason == UW_STOP_BAD_CFI ||
	    c->stop.reason == UW_STOP_WORK_LIMIT)
		return -1;
	uw_step_trace(c, UW_TR_REG_LOST, reg, c->stop.addr);
	c->stop.reason = UW_STOP_NONE;
	c->stop.addr = 0;
	return 0;
}

/* The CFA of row r for the current registers. */
static inline __attribute__((__always_inline__)) int uw_step_cfa(struct uw_cursor *c,
							     const struct uw_compact_row *r,
							     uint64_t *cfa)
{
	const struct uw_arch_desc *ad = c->state.arch_desc;
	unsigned reg = r->cfa_reg;
	int deref = r->cfa_kind == UW_CFA_AT_REG_OFFSET;

	if (__builtin_expect(r->cfa_kind != UW_CFA_REG_OFFSET && !deref, 0)) {
		if (r->cfa_kind == UW_CFA_EXPRESSION)
			return uw_expr_eval(c, &c->state.row.cfa_expr, c->regs,
					    0, 0, 0, cfa);
		return uw_fail(c, UW_STOP_BAD_CFI, r->fde_begin);
	}
	if (reg >= ad->nregs || !(c->regs->defined & UW_REG_BIT(reg)))
		return uw_fail(c, UW_STOP_REG_UNDEFINED, reg);
	*cfa = (c->regs->val[reg] + (uint64_t)r->cfa_offset) & ad->addr_mask;
	if (__builtin_expect(!deref, 1))
		return 0;
	if (uw_spend(c, 2) < 0)	/* as the expression's two operations */
		return -1;
	if (uw_stack_read_word(c, *cfa, ad->addr_size, cfa) < 0)
		return -1;
	*cfa &= ad->addr_mask;
	return 0;
}

/* The one row interpreter: apply row r to the current registers, giving
 * the caller's in out.  Registers the row keeps are copied by mask, save
 * slots close together are read at once (a failed read falls back to one
 * read per slot, so the result is the same either way), and the rules
 * are applied in register order.  1 = done, -1 = stopped.  Inlined where
 * it is most of a step (the CFI method); uw_step_apply_rare serves the
 * others. */
static inline __attribute__((__always_inline__))
int uw_step_apply(struct uw_cursor *c, const struct uw_compact_row *r,
		  struct uw_step_frame *restrict out)
{
	const struct uw_arch_desc *ad = c->state.arch_desc;
	const struct uw_regs *cur = c->regs;
	struct uw_regs *restrict next = out->regs;
	const uint64_t mask = ad->addr_mask;
	const uint32_t size = ad->addr_size;
	unsigned reg, src, ra = r->ra_reg;
	uint64_t span_addr = 0, cfa, addr, v;
	uint32_t todo, slots, defined, span_len = 0;
	const uint8_t *span = NULL;

	/* A span at a register (a signal frame's, at sp + n) is known
	 * before the CFA, which such a row takes from one of its slots:
	 * into the window first, so that the CFA's read finds it there and
	 * the span needs no read of its own (below, which checks again: a
	 * CFA read elsewhere moves the window). */
	if (r->span_len != 0 && r->span_base != UW_NREGS &&
	    (cur->defined & UW_REG_BIT(r->span_base)))
		(void)uw_stack_slots(c, (cur->val[r->span_base] +
					 (uint64_t)(int64_t)r->span_lo) & mask,
				     r->span_len);
	if (uw_step_cfa(c, r, &cfa) < 0)
		return -1;
	uw_step_trace(c, UW_TR_CFA, cfa, r->cfa_kind != UW_CFA_REG_OFFSET);
	/* An undefined return address marks the outermost frame (_start,
	 * thread start), whose CFA still gives its size. */
	if (__builtin_expect(!r->has_caller, 0)) {
		if (ra >= ad->nregs)
			return uw_fail(c, UW_STOP_BAD_CFI, r->fde_begin);
		c->frame_cfa = cfa;
		return uw_fail(c, UW_STOP_END_OF_STACK, 0);
	}

	/* Only the kept registers' values carry over: those of the others
	 * are written below or undefined, and an undefined value is never
	 * read.  bound: one iteration per bit, < UW_NREGS */
	defined = (cur->defined & r->keep) | r->is_cfa;
	for (todo = cur->defined & r->keep; todo != 0; todo &= todo - 1) {
		reg = (unsigned)__builtin_ctz(todo);
		next->val[reg] = cur->val[reg];
	}
	/* bound: one iteration per bit, < UW_NREGS */
	for (todo = r->is_cfa; todo != 0; todo &= todo - 1)
		next->val[__builtin_ctz(todo)] = cfa;
	if (r->span_len != 0 && (r->span_base == UW_NREGS ||
				 (cur->defined & UW_REG_BIT(r->span_base)))) {
		span_addr = r->span_base == UW_NREGS ? cfa :
			    cur->val[r->span_base];
		span_addr = (span_addr + (uint64_t)(int64_t)r->span_lo) & mask;
		span = uw_stack_slots(c, span_addr, r->span_len);
		if (span)
			span_len = r->span_len;
	}
	todo = r->compute;
	/* The common rows: every slot at cfa + n (or, in a signal frame's,
	 * at sp + n), all in the span just read, by construction (row.c:
	 * uw_row_span).  The same words the general loop below would take
	 * from it, and for slots at reg + n the same work units, which the
	 * loop spends one by one where fewer are left. */
	if (span_len != 0 && r->in_span != 0 &&
	    (r->span_base == UW_NREGS ||
	     uw_work_left(c) >= uw_popcount32(r->in_span))) {
		if (r->span_base != UW_NREGS)
			(void)uw_spend(c, uw_popcount32(r->in_span));
		/* bound: one iteration per bit, < UW_NREGS */
		for (slots = r->in_span; slots != 0; slots &= slots - 1) {
			reg = (unsigned)__builtin_ctz(slots);
			v = uw_stack_word_at(span +
					      (r->offset[reg] - r->span_lo));
			next->val[reg] = v & mask;
		}
		defined |= r->in_span;
		todo &= ~r->in_span;
	}
	/* bound: one iteration per bit, < UW_NREGS */
	for (; todo != 0; todo &= todo - 1) {
		reg = (unsigned)__builtin_ctz(todo);
		/* The common rules first: saved at cfa + n, the sp. */
		if (__builtin_expect(r->kind[reg] == UW_RULE_OFFSET, 1))
			goto at_cfa;
		if (r->kind[reg] == UW_RULE_VAL_OFFSET) {
			v = cfa + (uint64_t)r->offset[reg];
			goto value;
		}
		switch (r->kind[reg]) {
		case UW_RULE_AT_REG_OFFSET:
			if (uw_spend(c, 1) < 0)	/* as the expression's one operation */
				goto lost;
			src = r->reg[reg];
			if (!(cur->defined & UW_REG_BIT(src))) {
				uw_fail(c, UW_STOP_REG_UNDEFINED, src);
				goto lost;
			}
			addr = (cur->val[src] + (uint64_t)r->offset[reg]) & mask;
			goto slot;
		case UW_RULE_REGISTER:
			src = r->reg[reg];
			if (src >= ad->nregs ||
			    !(cur->defined & UW_REG_BIT(src))) {
				uw_fail(c, UW_STOP_REG_UNDEFINED, src);
				goto lost;
			}
			v = cur->val[src];
			goto value;
		case UW_RULE_EXPRESSION:
		case UW_RULE_VAL_EXPRESSION:
			/* General: evaluated in the parsed row's section. */
			if (uw_expr_eval(c, &uw_row_rule(c, reg)->expr, cur, 1,
					 cfa, 1, &v) < 0)
				goto lost;
			if (r->kind[reg] == UW_RULE_VAL_EXPRESSION)
				goto value;
			addr = v;
			goto slot;
		default:
			return uw_fail(c, UW_STOP_BAD_CFI, r->fde_begin);
		}
at_cfa:
		addr = (cfa + (uint64_t)r->offset[reg]) & mask;
slot:
		/* A memory slot: from the span if it lies inside it. */
		if (addr - span_addr < span_len &&
		    span_len - (addr - span_addr) >= size)
			v = uw_stack_word_at(span + (addr - span_addr));
		else if (uw_stack_read_word(c, addr, size, &v) < 0)
			goto lost;
value:
		next->val[reg] = v & mask;
		defined |= UW_REG_BIT(reg);
		continue;
lost:
		if (uw_step_lost(c, reg, ra) < 0)
			return -1;
	}
	if (!(defined & UW_REG_BIT(ra)))
		return uw_fail(c, UW_STOP_REG_UNDEFINED, ra);
	next->val[ad->ra_reg] = next->val[ra];
	next->defined = defined | UW_REG_BIT(ad->ra_reg);
	out->cfa = cfa;
	out->signal = r->signal;
	return 1;
}

static __attribute__((__noinline__)) int
uw_step_apply_rare(struct uw_cursor *c, const struct uw_compact_row *r,
		   struct uw_step_frame *out)
{
	return uw_step_apply(c, r, out);
}

/* Compiled row u into c->state.compact_row, as the parse's row it
 * stands for, for the interpreter: its rule's, with the CFA in u's base
 * (a table's unpacked rule may name another than its rule's).  Out of
 * line: it is rare (a failed read), and its frame stays off uw_step's. */
static __attribute__((__noinline__)) void
uw_step_decode(struct uw_cursor *c, const struct uw_compiled_unpacked *u)
{
	uw_compiled_decode(c->state.arch_desc, u->rule, u->base,
			   &c->state.compact_row);
}

/* Compiled row rule unpacked (compile.c): the row cache's copy, or one
 * made now, kept there (or in the cursor, without a row cache). */
static inline __attribute__((__always_inline__))
const struct uw_compiled_unpacked *uw_step_unpacked(struct uw_cursor *c,
						    uint32_t rule)
{
	struct uw_compiled_unpacked *u = &c->state.unpacked;

	if (c->cache) {
		/* The product's top bits: they depend on every bit of the
		 * rule (its CFA offset is in its top bits). */
		u = &c->cache->state.unpacked[((rule * 0x9e3779b1u) >> 20) &
					      (UW_CACHE_UNPACKED - 1)];
		if (u->rule == rule && u->arch == (uint8_t)c->arch)
			return u;
	}
	uw_compiled_unpack(c->state.arch_desc, rule, u);
	return u;
}

/* A compiled row (uw_internal.h, "Compiled rows") applied: what
 * uw_step_apply does with the row it stands for (uw_compiled_decode), in
 * the steps that row needs.  Its save slots lie in the words just below
 * the CFA, which one read fetches, the same as uw_step_apply's; where
 * that read fails, the row goes to uw_step_apply, whose reads go on one
 * by one.  is64: the cursor's architecture is x86_64 (else i386), a
 * constant where it is inlined, so that each ABI's copy has its sizes
 * and registers fixed.  1 = done, -1 = stopped. */
static inline __attribute__((__always_inline__))
int uw_step_apply_compiled(struct uw_cursor *c,
			   const struct uw_compiled_unpacked *u, const int is64,
			   struct uw_step_frame *restrict out)
{
	static const uint8_t saved64[] = UW_X86_64_SAVED_SLOTS;
	static const uint8_t saved32[] = UW_I386_SAVED_SLOTS;
	const struct uw_regs *cur = c->regs;
	struct uw_regs *restrict next = out->regs;
	const uint64_t mask = is64 ? ~(uint64_t)0 : 0xffffffffu;
	const uint32_t size = is64 ? UW_X86_64_ADDR_SIZE : UW_I386_ADDR_SIZE;
	const unsigned sp = is64 ? UW_X86_64_RSP : UW_I386_ESP;
	const unsigned ra = is64 ? UW_X86_64_RIP : UW_I386_EIP;
	const uint8_t *span = NULL;
	uint64_t cfa;
	unsigned i;

	if (!(cur->defined & UW_REG_BIT(u->base)))
		return uw_fail(c, UW_STOP_REG_UNDEFINED, u->base);
	cfa = (cur->val[u->base] + u->cfa_offset) & mask;
	if (!(u->rule & UW_COMPILED_NO_CALLER)) {
		span = uw_stack_slots(c, (cfa - u->words * size) & mask,
				      u->words * size);
		if (__builtin_expect(!span, 0)) {
			uw_step_decode(c, u);
			return uw_step_apply_rare(c, &c->state.compact_row, out);
		}
	}
	uw_step_trace(c, UW_TR_CFA, cfa, 0);
	if (!span) {
		c->frame_cfa = cfa;
		return uw_fail(c, UW_STOP_END_OF_STACK, 0);
	}
	/* Every callee-saved register's value carries over (those the row
	 * does not keep are written below, or undefined), then the slots.
	 * bound: UW_COMPILED_SLOTS, u->nsaved <= UW_COMPILED_SLOTS */
	if (is64) {
#pragma GCC unroll 6
		for (i = 0; i < UW_X86_64_NSAVED; i++)
			next->val[saved64[i]] = cur->val[saved64[i]];
	} else {
#pragma GCC unroll 4
		for (i = 0; i < UW_I386_NSAVED; i++)
			next->val[saved32[i]] = cur->val[saved32[i]];
	}
	for (i = 0; i < u->nsaved; i++)
		next->val[u->reg[i]] = uw_stack_word_at(span + u->at[i]) & mask;
	next->val[sp] = cfa;
	next->val[ra] = uw_stack_word_at(span + (u->words - 1) * size) & mask;
	next->defined = (cur->defined & u->keep) | u->defined;
	out->cfa = cfa;
	out->signal = 0;
	return 1;
}

/* The pcs of the compiled row of link_pc in t, traced as its FDE's.
 * Out of line: only a traced step searches the table for them where the
 * row was kept by its pc. */
static __attribute__((__noinline__)) void
uw_step_trace_compiled(struct uw_cursor *c, const struct uw_compiled_table *t,
		       uint64_t link_pc)
{
	int64_t row;

	(void)uw_compiled_find(t, link_pc, &row);
	uw_step_trace(c, UW_TR_FDE, t->base + t->rows[row].start,
		      row + 1 < t->count ? t->base + t->rows[row + 1].start :
		      c->state.arch_desc->addr_mask);
}

/* The compiled row a step found for lookup pc in c->state.tables, kept
 * by the pc (uw_cache_state.compiled_pcs): the row, or NULL and in *slot
 * where to keep the one found now (NULL: the row cache keeps no rows of
 * these tables, or there is none).  A row kept may be a word without a
 * compact row (uw_compiled_is_row). */
static inline __attribute__((__always_inline__))
const struct uw_compiled_unpacked *
uw_step_compiled_by_pc(struct uw_cursor *c, uint64_t lookup,
		       struct uw_compiled_pc_entry **slot)
{
	const uint64_t tag = c->state.tables_tag;
	struct uw_compiled_pc_entry *e;

	*slot = NULL;
	if (!tag)	/* a tag is the row cache's: c->cache is set */
		return NULL;
	e = &c->cache->state.compiled_pcs[(lookup * 0x9e3779b97f4a7c15ull) >>
					  (64 - UW_CACHE_COMPILED_PCS_BITS)];
	if (e->key.pc == lookup && e->key.tag == tag)
		return &e->row;
	*slot = e;
	return NULL;
}

/* A compiled table's word for pcs without a compact row: no CFI there
 * (0), a full row applied (1 = done, -1 = stopped), or 2: the table
 * marks them for the parse. */
static inline __attribute__((__always_inline__))
int uw_step_not_compact(struct uw_cursor *c, const struct uw_compiled_table *t,
			uint32_t rule, struct uw_step_frame *out)
{
	int64_t full;

	if (rule == UW_COMPILED_NONE) {
		UW_COUNT_STEPS(c, compiled, 1);
		return 0;
	}
	full = uw_compiled_full(rule);
	if (full >= 0 && (uint64_t)full < t->full_count) {
		UW_COUNT_STEPS(c, full, 1);
		uw_step_trace(c, UW_TR_FDE, t->full[full].fde_begin,
			      t->full[full].fde_end);
		return uw_step_apply_rare(c, &t->full[full], out);
	}
	UW_COUNT_STEPS(c, marked, 1);
	return 2;
}

/* The compact row of lookup pc in compiled table t (c->state.tables'):
 * kept by its pc, or found in the table and then kept.  NULL where the
 * table has no compact row for it; *rule then says what it has. */
static inline __attribute__((__always_inline__))
const struct uw_compiled_unpacked *
uw_step_compiled_row(struct uw_cursor *c, const struct uw_compiled_table *t,
		     uint64_t lookup, uint32_t *rule)
{
	struct uw_compiled_pc_entry *slot;
	const struct uw_compiled_unpacked *u;
	uint32_t word;
	int64_t row;

	u = uw_step_compiled_by_pc(c, lookup, &slot);
	if (u) {
		*rule = u->rule;
		return uw_compiled_is_row(u->rule) ? u : NULL;
	}
	word = uw_compiled_find(t, (lookup - c->state.tables->bias) &
			       c->state.arch_desc->addr_mask, &row);
	u = uw_compiled_unpacked_of(t, word);
	*rule = u ? u->rule : word;
	if (__builtin_expect(!uw_compiled_is_row(*rule), 0)) {
		/* Kept too (its rule alone): a signal frame's full row is
		 * met again at the same pc as often as any other. */
		if (slot) {
			slot->key = (struct uw_cache_key){ lookup,
							   c->state.tables_tag };
			slot->row.rule = *rule;
		}
		return NULL;
	}
	if (!u)
		u = uw_step_unpacked(c, *rule);
	if (slot) {
		slot->key = (struct uw_cache_key){ lookup, c->state.tables_tag };
		slot->row = *u;
	}
	return u;
}

/* The row of lookup pc in the compiled table of c->state.tables, kept
 * by its pc or searched: applied (1 = done, -1 = stopped), no CFI there
 * (0), or 2: the table marks it for the parse. */
static inline __attribute__((__always_inline__))
int uw_step_compiled(struct uw_cursor *c, const struct uw_compiled_table *t,
		     uint64_t lookup, struct uw_step_frame *out)
{
	const struct uw_compiled_unpacked *u;
	uint32_t rule;

	u = uw_step_compiled_row(c, t, lookup, &rule);
	if (!u)
		return uw_step_not_compact(c, t, rule, out);
	UW_COUNT_STEPS(c, compiled, 1);
	if (__builtin_expect(c->state.trace != NULL, 0))
		uw_step_trace_compiled(c, t, (lookup - c->state.tables->bias) &
					     c->state.arch_desc->addr_mask);
	if (c->arch == UW_ARCH_X86_64)
		return uw_step_apply_compiled(c, u, 1, out);
	return uw_step_apply_compiled(c, u, 0, out);
}

/* Method 1's rows without a compiled row: the row cache's, else parsed
 * (and then kept if it can be).  1 = done, 0 = no CFI covers pc, -1 =
 * stopped. */
static inline __attribute__((__always_inline__))
int uw_step_cfi_parsed(struct uw_cursor *c, uint64_t lookup,
		       struct uw_step_frame *out)
{
	const struct uw_compact_row *cached;
	uint64_t link_pc;
	int rc;

	cached = uw_rowcache_find(c, lookup);
	if (cached) {
		uw_step_trace(c, UW_TR_FDE, cached->fde_begin,
			      cached->fde_end);
		return uw_step_apply(c, cached, out);
	}
	link_pc = (lookup - c->state.tables->bias) & c->state.arch_desc->addr_mask;
	if (uw_cfi_find(c, link_pc) < 0) {
		if (c->stop.reason != UW_STOP_NO_UNWIND_DATA)
			return -1;
		c->stop.reason = UW_STOP_NONE;
		return 0;
	}
	rc = uw_row_compute(c, link_pc);
	if (rc < 0)
		return -1;
	if (rc == 1)
		uw_rowcache_store(c, lookup, &c->state.compact_row);
	return uw_step_apply(c, &c->state.compact_row, out);
}

/* Method 1, CFI: the row for the pc from the compiled table.  1 = done,
 * 0 = no CFI covers pc, -1 = stopped; 2: the row is the row cache's or
 * parsed (uw_step_cfi_parsed). */
static int uw_step_cfi(struct uw_cursor *c, uint64_t lookup,
		       struct uw_step_frame *out)
{
	const struct uw_compiled_table *compiled;
	int rc;

	out->how = UW_HOW_CFI;
	c->state.tables_for_pc = 1;
	if (uw_tables_for(c, lookup) < 0)
		return 0;
	uw_step_trace(c, UW_TR_TABLES, c->state.tables->bias, lookup);
	compiled = c->state.tables->compiled;
	if (compiled && compiled->arch == (uint8_t)c->arch) {
		rc = uw_step_compiled(c, compiled, lookup, out);
		if (rc != 2)
			return rc;
	} else {
		UW_COUNT_STEPS(c, uncompiled, 1);
	}
	return 2;
}

/* Method 2: a signal trampoline no CFI describes, by its bytes. */
static int uw_step_sigframe(struct uw_cursor *c, uint64_t lookup,
			    struct uw_step_frame *out)
{
	(void)lookup;
	out->how = UW_HOW_SIGFRAME;
	out->signal = 1;
	return uw_arch_sigframe(c, out->regs, &out->cfa);
}

/* Method 3 (UW_POLICY_NOCFI): code without CFI, from the
 * instructions at pc. */
static int uw_step_nocfi(struct uw_cursor *c, uint64_t lookup,
			 struct uw_step_frame *out)
{
	int rc;

	(void)lookup;
	out->signal = 0;
	rc = uw_nocfi_step(c, out->regs, &out->cfa, &out->how);
	if (rc == 1)
		uw_step_trace(c, UW_TR_NOCFI, c->pc, out->how);
	return rc;
}

/* Method 4 (UW_POLICY_FP_FALLBACK): the frame-pointer chain, as the
 * ABI's frame-pointer row (arch.c) applied by the one interpreter.
 * 0 = no frame pointer. */
static int uw_step_fp(struct uw_cursor *c, uint64_t lookup,
		      struct uw_step_frame *out)
{
	const struct uw_arch_desc *ad = c->state.arch_desc;

	(void)lookup;
	out->how = UW_HOW_FRAME_POINTER;
	if (!(c->regs->defined & UW_REG_BIT(ad->fp_reg)))
		return 0;
	uw_step_trace(c, UW_TR_FP_FALLBACK, c->pc, c->regs->val[ad->fp_reg]);
	(void)uw_row_compact(c, &ad->fp_row, &ad->fp_row, 0, NULL, 0,
			     ad->ra_reg, 0, &c->state.compact_row);
	c->state.compact_row.fde_begin = c->state.compact_row.fde_end = 0;
	return uw_step_apply_rare(c, &c->state.compact_row, out);
}

/* The ways to find a caller, in the order they are tried: the first that
 * applies (returns nonzero) makes the step, as in the kernel's
 * kernel/unwind/user.c.  uw_step calls the first, CFI, by name (so that
 * it inlines there) and the fallbacks through uw_step_by. */
enum uw_step_method {
	UW_METHOD_CFI,
	UW_METHOD_SIGFRAME,
	UW_METHOD_NOCFI,	/* needs UW_POLICY_NOCFI */
	UW_METHOD_FP,		/* needs UW_POLICY_FP_FALLBACK, or tables that
				 * keep the frame pointer */
	UW_METHODS
};

static inline int uw_step_by(struct uw_cursor *c, enum uw_step_method m,
			     uint64_t lookup, struct uw_step_frame *out)
{
	switch (m) {
	case UW_METHOD_SIGFRAME:
		return uw_step_sigframe(c, lookup, out);
	case UW_METHOD_NOCFI:
		if (!(c->policy & UW_POLICY_NOCFI))
			return 0;
		return uw_step_nocfi(c, lookup, out);
	case UW_METHOD_FP:
		if (!(c->policy & UW_POLICY_FP_FALLBACK) &&
		    !(c->state.tables_for_pc && c->state.tables->keeps_frame_pointer))
			return 0;
		return uw_step_fp(c, lookup, out);
	default:
		return 0;
	}
}

/* Is ra, the caller's pc that a step found, plainly not a return address?
 * Wrong CFI (glibc's i386 memcpy does not describe a push) hands over some
 * other word of the stack; reported as a frame, it would be a lie, and the
 * next step would only say "no unwind data" there.  Judged only where no
 * unwind tables cover ra (tables are the host's word that code is there)
 * and by positive evidence: code read before ra, with no call ending at
 * ra (nor a signal trampoline at it).  Unreadable memory is not judged.
 * The lookup is the one the next step makes anyway: tables found are kept
 * for it to reuse; where ra lies in this frame's tables (most steps) it
 * is uw_tables_for's first, inline test. */
static inline __attribute__((__always_inline__))
int uw_step_ra_is_bogus(struct uw_cursor *c, uint64_t ra)
{
	const char *module = c->state.tables->module;

	if (uw_tables_for(c, (ra - 1) & c->state.arch_desc->addr_mask) == 0)
		return 0;
	/* A stop here reports this frame's module; the next step (if any)
	 * looks the caller up again. */
	c->state.tables->module = module;
	if (c->state.tables->unreadable)
		return 0;
	return uw_arch_ra_plausible(c, ra) == 0;
}

static int uw_step_stopped(struct uw_cursor *c)
{
	c->stop.pc = c->pc;
	c->stop.module = c->state.tables_for_pc ? c->state.tables->module : NULL;
	uw_step_trace(c, UW_TR_STOP, c->stop.reason, c->pc);
	return 0;
}

/* The end of every step a method made (rc: 1, the caller's registers
 * and CFA in c->state.frame; else stopped): the checks on the caller,
 * then the cursor moved to it, or the stop reported.  1 = stepped, 0 =
 * stopped. */
static inline __attribute__((__always_inline__))
int uw_step_finish(struct uw_cursor *c, int rc)
{
	const struct uw_arch_desc *ad = c->state.arch_desc;
	struct uw_step_frame *f = &c->state.frame;
	uint64_t ra;

	if (rc <= 0)
		return uw_step_stopped(c);
	/* Stacks grow down: each caller's CFA lies above its callee's.  A
	 * signal frame may switch stacks (sigaltstack), so it is exempt. */
	if (!f->signal && c->depth > 0 && f->cfa <= c->cfa) {
		uw_fail(c, UW_STOP_NO_PROGRESS, f->cfa);
		return uw_step_stopped(c);
	}
	ra = f->regs->val[ad->ra_reg];
	if (ra == 0) {
		/* The outermost frame: its CFA passed the progress check,
		 * and gives the frame's size. */
		c->frame_cfa = f->cfa;
		uw_fail(c, UW_STOP_END_OF_STACK, 0);
		return uw_step_stopped(c);
	}
	/* A trampoline in place of the return address (a uretprobe's):
	 * the host knows the address it stands for, by the stack slot it
	 * was read from.  The real address is then checked as any other. */
	if (!f->signal && c->state.ops->return_address) {
		uint64_t real = ra;
		int t = c->state.ops->return_address(c->state.host, ra,
			(f->cfa - ad->addr_size) & ad->addr_mask, &real);

		if (t < 0) {
			uw_fail(c, UW_STOP_TRAMPOLINE, ra);
			return uw_step_stopped(c);
		}
		if (t > 0) {
			ra = real & ad->addr_mask;
			f->regs->val[ad->ra_reg] = ra;
		}
	}
	/* After a signal frame the pc is where the signal came, not a
	 * return address.  Below min_code nothing can be code (Linux maps
	 * nothing under mmap_min_addr), so a return address there is some
	 * other word of the stack. */
	if (!f->signal && (ra < c->min_code || uw_step_ra_is_bogus(c, ra))) {
		uw_fail(c, UW_STOP_BAD_RETURN_ADDRESS, ra);
		return uw_step_stopped(c);
	}
	c->regs = f->regs;	/* the caller's, built in the other buffer */
	c->pc = ra;
	uw_step_set_sp(c, f->regs);
	c->cfa = f->cfa;
	c->depth++;
	c->pc_is_exact = f->signal;
	c->how = f->how;
	return 1;
}

/* The pc a step looks up for the cursor's frame: pc - 1 where it is a
 * return address, else pc itself (this file's head). */
static inline uint64_t uw_step_lookup(const struct uw_cursor *c)
{
	return (c->pc - !c->pc_is_exact) & c->state.arch_desc->addr_mask;
}

/* uw_step_fast_run's result for a step it began, whose row is the row
 * cache's or parsed (uw_step_general goes on with it). */
#define UW_FAST_PARSE 2

/* The start of a step (uw_step_general's): no work spent yet, no CFI
 * section read, the caller's registers built in the buffer that is not
 * this frame's. */
static inline void uw_step_begin(struct uw_cursor *c)
{
	c->work = 0;
	c->state.section = NULL;
	c->state.section_window_len = 0;
	c->state.frame.regs = &c->state.regs[c->regs == &c->state.regs[0]];
}

/* ... and for a step uw_step_fast_run hands to the CFI method's row
 * interpreter: its unit of work (uw_step_fast_run saw one left), in tables
 * found for its pc. */
static inline void uw_step_begin_cfi(struct uw_cursor *c)
{
	uw_step_begin(c);
	c->state.frame.how = UW_HOW_CFI;
	c->state.tables_for_pc = 1;
	(void)uw_spend(c, 1);
}

/* The events a traced step makes before its row's (uw_step_general's
 * first two), for the steps uw_step_fast_run takes: tables of bias found for
 * lookup.  Out of line: tracing is for tests and tools. */
static __attribute__((__noinline__)) void
uw_step_fast_trace(struct uw_cursor *c, uint64_t bias, uint64_t lookup)
{
	uw_step_trace(c, UW_TR_STEP, c->pc, c->depth);
	uw_step_trace(c, UW_TR_TABLES, bias, lookup);
}

/* ... and a compact row's events, as uw_step_compiled and
 * uw_step_apply_compiled make them: t, for lookup, gives cfa. */
static __attribute__((__noinline__)) void
uw_step_fast_trace_row(struct uw_cursor *c, const struct uw_compiled_table *t,
		       uint64_t bias, uint64_t lookup, uint64_t cfa)
{
	uw_step_fast_trace(c, bias, lookup);
	uw_step_trace_compiled(c, t, (lookup - bias) &
				     c->state.arch_desc->addr_mask);
	uw_step_trace(c, UW_TR_CFA, cfa, 0);
}

/* uw_step_fast_run's result for a frame whose compiled table keeps its
 * row whole (c->state.fast_rule), for uw_step_fast_full. */
#define UW_FAST_FULL 3

/* The frame uw_step_fast_run ended at, UW_FAST_FULL (a signal frame's
 * row, a CFA in another register): its row applied as uw_step_general
 * would apply it (uw_step_not_compact), from the same start of a step,
 * and finished by the same checks; or, where the table marks it for the
 * parse, begun for uw_step_general (UW_FAST_PARSE).  Else 0 (no CFI
 * there), and nothing has changed.  Called from uw_step and
 * uw_step_many's own small frames, not from uw_step_fast_run's large
 * one: the row's expressions make the deepest chain below it
 * (runtime/stack-budget.sh). */
static __attribute__((__noinline__)) int uw_step_fast_full(struct uw_cursor *c)
{
	const struct uw_compiled_table *t = c->state.tables->compiled;
	const uint32_t rule = c->state.fast_rule;
	const int64_t full = uw_compiled_full(rule);
	const uint64_t lookup = uw_step_lookup(c);

	if (rule == UW_COMPILED_NONE)
		return 0;
	uw_step_begin_cfi(c);
	if (__builtin_expect(c->state.trace != NULL, 0))
		uw_step_fast_trace(c, c->state.tables->bias, lookup);
	if (full < 0 || (uint64_t)full >= t->full_count) {
		UW_COUNT_STEPS(c, marked, 1);
		return UW_FAST_PARSE;
	}
	UW_COUNT_STEPS(c, full, 1);
	uw_step_trace(c, UW_TR_FDE, t->full[full].fde_begin,
		      t->full[full].fde_end);
	return uw_step_finish(c, uw_step_apply_rare(c, &t->full[full],
						    &c->state.frame)) ? 1 : -1;
}

/* A walk's state while the fast steps run, held in registers: read
 * from the cursor when they begin (uw_fast_load), written to it when
 * they end or hand a frame to another step (uw_fast_commit).  The
 * callee-saved registers are not here: a row writes them in place, in
 * c->regs, by their numbers. */
struct uw_fast_walk {
	struct uw_regs *regs;		/* c->regs, read-only to the caller
					 * only */
	uint64_t lookup;		/* this frame's lookup pc */
	uint64_t cfa;			/* the last frame's CFA; 0 before the
					 * first step, which has no CFA to
					 * pass (a CFA of 0 goes the general
					 * way) */
	uint32_t limit;			/* steps it may take: by the frames
					 * asked for, the depth limit and the
					 * work budget */
	/* c->state.tables, the tables of the lookup pc: the pcs they cover
	 * [lo, lo + span) (span 0 if they are not to be reused), and their
	 * compiled table if it is of the walk's architecture. */
	uint64_t lo, span;
	const struct uw_compiled_table *t;
	/* Their host's counts of their steps (uw_tables.steps; NULL: none),
	 * and the first step of this run they served: the steps from it on
	 * are counted there when the walk leaves them (uw_fast_count). */
	struct uw_step_counts *steps;
	uint32_t from;
};

/* w's tables: c->state.tables, as uw_tables_known left them. */
static inline __attribute__((__always_inline__))
void uw_fast_tables(const struct uw_cursor *c, struct uw_fast_walk *w)
{
	const struct uw_tables *tb = c->state.tables;
	const struct uw_compiled_table *t = tb->compiled;

	w->lo = tb->pc_lo;
	w->span = c->state.tables_reusable ? tb->pc_hi - tb->pc_lo : 0;
	w->t = t && t->arch == (uint8_t)c->arch ? t : NULL;
	w->steps = tb->steps;
}

/* The steps before step n of this run were served by w's tables: into
 * their host's counts (the cursor's are counted at the end of the run,
 * uw_fast_commit), before w takes other tables. */
static inline __attribute__((__always_inline__))
void uw_fast_count(struct uw_fast_walk *w, uint32_t n)
{
	if (w->steps)
		w->steps->compiled += n - w->from;
	w->from = n;
}

/* w from the cursor, for at most max steps. */
static inline __attribute__((__always_inline__))
void uw_fast_load(const struct uw_cursor *c, struct uw_fast_walk *w,
		  uint32_t max)
{
	const uint32_t work = uw_work_left(c);
	const uint32_t depth = c->depth < c->max_depth ?
			       c->max_depth - c->depth : 0;
	uint32_t left = max;

	if (depth < left)
		left = depth;
	if (work < left)
		left = work;
	w->regs = (struct uw_regs *)c->regs;
	w->lookup = uw_step_lookup(c);
	w->cfa = c->depth > 0 ? c->cfa : 0;
	w->limit = left;
	w->from = 0;
	uw_fast_tables(c, w);
}

/* The taken steps of w into the cursor: each as uw_step_general would
 * leave it, one unit of work and a compiled row; those of w's tables
 * into their host's counts too. */
static inline __attribute__((__always_inline__))
void uw_fast_commit(struct uw_cursor *c, struct uw_fast_walk *w,
		    uint32_t taken)
{
	if (!taken)
		return;
	uw_fast_count(w, taken);
	c->pc = (w->lookup + 1) & c->state.arch_desc->addr_mask;
	c->sp = w->cfa;
	c->cfa = w->cfa;
	c->depth += taken;
	c->pc_is_exact = 0;
	c->how = UW_HOW_CFI;
	c->work = 1;
	c->work_total += taken;
	c->steps_compiled += taken;
}

/* A fast step's caller, at lookup pc next, in tables other than w's:
 * those found before, which become w's (0), else -1 and nothing has
 * changed (uw_tables_known).  The step, step n of this run, is then sure
 * to be taken, counted in the tables it leaves, and a traced one makes
 * its row's events, of those tables. */
static inline __attribute__((__always_inline__))
int uw_fast_caller_tables(struct uw_cursor *c, struct uw_fast_walk *w,
			  uint64_t next, uint64_t cfa, uint32_t n)
{
	const uint64_t bias = c->state.tables->bias;

	if (uw_tables_known(c, next) < 0)
		return -1;
	uw_fast_count(w, n + 1);
	if (__builtin_expect(c->state.trace != NULL, 0))
		uw_step_fast_trace_row(c, w->t, bias, w->lookup, cfa);
	uw_fast_tables(c, w);
	return 0;
}

/* The frame the cursor has just stepped to, as uw_step_many gives it. */
static inline __attribute__((__always_inline__))
void uw_step_record(const struct uw_cursor *c, struct uw_stepped_frame *f)
{
	f->pc = c->pc;
	f->sp = c->sp;
	f->cfa = c->cfa;
	f->pc_is_exact = c->pc_is_exact;
}

/* The common steps, whole, as ORC's, up to max of them, each frame
 * stepped to written to out (if not NULL): their number.  A step here is
 * a frame in tables found before, whose compiled table has a compact row
 * for its pc with the save slots in the stack window, and whose caller
 * passes every check at once (the CFA grows, a return address in tables
 * found before, no trampoline in its place); or the outermost frame.
 * The row is applied to the registers in place: nothing is copied, and
 * no frame is built for the checks after a method (uw_step_finish).
 * While the caller stays in the same tables, the check of its return
 * address is the range test of the tables in hand, and it is the next
 * step's lookup.  Why they end, in c->state.fast_end: 1, max taken; -1,
 * stopped (reported); UW_FAST_FULL, a row the table keeps whole (a
 * signal frame's), for uw_step_fast_full; UW_FAST_PARSE, a frame in
 * tables without a compiled table, begun here for uw_step_general to go
 * on with; 0, a frame for uw_step_general to take from its start: nothing
 * the caller sees has changed for it (a window read, a row kept by its
 * pc, tables found before taken again: caches), so that uw_step_general
 * says why, if it stops.  A traced step's events are the general step's,
 * made once the step is sure to be taken here.  is64 as in
 * uw_step_apply_compiled. */
static inline __attribute__((__always_inline__))
uint32_t uw_step_fast_run(struct uw_cursor *c, struct uw_stepped_frame *out,
			  uint32_t max, const int is64)
{
	const uint64_t mask = is64 ? ~(uint64_t)0 : 0xffffffffu;
	const uint32_t size = is64 ? UW_X86_64_ADDR_SIZE : UW_I386_ADDR_SIZE;
	const unsigned sp = is64 ? UW_X86_64_RSP : UW_I386_ESP;
	const unsigned ra_reg = is64 ? UW_X86_64_RIP : UW_I386_EIP;
	/* A return address below it is 0 or below c->min_code. */
	const uint64_t code = c->min_code ? c->min_code : 1;
	struct uw_fast_walk w;
	const struct uw_compiled_unpacked *u;
	const uint8_t *span;
	uint64_t cfa, ra, real;
	uint32_t n = 0, rule;
	unsigned i;
	int end;

	if (c->stop.reason != UW_STOP_NONE) {
		c->state.fast_end = 0;
		return 0;
	}
	uw_fast_load(c, &w, max);
	/* bound: max steps (w.limit), each turn one taken or the end */
	for (;;) {
		if (n == w.limit) {
			end = n == max;	/* else uw_step_general stops */
			break;
		}
		if (w.lookup - w.lo >= w.span) {
			if (uw_tables_known(c, w.lookup) < 0) {
				end = 0;
				break;
			}
			uw_fast_count(&w, n);
			uw_fast_tables(c, &w);
		}
		if (!w.t) {
			uw_fast_commit(c, &w, n);
			uw_step_begin_cfi(c);
			if (__builtin_expect(c->state.trace != NULL, 0))
				uw_step_fast_trace(c, c->state.tables->bias,
						   w.lookup);
			UW_COUNT_STEPS(c, uncompiled, 1);
			c->state.fast_end = UW_FAST_PARSE;
			return n;
		}
		u = uw_step_compiled_row(c, w.t, w.lookup, &rule);
		if (!u) {
			c->state.fast_rule = rule;
			end = UW_FAST_FULL;
			break;
		}
		if (!(w.regs->defined & UW_REG_BIT(u->base))) {
			end = 0;
			break;
		}
		cfa = (w.regs->val[u->base] + u->cfa_offset) & mask;
		if (__builtin_expect(u->rule & UW_COMPILED_NO_CALLER, 0)) {
			uw_fast_commit(c, &w, n);
			if (__builtin_expect(c->state.trace != NULL, 0))
				uw_step_fast_trace_row(c, w.t,
						       c->state.tables->bias,
						       w.lookup, cfa);
			c->work = 1;
			c->work_total++;
			UW_COUNT_STEPS(c, compiled, 1);
			c->state.tables_for_pc = 1;
			c->frame_cfa = cfa;
			uw_fail(c, UW_STOP_END_OF_STACK, 0);
			uw_step_stopped(c);
			c->state.fast_end = -1;
			return n;
		}
		if (cfa <= w.cfa) {
			end = 0;
			break;
		}
		span = uw_stack_slots(c, (cfa - u->words * size) & mask,
				      u->words * size);
		if (!span) {
			end = 0;
			break;
		}
		ra = uw_stack_word_at(span + (u->words - 1) * size) & mask;
		if (ra < code ||
		    (c->state.ops->return_address &&
		     c->state.ops->return_address(c->state.host, ra,
						  (cfa - size) & mask,
						  &real) != 0)) {
			end = 0;
			break;
		}
		/* The caller's lookup pc: in the tables in hand, or in
		 * others found before, which become the tables in hand. */
		if (((ra - 1) & mask) - w.lo < w.span) {
			if (__builtin_expect(c->state.trace != NULL, 0))
				uw_step_fast_trace_row(c, w.t,
						       c->state.tables->bias,
						       w.lookup, cfa);
		} else if (uw_fast_caller_tables(c, &w, (ra - 1) & mask,
						 cfa, n) < 0) {
			end = 0;
			break;
		}
		/* bound: u->nsaved <= UW_COMPILED_SLOTS */
		for (i = 0; i < u->nsaved; i++)
			w.regs->val[u->reg[i]] =
				uw_stack_word_at(span + u->at[i]) & mask;
		w.regs->val[sp] = cfa;
		w.regs->val[ra_reg] = ra;
		w.regs->defined = (w.regs->defined & u->keep) | u->defined;
		w.lookup = (ra - 1) & mask;
		w.cfa = cfa;
		if (out) {
			out[n].pc = ra;
			out[n].sp = cfa;
			out[n].cfa = cfa;
			out[n].pc_is_exact = 0;
		}
		n++;
	}
	uw_fast_commit(c, &w, n);
	c->state.fast_end = (int8_t)end;
	return n;
}

/* Every step uw_step_fast_run does not take, by the methods in order; or,
 * begun, one it began (UW_FAST_PARSE), from the row cache's or the
 * parsed row on. */
static __attribute__((__noinline__)) int uw_step_general(struct uw_cursor *c,
							  int begun)
{
	struct uw_step_frame *f = &c->state.frame;
	uint64_t lookup = uw_step_lookup(c);
	unsigned m;
	int rc = 2;

	if (!begun) {
		if (c->stop.reason != UW_STOP_NONE)
			return 0;
		uw_step_begin(c);
		/* c->state.tables still holds the last frame's tables
		 * (find_tables sets every field when it succeeds): reused if
		 * they cover this pc. */
		c->state.tables_for_pc = 0;
		uw_step_trace(c, UW_TR_STEP, c->pc, c->depth);
		if (c->depth >= c->max_depth) {
			uw_fail(c, UW_STOP_DEPTH_LIMIT, c->depth);
			return uw_step_stopped(c);
		}
		/* The methods in order; the first, CFI, is called by name,
		 * so that it inlines here. */
		rc = uw_spend(c, 1);
		if (rc == 0)
			rc = uw_step_cfi(c, lookup, f);
	}
	if (rc == 2)
		rc = uw_step_cfi_parsed(c, lookup, f);
	/* The other methods, where CFI found nothing.  bound: UW_METHODS */
	for (m = UW_METHOD_CFI + 1; m < UW_METHODS && rc == 0; m++) {
		rc = uw_spend(c, 1);
		if (rc == 0)
			rc = uw_step_by(c, (enum uw_step_method)m, lookup, f);
	}
	if (rc == 0 && c->state.tables_for_pc && c->state.tables->unreadable)
		uw_fail(c, UW_STOP_MEMORY_UNREADABLE, c->state.tables->unreadable);
	else if (rc == 0)
		uw_fail(c, UW_STOP_NO_UNWIND_DATA, lookup);
	return uw_step_finish(c, rc);
}

/* uw_step_fast_run for the cursor's ABI.  Out of line, as
 * uw_step_general is, so that its frame, which the inlined steps make
 * large, is off the kernel stack while uw_step_general runs
 * (runtime/stack-budget.sh sums uw_step's and uw_step_many's chains). */
static __attribute__((__noinline__)) uint32_t
uw_step_fast_many(struct uw_cursor *c, struct uw_stepped_frame *out,
		  uint32_t max)
{
	if (c->arch == UW_ARCH_X86_64)
		return uw_step_fast_run(c, out, max, 1);
	return uw_step_fast_run(c, out, max, 0);
}

/* ... and for one step, uw_step's: the same, made for max 1 and no
 * frames written, so that a walk by uw_step pays no loop. */
static __attribute__((__noinline__)) uint32_t
uw_step_fast_one(struct uw_cursor *c)
{
	if (c->arch == UW_ARCH_X86_64)
		return uw_step_fast_run(c, NULL, 1, 1);
	return uw_step_fast_run(c, NULL, 1, 0);
}

/* The frame the fast steps ended at (c->state.fast_end, not 1): taken
 * by the step it was left for.  1 = stepped, 0 = stopped.  Inline, in
 * the small frames of uw_step and uw_step_many, from which the kernel
 * stack's deepest chains are measured. */
static inline __attribute__((__always_inline__))
int uw_step_after_fast(struct uw_cursor *c)
{
	int rc = c->state.fast_end;

	if (rc == UW_FAST_FULL)
		rc = uw_step_fast_full(c);
	if (rc == 0 || rc == UW_FAST_PARSE)
		return uw_step_general(c, rc == UW_FAST_PARSE);
	return rc > 0;
}

/* Out of line where callers could inline it: the kernel stack budget is
 * measured from it (runtime/stack-budget.sh). */
UW_API __attribute__((__noinline__)) int uw_step(struct uw_cursor *c)
{
	if (uw_step_fast_one(c) == 1)
		return 1;
	return uw_step_after_fast(c);
}

/* Out of line, as uw_step is: the kernel stack budget is measured from
 * it. */
UW_API __attribute__((__noinline__)) uint32_t
uw_step_many(struct uw_cursor *c, struct uw_stepped_frame *out, uint32_t max)
{
	uint32_t n = 0;

	/* bound: max frames, at least one a turn */
	while (n < max) {
		n += uw_step_fast_many(c, out + n, max - n);
		if (c->state.fast_end == 1 || uw_step_after_fast(c) != 1)
			break;
		uw_step_record(c, &out[n++]);
	}
	return n;
}
