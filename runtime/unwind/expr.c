/* DWARF expression evaluation (DWARF 5, 2.5) for CFI rules.
 *
 * A plain stack machine over address-sized values: on i386 every result is
 * wrapped to 32 bits and signed operations see 32-bit signed values.  Ops
 * that need a DIE context, typed stack entries, pieces or implicit values
 * have no meaning in a CFA/register rule and stop with UW_STOP_BAD_CFI.
 *
 * Bounds: at most UW_MAX_EXPR_OPS operations (this bounds loops built with
 * DW_OP_bra / DW_OP_skip), at most UW_MAX_EXPR_STACK entries, every operand
 * read through the bounded reader, every branch target checked to lie in
 * the block.
 */
#include "uw_internal.h"

struct uw_expr {
	struct uw_cursor *c;
	struct uw_reader r;
	const struct uw_regs *regs;
	uint64_t *stack;	/* c->state.stack */
	uint32_t sp;		/* entries in use */
	uint64_t mask;		/* address width */
	uint32_t bits;		/* 32 or 64 */
	uint64_t start;		/* section offset of the block */
	uint64_t at;		/* link-time address of the current op */
};

static int uw_expr_push(struct uw_expr *e, uint64_t v)
{
	if (e->sp == UW_MAX_EXPR_STACK)
		return uw_fail(e->c, UW_STOP_BAD_CFI, e->at);
	e->stack[e->sp++] = v & e->mask;
	return 0;
}

static int uw_expr_pop(struct uw_expr *e, uint64_t *v)
{
	if (e->sp == 0)
		return uw_fail(e->c, UW_STOP_BAD_CFI, e->at);
	*v = e->stack[--e->sp];
	return 0;
}

/* Signed view of an address-sized value. */
static int64_t uw_expr_signed(const struct uw_expr *e, uint64_t v)
{
	return (int64_t)uw_sign_extend(v, e->bits / 8);
}

static int uw_expr_reg(struct uw_expr *e, uint64_t reg, int64_t offset)
{
	if (reg >= UW_NREGS || !(e->regs->defined & UW_REG_BIT(reg)))
		return uw_fail(e->c, UW_STOP_REG_UNDEFINED, reg);
	return uw_expr_push(e, e->regs->val[reg] + (uint64_t)offset);
}

/* Binary operators: pops b (top) then a, pushes a OP b. */
static int uw_expr_binary(struct uw_expr *e, uint8_t op)
{
	uint64_t a = 0, b = 0, r;
	int64_t sa, sb;

	if (uw_expr_pop(e, &b) < 0 || uw_expr_pop(e, &a) < 0)
		return -1;
	sa = uw_expr_signed(e, a);
	sb = uw_expr_signed(e, b);
	switch (op) {
	case DW_OP_and:   r = a & b; break;
	case DW_OP_or:    r = a | b; break;
	case DW_OP_xor:   r = a ^ b; break;
	case DW_OP_plus:  r = a + b; break;
	case DW_OP_minus: r = a - b; break;
	case DW_OP_mul:   r = a * b; break;
	case DW_OP_div:
		/* Signed; b == -1 handled apart: MIN / -1 overflows. */
		if (b == 0)
			return uw_fail(e->c, UW_STOP_BAD_CFI, e->at);
		r = sb == -1 ? 0 - a : (uint64_t)(sa / sb);
		break;
	case DW_OP_mod:
		if (b == 0)
			return uw_fail(e->c, UW_STOP_BAD_CFI, e->at);
		r = a % b;
		break;
	case DW_OP_shl:   r = b >= e->bits ? 0 : a << b; break;
	case DW_OP_shr:   r = b >= e->bits ? 0 : a >> b; break;
	case DW_OP_shra:
		if (b >= e->bits)
			r = sa < 0 ? ~(uint64_t)0 : 0;
		else	/* arithmetic shift without relying on >> of negatives */
			r = sa < 0 ? ~(~(uint64_t)sa >> b) : (uint64_t)sa >> b;
		break;
	case DW_OP_eq:    r = sa == sb; break;
	case DW_OP_ge:    r = sa >= sb; break;
	case DW_OP_gt:    r = sa > sb; break;
	case DW_OP_le:    r = sa <= sb; break;
	case DW_OP_lt:    r = sa < sb; break;
	case DW_OP_ne:    r = sa != sb; break;
	default:
		return uw_fail(e->c, UW_STOP_BAD_CFI, e->at);
	}
	return uw_expr_push(e, r);
}

