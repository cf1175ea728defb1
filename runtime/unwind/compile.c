/* Compiling an object's CFI into a sorted table of compiled rows (struct
 * uw_compiled_table, unwind_core.h; the rows' format: uw_internal.h,
 * "Compiled rows"), so that a step finds its row by a binary search.
 *
 * The table answers for every pc what the parse would: it follows the
 * search the parse makes (cfi.c), by the host's index or by
 * .eh_frame_hdr's table, entry by entry.  Entry i of that search serves
 * the pcs from its start to the next entry's start, and for them the
 * parse takes its FDE (or, in an index, the last two FDEs of the same
 * start, the later first): their rows are those that FDE's instructions
 * make (row.c: uw_row_each, the parse's own run), and the pcs it does not
 * cover have none.  A row the compiled form cannot say, and every pc where
 * the parse stops (malformed CFI, past a bound), is marked for the parse.
 * So a step is the same with a compiled table as without one; the rows
 * that can be said are checked by decoding them again (uw_compiled_decode)
 * before they are kept, and whole objects by testsuite/harness/uw-compiled-diff.
 *
 * Rows next to each other with the same rule are one row.  Bounds: each
 * uw_compile_run call compiles at most max_fdes of the search's entries,
 * each FDE's run at most UW_MAX_CFA_INSNS instructions and as many rows.
 */
#include "uw_internal.h"

/* The slot of callee-saved register i of ad in a compiled row of the
 * compact row r, or 8 if it has none. */
static unsigned uw_compile_slot(const struct uw_arch_desc *ad,
				const struct uw_compact_row *r, unsigned i)
{
	const unsigned reg = ad->saved[i];
	const uint32_t bit = UW_REG_BIT(reg);
	int64_t words;

	if (r->keep & bit)
		return UW_COMPILED_SLOT_KEPT;
	if (r->is_cfa & bit)
		return 8;
	if (!(r->compute & bit))
		return UW_COMPILED_SLOT_LOST;
	if (r->kind[reg] != UW_RULE_OFFSET || r->offset[reg] >= 0 ||
	    -r->offset[reg] % ad->addr_size != 0)
		return 8;
	words = -r->offset[reg] / ad->addr_size;
	if (words < UW_COMPILED_SLOT_MIN || words > UW_COMPILED_SLOT_MASK)
		return 8;
	return (unsigned)words;
}

/* The compiled row of r, or UW_COMPILED_PARSE and the reason in *why.
 * A CFA in a register other than the sp and the bp (a function that
 * realigns its stack keeps it in another) is in the rule as the sp's,
 * and *base names it: the rule then holds only as a table's unpacked
 * rule with that base (uw_compile_unpacked).  Else *base is UW_NREGS. */
static uint32_t uw_compile_encode(const struct uw_arch_desc *ad,
				  const struct uw_compact_row *r,
				  enum uw_compile_why *why, unsigned *base)
{
	const uint32_t ra = UW_REG_BIT(ad->ra_reg), sp = UW_REG_BIT(ad->sp_reg);
	uint32_t rule = 0, slots = 0, saved = 0;
	uint64_t words;
	unsigned i, slot;

	*base = UW_NREGS;
	if (r->signal) {
		*why = UW_COMPILE_WHY_SIGNAL;
		return UW_COMPILED_PARSE;
	}
	if (r->cfa_kind != UW_CFA_REG_OFFSET || r->cfa_reg >= ad->nregs ||
	    r->cfa_offset <= 0 || r->cfa_offset % ad->addr_size != 0 ||
	    (uint64_t)r->cfa_offset / ad->addr_size > UW_COMPILED_CFA_MAX) {
		*why = UW_COMPILE_WHY_CFA;
		return UW_COMPILED_PARSE;
	}
	words = (uint64_t)r->cfa_offset / ad->addr_size;
	rule = (uint32_t)words << UW_COMPILED_CFA_SHIFT;
	if (r->cfa_reg == ad->fp_reg)
		rule |= UW_COMPILED_BP;
	else if (r->cfa_reg != ad->sp_reg)
		*base = r->cfa_reg;
	if (r->ra_reg != ad->ra_reg) {
		*why = UW_COMPILE_WHY_RETURN;
		return UW_COMPILED_PARSE;
	}
	if (!r->has_caller) {
		rule |= UW_COMPILED_NO_CALLER;
	} else if (!(r->compute & ra) || r->kind[ad->ra_reg] != UW_RULE_OFFSET ||
		   r->offset[ad->ra_reg] != -(int64_t)ad->addr_size) {
		*why = UW_COMPILE_WHY_RETURN;
		return UW_COMPILED_PARSE;
	}
	/* bound: nsaved <= UW_COMPILED_SLOTS */
	for (i = 0; i < ad->nsaved; i++) {
		slot = uw_compile_slot(ad, r, i);
		if (slot > UW_COMPILED_SLOT_MASK) {
			*why = UW_COMPILE_WHY_SAVED;
			return UW_COMPILED_PARSE;
		}
		slots |= slot << (UW_COMPILED_SLOT_BITS * i);
		saved |= UW_REG_BIT(ad->saved[i]);
	}
	/* Every other register lost, the sp the CFA. */
	if (r->is_cfa != sp || ((r->keep | r->compute) & ~(saved | ra))) {
		*why = UW_COMPILE_WHY_OTHER;
		return UW_COMPILED_PARSE;
	}
	return rule | slots;
}

