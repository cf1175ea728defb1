/* Executing call frame instructions (DWARF 5, 6.4.2) into a row.
 *
 * The CIE's initial instructions run first, then the FDE's, both starting
 * at the FDE's pc_begin, until an advance would move past the pc: the row
 * at that point describes the pc.  Nothing here reads registers or target
 * memory; applying the row is step.c's job.
 *
 * A run writes only what it changes: the CFA's rule, and the rules of the
 * registers in its changed mask.  Every other register keeps the rule of
 * the row it started from (its base: the ABI's row for a CIE, the CIE's
 * row for an FDE), so a parse copies no whole row, and its compaction
 * starts from its CIE's (the CIE's entry keeps both) and compacts only the
 * registers the FDE changed: about 3 of 17 on x86_64.
 *
 * Bounds: at most UW_MAX_CFA_INSNS instructions in total (instructions
 * never jump backwards, so this also bounds the loop), every operand is
 * read through the section-bounded reader, and remember_state nests at
 * most UW_MAX_REMEMBER deep.
 */
#include "uw_internal.h"

/* Register numbers that do not fit the row (SSE, x87, hostile): rules for
 * them are parsed and dropped; as a REGISTER source or CFA register they
 * become this, which step.c treats as undefined. */
#define UW_ROW_BAD_REG 0xff

struct uw_row_exec {
	struct uw_cursor *c;
	struct uw_reader r;
	uint64_t pc;		/* link-time pc whose row we want */
	uint64_t loc;		/* location the current row starts at */
	uint64_t next;		/* where an advance past pc would go */
	uint32_t insns;		/* executed so far, <= UW_MAX_CFA_INSNS */
	uint32_t depth;		/* remember_state stack depth */
	/* What DW_CFA_restore restores from: the ABI's row in the CIE, the
	 * CIE's initial row in the FDE. */
	const struct uw_row *initial;
	uint32_t changed;	/* registers whose rule the cursor's row
				 * holds; the others have the base's */
	int done;		/* an advance went past pc */
	int advanced;		/* an advance or set_loc was executed */
};

static uint8_t uw_row_reg8(uint64_t reg)
{
	return reg < UW_NREGS ? (uint8_t)reg : UW_ROW_BAD_REG;
}

/* Factored offset: operands are multiplied by the CIE's data alignment.
 * Unsigned multiplication: wraps instead of signed-overflow UB. */
static int64_t uw_row_factor(const struct uw_cursor *c, uint64_t n)
{
	return (int64_t)(n * (uint64_t)c->state.cie.data_align);
}

static void uw_row_set(struct uw_row_exec *x, uint64_t reg,
		       enum uw_rule_kind kind, int64_t offset)
{
	struct uw_reg_rule *rule;

	if (reg >= UW_NREGS)
		return;
	rule = &x->c->state.row.rule[reg];
	*rule = (struct uw_reg_rule){ 0 };
	rule->kind = (uint8_t)kind;
	rule->offset = offset;
	x->changed |= UW_REG_BIT(reg);
}

/* Copy src's CFA rule and the rules of the registers regs to dst. */
static void uw_row_copy(struct uw_row *dst, const struct uw_row *src,
			uint32_t regs)
{
	uint32_t todo;
	unsigned i;

	dst->cfa_kind = src->cfa_kind;
	dst->cfa_reg = src->cfa_reg;
	dst->cfa_offset = src->cfa_offset;
	dst->cfa_expr = src->cfa_expr;
	/* bound: one iteration per bit, < UW_NREGS */
	for (todo = regs; todo != 0; todo &= todo - 1) {
		i = (unsigned)__builtin_ctz(todo);
		dst->rule[i] = src->rule[i];
	}
}

/* The offset operand of DW_CFA_def_cfa and DW_CFA_def_cfa_offset: an
 * unsigned number, or in their _sf forms a signed one factored by the
 * CIE's data alignment.  Inlined into each case, where factored is known:
 * def_cfa_offset is the commonest CFA instruction of x86 code (every push
 * and pop), and gcc kept this out of line, a call and a 40-byte frame. */
static inline __attribute__((__always_inline__)) int
uw_row_cfa_offset(struct uw_row_exec *x, int factored, uint64_t *u)
{
	int64_t s;

	if (!factored)
		return uw_rd_uleb(&x->r, u);
	if (uw_rd_sleb(&x->r, &s) < 0)
		return -1;
	*u = (uint64_t)uw_row_factor(x->c, (uint64_t)s);
	return 0;
}

