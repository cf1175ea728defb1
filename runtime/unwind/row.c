/* Executing call frame instructions (DWARF 5, 6.4.2) into a row.
 *
 * The CIE's initial instructions run first, then the FDE's, both starting
 * at the FDE's pc_begin, until an advance would move past the pc: the row
 * at that point describes the pc.  Nothing here reads registers or target
 * memory; applying the row is step.c's job.
 *
 * Bounds: at most UW_MAX_CFA_INSNS instructions in total (instructions
 * never jump backwards, so this also bounds the loop), every operand is
 * read through the section-bounded reader, and remember_state nests at
 * most UW_MAX_REMEMBER deep.
 */
#include "uw_internal.h"

#define UW_CFA_advance_loc		0x40	/* high two bits */
#define UW_CFA_offset			0x80
#define UW_CFA_restore			0xc0
#define UW_CFA_nop			0x00
#define UW_CFA_set_loc			0x01
#define UW_CFA_advance_loc1		0x02
#define UW_CFA_advance_loc2		0x03
#define UW_CFA_advance_loc4		0x04
#define UW_CFA_offset_extended		0x05
#define UW_CFA_restore_extended		0x06
#define UW_CFA_undefined		0x07
#define UW_CFA_same_value		0x08
#define UW_CFA_register			0x09
#define UW_CFA_remember_state		0x0a
#define UW_CFA_restore_state		0x0b
#define UW_CFA_def_cfa			0x0c
#define UW_CFA_def_cfa_register		0x0d
#define UW_CFA_def_cfa_offset		0x0e
#define UW_CFA_def_cfa_expression	0x0f
#define UW_CFA_expression		0x10
#define UW_CFA_offset_extended_sf	0x11
#define UW_CFA_def_cfa_sf		0x12
#define UW_CFA_def_cfa_offset_sf	0x13
#define UW_CFA_val_offset		0x14
#define UW_CFA_val_offset_sf		0x15
#define UW_CFA_val_expression		0x16
#define UW_CFA_MIPS_advance_loc8	0x1d
#define UW_CFA_GNU_window_save		0x2d
#define UW_CFA_GNU_args_size		0x2e
#define UW_CFA_GNU_negative_offset_extended 0x2f

/* Register numbers that do not fit the row (SSE, x87, hostile): rules for
 * them are parsed and dropped; as a REGISTER source or CFA register they
 * become this, which step.c treats as undefined. */
#define UW_ROW_BAD_REG 0xff

struct uw_row_exec {
	struct uw_cursor *c;
	struct uw_reader r;
	uint64_t pc;		/* link-time pc whose row we want */
	uint64_t loc;		/* location the current row starts at */
	uint32_t insns;		/* executed so far, <= UW_MAX_CFA_INSNS */
	uint32_t depth;		/* remember_state stack depth */
	int in_cie;		/* restore: no CIE row yet */
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
	return (int64_t)(n * (uint64_t)c->ws.cie.data_align);
}

static void uw_row_set(struct uw_row_exec *x, uint64_t reg,
		       enum uw_rule_kind kind, int64_t offset)
{
	struct uw_reg_rule *rule;

	if (reg >= UW_NREGS)
		return;
	rule = &x->c->ws.row.rule[reg];
	*rule = (struct uw_reg_rule){ 0 };
	rule->kind = (uint8_t)kind;
	rule->offset = offset;
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
	if (new_loc > x->pc || new_loc < x->loc)
		x->done = 1;
	else
		x->loc = new_loc;
	return 0;
}

static int uw_row_advance_delta(struct uw_row_exec *x, uint64_t delta)
{
	return uw_row_advance(x, x->loc + delta * x->c->ws.cie.code_align);
}