UW_INTERNAL void uw_compiled_unpack(const struct uw_arch_desc *ad,
				    uint32_t rule,
				    struct uw_compiled_unpacked *out)
{
	unsigned i, slot, words = uw_compiled_span(rule);

	*out = (struct uw_compiled_unpacked){ 0 };
	out->rule = rule;
	out->arch = (uint8_t)ad->arch;
	out->base = rule & UW_COMPILED_BP ? ad->fp_reg : ad->sp_reg;
	out->words = (uint8_t)words;
	out->cfa_offset = (rule >> UW_COMPILED_CFA_SHIFT) * ad->addr_size;
	out->defined = UW_REG_BIT(ad->sp_reg) | UW_REG_BIT(ad->ra_reg);
	/* bound: nsaved <= UW_COMPILED_SLOTS */
	for (i = 0; i < ad->nsaved; i++) {
		slot = (rule >> (UW_COMPILED_SLOT_BITS * i)) &
		       UW_COMPILED_SLOT_MASK;
		if (slot == UW_COMPILED_SLOT_KEPT) {
			out->keep |= UW_REG_BIT(ad->saved[i]);
		} else if (slot != UW_COMPILED_SLOT_LOST) {
			out->defined |= UW_REG_BIT(ad->saved[i]);
			out->reg[out->nsaved] = ad->saved[i];
			out->at[out->nsaved++] =
				(uint8_t)((words - slot) * ad->addr_size);
		}
	}
}

UW_INTERNAL void uw_compiled_decode(const struct uw_arch_desc *ad,
				    uint32_t rule, unsigned base,
				    struct uw_compact_row *out)
{
	struct uw_compiled_unpacked u;
	unsigned i, reg;

	uw_compiled_unpack(ad, rule, &u);
	*out = (struct uw_compact_row){ 0 };
	out->cfa_kind = UW_CFA_REG_OFFSET;
	out->cfa_reg = (uint8_t)(base < UW_NREGS ? base : u.base);
	out->cfa_offset = u.cfa_offset;
	out->ra_reg = ad->ra_reg;
	out->is_cfa = UW_REG_BIT(ad->sp_reg);
	out->keep = u.keep;
	out->has_caller = !(rule & UW_COMPILED_NO_CALLER);
	if (out->has_caller) {
		out->compute = UW_REG_BIT(ad->ra_reg);
		out->kind[ad->ra_reg] = UW_RULE_OFFSET;
		out->offset[ad->ra_reg] = -(int64_t)ad->addr_size;
	}
	/* bound: u.nsaved <= UW_COMPILED_SLOTS */
	for (i = 0; i < u.nsaved; i++) {
		reg = u.reg[i];
		out->compute |= UW_REG_BIT(reg);
		out->kind[reg] = UW_RULE_OFFSET;
		out->offset[reg] = (int64_t)u.at[i] -
				   (int64_t)u.words * ad->addr_size;
	}
	uw_row_span(out, ad->addr_size);
}

/* Do a and b say the same to the interpreter (step.c: uw_step_apply),
 * but for fde_begin and fde_end (stop reports, traces)? */