static int uw_row_block(struct uw_row_exec *x, struct uw_block *b)
{
	uint64_t len;

	if (uw_rd_uleb(&x->r, &len) < 0)
		return -1;
	b->pos = x->r.pos;
	b->len = len;
	return uw_rd_skip(&x->r, len);
}

static int uw_row_advance(struct uw_row_exec *x, uint64_t new_loc)
{
	x->advanced = 1;
	/* Going past pc (or wrapping) ends the row for pc. */
	if (new_loc > x->pc || new_loc < x->loc) {
		x->done = 1;
		x->next = new_loc;
	} else
		x->loc = new_loc;
	return 0;
}

static int uw_row_advance_delta(struct uw_row_exec *x, uint64_t delta)
{
	return uw_row_advance(x, x->loc + delta * x->c->state.cie.code_align);
}

/* Stop as malformed CFI at the instruction that begins at start of x's
 * section (one that cannot be run, or one past the bound). */
static int uw_row_malformed(struct uw_row_exec *x, uint64_t start)
{
	return uw_fail(x->c, UW_STOP_BAD_CFI, x->r.sec->addr + start);
}

/* One instruction at x->r.pos. */
static int uw_row_insn(struct uw_row_exec *x)
{
	struct uw_cursor *c = x->c;
	struct uw_row *row = &c->state.row;
	const uint64_t start = x->r.pos;	/* where a stop says it was */
	uint64_t reg, u, v;
	int64_t s;
	uint8_t op;
	struct uw_block b;

	if (uw_rd_u8(&x->r, &op) < 0)
		return -1;
	/* One dispatch: the three opcodes with an operand in their low six
	 * bits are ranges of the same switch. */
	switch (op) {
	case DW_CFA_advance_loc ... DW_CFA_advance_loc | DW_CFA_OPERAND_MASK:
		return uw_row_advance_delta(x, op & DW_CFA_OPERAND_MASK);
	case DW_CFA_offset ... DW_CFA_offset | DW_CFA_OPERAND_MASK:
		if (uw_rd_uleb(&x->r, &u) < 0)
			return -1;
		uw_row_set(x, op & DW_CFA_OPERAND_MASK, UW_RULE_OFFSET, uw_row_factor(c, u));
		return 0;
	case DW_CFA_restore ... DW_CFA_restore | DW_CFA_OPERAND_MASK:
		reg = op & DW_CFA_OPERAND_MASK;
		goto restore;
	case DW_CFA_nop:
	case DW_CFA_GNU_window_save:	/* SPARC only; nothing on x86 */
		return 0;
	case DW_CFA_set_loc:
		x->r.datarel_base = c->state.tables->data_base;
		if (uw_rd_encoded(&x->r, c->state.cie.fde_enc, &u) < 0)
			return -1;
		return uw_row_advance(x, u);
	case DW_CFA_advance_loc1:
	case DW_CFA_advance_loc2:
	case DW_CFA_advance_loc4:
	case DW_CFA_MIPS_advance_loc8:
		if (uw_rd_uint(&x->r, op == DW_CFA_advance_loc1 ? 1 :
			       op == DW_CFA_advance_loc2 ? 2 :
			       op == DW_CFA_advance_loc4 ? 4 : 8, &u) < 0)
			return -1;
		return uw_row_advance_delta(x, u);
	case DW_CFA_offset_extended:
	case DW_CFA_val_offset:
	case DW_CFA_GNU_negative_offset_extended:
		if (uw_rd_uleb(&x->r, &reg) < 0 || uw_rd_uleb(&x->r, &u) < 0)
			return -1;
		if (op == DW_CFA_GNU_negative_offset_extended)
			u = 0 - u;
		uw_row_set(x, reg, op == DW_CFA_val_offset ?
			   UW_RULE_VAL_OFFSET : UW_RULE_OFFSET,
			   uw_row_factor(c, u));
		return 0;
	case DW_CFA_offset_extended_sf:
	case DW_CFA_val_offset_sf:
		if (uw_rd_uleb(&x->r, &reg) < 0 || uw_rd_sleb(&x->r, &s) < 0)
			return -1;
		uw_row_set(x, reg, op == DW_CFA_val_offset_sf ?
			   UW_RULE_VAL_OFFSET : UW_RULE_OFFSET,
			   uw_row_factor(c, (uint64_t)s));
		return 0;
	case DW_CFA_restore_extended:
		if (uw_rd_uleb(&x->r, &reg) < 0)
			return -1;
		goto restore;
	case DW_CFA_undefined:
	case DW_CFA_same_value:
		if (uw_rd_uleb(&x->r, &reg) < 0)
			return -1;
		uw_row_set(x, reg, op == DW_CFA_undefined ?
			   UW_RULE_UNDEFINED : UW_RULE_SAME_VALUE, 0);
		return 0;
	case DW_CFA_register:
		if (uw_rd_uleb(&x->r, &reg) < 0 || uw_rd_uleb(&x->r, &v) < 0)
			return -1;
		uw_row_set(x, reg, UW_RULE_REGISTER, 0);
		if (reg < UW_NREGS)
			row->rule[reg].reg = uw_row_reg8(v);
		return 0;
	case DW_CFA_remember_state:
		if (x->depth == UW_MAX_REMEMBER)
			return uw_row_malformed(x, start);
		uw_row_copy(&c->state.remembered[x->depth], row, x->changed);
		c->state.remembered_changed[x->depth++] = x->changed;
		return 0;
	case DW_CFA_restore_state:
		if (x->depth == 0)
			return uw_row_malformed(x, start);
		/* Registers changed since go back to the base's rules. */
		x->changed = c->state.remembered_changed[--x->depth];
		uw_row_copy(row, &c->state.remembered[x->depth], x->changed);
		return 0;
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
		if (uw_rd_uleb(&x->r, &reg) < 0 ||
		    uw_row_cfa_offset(x, op == DW_CFA_def_cfa_sf, &u) < 0)
			return -1;
		row->cfa_kind = UW_CFA_REG_OFFSET;
		row->cfa_reg = uw_row_reg8(reg);
		row->cfa_offset = (int64_t)u;
		return 0;
	case DW_CFA_def_cfa_register:
		if (uw_rd_uleb(&x->r, &reg) < 0)
			return -1;
		if (row->cfa_kind != UW_CFA_REG_OFFSET)
			return uw_row_malformed(x, start);
		row->cfa_reg = uw_row_reg8(reg);
		return 0;
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
		if (uw_row_cfa_offset(x, op == DW_CFA_def_cfa_offset_sf, &u) < 0)
			return -1;
		if (row->cfa_kind != UW_CFA_REG_OFFSET)
			return uw_row_malformed(x, start);
		row->cfa_offset = (int64_t)u;
		return 0;
	case DW_CFA_def_cfa_expression:
		if (uw_row_block(x, &b) < 0)
			return -1;
		row->cfa_kind = UW_CFA_EXPRESSION;
		row->cfa_expr = b;
		return 0;
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		if (uw_rd_uleb(&x->r, &reg) < 0 || uw_row_block(x, &b) < 0)
			return -1;
		uw_row_set(x, reg, op == DW_CFA_expression ?
			   UW_RULE_EXPRESSION : UW_RULE_VAL_EXPRESSION, 0);
		if (reg < UW_NREGS)
			row->rule[reg].expr = b;
		return 0;
	case DW_CFA_GNU_args_size:
		/* Only matters for landing pads, not for unwinding. */
		return uw_rd_uleb(&x->r, &u);
	default:
		return uw_row_malformed(x, start);
	}

restore:
	if (reg < UW_NREGS) {
		row->rule[reg] = x->initial->rule[reg];
		x->changed |= UW_REG_BIT(reg);
	}
	return 0;
}

