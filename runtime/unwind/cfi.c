/* Finding and parsing CFI: which FDE covers a pc, and what its CIE says.
 *
 * .eh_frame (LSB Core, "Exception Frames") and .debug_frame (DWARF 5, 6.4)
 * share the entry layout: length (4 bytes, or 0xffffffff + 8 bytes for
 * 64-bit DWARF), a CIE id / CIE pointer field, then the body.  They differ
 * in the CIE id (0 vs all ones) and in what an FDE's CIE pointer means
 * (distance back from the field vs offset from the section start).
 *
 * Lookup order: the host's index of both sections if it gave one
 * (uw_index_build), else the .eh_frame_hdr binary-search table if usable,
 * else a linear scan of .eh_frame; if that finds nothing, a linear scan
 * of .debug_frame.  Bounds: UW_MAX_HDR_PROBES probes, UW_MAX_SCAN_ENTRIES
 * entries per scan, every entry length checked against its section, and a
 * CIE is never followed further (an FDE whose "CIE" is not a CIE is bad).
 */
#include "uw_internal.h"

/* Section size used when only .eh_frame_hdr tells where .eh_frame starts:
 * entries are then bounded by their lengths and by readable memory. */
#define UW_EH_FRAME_UNKNOWN_SIZE ((uint64_t)1 << 32)

struct uw_cfi_entry {
	uint64_t body;		/* offset after the CIE id / pointer field */
	uint64_t end;		/* offset after the entry */
	uint64_t cie_pos;	/* FDE: offset of its CIE */
	int is_cie;
	int is_end;		/* zero terminator */
};

static int uw_cfi_is_debug_frame(const struct uw_cursor *c,
				 const struct uw_section *sec)
{
	return sec == &c->state.tables->debug_frame;
}

static int uw_cfi_entry(struct uw_cursor *c, const struct uw_section *sec,
			uint64_t pos, struct uw_cfi_entry *e)
{
	struct uw_reader r;
	uint64_t len, id, id_pos;
	uint32_t id_size = 4;

	uw_reader_init(&r, c, sec, pos, sec->size);
	e->is_end = 0;
	if (uw_rd_uint(&r, 4, &len) < 0)
		return -1;
	if (len == 0) {
		e->is_end = 1;
		e->end = r.pos;
		return 0;
	}
	if (len == 0xffffffff) {
		if (uw_rd_uint(&r, 8, &len) < 0)
			return -1;
		id_size = 8;
	} else if (len >= 0xfffffff0) {
		return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);
	}
	if (len > sec->size - r.pos || len < id_size)
		return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);
	e->end = r.pos + len;
	id_pos = r.pos;
	if (uw_rd_uint(&r, id_size, &id) < 0)
		return -1;
	e->body = r.pos;
	if (uw_cfi_is_debug_frame(c, sec)) {
		e->is_cie = id == (id_size == 8 ? ~(uint64_t)0 : 0xffffffff);
		e->cie_pos = id;
	} else {
		e->is_cie = id == 0;
		if (id > id_pos)
			return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);
		e->cie_pos = id_pos - id;
	}
	if (!e->is_cie && e->cie_pos >= sec->size)
		return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);
	return 0;
}

/* Skip an encoded pointer without interpreting it (personality, LSDA):
 * no base is needed and nothing is dereferenced. */
static int uw_cfi_skip_encoded(struct uw_reader *r, uint8_t enc)
{
	uint64_t dummy;
	int size;

	if ((enc & DW_EH_PE_APPL_MASK) == DW_EH_PE_aligned) {
		uint64_t field = r->sec->addr + r->pos;

		if (uw_rd_skip(r, (0 - field) & (uint64_t)(r->addr_size - 1)) < 0)
			return -1;
	}
	size = uw_encoded_size(enc, r->addr_size);
	if (size < 0)
		return uw_rd_fail(r, UW_STOP_BAD_CFI, r->sec->addr + r->pos);
	if (size == 0)
		return uw_rd_uleb(r, &dummy);
	return uw_rd_skip(r, (uint64_t)size);
}