static int uw_compile_same(const struct uw_compact_row *a,
			   const struct uw_compact_row *b)
{
	uint32_t todo;
	unsigned i;

	if (a->cfa_kind != b->cfa_kind || a->cfa_reg != b->cfa_reg ||
	    a->cfa_offset != b->cfa_offset || a->keep != b->keep ||
	    a->is_cfa != b->is_cfa || a->compute != b->compute ||
	    a->span_len != b->span_len || a->in_span != b->in_span ||
	    a->span_lo != b->span_lo || a->span_base != b->span_base ||
	    a->ra_reg != b->ra_reg || a->signal != b->signal ||
	    a->has_caller != b->has_caller)
		return 0;
	/* bound: one iteration per bit, < UW_NREGS */
	for (todo = a->compute; todo != 0; todo &= todo - 1) {
		i = (unsigned)__builtin_ctz(todo);
		if (a->kind[i] != b->kind[i] || a->offset[i] != b->offset[i] ||
		    a->reg[i] != b->reg[i])
			return 0;
	}
	return 1;
}

/* A row from link-time pc lo (at or after the last one's start) with
 * rule.  0, or -1 (out full, an object over 4 GiB). */
static int uw_compile_append(struct uw_compiler *comp, uint64_t lo,
			     uint32_t rule)
{
	struct uw_compiler_state *s = &comp->state;

	if (lo - s->base > 0xffffffffu)
		return uw_fail_stop(&comp->stop, UW_STOP_BAD_ARGUMENT, lo);
	if (s->out) {
		if (comp->count == s->max)
			return uw_fail_stop(&comp->stop, UW_STOP_BAD_ARGUMENT,
					    comp->count);
		s->out[comp->count] = (struct uw_compiled_row){
			(uint32_t)(lo - s->base), rule };
	}
	comp->count++;
	s->last_rule = rule;
	s->last_start = (uint32_t)(lo - s->base);
	return 0;
}

/* The pcs [lo, hi) have rule (the part of them past those done): a new
 * row unless the last one has the same, after a gap row where no FDE
 * served the pcs between.  0, or -1 (out full, an object over 4 GiB). */
static int uw_compile_emit(struct uw_compiler *comp, uint64_t lo,
			   uint64_t hi, uint32_t rule)
{
	struct uw_compiler_state *s = &comp->state;

	if (hi <= lo || hi <= s->at)
		return 0;
	if (lo < s->at)
		lo = s->at;
	if (!s->any) {
		if (rule == s->gap)
			return 0;	/* below the table: outside */
		s->any = 1;
		s->base = lo;
	} else {
		if (lo > s->at && s->last_rule != s->gap &&
		    uw_compile_append(comp, s->at, s->gap) < 0)
			return -1;
		if (rule == s->last_rule) {
			s->at = hi;
			return 0;
		}
	}
	if (uw_compile_append(comp, lo, rule) < 0)
		return -1;
	s->at = hi;
	return 0;
}

/* Row r, which the compact form cannot say, kept whole: its rule, or
 * UW_COMPILED_PARSE where there is no room. */
static uint32_t uw_compile_full(struct uw_compiler *comp,
				const struct uw_compact_row *r)
{
	struct uw_compiler_state *s = &comp->state;

	if (comp->full_count > UW_COMPILED_INDEX_MAX ||
	    (s->out && comp->full_count == s->max_full))
		return UW_COMPILED_PARSE;
	if (s->out)
		s->full[comp->full_count] = *r;
	return UW_COMPILED_FULL |
	       comp->full_count++ << UW_COMPILED_INDEX_SHIFT;
}

/* Compact rule, with its CFA in register base where that is not the
 * rule's (uw_compile_encode; else base is UW_NREGS), as its table's rows
 * name it: the index of its unpacked entry (UW_COMPILED_UNPACKED), made
 * at its first row; or, where the table has UW_COMPILE_UNPACKED_MAX rules
 * already, the rule itself, or UW_COMPILED_PARSE for one with a base of
 * its own, which only an unpacked entry says.  A compile that counts
 * finds the same indices as the one that writes: both meet the rules in
 * the same order. */
static uint32_t uw_compile_unpacked(struct uw_compiler *comp, uint32_t rule,
				    unsigned base)
{
	struct uw_compiler_state *s = &comp->state;
	const uint8_t key = base < UW_NREGS ? (uint8_t)(base + 1) : 0;
	uint32_t h = ((rule + key * 0x9e3779b9u) * 0x9e3779b1u) >> 16, i;

	/* bound: UW_COMPILE_UNPACKED_SLOTS probes, at most half of them
	 * taken */
	for (i = 0; i < UW_COMPILE_UNPACKED_SLOTS; i++) {
		h &= UW_COMPILE_UNPACKED_SLOTS - 1;
		if (s->unpacked_rule[h] == rule && s->unpacked_base[h] == key)
			return UW_COMPILED_UNPACKED |
			       (uint32_t)s->unpacked_index[h]
			       << UW_COMPILED_INDEX_SHIFT;
		if (s->unpacked_rule[h] == 0)
			break;
		h++;
	}
	if (i == UW_COMPILE_UNPACKED_SLOTS ||
	    comp->unpacked_count == UW_COMPILE_UNPACKED_MAX ||
	    (s->out && comp->unpacked_count == s->max_unpacked))
		return key ? UW_COMPILED_PARSE : rule;
	s->unpacked_rule[h] = rule;
	s->unpacked_base[h] = key;
	s->unpacked_index[h] = (uint16_t)comp->unpacked_count;
	if (s->out) {
		uw_compiled_unpack(s->arch_desc, rule,
				   &s->unpacked[comp->unpacked_count]);
		if (key)
			s->unpacked[comp->unpacked_count].base = (uint8_t)base;
	}
	return UW_COMPILED_UNPACKED |
	       comp->unpacked_count++ << UW_COMPILED_INDEX_SHIFT;
}