/* The instructions of [pos, end), one work unit each.  The units are
 * counted here and spent when the run ends (the instructions spend
 * nothing else), so a run stops where one spend per instruction would:
 * before the instruction that would pass UW_MAX_CFA_INSNS, or the unit
 * that would pass max_work. */
static int uw_row_run(struct uw_row_exec *x, uint64_t pos, uint64_t end)
{
	struct uw_cursor *c = x->c;
	const uint32_t max_insns = UW_MAX_CFA_INSNS - x->insns;
	const uint32_t max_units = uw_work_left(c);
	uint32_t n = 0;
	int rc = 0;

	uw_reader_init(&x->r, c, c->state.section, pos, end);
	x->r.addr_size = c->state.cie.addr_size;
	/* bound: UW_MAX_CFA_INSNS over CIE and FDE together */
	while (!x->done && x->r.pos < x->r.end && n < max_insns &&
	       n < max_units) {
		n++;
		rc = uw_row_insn(x);
		if (rc < 0)
			break;
	}
	x->insns += n;
	(void)uw_spend(c, n);	/* no more than the units left */
	if (rc < 0 || x->done || x->r.pos >= x->r.end)
		return rc;
	/* An instruction is left, past a bound. */
	if (n == max_insns)
		return uw_row_malformed(x, x->r.pos);
	return uw_spend(c, 1);	/* the unit past max_work: stops */
}