/* One instruction at x->r.pos. */
static int uw_row_insn(struct uw_row_exec *x)
{
	struct uw_cursor *c = x->c;
	struct uw_row *row = &c->ws.row;
	uint64_t at = x->r.sec->addr + x->r.pos;
	uint64_t reg, u, v;
	int64_t s;
	uint8_t op;
	struct uw_block b;

	if (uw_rd_u8(&x->r, &op) < 0)
		return -1;
	switch (op & 0xc0) {
	case UW_CFA_advance_loc:
		return uw_row_advance_delta(x, op & 0x3f);
	case UW_CFA_offset:
		if (uw_rd_uleb(&x->r, &u) < 0)
			return -1;
		uw_row_set(x, op & 0x3f, UW_RULE_OFFSET, uw_row_factor(c, u));
		return 0;
	case UW_CFA_restore:
		reg = op & 0x3f;
		goto restore;
	default:
		break;
	}

	switch (op) {
	case UW_CFA_nop:
	case UW_CFA_GNU_window_save:	/* SPARC only; nothing on x86 */
		return 0;
	case UW_CFA_set_loc:
		x->r.datarel_base = c->ws.tables.data_base;
		if (uw_rd_encoded(&x->r, c->ws.cie.fde_enc, &u) < 0)
			return -1;
		return uw_row_advance(x, u);
	case UW_CFA_advance_loc1:
	case UW_CFA_advance_loc2:
	case UW_CFA_advance_loc4:
	case UW_CFA_MIPS_advance_loc8:
		if (uw_rd_uint(&x->r, op == UW_CFA_advance_loc1 ? 1 :
			       op == UW_CFA_advance_loc2 ? 2 :
			       op == UW_CFA_advance_loc4 ? 4 : 8, &u) < 0)
			return -1;
		return uw_row_advance_delta(x, u);
	case UW_CFA_offset_extended:
	case UW_CFA_val_offset:
	case UW_CFA_GNU_negative_offset_extended:
		if (uw_rd_uleb(&x->r, &reg) < 0 || uw_rd_uleb(&x->r, &u) < 0)
			return -1;
		if (op == UW_CFA_GNU_negative_offset_extended)
			u = 0 - u;
		uw_row_set(x, reg, op == UW_CFA_val_offset ?
			   UW_RULE_VAL_OFFSET : UW_RULE_OFFSET,
			   uw_row_factor(c, u));
		return 0;
	case UW_CFA_offset_extended_sf:
	case UW_CFA_val_offset_sf:
		if (uw_rd_uleb(&x->r, &reg) < 0 || uw_rd_sleb(&x->r, &s) < 0)
			return -1;
		uw_row_set(x, reg, op == UW_CFA_val_offset_sf ?
			   UW_RULE_VAL_OFFSET : UW_RULE_OFFSET,
			   uw_row_factor(c, (uint64_t)s));
		return 0;
	case UW_CFA_restore_extended:
		if (uw_rd_uleb(&x->r, &reg) < 0)
			return -1;
		goto restore;
	case UW_CFA_undefined:
	case UW_CFA_same_value:
		if (uw_rd_uleb(&x->r, &reg) < 0)
			return -1;
		uw_row_set(x, reg, op == UW_CFA_undefined ?
			   UW_RULE_UNDEFINED : UW_RULE_SAME_VALUE, 0);
		return 0;
	case UW_CFA_register:
		if (uw_rd_uleb(&x->r, &reg) < 0 || uw_rd_uleb(&x->r, &v) < 0)
			return -1;
		uw_row_set(x, reg, UW_RULE_REGISTER, 0);
		if (reg < UW_NREGS)
			row->rule[reg].reg = uw_row_reg8(v);
		return 0;
	case UW_CFA_remember_state:
		if (x->depth == UW_MAX_REMEMBER)
			return uw_fail(c, UW_STOP_BAD_CFI, at);
		c->ws.remembered[x->depth++] = *row;
		return 0;
	case UW_CFA_restore_state:
		if (x->depth == 0)
			return uw_fail(c, UW_STOP_BAD_CFI, at);
		*row = c->ws.remembered[--x->depth];
		return 0;
	case UW_CFA_def_cfa:
	case UW_CFA_def_cfa_sf:
		if (uw_rd_uleb(&x->r, &reg) < 0)
			return -1;
		if (op == UW_CFA_def_cfa) {
			if (uw_rd_uleb(&x->r, &u) < 0)
				return -1;
		} else {
			if (uw_rd_sleb(&x->r, &s) < 0)
				return -1;
			u = (uint64_t)uw_row_factor(c, (uint64_t)s);
		}
		row->cfa_kind = UW_CFA_REG_OFFSET;
		row->cfa_reg = uw_row_reg8(reg);
		row->cfa_offset = (int64_t)u;
		return 0;
	case UW_CFA_def_cfa_register:
		if (uw_rd_uleb(&x->r, &reg) < 0)
			return -1;
		if (row->cfa_kind != UW_CFA_REG_OFFSET)
			return uw_fail(c, UW_STOP_BAD_CFI, at);
		row->cfa_reg = uw_row_reg8(reg);
		return 0;
	case UW_CFA_def_cfa_offset:
	case UW_CFA_def_cfa_offset_sf:
		if (op == UW_CFA_def_cfa_offset) {
			if (uw_rd_uleb(&x->r, &u) < 0)
				return -1;
		} else {
			if (uw_rd_sleb(&x->r, &s) < 0)
				return -1;
			u = (uint64_t)uw_row_factor(c, (uint64_t)s);
		}
		if (row->cfa_kind != UW_CFA_REG_OFFSET)
			return uw_fail(c, UW_STOP_BAD_CFI, at);
		row->cfa_offset = (int64_t)u;
		return 0;
	case UW_CFA_def_cfa_expression:
		if (uw_row_block(x, &b) < 0)
			return -1;
		row->cfa_kind = UW_CFA_EXPRESSION;
		row->cfa_expr = b;
		return 0;
	case UW_CFA_expression:
	case UW_CFA_val_expression:
		if (uw_rd_uleb(&x->r, &reg) < 0 || uw_row_block(x, &b) < 0)
			return -1;
		uw_row_set(x, reg, op == UW_CFA_expression ?
			   UW_RULE_EXPRESSION : UW_RULE_VAL_EXPRESSION, 0);
		if (reg < UW_NREGS)
			row->rule[reg].expr = b;
		return 0;
	case UW_CFA_GNU_args_size:
		/* Only matters for landing pads, not for unwinding. */
		return uw_rd_uleb(&x->r, &u);
	default:
		return uw_fail(c, UW_STOP_BAD_CFI, at);
	}

restore:
	if (reg < UW_NREGS) {
		if (x->in_cie)
			row->rule[reg] = (struct uw_reg_rule){ 0 };
		else
			row->rule[reg] = c->ws.cie_row.rule[reg];
	}
	return 0;
}