/* The pcs [lo, hi) left to the parse, for why (UW_COMPILE_WHY_STOPS:
 * every pc there stops at the parse): a row for the parse. */
static int uw_compile_parse(struct uw_compiler *comp, uint64_t lo,
			    uint64_t hi, enum uw_compile_why why)
{
	if (hi <= lo)
		return 0;
	comp->stats.rows++;
	comp->stats.parse_rows++;
	comp->stats.why[why]++;
	comp->stats.bytes += hi - lo;
	comp->stats.parse_bytes += hi - lo;
	return uw_compile_emit(comp, lo, hi, UW_COMPILED_PARSE);
}

/* What uw_compile_fde's visits share. */
struct uw_compile_piece {
	struct uw_compiler *comp;
	uint64_t lo, hi;		/* the pcs this FDE serves */
	int failed;
};

/* c->state.compact_row for the pcs [lo, hi), within those p serves; ok
 * as uw_row_each's visitor has it.  0, or 1 (out full: p->failed). */
static int uw_compile_row(struct uw_compile_piece *p, struct uw_cursor *c,
			  uint64_t lo, uint64_t hi, int ok)
{
	struct uw_compiler *comp = p->comp;
	const struct uw_arch_desc *ad = comp->state.arch_desc;
	struct uw_compile_stats *st = &comp->stats;
	enum uw_compile_why why = UW_COMPILE_WHY_STOPS;
	struct uw_compact_row check;
	uint32_t rule = UW_COMPILED_PARSE;
	unsigned base = UW_NREGS;

	if (ok == 0)
		why = UW_COMPILE_WHY_EXPRESSION;
	if (ok == 1) {
		rule = uw_compile_encode(ad, &c->state.compact_row, &why,
					 &base);
		if (rule != UW_COMPILED_PARSE) {
			uw_compiled_decode(ad, rule, base, &check);
			if (!uw_compile_same(&check, &c->state.compact_row)) {
				rule = UW_COMPILED_PARSE;
				why = UW_COMPILE_WHY_OTHER;
			}
		}
	}
	st->rows++;
	st->bytes += hi - lo;
	if (uw_compiled_is_row(rule)) {
		rule = uw_compile_unpacked(comp, rule, base);
		if (rule == UW_COMPILED_PARSE)
			why = UW_COMPILE_WHY_CFA;
	}
	if (rule == UW_COMPILED_PARSE) {
		st->why[why]++;
		if (ok == 1)
			rule = uw_compile_full(comp, &c->state.compact_row);
		if (rule == UW_COMPILED_PARSE) {
			st->parse_rows++;
			st->parse_bytes += hi - lo;
		} else {
			st->full_rows++;
			st->full_bytes += hi - lo;
		}
	}
	if (uw_compile_emit(comp, lo, hi, rule) < 0) {
		p->failed = 1;
		return 1;
	}
	return 0;
}

/* The shape of the CFA expression binutils' ld writes for a lazy PLT
 * (bfd/elf64-x86-64.c and elf32-i386.c, the PLT's eh_frame):
 *   DW_OP_breg<sp> A; DW_OP_breg<pc> 0; DW_OP_lit15; DW_OP_and;
 *   DW_OP_lit<K>; DW_OP_ge; DW_OP_lit<S>; DW_OP_shl; DW_OP_plus
 * that is, the CFA is the sp plus A, plus 2^S from byte K of each
 * 16-byte entry on (past the entry's push).  1 with A, K and S, if the
 * row's CFA is that expression and nothing else of the row is one; else
 * 0. */