#ifdef UW_CHECK_DELTA
/* The test builds' check (the sanitized core, the fuzzers): the row
 * compacted from its CIE's compacted row, c->state.compact_row, is the one that
 * compacting every register gives.  A difference traps. */
static void uw_row_check_delta(const struct uw_cursor *c,
			       const struct uw_row *base, uint32_t changed,
			       uint32_t general)
{
	const struct uw_compact_row *d = &c->state.compact_row;
	struct uw_compact_row f;
	uint32_t todo;
	unsigned i;

	if (uw_row_compact(c, &c->state.row, base, changed, NULL, 0,
			   c->state.cie.ra_reg, c->state.cie.signal, &f) != general ||
	    f.keep != d->keep || f.is_cfa != d->is_cfa ||
	    f.compute != d->compute || f.cfa_kind != d->cfa_kind ||
	    f.cfa_reg != d->cfa_reg || f.cfa_offset != d->cfa_offset ||
	    f.span_len != d->span_len || f.in_span != d->in_span ||
	    f.span_lo != d->span_lo || f.span_base != d->span_base ||
	    f.ra_reg != d->ra_reg || f.signal != d->signal ||
	    f.has_caller != d->has_caller)
		__builtin_trap();
	/* bound: one iteration per bit, < UW_NREGS */
	for (todo = f.compute; todo != 0; todo &= todo - 1) {
		i = (unsigned)__builtin_ctz(todo);
		if (f.kind[i] != d->kind[i] || f.reg[i] != d->reg[i] ||
		    f.offset[i] != d->offset[i])
			__builtin_trap();
	}
}
#endif

/* After the CIE's instructions (x's run over the ABI's row): without an
 * advance (which would depend on the FDE's pc_begin) or an open
 * remember_state, their row is the same for every FDE of the CIE, so the
 * CIE's entry (e, in the cursor or the row cache: cfi.c) keeps it, whole
 * and compacted, as the FDE's base.  Else the FDE's run goes on over the
 * ABI's row (its remembered states are relative to it), and the CIE's row
 * is only what DW_CFA_restore restores to (state.cie_row).  Not inlined:
 * its frame stays out of the stack budget's deepest chain
 * (uw_row_compute, uw_row_run, the reads). */
static __attribute__((__noinline__)) void
uw_row_cie_done(struct uw_row_exec *x, struct uw_cie_entry *e)
{
	struct uw_cursor *c = x->c;
	const struct uw_row *abi = &c->state.arch_desc->abi_row;
	struct uw_row *whole = &c->state.cie_row;

	e->row_valid = !x->advanced && !x->done && x->depth == 0;
	if (e->row_valid) {
		whole = &e->row;
		e->insns = x->insns;
		e->general = uw_row_compact(c, &c->state.row, abi, x->changed,
					    &c->state.arch_desc->abi_compact_row, 0,
					    c->state.cie.ra_reg, c->state.cie.signal,
					    &e->compact_row);
	}
	uw_row_copy(whole, abi, UW_ROW_ALL & ~x->changed);
	uw_row_copy(whole, &c->state.row, x->changed);
}

/* x at the start of c->state.fde, for the row of link-time pc: the CIE's
 * instructions run from the ABI's row (or the row they made, kept), and
 * c->state.row the row the FDE's instructions start from, *base the
 * unchanged registers'.  Inlined into its two callers: its frame would
 * join the stack budget's deepest chain (uw_row_compute, uw_row_run). */