/* Where the parsed CIEs of c->state.tables are kept, and found again: in the
 * row cache, under the tables' tag, when it keeps their rows (then for
 * later unwinds too); else in the cursor, for this unwind. */
struct uw_cfi_cie_store {
	struct uw_cie_key *keys;
	struct uw_cie_entry *entries;
	uint32_t n;
	uint32_t *next;			/* round-robin victim */
};

static struct uw_cfi_cie_store uw_cfi_cie_store(struct uw_cursor *c)
{
	if (c->state.tables_tag)
		return (struct uw_cfi_cie_store){ c->cache->state.cie_keys,
			c->cache->state.cies, UW_CACHE_CIES, &c->cache->state.cie_next };
	return (struct uw_cfi_cie_store){ c->state.cie_keys, c->state.cies,
		UW_CURSOR_CIES, &c->state.cie_next };
}

static struct uw_cie_key uw_cfi_cie_key(const struct uw_cursor *c,
					const struct uw_section *sec,
					uint64_t pos)
{
	return (struct uw_cie_key){
		.tag = c->state.tables_tag,
		.sec_data = (uint64_t)(uintptr_t)sec->data,
		.sec_addr = sec->addr,
		.bias = c->state.tables->bias,
		.pos = pos,
		.is_debug_frame = (uint8_t)uw_cfi_is_debug_frame(c, sec),
		.valid = 1,
	};
}

/* The CIE at pos of sec, if kept: then c->state.cie is it, and
 * c->state.cie_entry its entry.  1 = kept, 0 = not.  This and
 * uw_cfi_cie_keep are not inlined: their locals stay off the stack
 * budget's deepest chain, the parse's reads (unwind_core.h). */
static __attribute__((__noinline__)) int
uw_cfi_cie_find(struct uw_cursor *c, const struct uw_section *sec,
		uint64_t pos)
{
	const struct uw_cfi_cie_store store = uw_cfi_cie_store(c);
	const struct uw_cie_key key = uw_cfi_cie_key(c, sec, pos);
	uint32_t i;

	/* bound: store.n (UW_CACHE_CIES or UW_CURSOR_CIES) */
	for (i = 0; i < store.n; i++) {
		const struct uw_cie_key *k = &store.keys[i];

		/* The offset first: it tells nearly every other CIE apart. */
		if (k->pos == key.pos && k->valid &&
		    ((k->tag ^ key.tag) | (k->sec_data ^ key.sec_data) |
		     (k->sec_addr ^ key.sec_addr) | (k->bias ^ key.bias)) == 0 &&
		    k->is_debug_frame == key.is_debug_frame) {
			c->state.cie = store.entries[i].cie;
			c->state.cie_entry = &store.entries[i];
			return 1;
		}
	}
	return 0;
}

/* Keep c->state.cie, just parsed from pos of sec (round robin); row.c adds
 * its row on first use. */
static __attribute__((__noinline__)) void
uw_cfi_cie_keep(struct uw_cursor *c, const struct uw_section *sec,
		uint64_t pos)
{
	const struct uw_cfi_cie_store store = uw_cfi_cie_store(c);
	uint32_t i = (*store.next)++ % store.n;

	store.keys[i] = uw_cfi_cie_key(c, sec, pos);
	store.entries[i].cie = c->state.cie;
	store.entries[i].row_valid = 0;
	c->state.cie_entry = &store.entries[i];
	if (c->state.tables_tag)
		c->cache->cie_misses++;
}

/* Parse the CIE at pos into c->state.cie, and make c->state.cie_entry its entry
 * among those kept (scans meet the same CIE for many FDEs, and walks the
 * same few CIEs of each module). */