static int uw_compile_plt_shape(const struct uw_cursor *c, int64_t *a,
				unsigned *k, unsigned *s)
{
	const struct uw_arch_desc *ad = c->state.arch_desc;
	const struct uw_compact_row *r = &c->state.compact_row;
	const struct uw_block *b = &c->state.row.cfa_expr;
	const struct uw_section *sec = c->state.section;
	static const uint8_t tail[] = { DW_OP_lit0 + 15, DW_OP_and, 0, DW_OP_ge,
					0, DW_OP_shl, DW_OP_plus };
	const uint8_t *x;
	uint32_t todo, i, n;

	if (r->cfa_kind != UW_CFA_EXPRESSION)
		return 0;
	/* bound: one iteration per bit, < UW_NREGS */
	for (todo = r->compute; todo != 0; todo &= todo - 1) {
		i = (unsigned)__builtin_ctz(todo);
		if (r->kind[i] == UW_RULE_EXPRESSION ||
		    r->kind[i] == UW_RULE_VAL_EXPRESSION)
			return 0;
	}
	/* breg<sp> with a SLEB128 of 1 or 2 bytes, breg<pc> 0, the tail. */
	if (!sec || !sec->data || b->len < 2 + 2 + sizeof(tail) ||
	    b->len > 3 + 2 + sizeof(tail) || b->len > sec->size ||
	    b->pos > sec->size - b->len)
		return 0;
	x = sec->data + b->pos;
	n = (uint32_t)(b->len - 2 - sizeof(tail));	/* breg<sp> and A */
	if (x[0] != DW_OP_breg0 + ad->sp_reg || !uw_sleb_exact(x + 1, n - 1, a))
		return 0;
	x += n;
	if (x[0] != DW_OP_breg0 + ad->ra_reg || x[1] != 0)
		return 0;
	x += 2;
	for (i = 0; i < sizeof(tail); i++)	/* bound: sizeof(tail) */
		if (tail[i] && x[i] != tail[i])
			return 0;
	if (x[2] < DW_OP_lit0 || x[2] > DW_OP_lit0 + 15 ||
	    x[4] < DW_OP_lit0 || x[4] > DW_OP_lit0 + 8)
		return 0;
	*k = x[2] - DW_OP_lit0;
	*s = x[4] - DW_OP_lit0;
	return 1;
}

/* The CFA's offset from the sp at pc, by uw_compile_plt_shape's
 * expression. */
static int64_t uw_compile_plt_offset(uint64_t pc, int64_t a, unsigned k,
				     unsigned s)
{
	return a + ((pc & 15) >= k ? (int64_t)1 << s : 0);
}

/* A PLT's row, whose CFA is uw_compile_plt_shape's expression, compiled
 * pc by pc for the pcs [lo, hi): the sp plus the expression's value
 * there.  The expression reads the pc itself, where the table is looked
 * up by the lookup pc: at a pc the step does not know to be exact (a
 * return address, the lookup pc then one below it) the expression reads
 * the pc above the lookup pc.  So a lookup pc gets the sp's row where
 * both pcs give the same value, and the parse where they differ (the
 * byte before K and the entry's last byte: neither starts an
 * instruction of a PLT entry).  The pcs are link-time, and the
 * expression reads only their low 4 bits: an object is mapped at a page
 * boundary (fs/binfmt_elf.c, load_bias: ELF_PAGESTART), so a runtime pc
 * has the same.  Only for a PLT's size (UW_COMPILE_PLT_MAX bytes);
 * larger, the parse.  1, compiled (or out full: p->failed), else 0. */
#define UW_COMPILE_PLT_MAX 65536
static int uw_compile_plt(struct uw_compile_piece *p, struct uw_cursor *c,
			  uint64_t lo, uint64_t hi)
{
	struct uw_compact_row *r = &c->state.compact_row;
	const struct uw_compact_row saved = *r;
	uint64_t pc, start = lo;
	int64_t a, off, run = 0;
	unsigned k, s;
	int exact_run = 0, same, rc = 0;

	if (hi - lo > UW_COMPILE_PLT_MAX || !uw_compile_plt_shape(c, &a, &k, &s))
		return 0;
	r->cfa_kind = UW_CFA_REG_OFFSET;
	r->cfa_reg = c->state.arch_desc->sp_reg;
	/* bound: hi - lo <= UW_COMPILE_PLT_MAX pcs, then one more turn */
	for (pc = lo; pc <= hi && rc == 0; pc++) {
		off = uw_compile_plt_offset(pc, a, k, s);
		same = off == uw_compile_plt_offset(pc + 1, a, k, s);
		if (pc > lo && (pc == hi || same != exact_run ||
				(same && off != run))) {
			r->cfa_offset = run;
			if (exact_run)
				rc = uw_compile_row(p, c, start, pc, 1);
			else if (uw_compile_parse(p->comp, start, pc,
						  UW_COMPILE_WHY_PLT) < 0)
				rc = p->failed = 1;
			start = pc;
		}
		exact_run = same;
		run = off;
	}
	*r = saved;
	return 1;
}