static inline __attribute__((__always_inline__)) int
uw_row_begin(struct uw_cursor *c, struct uw_row_exec *x, uint64_t pc,
	     const struct uw_row **base)
{
	struct uw_cie_entry *e = c->state.cie_entry;

	*base = &c->state.arch_desc->abi_row;
	x->c = c;
	x->pc = pc;
	x->loc = c->state.fde.pc_begin;
	x->initial = *base;
	if (!e->row_valid) {
		uw_row_copy(&c->state.row, *base, 0);
		if (uw_row_run(x, c->state.cie.insn_pos,
			       c->state.cie.insn_end) < 0)
			return -1;
		uw_row_cie_done(x, e);
	} else {
		x->insns = e->insns;
	}
	if (e->row_valid) {
		/* The CIE's row does not depend on the FDE: the FDE's base. */
		*base = &e->row;
		x->initial = *base;
		x->changed = 0;
		uw_row_copy(&c->state.row, *base, 0);
	} else {
		x->initial = &c->state.cie_row;
	}
	return 0;
}

/* The row x's run reached, compacted into c->state.compact_row.  Returns
 * its general registers (uw_row_compact): 0 = it can be kept. */
static inline __attribute__((__always_inline__)) uint32_t
uw_row_end(struct uw_cursor *c, const struct uw_row_exec *x,
	   const struct uw_row *base)
{
	const struct uw_cie_entry *e = c->state.cie_entry;
	uint32_t general;

	c->state.row_base = base;
	c->state.row_changed = x->changed;
	general = uw_row_compact(c, &c->state.row, base, x->changed,
				 e->row_valid ? &e->compact_row :
				 &c->state.arch_desc->abi_compact_row,
				 e->row_valid ? e->general : 0,
				 c->state.cie.ra_reg, c->state.cie.signal,
				 &c->state.compact_row);
#ifdef UW_CHECK_DELTA
	uw_row_check_delta(c, base, x->changed, general);
#endif
	c->state.compact_row.fde_begin = c->state.fde.pc_begin;
	c->state.compact_row.fde_end = c->state.fde.pc_end;
	return general;
}

/* The row for link-time pc in c->state.cie and c->state.fde: the CIE's
 * instructions from the ABI's row (or the row they made, kept), then
 * the FDE's, compacted into c->state.compact_row. */
UW_INTERNAL int uw_row_compute(struct uw_cursor *c, uint64_t pc)
{
	struct uw_row_exec x = { 0 };
	struct uw_pc_range *r = &c->state.row_pcs;
	const struct uw_row *base;

	if (uw_row_begin(c, &x, pc, &base) < 0 ||
	    uw_row_run(&x, c->state.fde.insn_pos, c->state.fde.insn_end) < 0)
		return -1;
	/* Every pc from the row's start to the advance that ended it (or
	 * the FDE's end) runs the same instructions, so gets the same row,
	 * where the search finds the same FDE.  An advance backwards
	 * (hostile) leaves pc alone. */
	r->lo = x.loc > c->state.fde_pcs.lo ? x.loc : c->state.fde_pcs.lo;
	r->hi = x.done && x.next < c->state.fde.pc_end ? x.next :
		c->state.fde.pc_end;
	if (r->hi > c->state.fde_pcs.hi)
		r->hi = c->state.fde_pcs.hi;
	if (r->hi <= pc || r->lo > pc)
		*r = (struct uw_pc_range){ pc, pc + 1 };
	return uw_row_end(c, &x, base) == 0;
}

UW_INTERNAL int uw_row_each(struct uw_cursor *c, uw_row_visit visit,
			    void *arg)
{
	struct uw_row_exec x = { 0 };
	const uint64_t end = c->state.fde.pc_end;
	const struct uw_row *base;
	uint64_t pos = c->state.fde.insn_pos, hi;
	uint32_t rows;
	int rc;

	if (uw_row_begin(c, &x, c->state.fde.pc_begin, &base) < 0)
		return visit(c, c->state.fde.pc_begin, end, -1, arg);
	/* Each row but the last ends at an advance, which is an instruction
	 * run.  bound: UW_MAX_CFA_INSNS + 1 rows */
	for (rows = 0; rows <= UW_MAX_CFA_INSNS; rows++) {
		if (uw_row_run(&x, pos, c->state.fde.insn_end) < 0)
			/* Every pc from here on stops where this run did. */
			return visit(c, x.loc, end, -1, arg);
		/* The row holds up to the advance that ended it, or to the
		 * FDE's end; an advance backwards (hostile) ends every pc's
		 * run from here on at the same place. */
		hi = x.done && x.next > x.loc && x.next < end ? x.next : end;
		rc = visit(c, x.loc, hi, uw_row_end(c, &x, base) == 0, arg);
		if (rc != 0 || hi == end)
			return rc;
		x.loc = x.next;
		x.pc = x.next;
		x.done = 0;
		pos = x.r.pos;
	}
	return 0;
}

