/* Declarations shared by the files of the unwinder core; not public.
 *
 * Responsibilities:
 *   mem.c   - reading: section bytes (local or target), LEB128, DW_EH_PE
 *             pointers, target words.  Every failure becomes a stop reason.
 *   cfi.c   - finding and parsing: .eh_frame_hdr search, linear scans,
 *             CIE/FDE decoding into struct uw_cie_info / uw_fde.
 *   row.c   - executing call frame instructions into a struct uw_row.
 *   expr.c  - the DWARF expression stack machine.
 *   arch.c  - per-architecture facts, pt_regs import, signal trampolines.
 *   step.c  - applying a row to registers: one frame per uw_step().
 *   nocfi.c - code without CFI: the caller from the instructions at pc.
 */
#ifndef UW_INTERNAL_H
#define UW_INTERNAL_H

#include "unwind_core.h"
#include "dwarf.h"
#include "x86_64.h"
#include "i386.h"

#ifdef UW_SINGLE_TU
#define UW_INTERNAL static __attribute__((unused))
#else
#define UW_INTERNAL __attribute__((visibility("hidden")))
#endif


/* ---- Compiled rows --------------------------------------------------
 *
 * The rule of a compiled table's entry (struct uw_compiled_row) is one
 * 32-bit word (compile.c makes it, step.c applies it).  It says the rows
 * whose CFA is the sp or the bp plus 1 to 4095 words, whose return
 * address is in the word below the CFA, whose sp is the CFA, and whose
 * other registers are lost, except the callee-saved ones
 * (uw_arch_desc.saved), each of which keeps its value, is lost, or is
 * saved k words below the CFA (2 <= k <= 7):
 *
 *   bits  0-17  a slot of 3 bits per callee-saved register, in
 *               uw_arch_desc.saved's order: 0 its value kept, 1 lost,
 *               k saved at CFA - k words
 *   bit  18     the CFA's register: 0 the sp, 1 the bp (or, in a
 *               table's unpacked rule, the register its entry names:
 *               uw_compiled_unpacked.base, for a CFA in another one)
 *   bit  19     no caller: the return address is undefined (the
 *               outermost frame)
 *   bits 20-31  the CFA's offset from its register, in words, 1 to 4095
 *
 * A word with offset 0 is not a row of that form; its bits 0-1 say what
 * it is: UW_COMPILED_NONE (no FDE serves its pcs: the step goes on to the
 * methods after CFI), UW_COMPILED_PARSE (its rows are parsed at the step,
 * as without a compiled table: a general expression, or the parse stops
 * there), or UW_COMPILED_FULL, a row the compact form cannot say but the
 * interpreter's form can (a register saved in another, a signal frame,
 * a CFA in another register where the table has no room for another
 * unpacked rule): the table keeps it whole, in its full rows,
 * at the index in bits 2-19 (uw_compiled_full); or UW_COMPILED_UNPACKED,
 * a compact row whose rule the table keeps unpacked, in its unpacked
 * rules, at the index in bits 2-19: the rule is that entry's (the table's
 * rows take the first UW_COMPILE_UNPACKED_MAX rules so, any others as
 * themselves). */
#define UW_COMPILED_SLOT_BITS	3
#define UW_COMPILED_SLOT_MASK	7u
#define UW_COMPILED_SLOT_KEPT	0u
#define UW_COMPILED_SLOT_LOST	1u
#define UW_COMPILED_SLOT_MIN	2u	/* the nearest slot below the CFA */
#define UW_COMPILED_BP		(1u << 18)
#define UW_COMPILED_NO_CALLER	(1u << 19)
#define UW_COMPILED_CFA_SHIFT	20
#define UW_COMPILED_CFA_MAX	4095u
#define UW_COMPILED_NONE	0u
#define UW_COMPILED_PARSE	1u
#define UW_COMPILED_FULL	2u
#define UW_COMPILED_UNPACKED	3u
#define UW_COMPILED_KIND_MASK	3u
/* The index a FULL or UNPACKED word holds, in bits 2-19. */
#define UW_COMPILED_INDEX_SHIFT	2
#define UW_COMPILED_INDEX_MAX	((1u << (UW_COMPILED_CFA_SHIFT - \
					 UW_COMPILED_INDEX_SHIFT)) - 1)

static inline int uw_compiled_is_row(uint32_t rule)
{
	return rule >> UW_COMPILED_CFA_SHIFT != 0;
}