static int uw_compile_visit(struct uw_cursor *c, uint64_t lo, uint64_t hi,
			    int ok, void *arg)
{
	struct uw_compile_piece *p = arg;

	if (lo < p->lo)
		lo = p->lo;
	if (hi > p->hi)
		hi = p->hi;
	if (hi <= lo)
		return 0;
	if (ok == 0 && uw_compile_plt(p, c, lo, hi))
		return p->failed;
	return uw_compile_row(p, c, lo, hi, ok);
}

/* The rows of the FDE at pos of sec for the pcs [lo, hi) that it serves;
 * pcs there it does not cover have none.  0, or -1 (out full). */
static int uw_compile_fde(struct uw_compiler *comp, struct uw_cursor *c,
			  const struct uw_section *sec, uint64_t pos,
			  uint64_t lo, uint64_t hi)
{
	struct uw_compile_piece p = { comp, lo, hi, 0 };
	uint64_t begin, end;

	if (hi <= lo)
		return 0;
	c->work_total = 0;
	c->stop.reason = UW_STOP_NONE;
	if (uw_cfi_fde_at(c, sec, pos) < 0)
		return uw_compile_parse(comp, lo, hi, UW_COMPILE_WHY_STOPS);
	comp->stats.fdes++;
	begin = c->state.fde.pc_begin;
	end = c->state.fde.pc_end;
	if (begin > lo && uw_compile_emit(comp, lo, begin < hi ? begin : hi,
					  comp->state.gap) < 0)
		return -1;
	(void)uw_row_each(c, uw_compile_visit, &p);
	if (p.failed)
		return -1;
	return uw_compile_emit(comp, end > lo ? end : lo, hi, comp->state.gap);
}

/* The FDE that would parse first at a pc of [lo, hi), when its pcs are
 * those of index entries [i, j), which start at the same pc: the last
 * of them, then the one before it where the last does not cover the pc
 * (cfi.c: uw_cfi_search_index). */
static int uw_compile_index_group(struct uw_compiler *comp,
				  struct uw_cursor *c, uint32_t i, uint32_t j,
				  uint64_t lo, uint64_t hi)
{
	const struct uw_tables *t = &comp->state.tables;
	const struct uw_index_entry *a = &t->index[j - 1], *b;
	const struct uw_section *sa, *sb;
	uint64_t a_begin, a_end;

	sa = a->in_debug_frame ? &t->debug_frame : &t->eh_frame;
	if (j - i < 2)
		return uw_compile_fde(comp, c, sa, a->pos, lo, hi);
	/* Two candidates: where the later covers the pc, it serves it;
	 * elsewhere the one before.  Where the later does not parse, the
	 * parse stops for every pc. */
	b = &t->index[j - 2];
	sb = b->in_debug_frame ? &t->debug_frame : &t->eh_frame;
	c->stop.reason = UW_STOP_NONE;
	if (uw_cfi_fde_at(c, sa, a->pos) < 0)
		return uw_compile_parse(comp, lo, hi, UW_COMPILE_WHY_STOPS);
	a_begin = c->state.fde.pc_begin < lo ? lo : c->state.fde.pc_begin;
	a_end = c->state.fde.pc_end > hi ? hi : c->state.fde.pc_end;
	if (a_end <= a_begin)
		return uw_compile_fde(comp, c, sb, b->pos, lo, hi);
	if (uw_compile_fde(comp, c, sb, b->pos, lo, a_begin) < 0 ||
	    uw_compile_fde(comp, c, sa, a->pos, a_begin, a_end) < 0)
		return -1;
	return uw_compile_fde(comp, c, sb, b->pos, a_end, hi);
}