/* Decode a DWARF expression block of the shape "DW_OP_breg<reg> off" (and
 * then DW_OP_deref if deref) from a local section, with reg < nregs,
 * without touching the cursor's stop state.  1 = that shape, 0 = anything
 * else (then the expression stays general). */
static int uw_row_breg(const struct uw_cursor *c, const struct uw_block *b,
		       int deref, uint8_t *reg, int64_t *off)
{
	const struct uw_section *sec = c->state.section;
	const uint8_t *p;
	uint32_t n;

	if (!sec || !sec->data || b->len < 2 || b->len > 7 ||
	    b->len > sec->size || b->pos > sec->size - b->len)
		return 0;
	p = sec->data + b->pos;
	n = (uint32_t)b->len - (deref ? 1 : 0);
	if (n < 2)
		return 0;
	if (p[0] < DW_OP_breg0 || p[0] - DW_OP_breg0 >= c->state.arch_desc->nregs)
		return 0;
	if (deref && p[n] != DW_OP_deref)
		return 0;
	/* The SLEB128 offset must end exactly at byte n - 1. */
	if (!uw_sleb_exact(p + 1, n - 1, off))
		return 0;
	*reg = (uint8_t)(p[0] - DW_OP_breg0);
	return 1;
}

/* The extent of the memory slots, for one read (see struct
 * uw_compact_row): those relative to the CFA if there are any, else those
 * relative to the base register of the first AT_REG_OFFSET rule. */
UW_INTERNAL void uw_row_span(struct uw_compact_row *out, uint8_t addr_size)
{
	uint64_t lo = 0, hi = 0;	/* offsets, compared as signed */
	uint32_t members = 0;		/* the registers whose slots they are */
	uint32_t todo;
	unsigned i;
	int any = 0;

	out->span_len = 0;
	out->in_span = 0;
	out->span_lo = 0;
	out->span_base = UW_NREGS;
	/* The computed registers in order.  bound: one iteration per bit,
	 * < UW_NREGS */
	for (todo = out->compute; todo != 0; todo &= todo - 1) {
		i = (unsigned)__builtin_ctz(todo);
		if (out->kind[i] == UW_RULE_OFFSET) {
			out->span_base = UW_NREGS;
			break;
		}
		if (out->kind[i] == UW_RULE_AT_REG_OFFSET &&
		    out->span_base == UW_NREGS)
			out->span_base = out->reg[i];
	}
	/* bound: one iteration per bit, < UW_NREGS */
	for (todo = out->compute; todo != 0; todo &= todo - 1) {
		uint64_t off;

		i = (unsigned)__builtin_ctz(todo);
		off = (uint64_t)out->offset[i];
		if (out->span_base == UW_NREGS ?
		    out->kind[i] != UW_RULE_OFFSET :
		    out->kind[i] != UW_RULE_AT_REG_OFFSET ||
		    out->reg[i] != out->span_base)
			continue;
		if (!any || (int64_t)off < (int64_t)lo)
			lo = off;
		if (!any || (int64_t)off > (int64_t)hi)
			hi = off;
		any = 1;
		members |= UW_REG_BIT(i);
	}
	/* Unsigned: hostile offsets far apart must not overflow. */
	if (any && (int64_t)lo == (int32_t)lo &&
	    hi - lo <= (uint64_t)(UW_ROW_MAX_SPAN - addr_size)) {
		out->span_lo = (int32_t)(int64_t)lo;
		out->span_len = (uint32_t)(hi - lo) + addr_size;
		out->in_span = members;
	}
}

/* The CFA's rule of row into out.  Returns UW_ROW_GENERAL_CFA if it stays
 * a general expression, else 0. */