static int uw_cfi_parse_cie(struct uw_cursor *c, const struct uw_section *sec,
			    uint64_t pos)
{
	struct uw_cie_info *cie = &c->state.cie;
	struct uw_cfi_entry e;
	struct uw_reader r;
	char aug[UW_MAX_AUG_CHARS + 1];
	uint64_t v, aug_end;
	uint8_t b;
	int i, n;

	if (c->state.section == sec && cie->pos == pos && cie->insn_end != 0)
		return 0;
	c->state.section = NULL;		/* invalid until fully parsed */
	if (uw_cfi_cie_find(c, sec, pos)) {
		c->state.section = sec;
		return 0;
	}
	if (uw_cfi_entry(c, sec, pos, &e) < 0)
		return -1;
	if (e.is_end || !e.is_cie)
		return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);
	*cie = (struct uw_cie_info){ 0 };
	cie->pos = pos;
	cie->is_debug_frame = (uint8_t)uw_cfi_is_debug_frame(c, sec);
	cie->addr_size = c->state.arch_desc->addr_size;
	uw_reader_init(&r, c, sec, e.body, e.end);

	if (uw_rd_u8(&r, &cie->version) < 0)
		return -1;
	if (cie->version != 1 && cie->version != 3 && cie->version != 4)
		return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);

	/* Augmentation string, NUL-terminated, at most UW_MAX_AUG_CHARS. */
	for (n = 0; ; n++) {
		if (uw_rd_u8(&r, &b) < 0)
			return -1;
		if (b == 0)
			break;
		if (n == UW_MAX_AUG_CHARS)
			return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);
		aug[n] = (char)b;
	}
	aug[n] = 0;

	/* Very old GCC: "eh" is followed by an address-sized pointer. */
	if (n >= 2 && aug[0] == 'e' && aug[1] == 'h') {
		if (uw_rd_skip(&r, cie->addr_size) < 0)
			return -1;
	}
	if (cie->version >= 4) {
		if (uw_rd_u8(&r, &cie->addr_size) < 0 ||
		    uw_rd_u8(&r, &cie->seg_size) < 0)
			return -1;
		if ((cie->addr_size != 4 && cie->addr_size != 8) ||
		    cie->seg_size > 8)
			return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);
		r.addr_size = cie->addr_size;
	}
	if (uw_rd_uleb(&r, &cie->code_align) < 0 ||
	    uw_rd_sleb(&r, &cie->data_align) < 0)
		return -1;
	if (cie->version == 1) {
		if (uw_rd_u8(&r, &b) < 0)
			return -1;
		cie->ra_reg = b;
	} else {
		if (uw_rd_uleb(&r, &v) < 0)
			return -1;
		if (v >= UW_NREGS)
			return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);
		cie->ra_reg = (uint32_t)v;
	}
	if (cie->ra_reg >= UW_NREGS)
		return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);

	cie->fde_enc = DW_EH_PE_absptr;
	cie->lsda_enc = DW_EH_PE_omit;
	if (aug[0] == 'z') {
		cie->has_z = 1;
		if (uw_rd_uleb(&r, &v) < 0)
			return -1;
		if (v > r.end - r.pos)
			return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);
		aug_end = r.pos + v;
		/* bound: n <= UW_MAX_AUG_CHARS */
		for (i = 1; i < n; i++) {
			if (aug[i] == 'L') {
				if (uw_rd_u8(&r, &cie->lsda_enc) < 0)
					return -1;
			} else if (aug[i] == 'R') {
				if (uw_rd_u8(&r, &cie->fde_enc) < 0)
					return -1;
			} else if (aug[i] == 'P') {
				if (uw_rd_u8(&r, &b) < 0 ||
				    uw_cfi_skip_encoded(&r, b) < 0)
					return -1;
			} else if (aug[i] == 'S') {
				cie->signal = 1;
			} else {
				/* Unknown ('B', 'G', ...): its data, if any,
				 * is covered by the length; stop here. */
				break;
			}
			if (r.pos > aug_end)
				return uw_fail(c, UW_STOP_BAD_CFI,
					       sec->addr + pos);
		}
		r.pos = aug_end;
	} else if (n != 0 && !(aug[0] == 'e' && aug[1] == 'h' && n == 2)) {
		/* Without 'z' unknown augmentation data cannot be skipped. */
		return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);
	}
	if (uw_encoded_size(cie->fde_enc, cie->addr_size) < 0 ||
	    cie->fde_enc == DW_EH_PE_omit)
		return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);

	cie->insn_pos = r.pos;
	cie->insn_end = e.end;
	c->state.section = sec;

	uw_cfi_cie_keep(c, sec, pos);
	return 0;
}