/* A full row's index in its table's full rows, if rule is one; else -1. */
static inline int64_t uw_compiled_full(uint32_t rule)
{
	if (uw_compiled_is_row(rule) ||
	    (rule & UW_COMPILED_KIND_MASK) != UW_COMPILED_FULL)
		return -1;
	return rule >> UW_COMPILED_INDEX_SHIFT;
}

/* The words below the CFA that a compiled row's slots span: its deepest
 * slot's, at least 1 (the return address).  The largest of the six
 * 3-bit slots, found bit by bit from the top (b0: each slot's low bit):
 * the slots with the top bit set, if any, then of those the ones with
 * the middle bit, then the low bit. */
static inline unsigned uw_compiled_span(uint32_t rule)
{
	const uint32_t b0 = 0x9249;	/* bits 0, 3, 6, 9, 12, 15 */
	uint32_t slots = rule & (b0 * UW_COMPILED_SLOT_MASK), top;
	unsigned most = 0;

	top = slots & (b0 << 2);
	if (top) {
		slots &= (top >> 2) * UW_COMPILED_SLOT_MASK;
		most = 4;
	}
	top = slots & (b0 << 1);
	if (top) {
		slots &= (top >> 1) * UW_COMPILED_SLOT_MASK;
		most += 2;
	}
	most += (slots & b0) != 0;
	return most > 1 ? most : 1;
}

/* The row of link-time pc in t: its word (a rule, or an unpacked rule's
 * index: uw_compiled_unpacked_of), and its index in t->rows (-1 for pcs
 * below the table).  The last row holds for every pc from its start on
 * (as the search's last entry does). */
