/* The row cache (struct uw_cache, see unwind_core.h): compact rows kept
 * across unwinds, keyed by the lookup pc and the identity of the tables.
 *
 * A hit saves the whole of finding and parsing (cfi.c, row.c); what is
 * stored is exactly what uw_step applies to a parsed row (struct
 * uw_compact_row), so a cached step and an uncached one are the same
 * step.  It keeps too the CIEs of those tables, parsed and run (cfi.c):
 * a step that misses still parses its FDE, but not their few CIEs again.
 */
#include "uw_internal.h"

/* Rows are found by their tables' tag: new tags for the same tables lose
 * them all at once, with no write to the entries (which a host may have
 * thousands of), and the CIEs kept follow their tables to the new tags. */
/* Forget the compiled rows unpacked (uw_cache_state.unpacked), and
 * those kept by pc (compiled_pcs). */
static void uw_rowcache_forget_unpacked(struct uw_cache *cache)
{
	uint32_t i;

	for (i = 0; i < UW_CACHE_UNPACKED; i++)	/* bound: UW_CACHE_UNPACKED */
		cache->state.unpacked[i].rule = 0;
	/* bound: UW_CACHE_COMPILED_PCS */
	for (i = 0; i < UW_CACHE_COMPILED_PCS; i++)
		cache->state.compiled_pcs[i].key.tag = 0;
}

UW_API void uw_cache_forget_rows(struct uw_cache *cache)
{
	uint64_t old;
	uint32_t i, j;

	if (!cache->state.entries)
		return;
	for (i = 0; i < UW_CACHE_TABLES; i++) {	/* bound: UW_CACHE_TABLES */
		old = cache->state.tables[i].tag;
		if (!old)
			continue;
		cache->state.tables[i].tag = ++cache->state.tag_next;
		for (j = 0; j < UW_CACHE_CIES; j++)	/* bound: UW_CACHE_CIES */
			if (cache->state.cie_keys[j].tag == old)
				cache->state.cie_keys[j].tag = cache->state.tables[i].tag;
	}
	cache->state.range_next = 0;
	cache->state.range_last = 0;
	cache->state.range_count = 0;
	uw_kept_tables_forget(&cache->state.kept);
	uw_rowcache_forget_unpacked(cache);
}

UW_API void uw_cache_clear(struct uw_cache *cache)
{
	uint32_t i;

	uw_kept_tables_forget(&cache->state.kept);
	uw_rowcache_forget_unpacked(cache);
	if (!cache->state.entries)
		return;
	for (i = 0; i <= cache->state.mask; i++)	/* bound: number of entries */
		cache->state.entries[i].key.tag = 0;
	for (i = 0; i < UW_CACHE_RANGES; i++) {	/* bound: UW_CACHE_RANGES */
		cache->state.ranges[i].key.tag = 0;
		cache->state.range_pcs[i] = (struct uw_pc_range){ 0, 0 };
	}
	cache->state.range_next = 0;
	cache->state.range_last = 0;
	cache->state.range_count = 0;
	for (i = 0; i < UW_CACHE_TABLES; i++) {	/* bound: UW_CACHE_TABLES */
		cache->state.tables[i].tag = 0;
		cache->state.tables[i].used = 0;
	}
	for (i = 0; i < UW_CACHE_CIES; i++)	/* bound: UW_CACHE_CIES */
		cache->state.cie_keys[i].valid = 0;
	cache->state.cie_next = 0;
	cache->state.clock = 0;
}

UW_API void uw_cache_init(struct uw_cache *cache,
			  struct uw_cache_entry *entries, uint32_t n)
{
	uint32_t size = 1;

	cache->hits = 0;
	cache->misses = 0;
	cache->range_hits = 0;
	cache->cie_misses = 0;
	cache->state.tag_next = 0;
	cache->space = 0;
	uw_kept_tables_forget(&cache->state.kept);
	if (!entries || n == 0) {
		cache->state.entries = NULL;
		cache->state.mask = 0;
		uw_cache_clear(cache);
		return;
	}
	while (size <= n / 2)			/* bound: 32 iterations */
		size *= 2;
	cache->state.entries = entries;
	cache->state.mask = size - 1;
	uw_cache_clear(cache);
}