/* The FDE entry e at pos into c->state.fde, its CIE parsed already.  Not
 * inlined into uw_cfi_parse_fde: its reader would be on the kernel stack
 * under the CIE's parse too (the stack budget, unwind_core.h). */
static __attribute__((__noinline__)) int
uw_cfi_parse_fde_body(struct uw_cursor *c, const struct uw_section *sec,
		      uint64_t pos, const struct uw_cfi_entry *e)
{
	struct uw_fde_info *fde = &c->state.fde;
	struct uw_reader r;
	uint64_t range, len;

	uw_reader_init(&r, c, sec, e->body, e->end);
	r.addr_size = c->state.cie.addr_size;
	r.datarel_base = c->state.tables->data_base;
	if (uw_rd_skip(&r, c->state.cie.seg_size) < 0)
		return -1;
	fde->pos = pos;
	if (uw_rd_encoded(&r, c->state.cie.fde_enc, &fde->pc_begin) < 0)
		return -1;
	/* The range is a plain number in the same format. */
	if (uw_rd_encoded(&r, c->state.cie.fde_enc & DW_EH_PE_FORMAT_MASK, &range) < 0)
		return -1;
	fde->pc_end = (fde->pc_begin + range) & c->state.arch_desc->addr_mask;
	if (fde->pc_end < fde->pc_begin)	/* wraps: clamp */
		fde->pc_end = c->state.arch_desc->addr_mask;
	if (c->state.cie.has_z) {
		if (uw_rd_uleb(&r, &len) < 0 || uw_rd_skip(&r, len) < 0)
			return -1;
	}
	fde->insn_pos = r.pos;
	fde->insn_end = e->end;
	return 0;
}

/* Parse the FDE entry e at pos (and its CIE) into c->state.fde / c->state.cie. */
static int uw_cfi_parse_fde(struct uw_cursor *c, const struct uw_section *sec,
			    uint64_t pos, const struct uw_cfi_entry *e)
{
	if (uw_cfi_parse_cie(c, sec, e->cie_pos) < 0)
		return -1;
	return uw_cfi_parse_fde_body(c, sec, pos, e);
}

static int uw_cfi_fde_covers(const struct uw_cursor *c, uint64_t pc)
{
	return pc >= c->state.fde.pc_begin && pc < c->state.fde.pc_end;
}

/* Each FDE of sec in order, parsed into c->state.fde and shown to visit,
 * which returns nonzero to stop there.  1 = stopped by visit, 0 = end of
 * the section, -1 = stopped (c->stop). */
static int uw_cfi_each_fde(struct uw_cursor *c, const struct uw_section *sec,
			   int (*visit)(struct uw_cursor *c, uint64_t pos,
					void *arg),
			   void *arg)
{
	struct uw_cfi_entry e;
	uint64_t pos = 0;
	uint32_t n;

	/* bound: UW_MAX_SCAN_ENTRIES entries */
	for (n = 0; n < UW_MAX_SCAN_ENTRIES; n++) {
		if (uw_spend(c, UW_WORK_SCAN_ENTRY) < 0)
			return -1;
		/* Fewer bytes than a length field: trailing padding. */
		if (sec->size - pos < 4)
			return 0;
		if (uw_cfi_entry(c, sec, pos, &e) < 0)
			return -1;
		if (e.is_end)
			return 0;
		if (!e.is_cie) {
			if (uw_cfi_parse_fde(c, sec, pos, &e) < 0)
				return -1;
			if (visit(c, pos, arg))
				return 1;
		}
		pos = e.end;
	}
	return 0;
}

static int uw_cfi_covers_visit(struct uw_cursor *c, uint64_t pos, void *pc)
{
	(void)pos;
	return uw_cfi_fde_covers(c, *(const uint64_t *)pc);
}