static uint32_t uw_row_compact_cfa(const struct uw_cursor *c,
				   const struct uw_row *row,
				   struct uw_compact_row *out)
{
	out->cfa_kind = row->cfa_kind;
	out->cfa_reg = row->cfa_reg;
	out->cfa_offset = row->cfa_offset;
	if (row->cfa_kind != UW_CFA_EXPRESSION)
		return 0;
	if (!uw_row_breg(c, &row->cfa_expr, 1, &out->cfa_reg,
			 &out->cfa_offset))
		return UW_ROW_GENERAL_CFA;
	out->cfa_kind = UW_CFA_AT_REG_OFFSET;
	return 0;
}

/* Register i's rule into out, whose masks do not have i yet.  Returns
 * UW_REG_BIT(i) if it stays a general expression, else 0. */
static uint32_t uw_row_compact_reg(const struct uw_cursor *c,
				   const struct uw_reg_rule *rule, unsigned i,
				   struct uw_compact_row *out)
{
	out->kind[i] = rule->kind;
	out->reg[i] = rule->reg;
	out->offset[i] = rule->offset;
	switch (rule->kind) {
	case UW_RULE_UNDEFINED:
		return 0;
	case UW_RULE_SAME_VALUE:
		out->keep |= UW_REG_BIT(i);
		return 0;
	case UW_RULE_VAL_OFFSET:
		if (rule->offset == 0)
			out->is_cfa |= UW_REG_BIT(i);
		else
			out->compute |= UW_REG_BIT(i);
		return 0;
	case UW_RULE_EXPRESSION:
		out->compute |= UW_REG_BIT(i);
		if (!uw_row_breg(c, &rule->expr, 0, &out->reg[i],
				 &out->offset[i]))
			return UW_REG_BIT(i);
		out->kind[i] = UW_RULE_AT_REG_OFFSET;
		return 0;
	case UW_RULE_VAL_EXPRESSION:
		out->compute |= UW_REG_BIT(i);
		return UW_REG_BIT(i);
	default:
		out->compute |= UW_REG_BIT(i);
		return 0;
	}
}

/* Not inlined into uw_row_compute: its frame would join the deepest chain
 * of the stack budget (uw_row_compute, uw_row_run, the reads). */
UW_INTERNAL __attribute__((__noinline__)) uint32_t
uw_row_compact(const struct uw_cursor *c, const struct uw_row *row,
	       const struct uw_row *base, uint32_t changed,
	       const struct uw_compact_row *from, uint32_t general,
	       unsigned ra_reg, int signal, struct uw_compact_row *out)
{
	const struct uw_arch_desc *ad = c->state.arch_desc;
	/* Registers past nregs are never applied. */
	const uint32_t regs = UW_REG_BIT(ad->nregs) - 1;
	uint32_t todo;
	unsigned i;

	if (from) {
		/* The unchanged registers as base has them compacted; only
		 * the computed ones need their rule's fields. */
		general &= ~changed & regs;
		out->keep = from->keep & ~changed;
		out->is_cfa = from->is_cfa & ~changed;
		out->compute = from->compute & ~changed;
		/* bound: one iteration per bit, < UW_NREGS */
		for (todo = out->compute; todo != 0; todo &= todo - 1) {
			i = (unsigned)__builtin_ctz(todo);
			out->kind[i] = from->kind[i];
			out->reg[i] = from->reg[i];
			out->offset[i] = from->offset[i];
		}
		todo = changed & regs;
	} else {
		general = 0;
		out->keep = 0;
		out->is_cfa = 0;
		out->compute = 0;
		todo = regs;
	}
	general |= uw_row_compact_cfa(c, row, out);
	/* bound: one iteration per bit, < UW_NREGS */
	for (; todo != 0; todo &= todo - 1) {
		i = (unsigned)__builtin_ctz(todo);
		general |= uw_row_compact_reg(c, changed & UW_REG_BIT(i) ?
					      &row->rule[i] : &base->rule[i],
					      i, out);
	}
	uw_row_span(out, ad->addr_size);
	out->ra_reg = (uint8_t)(ra_reg < UW_NREGS ? ra_reg : UW_ROW_BAD_REG);
	out->has_caller = ra_reg < ad->nregs &&
			  ((out->keep | out->is_cfa | out->compute) &
			   UW_REG_BIT(ra_reg));
	out->signal = (uint8_t)signal;
	return general;
}