static inline uint32_t uw_compiled_find(const struct uw_compiled_table *t,
					uint64_t pc, int64_t *row)
{
	const uint64_t off = pc - t->base;
	uint32_t lo, hi, mid, block;

	*row = -1;
	if (pc < t->base)
		return t->outside;
	if (off >= t->rows[t->count - 1].start) {
		*row = t->count - 1;
		return t->rows[t->count - 1].rule;
	}
	block = (uint32_t)(off >> t->index_shift);
	lo = t->index[block];
	hi = t->index[block + 1];
	/* The last row starting at or below off, in rows[lo, hi].
	 * bound: log2(hi - lo + 1) + 1 probes */
	while (lo < hi) {
		mid = hi - (hi - lo) / 2;
		if (t->rows[mid].start <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	*row = lo;
	return t->rows[lo].rule;
}

/* The unpacked rule a row's word names in t (UW_COMPILED_UNPACKED), or
 * NULL: a word of another kind, or an index past t's unpacked rules. */
static inline const struct uw_compiled_unpacked *
uw_compiled_unpacked_of(const struct uw_compiled_table *t, uint32_t word)
{
	const uint32_t i = word >> UW_COMPILED_INDEX_SHIFT;

	if (uw_compiled_is_row(word) ||
	    (word & UW_COMPILED_KIND_MASK) != UW_COMPILED_UNPACKED ||
	    i >= t->unpacked_count)
		return NULL;
	return &t->unpacked[i];
}

struct uw_arch_desc {
	enum uw_arch arch;
	uint8_t nregs;		/* DWARF registers tracked */
	uint8_t addr_size;
	uint8_t ra_reg;		/* return-address column = pc */
	uint8_t sp_reg;
	uint8_t fp_reg;
	uint32_t callee_saved;	/* registers that default to "same value" */
	/* The callee-saved registers in the order a compiled row's slots
	 * name them ("Compiled rows", below); nsaved of them. */
	uint8_t saved[UW_COMPILED_SLOTS];
	uint8_t nsaved;
	uint64_t addr_mask;	/* values wrap to the address width */
	/* The ABI's rules before any CFI (the CIE's instructions start from
	 * it, DW_CFA_restore in a CIE returns to it): the caller's sp is the
	 * CFA, callee-saved registers keep their value, the rest is lost. */
	struct uw_row abi_row;
	/* abi_row compacted (row.c: uw_row_compact): the callee-saved
	 * registers kept, the sp the CFA, nothing computed.  What a CIE's
	 * row is compacted from (the check builds compare:
	 * uw_row_check_delta). */
	struct uw_compact_row abi_compact_row;
	/* A frame built by "push %bp; mov %sp,%bp", as CFI: the CFA is
	 * bp + 2 words, the caller's bp at CFA - 2 words, the return address
	 * at CFA - 1 word (the frame-pointer fallback). */
	struct uw_row fp_row;
};

/* Bounded cursor over one CFI section, positions are section offsets.
 * Its failures are recorded in *stop (the cursor's, or the caller's for a
 * reader of local bytes alone). */
struct uw_reader {
	struct uw_cursor *c;	/* for a target-resident section (the host
				 * and the cursor's window) and indirect
				 * pointers; NULL: local bytes only */
	struct uw_stop *stop;
	const struct uw_section *sec;
	const uint8_t *data;	/* sec->data: local bytes, read in place */
	uint64_t pos, end;	/* end <= sec->size */
	uint64_t text_base;	/* link-time base of DW_EH_PE_textrel, 0 = none */
	uint64_t datarel_base;	/* link-time base of DW_EH_PE_datarel, 0 = none */
	uint64_t func_base;	/* link-time base of DW_EH_PE_funcrel */
	uint64_t addr_mask;	/* values wrap to the address width */
	uint8_t addr_size;	/* size of DW_EH_PE_absptr */
};

/* The bits set in v.  Not __builtin_popcount: without a popcnt
 * instruction that is a libgcc call, which a kernel module cannot make. */
static inline uint32_t uw_popcount32(uint32_t v)
{
	v = v - ((v >> 1) & 0x55555555u);
	v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
	return (((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

/* Record a stop; always returns -1 so callers can "return uw_fail(...)". */
UW_INTERNAL int uw_fail(struct uw_cursor *c, enum uw_stop_reason reason,
			uint64_t addr);
/* The same into any stop record (a reader's, a compile's). */
UW_INTERNAL int uw_fail_stop(struct uw_stop *stop, enum uw_stop_reason reason,
			     uint64_t addr);

/* Work units the unwind may still spend (cursor.max_work). */
static inline uint32_t uw_work_left(const struct uw_cursor *c)
{
	return c->max_work - c->work_total;
}

/* n steps of one kind (compiled, full, marked, uncompiled: struct
 * uw_step_counts) whose rows the tables c->state.tables gave: counted in
 * the cursor and, where the host keeps them, in those tables' own. */
#define UW_COUNT_STEPS(c, kind, n)					\
	do {								\
		struct uw_step_counts *const uw_counts_ =		\
			(c)->state.tables->steps;			\
									\
		(c)->steps_##kind += (n);				\
		if (uw_counts_)						\
			uw_counts_->kind += (n);			\
	} while (0)

/* Spend n units of the unwind's work budget (cursor.max_work, see "Work
 * bounds" in unwind_core.h): 0, or -1 with UW_STOP_WORK_LIMIT when they
 * are not left.  Nothing is spent then, so work_total never passes
 * max_work. */
static inline int uw_spend(struct uw_cursor *c, uint32_t n)
{
	if (__builtin_expect(n > uw_work_left(c), 0))
		return uw_fail(c, UW_STOP_WORK_LIMIT, c->work_total);
	c->work += n;
	c->work_total += n;
	return 0;
}

/* cursor.c: c as at the start of an unwind (or of a tool's use of it as
 * scratch) with ad, ops and host: settings at their defaults, no stop, no
 * work spent, no tables, no CIE parsed. */
UW_INTERNAL void uw_cursor_reset(struct uw_cursor *c,
				 const struct uw_arch_desc *ad,
				 const struct uw_host_ops *ops, void *host);

/* mem.c */
UW_INTERNAL void uw_reader_init(struct uw_reader *r, struct uw_cursor *c,
				const struct uw_section *sec,
				uint64_t pos, uint64_t end);
/* A reader of local bytes (sec->data != NULL) without a cursor. */
UW_INTERNAL void uw_reader_init_local(struct uw_reader *r,
				      const struct uw_section *sec,
				      uint64_t pos, uint64_t end,
				      uint8_t addr_size, struct uw_stop *stop);
/* Record a failure of r; always returns -1. */
UW_INTERNAL int uw_rd_fail(struct uw_reader *r, enum uw_stop_reason reason,
			   uint64_t addr);
UW_INTERNAL int uw_rd_bytes(struct uw_reader *r, uint8_t *buf, uint32_t n);
/* The general readers (any section, any failure); the inline wrappers
 * below take a fast path for the common case and call these otherwise. */
UW_INTERNAL int uw_rd_u8_slow(struct uw_reader *r, uint8_t *v);
UW_INTERNAL int uw_rd_uint_slow(struct uw_reader *r, uint32_t size,
				uint64_t *v);
UW_INTERNAL int uw_rd_leb_slow(struct uw_reader *r, uint64_t *v,
			       int is_signed);

/* Fast paths: a local section (r->data != NULL) is read in place, with the
 * same bounds check against r->end; everything else (target-resident
 * sections, reads past the end, long LEB128 numbers) takes the slow path,
 * which reports the failure. */
static inline int uw_rd_u8(struct uw_reader *r, uint8_t *v)
{
	if (r->data && r->pos < r->end) {
		*v = r->data[r->pos++];
		return 0;
	}
	return uw_rd_u8_slow(r, v);
}

static inline int uw_rd_uint(struct uw_reader *r, uint32_t size, uint64_t *v)
{
	if (r->data && (size == 4 || size == 8 || size == 2 || size == 1) &&
	    size <= r->end - r->pos) {
		const uint8_t *p = r->data + r->pos;
		uint64_t x = 0;
		uint32_t i;

		for (i = size; i > 0; i--)	/* bound: size <= 8 */
			x = (x << 8) | p[i - 1];
		r->pos += size;
		*v = x;
		return 0;
	}
	return uw_rd_uint_slow(r, size, v);
}

/* One- and two-byte LEB128 numbers in a local section (most CFI operands);
 * the rest goes through uw_rd_leb_slow (at most 10 bytes). */
static inline int uw_rd_leb(struct uw_reader *r, uint64_t *v, int is_signed)
{
	if (r->data && r->end - r->pos >= 2) {
		const uint8_t *p = r->data + r->pos;
		uint64_t x;
		uint32_t shift;

		if (!(p[0] & 0x80)) {
			x = p[0];
			shift = 7;
			r->pos += 1;
		} else if (!(p[1] & 0x80)) {
			x = (uint64_t)(p[0] & 0x7f) | ((uint64_t)p[1] << 7);
			shift = 14;
			r->pos += 2;
		} else {
			return uw_rd_leb_slow(r, v, is_signed);
		}
		if (is_signed && (x & ((uint64_t)1 << (shift - 1))))
			x |= ~(uint64_t)0 << shift;
		*v = x;
		return 0;
	}
	return uw_rd_leb_slow(r, v, is_signed);
}

static inline int uw_rd_uleb(struct uw_reader *r, uint64_t *v)
{
	return uw_rd_leb(r, v, 0);
}

static inline int uw_rd_sleb(struct uw_reader *r, int64_t *v)
{
	uint64_t u;

	if (uw_rd_leb(r, &u, 1) < 0)
		return -1;
	*v = (int64_t)u;
	return 0;
}

/* The SLEB128 number that fills exactly the n bytes at p (local bytes,
 * 1 <= n <= 9): 1 and *v, or 0 if it ends before byte n - 1 or runs on
 * past it.  For expressions matched by their exact length. */
static inline int uw_sleb_exact(const uint8_t *p, uint32_t n, int64_t *v)
{
	uint64_t x = 0;
	uint32_t i, shift = 0;

	if (n < 1 || n > 9)
		return 0;
	for (i = 0; i < n; i++) {		/* bound: n <= 9 */
		x |= (uint64_t)(p[i] & 0x7f) << shift;
		shift += 7;
		if (!(p[i] & 0x80) != (i == n - 1))
			return 0;
	}
	if (x & ((uint64_t)1 << (shift - 1)))
		x |= ~(uint64_t)0 << shift;
	*v = (int64_t)x;
	return 1;
}

UW_INTERNAL int uw_rd_skip(struct uw_reader *r, uint64_t n);
/* The little-endian signed 32-bit word at p (local bytes). */
static inline int32_t uw_le_s32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* What every toolchain writes for an FDE's address and range and for
 * .eh_frame_hdr's count and table: four bytes (udata4, or sdata4 plain,
 * pcrel or datarel) in local bytes.  One load, of the value
 * uw_rd_encoded_slow gives.  1 = read, 0 = another encoding (or
 * a datarel without its base): uw_rd_encoded_slow. */
static inline int uw_rd_data4(struct uw_reader *r, uint8_t enc, uint64_t *v)
{
	uint64_t base, raw;

	if (!r->data || r->end - r->pos < 4)
		return 0;
	switch (enc) {
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		base = 0;
		break;
	case DW_EH_PE_pcrel | DW_EH_PE_sdata4:
		base = r->sec->addr + r->pos;	/* the field's own address */
		break;
	case DW_EH_PE_datarel | DW_EH_PE_sdata4:
		base = r->datarel_base;
		if (base == 0)
			return 0;
		break;
	default:
		return 0;
	}
	raw = enc == DW_EH_PE_udata4 ? (uint32_t)uw_le_s32(r->data + r->pos) :
	      (uint64_t)(int64_t)uw_le_s32(r->data + r->pos);
	*v = (base + raw) & r->addr_mask;
	r->pos += 4;
	return 1;
}

UW_INTERNAL int uw_rd_encoded_slow(struct uw_reader *r, uint8_t enc,
				   uint64_t *v);

/* Decode a DW_EH_PE pointer.  The result is a link-time address (or plain
 * number), wrapped to the address width.  pcrel is relative to the
 * link-time address of the encoded field itself. */
static inline int uw_rd_encoded(struct uw_reader *r, uint8_t enc, uint64_t *v)
{
	if (uw_rd_data4(r, enc, v))
		return 0;
	return uw_rd_encoded_slow(r, enc, v);
}
UW_INTERNAL int uw_encoded_size(uint8_t enc, uint8_t addr_size);
/* Whether target memory at addr lies below c->min_code, where Linux maps
 * nothing (mmap_min_addr): a read there would fail, so the host is not
 * asked (for a kernel host, a fault).  The outermost frame of a thread
 * whose bp is 0 names slots there. */
static inline int uw_below_mapped(const struct uw_cursor *c, uint64_t addr)
{
	return addr < c->min_code;
}
/* A target read that the unwind depends on: a failure records
 * UW_STOP_MEMORY_UNREADABLE at addr and returns -1. */
UW_INTERNAL int uw_read_target(struct uw_cursor *c, uint64_t addr,
			       uint32_t size, uint64_t *v);
/* A speculative target read (is this a trampoline? can the span be read
 * at once?): 1 = read, 0 = not; records nothing. */
static inline int uw_peek(struct uw_cursor *c, uint64_t addr, void *buf,
			  uint32_t len)
{
	return c->state.ops->read_mem(c->state.host, addr, buf, len) == 0;
}
/* mem.c: a frame's save slots [addr, addr + len), len <=
 * UW_ROW_MAX_SPAN, from the stack window (read if it does not hold them).
 * Speculative: NULL if unreadable, and nothing recorded. */
UW_INTERNAL const uint8_t *uw_stack_fill(struct uw_cursor *c, uint64_t addr,
					 uint32_t len);
static inline const uint8_t *uw_stack_slots(struct uw_cursor *c,
					    uint64_t addr, uint32_t len)
{
	uint64_t off = addr - c->state.window_addr;

	if (off < c->state.window_len && c->state.window_len - off >= len)
		return c->state.window + off;
	return uw_stack_fill(c, addr, len);
}
/* The little-endian word at p in the stack window, as 8 bytes: the
 * caller masks it to the address width, so a 4-byte slot needs no test
 * of the size (the window has 8 bytes of room past its end). */
static inline __attribute__((__always_inline__))
uint64_t uw_stack_word_at(const uint8_t *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
#else
	return p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	       (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
	       (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
	       (uint64_t)p[7] << 56;
#endif
}
/* The word of size bytes at addr on the stack (a row's slot, the CFA's
 * at reg + n, a sigcontext's slot): from the stack window (which it
 * moves there: the slots of the frames above lie there too), else read
 * alone, which records the failure.  0 = read (unmasked), -1 = stopped. */
static inline __attribute__((__always_inline__))
int uw_stack_read_word(struct uw_cursor *c, uint64_t addr, uint32_t size,
		       uint64_t *v)
{
	const uint8_t *p = uw_stack_slots(c, addr, size);

	if (__builtin_expect(p != NULL, 1)) {
		*v = uw_stack_word_at(p);
		return 0;
	}
	return uw_read_target(c, addr, size, v);
}
/* An address-sized little-endian word at addr, speculatively. */
UW_INTERNAL int uw_peek_word(struct uw_cursor *c, uint64_t addr, uint64_t *v);
UW_INTERNAL uint64_t uw_sign_extend(uint64_t v, uint32_t size);

/* The pcs [lo, hi) for which a binary search takes every turn it took
 * for pc, so finds what it found: each probe of a location loc narrows it
 * to the side of loc that pc is on.  Exact for any table, sorted or not. */
static inline void uw_pc_range_probe(struct uw_pc_range *r, uint64_t loc,
				     uint64_t pc)
{
	if (loc <= pc) {
		if (loc > r->lo)
			r->lo = loc;
	} else if (loc < r->hi) {
		r->hi = loc;
	}
}

/* cfi.c: find the FDE covering link-time pc in c->state.tables; fills
 * c->state.section, c->state.cie, c->state.fde. */
UW_INTERNAL int uw_cfi_find(struct uw_cursor *c, uint64_t pc);
UW_INTERNAL int uw_cfi_hdr_usable(struct uw_cursor *c);
/* cfi.c: parse the FDE at pos of sec (one of c->state.tables') and its
 * CIE into c->state.fde and c->state.cie.  0, or -1 with a stop. */
UW_INTERNAL int uw_cfi_fde_at(struct uw_cursor *c,
			      const struct uw_section *sec, uint64_t pos);
/* cfi.c: the header's table into *h.  1 = one the search uses, 2 = none
 * (the search would scan), -1 = stop (a malformed header). */
UW_INTERNAL int uw_cfi_hdr_table(struct uw_cursor *c,
				 struct uw_cfi_hdr_table *h);
/* cfi.c: entry i of h: its initial location (link-time) and its FDE's
 * offset in .eh_frame.  0; 1 = the location only: the FDE's address is
 * outside .eh_frame (the search stops for the pcs it serves); -1 = a
 * stop. */
UW_INTERNAL int uw_cfi_hdr_entry(struct uw_cursor *c,
				 const struct uw_cfi_hdr_table *h, uint64_t i,
				 uint64_t *loc, uint64_t *fde_pos);
UW_INTERNAL int uw_cfi_index(struct uw_cursor *c, struct uw_index_entry *out,
			     uint32_t max);

/* row.c: execute CIE + FDE instructions up to link-time pc into c->state.row
 * (over c->state.row_base), and compact the row into c->state.compact_row.  1 = done,
 * and compact_row can be cached; 0 = done, and compact_row keeps a general expression of
 * the parsed row (which must stay in place); -1 = stopped. */
UW_INTERNAL int uw_row_compute(struct uw_cursor *c, uint64_t pc);

/* The rule of register reg (< UW_NREGS) in the row parsed for the last
 * step's pc: its FDE's if the FDE changed it, else its CIE's. */
static inline const struct uw_reg_rule *uw_row_rule(const struct uw_cursor *c,
						     unsigned reg)
{
	return c->state.row_changed & UW_REG_BIT(reg) ?
	       &c->state.row.rule[reg] : &c->state.row_base->rule[reg];
}

/* row.c: the extent of out's memory slots, for one read (struct
 * uw_compact_row's span fields), from its rules. */
UW_INTERNAL void uw_row_span(struct uw_compact_row *out, uint8_t addr_size);

/* compile.c: rule (a compiled row) unpacked for ad's architecture. */
UW_INTERNAL void uw_compiled_unpack(const struct uw_arch_desc *ad,
				    uint32_t rule,
				    struct uw_compiled_unpacked *out);
/* compile.c: the compact row that rule (a compiled row) stands for, as
 * the parse would have made it but for fde_begin and fde_end (0); with
 * the CFA in base where that is a register (< UW_NREGS: a table's
 * unpacked rule names another than its rule's, uw_compiled_unpacked.base),
 * else in the rule's. */
UW_INTERNAL void uw_compiled_decode(const struct uw_arch_desc *ad,
				    uint32_t rule, unsigned base,
				    struct uw_compact_row *out);

/* row.c: uw_row_each's visitor: the row of link-time pcs [lo, hi) is
 * c->state.compact_row; ok 1 = it can be kept (no general expression),
 * 0 = it cannot, -1 = from lo to the FDE's end every pc's parse stops
 * as c->stop says.  Nonzero ends the walk. */
typedef int (*uw_row_visit)(struct uw_cursor *c, uint64_t lo, uint64_t hi,
			    int ok, void *arg);
/* row.c: every row of c->state.fde (its CIE parsed), in address order,
 * each as the parse for a pc in it makes it (uw_row_compute).  Returns 0
 * or visit's nonzero value. */
UW_INTERNAL int uw_row_each(struct uw_cursor *c, uw_row_visit visit,
			    void *arg);

/* Every register of a row (struct uw_row, a row's changed registers). */
#define UW_ROW_ALL (UW_REG_BIT(UW_NREGS) - 1)
/* In uw_row_compact's result: the CFA's rule is a general expression. */
#define UW_ROW_GENERAL_CFA UW_REG_BIT(UW_NREGS)

/* row.c: compact for uw_step's interpreter the row whose CFA rule is
 * row's and whose register i has row's rule if i is in changed, else
 * base's; with the return address in column ra_reg and the CIE's signal
 * flag.  from, if not NULL, is base compacted (general: that call's
 * result), so that only the changed registers are compacted again.
 * Returns the registers whose rules stay general expressions (and
 * UW_ROW_GENERAL_CFA), evaluated in place; 0 = the row can be cached. */
UW_INTERNAL uint32_t uw_row_compact(const struct uw_cursor *c,
				    const struct uw_row *row,
				    const struct uw_row *base, uint32_t changed,
				    const struct uw_compact_row *from,
				    uint32_t general, unsigned ra_reg,
				    int signal, struct uw_compact_row *out);

/* rowcache.c: keep row for lookup pc in c->state.tables. */
UW_INTERNAL void uw_rowcache_store(struct uw_cursor *c, uint64_t lookup,
				   const struct uw_compact_row *row);
/* rowcache.c: where the pc-keyed entries have no row for lookup pc, a
 * kept range (uw_cache_state.ranges) that holds it, or NULL (a miss). */
UW_INTERNAL const struct uw_compact_row *
uw_rowcache_find_miss(struct uw_cursor *c, uint64_t lookup);

/* Do the tables name their CFI?  Local sections do by their buffers;
 * sections read from the target only with the host's ident (the contract
 * of uw_tables.ident). */
static inline int uw_rowcache_names_cfi(const struct uw_tables *t)
{
	if (t->ident)
		return 1;
	return (t->eh_frame_hdr.data || !t->eh_frame_hdr.size) &&
	       (t->eh_frame.data || (!t->eh_frame.size &&
				     !t->eh_frame_hdr.size)) &&
	       (t->debug_frame.data || !t->debug_frame.size);
}

/* rowcache.c: c->state.tables were just found: their tag in the row cache
 * into c->state.tables_tag (0 if no cache keeps their rows).  Returns
 * the tag's slot, for uw_rowcache_use_tag. */
UW_INTERNAL uint32_t uw_rowcache_tag_tables(struct uw_cursor *c);
/* rowcache.c: c->state.tables are tables found before, whose tag was
 * *tag in *slot: count a use of it (so that it outlives tables used
 * less), or, if the slot was taken for others meanwhile, tag them again
 * (both updated); into c->state.tables_tag. */
UW_INTERNAL void uw_rowcache_use_tag(struct uw_cursor *c, uint64_t *tag,
				     uint32_t *slot);

/* Forget the tables kept across unwinds (tables.c). */
static inline void uw_kept_tables_forget(struct uw_kept_tables *k)
{
	k->count = 0;
	k->next = 0;
	k->mask_space = 0;
	k->mask = 0;
}

/* Is pc in [lo, hi)?  Never, for lo = hi. */
static inline int uw_pc_in(uint64_t pc, uint64_t lo, uint64_t hi)
{
	return pc - lo < hi - lo;
}

/* Is pc in the range t covers (uw_tables.pc_lo)?  Never, for tables
 * without one (pc_lo = pc_hi). */
static inline int uw_tables_cover(const struct uw_tables *t, uint64_t pc)
{
	return uw_pc_in(pc, t->pc_lo, t->pc_hi);
}

/* Trade c->state.tables for the ones kept before them. */
static inline void uw_tables_swap(struct uw_cursor *c)
{
	struct uw_tables *t = c->state.prev;
	uint8_t reusable = c->state.prev_reusable;
	uint64_t tag = c->state.prev_tag;

	c->state.prev = c->state.tables;
	c->state.prev_reusable = c->state.tables_reusable;
	c->state.prev_tag = c->state.tables_tag;
	c->state.tables = t;
	c->state.tables_reusable = reusable;
	c->state.tables_tag = tag;
}

/* tables.c: the tables of lookup pc into c->state.tables where an
 * earlier unwind of the row cache's space found them.  0 = found; -1 =
 * none, and nothing changed. */
UW_INTERNAL int uw_tables_kept_take(struct uw_cursor *c, uint64_t lookup);

/* The tables of lookup pc into c->state.tables where an earlier lookup
 * found them: the last frame's, the ones before them, those kept across
 * unwinds (uw_tables_for without asking the host).  0 = found; -1 =
 * none, and nothing changed.  The first two inline: a step's. */
static inline __attribute__((__always_inline__))
int uw_tables_known(struct uw_cursor *c, uint64_t lookup)
{
	if (c->state.tables_reusable &&
	    uw_tables_cover(c->state.tables, lookup))
		return 0;
	if (c->state.prev_reusable && uw_tables_cover(c->state.prev, lookup)) {
		uw_tables_swap(c);
		return 0;
	}
	return uw_tables_kept_take(c, lookup);
}

/* tables.c: the host's tables for lookup pc, where none found before
 * cover it (uw_tables_for). */
UW_INTERNAL int uw_tables_find(struct uw_cursor *c, uint64_t lookup);

/* The tables of lookup pc into c->state.tables, with their tag: those
 * found before (uw_tables_known), else the host's.  0 = found; -1 =
 * none, and c->state.tables keep only why (unreadable, with its module)
 * for the stop report. */
static inline __attribute__((__always_inline__))
int uw_tables_for(struct uw_cursor *c, uint64_t lookup)
{
	if (uw_tables_known(c, lookup) == 0)
		return 0;
	return uw_tables_find(c, lookup);
}

/* The row cache's lookup, inline: it is on every cached step's path.
 * uw_rowcache_find gives the row cached for lookup pc in c->state.tables, or
 * NULL. */

/* The slot of lookup pc; only where c->state.tables_tag (a cache is
 * attached). */
static inline struct uw_cache_entry *uw_rowcache_slot(struct uw_cursor *c,
						      uint64_t pc)
{
	uint64_t h = pc * 0x9e3779b97f4a7c15ull;

	return &c->cache->state.entries[(uint32_t)(h >> 40) & c->cache->state.mask];
}

static inline const struct uw_compact_row *
uw_rowcache_find(struct uw_cursor *c, uint64_t lookup)
{
	struct uw_cache_entry *e;

	if (!c->state.tables_tag)
		return NULL;
	e = uw_rowcache_slot(c, lookup);
	if (e->key.pc == lookup && e->key.tag == c->state.tables_tag) {
		c->cache->hits++;
		return &e->row;
	}
	return uw_rowcache_find_miss(c, lookup);
}

/* expr.c: evaluate a block of c->state.section against regs.  If push_cfa, cfa is
 * pushed first (DW_CFA_expression / val_expression); have_cfa says whether
 * DW_OP_call_frame_cfa may use cfa. */
UW_INTERNAL int uw_expr_eval(struct uw_cursor *c, const struct uw_block *b,
			     const struct uw_regs *regs, int have_cfa,
			     uint64_t cfa, int push_cfa, uint64_t *result);

/* arch.c */
UW_INTERNAL const struct uw_arch_desc *uw_arch_get(enum uw_arch arch);
/* Recognise a signal trampoline by its instruction bytes at c->pc and
 * restore the interrupted registers from the sigcontext into *out.
 * 1 = done (cfa = interrupted sp), 0 = not a trampoline, -1 = stopped. */
UW_INTERNAL int uw_arch_sigframe(struct uw_cursor *c, struct uw_regs *out,
				 uint64_t *cfa);
/* Could ra be a return address (a call ends before it, or a signal
 * trampoline starts there)?  1 = yes, 0 = no, -1 = code unreadable. */
UW_INTERNAL int uw_arch_ra_plausible(struct uw_cursor *c, uint64_t ra);

/* nocfi.c: the caller of a frame without CFI from the instructions at
 * c->pc.  1 = done (*how = UW_HOW_NOCFI_*), 0 = not recognised. */
UW_INTERNAL int uw_nocfi_step(struct uw_cursor *c, struct uw_regs *next,
			      uint64_t *cfa, enum uw_how *how);

#endif /* UW_INTERNAL_H */