static const struct uw_section *uw_rowcache_sec(const struct uw_tables *t,
						int i)
{
	return i == 0 ? &t->eh_frame_hdr : i == 1 ? &t->eh_frame :
	       &t->debug_frame;
}

/* Does k name tables t of arch?  One OR of differences, as there is no
 * early way out worth a branch per word. */
static int uw_rowcache_tables_is(const struct uw_cache_tables_key *k,
				 const struct uw_tables *t, enum uw_arch arch)
{
	uint64_t d;
	int i;

	d = (k->bias ^ t->bias) | (k->text_base ^ t->text_base) |
	    (k->data_base ^ t->data_base) | (k->ident ^ t->ident) |
	    (k->arch ^ (uint64_t)arch);
	for (i = 0; i < 3; i++) {		/* bound: 3 sections */
		const struct uw_section *sec = uw_rowcache_sec(t, i);

		d |= (k->sec[i][0] ^ (uint64_t)(uintptr_t)sec->data) |
		     (k->sec[i][1] ^ sec->addr) | (k->sec[i][2] ^ sec->size);
	}
	return d == 0;
}

static void uw_rowcache_tables_set(struct uw_cache_tables_key *k,
				   const struct uw_tables *t,
				   enum uw_arch arch)
{
	int i;

	k->bias = t->bias;
	k->text_base = t->text_base;
	k->data_base = t->data_base;
	k->ident = t->ident;
	k->arch = (uint64_t)arch;
	for (i = 0; i < 3; i++) {		/* bound: 3 sections */
		const struct uw_section *sec = uw_rowcache_sec(t, i);

		k->sec[i][0] = (uint64_t)(uintptr_t)sec->data;
		k->sec[i][1] = sec->addr;
		k->sec[i][2] = sec->size;
	}
}

/* The slot of c->state.tables (just found, and naming their CFI) in the
 * table of tags: the one that holds them, or a new one in the slot used
 * least recently of their set. */
static struct uw_cache_tables *uw_rowcache_tag_slot(struct uw_cursor *c)
{
	const struct uw_tables *t = c->state.tables;
	struct uw_cache *cache = c->cache;
	struct uw_cache_tables *set;
	struct uw_cache_tables_key *keys;
	uint64_t h;
	unsigned i, victim = 0;

	h = (t->ident ^ t->bias ^ t->eh_frame_hdr.addr ^ t->eh_frame.addr ^
	     t->debug_frame.addr ^ (uint64_t)(uintptr_t)t->eh_frame_hdr.data ^
	     (uint64_t)(uintptr_t)t->eh_frame.data ^
	     (uint64_t)(uintptr_t)t->debug_frame.data ^ (uint64_t)c->arch) *
	    0x9e3779b97f4a7c15ull;
	i = (unsigned)(h >> 40) & (UW_CACHE_TABLES - UW_CACHE_TABLES_WAYS);
	set = &cache->state.tables[i];
	keys = &cache->state.tables_key[i];
	for (i = 0; i < UW_CACHE_TABLES_WAYS; i++) {	/* bound: UW_CACHE_TABLES_WAYS */
		if (set[i].tag && uw_rowcache_tables_is(&keys[i], t, c->arch)) {
			set[i].used = ++cache->state.clock;
			return &set[i];
		}
		if (set[i].used < set[victim].used)
			victim = i;
	}
	uw_rowcache_tables_set(&keys[victim], t, c->arch);
	set[victim].tag = ++cache->state.tag_next;
	set[victim].used = ++cache->state.clock;
	return &set[victim];
}

UW_INTERNAL uint32_t uw_rowcache_tag_tables(struct uw_cursor *c)
{
	struct uw_cache *cache = c->cache;
	struct uw_cache_tables *slot;

	c->state.tables_tag = 0;
	if (!cache || !cache->state.entries ||
	    !uw_rowcache_names_cfi(c->state.tables))
		return 0;
	slot = uw_rowcache_tag_slot(c);
	c->state.tables_tag = slot->tag;
	return (uint32_t)(slot - cache->state.tables);
}