/* Linear scan.  1 = found, 0 = not found, -1 = stopped. */
static int uw_cfi_scan(struct uw_cursor *c, const struct uw_section *sec,
		       uint64_t pc)
{
	return uw_cfi_each_fde(c, sec, uw_cfi_covers_visit, &pc);
}

/* ---- the index of uw_index_build ---------------------------------- */

struct uw_cfi_index_fill {
	struct uw_index_entry *out;
	uint32_t max, n;
	uint8_t in_debug_frame;
	uint8_t full;
};

static int uw_cfi_index_visit(struct uw_cursor *c, uint64_t pos, void *arg)
{
	struct uw_cfi_index_fill *f = arg;

	if (f->n == f->max) {
		f->full = 1;
		return 1;
	}
	f->out[f->n].pc_begin = c->state.fde.pc_begin;
	f->out[f->n].pos = (uint32_t)pos;
	f->out[f->n].in_debug_frame = f->in_debug_frame;
	f->n++;
	return 0;
}

/* The index's order: by pc_begin, and of two FDEs for the same pc (one
 * per section), .eh_frame's last, so that the lookup meets it first, as
 * a scan would. */
static int uw_cfi_index_before(const struct uw_index_entry *a,
			       const struct uw_index_entry *b)
{
	if (a->pc_begin != b->pc_begin)
		return a->pc_begin < b->pc_begin;
	return a->in_debug_frame > b->in_debug_frame;
}

static void uw_cfi_index_swap(struct uw_index_entry *a,
			      struct uw_index_entry *b)
{
	struct uw_index_entry t = *a;

	*a = *b;
	*b = t;
}

/* Heapsort: no recursion, no allocation, O(n log n) whatever the order. */
static void uw_cfi_index_sift(struct uw_index_entry *v, uint32_t root,
			      uint32_t n)
{
	uint32_t child;

	/* bound: one level of the heap per iteration, log2(n) */
	for (;;) {
		child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && uw_cfi_index_before(&v[child], &v[child + 1]))
			child++;
		if (!uw_cfi_index_before(&v[root], &v[child]))
			return;
		uw_cfi_index_swap(&v[root], &v[child]);
		root = child;
	}
}

static void uw_cfi_index_sort(struct uw_index_entry *v, uint32_t n)
{
	uint32_t i;

	for (i = n / 2; i-- > 0;)	/* bound: n / 2 */
		uw_cfi_index_sift(v, i, n);
	for (i = n; i-- > 1;) {		/* bound: n - 1 */
		uw_cfi_index_swap(&v[0], &v[i]);
		uw_cfi_index_sift(v, 0, i);
	}
}

/* c->state.tables' FDEs into out (uw_index_build); c's budget must allow two
 * whole scans. */
UW_INTERNAL int uw_cfi_index(struct uw_cursor *c, struct uw_index_entry *out,
			     uint32_t max)
{
	struct uw_tables *t = c->state.tables;
	struct uw_cfi_index_fill f = { out, max, 0, 0, 0 };
	const struct uw_section *secs[2] = { &t->eh_frame, &t->debug_frame };
	int i;

	for (i = 0; i < 2; i++) {	/* bound: 2 sections */
		if (secs[i]->size == 0)
			continue;
		if (!secs[i]->data || secs[i]->size >= ((uint64_t)1 << 32))
			return uw_fail(c, UW_STOP_BAD_ARGUMENT, secs[i]->addr);
		f.in_debug_frame = (uint8_t)i;
		if (uw_cfi_each_fde(c, secs[i], uw_cfi_index_visit, &f) < 0 ||
		    f.full)
			return -1;
	}
	uw_cfi_index_sort(out, f.n);
	return (int)f.n;
}

/* The FDE at pos of sec and its CIE, parsed (uw_cfi_fde_at).  Inlined
 * into the searches: a frame of its own would join the stack budget's
 * deepest chain, the search's parse. */