/* Relative branch: the target must lie within the block. */
static int uw_expr_jump(struct uw_expr *e, int16_t delta)
{
	uint64_t target = e->r.pos + (uint64_t)(int64_t)delta;

	if (target < e->start || target > e->r.end)
		return uw_fail(e->c, UW_STOP_BAD_CFI, e->at);
	e->r.pos = target;
	return 0;
}

/* One operation at e->r.pos. */
static int uw_expr_op(struct uw_expr *e, uint64_t cfa, int have_cfa)
{
	struct uw_cursor *c = e->c;
	uint64_t a = 0, b = 0, t, u = 0;
	int64_t s;
	uint8_t op, n8;

	e->at = e->r.sec->addr + e->r.pos;
	if (uw_rd_u8(&e->r, &op) < 0)
		return -1;

	if (op >= DW_OP_lit0 && op <= DW_OP_lit0 + 31)
		return uw_expr_push(e, op - DW_OP_lit0);
	if (op >= DW_OP_reg0 && op <= DW_OP_reg0 + 31)
		return uw_expr_reg(e, op - DW_OP_reg0, 0);
	if (op >= DW_OP_breg0 && op <= DW_OP_breg0 + 31) {
		if (uw_rd_sleb(&e->r, &s) < 0)
			return -1;
		return uw_expr_reg(e, op - DW_OP_breg0, s);
	}

	switch (op) {
	case DW_OP_addr:
		/* A link-time address in the module: relocate by bias. */
		if (uw_rd_uint(&e->r, e->r.addr_size, &u) < 0)
			return -1;
		return uw_expr_push(e, u + c->state.tables->bias);
	case DW_OP_const1u: case DW_OP_const1s:
	case DW_OP_const2u: case DW_OP_const2s:
	case DW_OP_const4u: case DW_OP_const4s:
	case DW_OP_const8u: case DW_OP_const8s:
		n8 = (uint8_t)(1u << ((op - DW_OP_const1u) / 2));
		if (uw_rd_uint(&e->r, n8, &u) < 0)
			return -1;
		if ((op - DW_OP_const1u) & 1)
			u = uw_sign_extend(u, n8);
		return uw_expr_push(e, u);
	case DW_OP_constu:
	case DW_OP_plus_uconst:
		if (uw_rd_uleb(&e->r, &u) < 0)
			return -1;
		if (op == DW_OP_constu)
			return uw_expr_push(e, u);
		if (uw_expr_pop(e, &a) < 0)
			return -1;
		return uw_expr_push(e, a + u);
	case DW_OP_consts:
		if (uw_rd_sleb(&e->r, &s) < 0)
			return -1;
		return uw_expr_push(e, (uint64_t)s);
	case DW_OP_dup:
	case DW_OP_over:
	case DW_OP_pick:
		if (op == DW_OP_pick) {
			if (uw_rd_u8(&e->r, &n8) < 0)
				return -1;
		} else {
			n8 = op == DW_OP_dup ? 0 : 1;
		}
		if (n8 >= e->sp)
			return uw_fail(c, UW_STOP_BAD_CFI, e->at);
		return uw_expr_push(e, e->stack[e->sp - 1 - n8]);
	case DW_OP_drop:
		return uw_expr_pop(e, &a);
	case DW_OP_swap:
		if (e->sp < 2)
			return uw_fail(c, UW_STOP_BAD_CFI, e->at);
		t = e->stack[e->sp - 1];
		e->stack[e->sp - 1] = e->stack[e->sp - 2];
		e->stack[e->sp - 2] = t;
		return 0;
	case DW_OP_rot:
		/* top three: (c b a) with a on top becomes (a c b) */
		if (e->sp < 3)
			return uw_fail(c, UW_STOP_BAD_CFI, e->at);
		t = e->stack[e->sp - 1];
		e->stack[e->sp - 1] = e->stack[e->sp - 2];
		e->stack[e->sp - 2] = e->stack[e->sp - 3];
		e->stack[e->sp - 3] = t;
		return 0;
	case DW_OP_deref:
	case DW_OP_deref_size:
		n8 = e->r.addr_size;
		if (op == DW_OP_deref_size) {
			if (uw_rd_u8(&e->r, &n8) < 0)
				return -1;
			if (n8 == 0 || n8 > e->r.addr_size)
				return uw_fail(c, UW_STOP_BAD_CFI, e->at);
		}
		if (uw_expr_pop(e, &a) < 0 ||
		    uw_read_target(c, a, n8, &u) < 0)
			return -1;
		return uw_expr_push(e, u);
	case DW_OP_abs:
	case DW_OP_neg:
	case DW_OP_not:
		if (uw_expr_pop(e, &a) < 0)
			return -1;
		if (op == DW_OP_not)
			return uw_expr_push(e, ~a);
		if (op == DW_OP_neg || uw_expr_signed(e, a) < 0)
			return uw_expr_push(e, 0 - a);
		return uw_expr_push(e, a);
	case DW_OP_and: case DW_OP_div: case DW_OP_minus: case DW_OP_mod:
	case DW_OP_mul: case DW_OP_or: case DW_OP_plus: case DW_OP_shl:
	case DW_OP_shr: case DW_OP_shra: case DW_OP_xor:
	case DW_OP_eq: case DW_OP_ge: case DW_OP_gt: case DW_OP_le:
	case DW_OP_lt: case DW_OP_ne:
		return uw_expr_binary(e, op);
	case DW_OP_skip:
	case DW_OP_bra:
		if (uw_rd_uint(&e->r, 2, &u) < 0)
			return -1;
		if (op == DW_OP_bra) {
			if (uw_expr_pop(e, &b) < 0)
				return -1;
			if (b == 0)
				return 0;
		}
		return uw_expr_jump(e, (int16_t)(uint16_t)u);
	case DW_OP_regx:
		if (uw_rd_uleb(&e->r, &u) < 0)
			return -1;
		return uw_expr_reg(e, u, 0);
	case DW_OP_bregx:
		if (uw_rd_uleb(&e->r, &u) < 0 || uw_rd_sleb(&e->r, &s) < 0)
			return -1;
		return uw_expr_reg(e, u, s);
	case DW_OP_nop:
		return 0;
	case DW_OP_call_frame_cfa:
		if (!have_cfa)
			return uw_fail(c, UW_STOP_BAD_CFI, e->at);
		return uw_expr_push(e, cfa);
	default:
		/* xderef*, fbreg, piece, call*, push_object_address,
		 * form_tls_address, implicit/stack value, typed and GNU ops:
		 * meaningless without a DIE context or a location. */
		return uw_fail(c, UW_STOP_BAD_CFI, e->at);
	}
}

