/* The row cache (struct uw_cache, see unwind_core.h): compact rows kept
 * across unwinds, keyed by the lookup pc and the identity of the tables.
 *
 * A hit saves the whole of finding and parsing (cfi.c, row.c); what is
 * stored is exactly what uw_step applies to a parsed row (struct
 * uw_compact_row), so a cached step and an uncached one are the same
 * step.
 */
#include "uw_internal.h"

UW_API void uw_cache_clear(struct uw_cache *cache)
{
	uint32_t i;

	if (!cache->entries)
		return;
	for (i = 0; i <= cache->mask; i++)	/* bound: number of entries */
		cache->entries[i].valid = 0;
	for (i = 0; i < UW_CACHE_RANGES; i++) {	/* bound: UW_CACHE_RANGES */
		cache->ranges[i].valid = 0;
		cache->range_pcs[i] = (struct uw_pc_range){ 0, 0 };
	}
	cache->range_next = 0;
	cache->range_last = 0;
	cache->range_count = 0;
}

UW_API void uw_cache_init(struct uw_cache *cache,
			  struct uw_cache_entry *entries, uint32_t n)
{
	uint32_t size = 1;

	cache->hits = 0;
	cache->misses = 0;
	cache->range_hits = 0;
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

static void uw_rowcache_key(const struct uw_tables *t, uint64_t pc,
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
	for (i = 0; i < 3; i++) {		/* bound: 3 sections */
		k->sec[i][0] = (uint64_t)(uintptr_t)sec[i]->data;
		k->sec[i][1] = sec[i]->addr;
		k->sec[i][2] = sec[i]->size;
	}
}

static void uw_rowcache_fill(struct uw_cursor *c, struct uw_cache_entry *e,
			     uint64_t pc, const struct uw_compact_row *row)
{
	uw_rowcache_key(c->ws.tables, pc, &e->key);
	e->row = *row;
	e->arch = (uint8_t)c->arch;
	e->valid = 1;
}

/* Keep row, just parsed (ws.row_pcs says where it holds), for
 * lookup pc, and for its range if that is more than the pc. */
UW_INTERNAL void uw_rowcache_store(struct uw_cursor *c, uint64_t lookup,
				   const struct uw_compact_row *row)
{
	const uint64_t mask = c->ad->addr_mask, bias = c->ws.tables->bias;
	struct uw_cache *cache = c->cache;
	uint64_t lo, hi;

	if (!c->ws.tables_named)
		return;
	uw_rowcache_fill(c, uw_rowcache_slot(c, lookup), lookup, row);
	lo = (c->ws.row_pcs.lo + bias) & mask;
	hi = (c->ws.row_pcs.hi + bias) & mask;
	if (hi - lo < 2 || hi < lo || lookup - lo >= hi - lo)
		return;
	uw_rowcache_fill(c, &cache->ranges[cache->range_next], lo, row);
	cache->range_pcs[cache->range_next] = (struct uw_pc_range){ lo, hi };
	cache->range_last = cache->range_next;
	if (cache->range_count <= cache->range_next)
		cache->range_count = cache->range_next + 1;
	cache->range_next = (cache->range_next + 1) % UW_CACHE_RANGES;
}

/* Does range entry i hold lookup pc in c->ws.tables?  Its pcs first:
 * they rule out nearly every entry, from one small array. */
static inline int uw_rowcache_range_holds(const struct uw_cursor *c,
					  unsigned i, uint64_t lookup)
{
	const struct uw_pc_range *pcs = &c->cache->range_pcs[i];
	const struct uw_cache_entry *e = &c->cache->ranges[i];

	return lookup - pcs->lo < pcs->hi - pcs->lo && e->valid &&
	       e->arch == (uint8_t)c->arch &&
	       uw_rowcache_key_is(&e->key, c->ws.tables, e->key.pc);
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
	unsigned i = cache->range_last;

	if (!uw_rowcache_range_holds(c, i, lookup))
		/* bound: range_count <= UW_CACHE_RANGES */
		for (i = 0; i < cache->range_count; i++)
			if (uw_rowcache_range_holds(c, i, lookup))
				break;
	if (i < cache->range_count) {
		cache->range_last = i;
		cache->hits++;
		cache->range_hits++;
		if (c->pc_is_exact)
			return &cache->ranges[i].row;
		e = uw_rowcache_slot(c, lookup);
		*e = cache->ranges[i];
		e->key.pc = lookup;
		return &e->row;
	}
	cache->misses++;
	return NULL;
}