UW_API int uw_compile_begin(struct uw_compiler *comp, enum uw_arch arch,
			    const struct uw_tables *t,
			    struct uw_compiled_row *out, uint32_t max,
			    struct uw_compact_row *full, uint32_t max_full,
			    struct uw_compiled_unpacked *unpacked,
			    uint32_t max_unpacked)
{
	const struct uw_arch_desc *ad = uw_arch_get(arch);
	struct uw_compiler_state *s = &comp->state;
	const struct uw_section *secs[3];
	int i;

	comp->count = 0;
	comp->full_count = 0;
	comp->unpacked_count = 0;
	comp->stats = (struct uw_compile_stats){ 0 };
	comp->stop = (struct uw_stop){ UW_STOP_NONE, 0, 0, NULL };
	*s = (struct uw_compiler_state){ 0 };
	if (!ad || !t)
		return uw_fail_stop(&comp->stop, UW_STOP_BAD_ARGUMENT, 0);
	secs[0] = &t->eh_frame_hdr;
	secs[1] = &t->eh_frame;
	secs[2] = &t->debug_frame;
	for (i = 0; i < 3; i++)		/* bound: 3 sections */
		if (secs[i]->size != 0 &&
		    (!secs[i]->data || secs[i]->size >= ((uint64_t)1 << 32)))
			return uw_fail_stop(&comp->stop, UW_STOP_BAD_ARGUMENT,
					    secs[i]->addr);
	s->arch_desc = ad;
	s->tables = *t;
	s->tables.compiled = NULL;
	s->out = out;
	s->max = out ? max : 0;
	s->full = out ? full : NULL;
	s->max_full = out && full ? max_full : 0;
	s->unpacked = out ? unpacked : NULL;
	s->max_unpacked = out && unpacked ? max_unpacked : 0;
	s->by_index = t->index_count != 0;
	s->total = t->index_count;
	/* Pcs no FDE serves: none in the search, or, after a header's
	 * search, the scan of .debug_frame, which the parse makes. */
	s->gap = !s->by_index && t->debug_frame.size != 0 ?
		 UW_COMPILED_PARSE : UW_COMPILED_NONE;
	return 0;
}

/* The header's table, at the first run: it must be one the search uses,
 * in order (else the search's answers are not entry by entry). */
static int uw_compile_open(struct uw_compiler *comp, struct uw_cursor *c)
{
	struct uw_compiler_state *s = &comp->state;
	int rc;

	s->opened = 1;
	if (s->by_index)
		return 0;
	rc = uw_cfi_hdr_table(c, &s->hdr);
	if (rc != 1 || s->tables.eh_frame.size == 0)
		return uw_fail_stop(&comp->stop, rc < 0 ? c->stop.reason :
				    UW_STOP_BAD_ARGUMENT,
				    s->tables.eh_frame_hdr.addr);
	s->total = s->hdr.count;
	return 0;
}

/* Search entry n: the pcs it serves, [*lo, *hi) (empty where the next
 * entry starts at the same pc), the FDE it gives (*pos; *fde_ok 0 where
 * its address is outside .eh_frame, and the parse stops at those pcs),
 * and how many entries it takes (an index's entries of one start are
 * one).  0, or -1 on a stop in c->stop: a header whose table is not in
 * order, so that the search's answers are not entry by entry. */
static int uw_compile_entry(struct uw_compiler *comp, struct uw_cursor *c,
			    uint64_t n, uint64_t *lo, uint64_t *hi,
			    uint64_t *pos, int *fde_ok, uint32_t *taken)
{
	const struct uw_compiler_state *s = &comp->state;
	const struct uw_index_entry *ix = s->tables.index;
	uint64_t j, next, next_pos;
	int rc;

	*hi = ~(uint64_t)0;
	*fde_ok = 1;
	if (s->by_index) {
		*lo = ix[n].pc_begin;
		/* bound: the index's entries */
		for (j = n + 1; j < s->total && ix[j].pc_begin == *lo; j++)
			;
		if (j < s->total)
			*hi = ix[j].pc_begin;
		*taken = (uint32_t)(j - n);
		return 0;
	}
	*taken = 1;
	rc = uw_cfi_hdr_entry(c, &s->hdr, n, lo, pos);
	if (rc < 0)
		return -1;
	*fde_ok = rc == 0;
	if (n + 1 < s->total) {
		if (uw_cfi_hdr_entry(c, &s->hdr, n + 1, &next, &next_pos) < 0)
			return -1;
		if (next < *lo)
			return uw_fail(c, UW_STOP_BAD_CFI,
				       s->tables.eh_frame_hdr.addr);
		*hi = next;
	}
	return 0;
}