UW_INTERNAL int uw_expr_eval(struct uw_cursor *c, const struct uw_block *b,
			     const struct uw_regs *regs, int have_cfa,
			     uint64_t cfa, int push_cfa, uint64_t *result)
{
	struct uw_expr e;
	uint32_t ops;

	if (b->len > c->state.section->size || b->pos > c->state.section->size - b->len)
		return uw_fail(c, UW_STOP_BAD_CFI, c->state.section->addr + b->pos);
	e.c = c;
	e.regs = regs;
	e.stack = c->state.stack;
	e.sp = 0;
	e.mask = c->state.arch_desc->addr_mask;
	e.bits = c->state.arch_desc->addr_size * 8;
	e.at = c->state.section->addr + b->pos;
	e.start = b->pos;
	uw_reader_init(&e.r, c, c->state.section, b->pos, b->pos + b->len);
	e.r.addr_size = c->state.arch_desc->addr_size;
	if (push_cfa && uw_expr_push(&e, cfa) < 0)
		return -1;
	/* bound: UW_MAX_EXPR_OPS operations, including branches */
	for (ops = 0; e.r.pos < e.r.end; ops++) {
		if (ops == UW_MAX_EXPR_OPS)
			return uw_fail(c, UW_STOP_BAD_CFI, e.at);
		if (uw_spend(c, 1) < 0)
			return -1;
		if (uw_expr_op(&e, cfa, have_cfa) < 0)
			return -1;
	}
	return uw_expr_pop(&e, result);
}