static int uw_row_run(struct uw_row_exec *x, uint64_t pos, uint64_t end)
{
	uw_reader_init(&x->r, x->c, x->c->ws.sec, pos, end);
	x->r.addr_size = x->c->ws.cie.addr_size;
	/* bound: UW_MAX_CFA_INSNS over CIE and FDE together */
	while (!x->done && x->r.pos < x->r.end) {
		if (x->insns == UW_MAX_CFA_INSNS)
			return uw_fail(x->c, UW_STOP_BAD_CFI,
				       x->r.sec->addr + x->r.pos);
		x->insns++;
		x->c->work++;
		if (uw_row_insn(x) < 0)
			return -1;
	}
	return 0;
}

UW_INTERNAL int uw_row_compute(struct uw_cursor *c, uint64_t pc)
{
	struct uw_row_exec x = { 0 };

	x.c = c;
	x.pc = pc;
	x.loc = c->ws.fde.pc_begin;
	x.in_cie = 1;
	if (c->ws.cies[c->ws.cie_slot].row_valid) {
		/* The CIE's initial row does not depend on the FDE. */
		c->ws.row = c->ws.cies[c->ws.cie_slot].row;
		x.insns = c->ws.cies[c->ws.cie_slot].insns;
	} else {
		c->ws.row = (struct uw_row){ 0 };
		if (uw_row_run(&x, c->ws.cie.insn_pos, c->ws.cie.insn_end) < 0)
			return -1;
		/* Without an advance (which would depend on the FDE's
		 * pc_begin) or an open remember_state, the row can be
		 * reused for every FDE of this CIE in this unwind. */
		if (!x.advanced && !x.done && x.depth == 0) {
			c->ws.cies[c->ws.cie_slot].row = c->ws.row;
			c->ws.cies[c->ws.cie_slot].insns = x.insns;
			c->ws.cies[c->ws.cie_slot].row_valid = 1;
		}
	}
	c->ws.cie_row = c->ws.row;
	x.in_cie = 0;
	if (uw_row_run(&x, c->ws.fde.insn_pos, c->ws.fde.insn_end) < 0)
		return -1;
	return 0;
}