UW_API int uw_compile_run(struct uw_compiler *comp, struct uw_cursor *scratch,
			  uint32_t max_fdes)
{
	struct uw_compiler_state *s = &comp->state;
	struct uw_cursor *c = scratch;
	uint64_t lo, hi, pos = 0;
	uint32_t done, taken;
	int fde_ok, rc;

	if (comp->stop.reason != UW_STOP_NONE)
		return -1;
	if (s->done)
		return 0;
	/* No host: the sections are local, nothing is read_mem'd. */
	uw_cursor_reset(c, s->arch_desc, NULL, NULL);
	c->arch = s->arch_desc->arch;
	c->max_work = ~(uint32_t)0;
	*c->state.tables = s->tables;
	if (!s->opened && uw_compile_open(comp, c) < 0)
		return -1;
	/* bound: max_fdes entries */
	for (done = 0; done < max_fdes && s->next < s->total; done++) {
		c->stop.reason = UW_STOP_NONE;
		if (uw_compile_entry(comp, c, s->next, &lo, &hi, &pos, &fde_ok,
				     &taken) < 0) {
			comp->stop = c->stop;
			return -1;
		}
		if (s->by_index)
			rc = uw_compile_index_group(comp, c, (uint32_t)s->next,
						    (uint32_t)s->next + taken,
						    lo, hi);
		else if (fde_ok)
			rc = uw_compile_fde(comp, c, &s->tables.eh_frame, pos,
					    lo, hi);
		else
			rc = uw_compile_parse(comp, lo, hi, UW_COMPILE_WHY_STOPS);
		if (rc < 0)
			return -1;
		s->next += taken;
	}
	if (s->next < s->total)
		return 1;
	/* After the last FDE's pcs, none: the last row, with the gap's
	 * rule, holds for every pc from there on (unless the last rows
	 * already reach the end of the address space). */
	if (s->any && s->last_rule != s->gap && s->at != ~(uint64_t)0 &&
	    uw_compile_append(comp, s->at, s->gap) < 0)
		return -1;
	if (!s->any) {
		/* No row at all: one, of the gap's rule, for every pc. */
		s->any = 1;
		if (uw_compile_append(comp, 0, s->gap) < 0)
			return -1;
	}
	s->done = 1;
	return 0;
}

/* The index's shift for rows whose last starts at span: the first
 * level's blocks as small as they can be with at most one index word for
 * two rows, so that a search reads about two rows, and the index costs
 * at most 2 bytes a row. */
static uint8_t uw_compile_shift(uint64_t span, uint32_t rows)
{
	const uint64_t most = rows / 2 > 2 ? rows / 2 : 2;
	uint8_t shift = 4;

	/* bound: 32 - 4 shifts (span < 2^32) */
	while (shift < 32 && span != 0 && ((span - 1) >> shift) + 2 > most)
		shift++;
	return shift;
}

static uint32_t uw_compile_index_words(uint64_t span, uint8_t shift)
{
	return span == 0 ? 1 : (uint32_t)((span - 1) >> shift) + 2;
}

UW_API uint32_t uw_compile_index_size(const struct uw_compiler *comp)
{
	const struct uw_compiler_state *s = &comp->state;
	uint64_t span;

	if (!s->done || comp->count == 0)
		return 0;
	span = s->last_start;
	return uw_compile_index_words(span, uw_compile_shift(span,
							     comp->count));
}

UW_API int uw_compile_end(struct uw_compiler *comp, uint32_t *index,
			  uint32_t index_max, struct uw_compiled_table *table)
{
	const struct uw_compiler_state *s = &comp->state;
	const struct uw_compiled_row *rows = s->out;
	uint64_t span, pc;
	uint32_t i, r = 0, words;
	uint8_t shift;

	if (!s->done || !rows || comp->count == 0)
		return uw_fail_stop(&comp->stop, UW_STOP_BAD_ARGUMENT, 0);
	span = rows[comp->count - 1].start;
	shift = uw_compile_shift(span, comp->count);
	words = uw_compile_index_words(span, shift);
	if (words > index_max)
		return uw_fail_stop(&comp->stop, UW_STOP_BAD_ARGUMENT, words);
	/* bound: words + count iterations of the two loops together */
	for (i = 0; i < words; i++) {
		pc = (uint64_t)i << shift;
		while (r + 1 < comp->count && rows[r + 1].start <= pc)
			r++;
		index[i] = r;
	}
	*table = (struct uw_compiled_table){
		.base = s->base, .rows = rows, .count = comp->count,
		.index = index, .index_count = words, .index_shift = shift,
		.arch = (uint8_t)s->arch_desc->arch, .outside = s->gap,
		.full = s->full, .full_count = comp->full_count,
		.unpacked = s->unpacked, .unpacked_count = comp->unpacked_count,
	};
	return 0;
}