UW_INTERNAL void uw_rowcache_use_tag(struct uw_cursor *c, uint64_t *tag,
				     uint32_t *slot)
{
	struct uw_cache_tables *s;

	c->state.tables_tag = *tag;
	if (!*tag)
		return;
	s = &c->cache->state.tables[*slot];
	if (s->tag == *tag) {
		s->used = ++c->cache->state.clock;
		return;
	}
	*slot = uw_rowcache_tag_tables(c);
	*tag = c->state.tables_tag;
}

static void uw_rowcache_fill(struct uw_cursor *c, struct uw_cache_entry *e,
			     uint64_t pc, const struct uw_compact_row *row)
{
	e->key = (struct uw_cache_key){ pc, c->state.tables_tag };
	e->row = *row;
}

/* Keep row, just parsed (state.row_pcs says where it holds), for
 * lookup pc, and for its range if that is more than the pc. */
UW_INTERNAL void uw_rowcache_store(struct uw_cursor *c, uint64_t lookup,
				   const struct uw_compact_row *row)
{
	const uint64_t mask = c->state.arch_desc->addr_mask, bias = c->state.tables->bias;
	struct uw_cache *cache = c->cache;
	uint64_t lo, hi;

	if (!c->state.tables_tag)
		return;
	uw_rowcache_fill(c, uw_rowcache_slot(c, lookup), lookup, row);
	lo = (c->state.row_pcs.lo + bias) & mask;
	hi = (c->state.row_pcs.hi + bias) & mask;
	if (hi - lo < 2 || hi < lo || lookup - lo >= hi - lo)
		return;
	uw_rowcache_fill(c, &cache->state.ranges[cache->state.range_next], lo, row);
	cache->state.range_pcs[cache->state.range_next] = (struct uw_pc_range){ lo, hi };
	cache->state.range_last = cache->state.range_next;
	if (cache->state.range_count <= cache->state.range_next)
		cache->state.range_count = cache->state.range_next + 1;
	cache->state.range_next = (cache->state.range_next + 1) % UW_CACHE_RANGES;
}

/* Does range entry i hold lookup pc in c->state.tables?  Its pcs first:
 * they rule out nearly every entry, from one small array. */
static inline int uw_rowcache_range_holds(const struct uw_cursor *c,
					  unsigned i, uint64_t lookup)
{
	const struct uw_pc_range *pcs = &c->cache->state.range_pcs[i];

	return lookup - pcs->lo < pcs->hi - pcs->lo &&
	       c->cache->state.ranges[i].key.tag == c->state.tables_tag;
}

/* Out of line: not on a hit's path.  The range of the last hit first:
 * samples in one hot loop, and single steps, ask for the same one.  A
 * return address found in a range gets its own entry as well: there are
 * few, and each comes back (a sampled pc, which seldom does, would only
 * push out theirs). */
UW_INTERNAL __attribute__((__noinline__)) const struct uw_compact_row *
uw_rowcache_find_miss(struct uw_cursor *c, uint64_t lookup)
{
	struct uw_cache *cache = c->cache;
	struct uw_cache_entry *e;
	unsigned i = cache->state.range_last;

	if (!uw_rowcache_range_holds(c, i, lookup))
		/* bound: range_count <= UW_CACHE_RANGES */
		for (i = 0; i < cache->state.range_count; i++)
			if (uw_rowcache_range_holds(c, i, lookup))
				break;
	if (i < cache->state.range_count) {
		cache->state.range_last = i;
		cache->hits++;
		cache->range_hits++;
		if (c->pc_is_exact)
			return &cache->state.ranges[i].row;
		e = uw_rowcache_slot(c, lookup);
		*e = cache->state.ranges[i];
		e->key.pc = lookup;
		return &e->row;
	}
	cache->misses++;
	return NULL;
}