static inline __attribute__((__always_inline__)) int
uw_cfi_fde_parse_at(struct uw_cursor *c, const struct uw_section *sec,
		    uint64_t pos)
{
	struct uw_cfi_entry e;

	if (uw_cfi_entry(c, sec, pos, &e) < 0)
		return -1;
	if (e.is_end || e.is_cie)
		return uw_fail(c, UW_STOP_BAD_CFI, sec->addr + pos);
	return uw_cfi_parse_fde(c, sec, pos, &e);
}

UW_INTERNAL int uw_cfi_fde_at(struct uw_cursor *c,
			      const struct uw_section *sec, uint64_t pos)
{
	return uw_cfi_fde_parse_at(c, sec, pos);
}

/* Binary search in uw_tables.index: the last FDE starting at or below pc,
 * or the one before it when both start there (one per section).  1 =
 * found (FDE parsed), 0 = not covered, -1 = stopped. */
static __attribute__((__noinline__)) int
uw_cfi_search_index(struct uw_cursor *c, uint64_t pc, struct uw_pc_range *same)
{
	const struct uw_tables *t = c->state.tables;
	const struct uw_index_entry *ie;
	const struct uw_section *sec;
	uint32_t lo = 0, hi = t->index_count, mid, k;

	/* bound: log2(index_count) + 1 <= 33 probes */
	while (lo < hi) {
		if (uw_spend(c, 1) < 0)
			return -1;
		mid = lo + (hi - lo) / 2;
		uw_pc_range_probe(same, t->index[mid].pc_begin, pc);
		if (t->index[mid].pc_begin <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* bound: 2 entries */
	for (k = lo; k > 0 && lo - k < 2; k--) {
		ie = &t->index[k - 1];
		if (k < lo && ie->pc_begin != t->index[lo - 1].pc_begin)
			break;
		sec = ie->in_debug_frame ? &t->debug_frame : &t->eh_frame;
		if (uw_cfi_fde_parse_at(c, sec, ie->pos) < 0)
			return -1;
		if (uw_cfi_fde_covers(c, pc)) {
			/* A candidate before it, not covering pc, may cover
			 * another pc of the range. */
			if (k != lo)
				*same = (struct uw_pc_range){ pc, pc + 1 };
			return 1;
		}
	}
	return 0;
}

/* .eh_frame_hdr (LSB Core, ".eh_frame_hdr"):
 *     u8 version (1), u8 eh_frame_ptr_enc, u8 fde_count_enc, u8 table_enc,
 *     eh_frame_ptr, fde_count, then fde_count sorted pairs
 *     (initial_location, fde_address), datarel = relative to the header.
 * Its header into *h, with r, a reader of it.  1 = a table the search can
 * use, 2 = none (or one of an encoding it cannot search), -1 = stop.
 * Where .eh_frame's size is not known, the header says where it starts.
 * Inlined: its locals are its callers'. */
static inline __attribute__((__always_inline__)) int
uw_cfi_hdr_open(struct uw_cursor *c, struct uw_reader *r,
		struct uw_cfi_hdr_table *h)
{
	struct uw_tables *t = c->state.tables;
	const struct uw_section *hdr = &t->eh_frame_hdr;
	uint8_t version, ptr_enc, count_enc;
	uint64_t eh_frame_ptr;
	int esize;

	uw_reader_init(r, c, hdr, 0, hdr->size);
	r->datarel_base = hdr->addr;
	if (uw_rd_u8(r, &version) < 0 || uw_rd_u8(r, &ptr_enc) < 0 ||
	    uw_rd_u8(r, &count_enc) < 0 || uw_rd_u8(r, &h->table_enc) < 0)
		return -1;
	if (version != 1 || ptr_enc == DW_EH_PE_omit)
		return 2;
	if (uw_rd_encoded(r, ptr_enc, &eh_frame_ptr) < 0)
		return -1;
	if (t->eh_frame.size == 0) {
		t->eh_frame.data = NULL;
		t->eh_frame.addr = eh_frame_ptr;
		t->eh_frame.size = UW_EH_FRAME_UNKNOWN_SIZE;
	}
	if (count_enc == DW_EH_PE_omit || h->table_enc == DW_EH_PE_omit ||
	    (h->table_enc & DW_EH_PE_indirect) ||
	    (h->table_enc & DW_EH_PE_APPL_MASK) == DW_EH_PE_aligned)
		return 2;
	esize = uw_encoded_size(h->table_enc, c->state.arch_desc->addr_size);
	if (esize <= 0)
		return 2;		/* LEB128 entries: cannot index */
	h->esize = (uint32_t)esize;
	if (uw_rd_encoded(r, count_enc, &h->count) < 0)
		return -1;
	h->table_pos = r->pos;
	if (h->count > (hdr->size - h->table_pos) / (uint64_t)(2 * esize))
		return uw_fail(c, UW_STOP_BAD_CFI, hdr->addr);
	return 1;
}

/* The FDE of entry i of the table h: its offset in .eh_frame into *pos,
 * read with r.  0, or -1 with a stop (an address outside .eh_frame). */
static int uw_cfi_hdr_fde_pos(struct uw_cursor *c, struct uw_reader *r,
			      const struct uw_cfi_hdr_table *h, uint64_t i,
			      uint64_t *pos)
{
	const struct uw_tables *t = c->state.tables;
	uint64_t fde_addr;

	r->pos = h->table_pos + i * (uint64_t)(2 * h->esize) +
		 (uint64_t)h->esize;
	if (uw_rd_encoded(r, h->table_enc, &fde_addr) < 0)
		return -1;
	if (fde_addr < t->eh_frame.addr ||
	    fde_addr - t->eh_frame.addr >= t->eh_frame.size)
		return uw_fail(c, UW_STOP_BAD_CFI, t->eh_frame_hdr.addr);
	*pos = fde_addr - t->eh_frame.addr;
	return 0;
}

/* Binary search in .eh_frame_hdr's table for the last entry whose
 * initial_location is at or below pc.  1 = found: *fde_pos is the
 * candidate FDE's offset in .eh_frame, which the caller parses
 * (uw_cfi_hdr_fde: not from here, so that this frame, with its reader,
 * is not on the kernel stack under the parse); 0 = not covered, 2 =
 * table unusable, -1 = stop. */
static __attribute__((__noinline__)) int
uw_cfi_search_hdr(struct uw_cursor *c, uint64_t pc, uint64_t *fde_pos,
		  struct uw_pc_range *same)
{
	const struct uw_section *hdr = &c->state.tables->eh_frame_hdr;
	struct uw_cfi_hdr_table h;
	struct uw_reader r;
	uint64_t lo, hi, mid, loc;
	uint32_t probes;
	int rc, direct;

	rc = uw_cfi_hdr_open(c, &r, &h);
	if (rc != 1)
		return rc;
	/* The table every toolchain writes, datarel sdata4 pairs, in local
	 * bytes: a probe is one load, of the value uw_rd_encoded gives (the
	 * count check keeps every entry inside the section). */
	direct = hdr->data && hdr->addr != 0 &&
		 h.table_enc == (DW_EH_PE_datarel | DW_EH_PE_sdata4);

	/* Find the last entry with initial_location <= pc. */
	lo = 0;
	hi = h.count;
	for (probes = 0; lo < hi; probes++) {
		if (probes == UW_MAX_HDR_PROBES)	/* unsorted/hostile */
			return uw_fail(c, UW_STOP_BAD_CFI, hdr->addr);
		if (uw_spend(c, UW_WORK_HDR_PROBE) < 0)
			return -1;
		mid = lo + (hi - lo) / 2;
		r.pos = h.table_pos + mid * (uint64_t)(2 * h.esize);
		if (direct)
			loc = (hdr->addr + (uint64_t)(int64_t)
			       uw_le_s32(hdr->data + r.pos)) &
			      c->state.arch_desc->addr_mask;
		else if (uw_rd_encoded(&r, h.table_enc, &loc) < 0)
			return -1;
		uw_pc_range_probe(same, loc, pc);
		if (loc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	if (uw_cfi_hdr_fde_pos(c, &r, &h, lo - 1, fde_pos) < 0)
		return -1;
	return 1;
}

UW_INTERNAL int uw_cfi_hdr_table(struct uw_cursor *c,
				 struct uw_cfi_hdr_table *h)
{
	struct uw_reader r;

	if (c->state.tables->eh_frame_hdr.size == 0)
		return 2;
	return uw_cfi_hdr_open(c, &r, h);
}

UW_INTERNAL int uw_cfi_hdr_entry(struct uw_cursor *c,
				 const struct uw_cfi_hdr_table *h, uint64_t i,
				 uint64_t *loc, uint64_t *fde_pos)
{
	const struct uw_section *hdr = &c->state.tables->eh_frame_hdr;
	struct uw_reader r;

	uw_reader_init(&r, c, hdr, h->table_pos + i * (uint64_t)(2 * h->esize),
		       hdr->size);
	r.datarel_base = hdr->addr;
	if (uw_rd_encoded(&r, h->table_enc, loc) < 0)
		return -1;
	if (uw_cfi_hdr_fde_pos(c, &r, h, i, fde_pos) == 0)
		return 0;
	if (c->stop.reason != UW_STOP_BAD_CFI)
		return -1;
	c->stop.reason = UW_STOP_NONE;
	return 1;
}

/* Whether c->state.tables->eh_frame_hdr has a search table that the lookup
 * can use (uw_hdr_searchable): the search for pc 0, which reads the
 * header, checks the table's size and probes it, finds nothing or finds
 * an entry; 2 (no table) or -1 (malformed) say it cannot. */
UW_INTERNAL int uw_cfi_hdr_usable(struct uw_cursor *c)
{
	uint64_t pos;
	struct uw_pc_range same = { 0, ~0ull };
	int rc = uw_cfi_search_hdr(c, 0, &pos, &same);

	return rc == 0 || rc == 1;
}

/* The FDE that .eh_frame_hdr gave for pc, at pos of .eh_frame, parsed.
 * 1 = it covers pc, 0 = it does not, -1 = stop.  Out of line (it runs on
 * a row-cache miss): inlined up into uw_step, its entry record would be
 * on the kernel stack under find_tables too. */
static __attribute__((__noinline__)) int
uw_cfi_hdr_fde(struct uw_cursor *c, uint64_t pos, uint64_t pc)
{
	if (uw_cfi_fde_parse_at(c, &c->state.tables->eh_frame, pos) < 0)
		return -1;
	return uw_cfi_fde_covers(c, pc) ? 1 : 0;
}

UW_INTERNAL int uw_cfi_find(struct uw_cursor *c, uint64_t pc)
{
	struct uw_tables *t = c->state.tables;
	struct uw_pc_range same = { 0, ~0ull };
	uint64_t pos = 0;
	int rc = 2;

	if (t->index_count != 0) {
		rc = uw_cfi_search_index(c, pc, &same);
	} else {
		if (t->eh_frame_hdr.size != 0)
			rc = uw_cfi_search_hdr(c, pc, &pos, &same);
		if (rc == 1)
			rc = uw_cfi_hdr_fde(c, pos, pc);
		/* A scan takes the first FDE that covers pc: another pc
		 * may find another.  The range is the pc alone. */
		if (rc != 1)
			same = (struct uw_pc_range){ pc, pc + 1 };
		if (rc == 2 && t->eh_frame.size != 0)
			rc = uw_cfi_scan(c, &t->eh_frame, pc);
		if (rc != 1 && rc >= 0 && t->debug_frame.size != 0)
			rc = uw_cfi_scan(c, &t->debug_frame, pc);
	}
	c->state.fde_pcs = same;
	if (rc < 0)
		return -1;
	if (rc != 1)
		return uw_fail(c, UW_STOP_NO_UNWIND_DATA, pc);
	if (c->state.trace)
		c->state.trace(c->state.host, UW_TR_FDE, c->state.fde.pc_begin,
			      c->state.fde.pc_end);
	return 0;
}
