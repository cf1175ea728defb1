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

UW_INTERNAL void uw_rowcache_store(struct uw_cursor *c, uint64_t lookup,
				   const struct uw_compact_row *row)
{
	struct uw_cache_entry *e;

	if (!c->ws.tables_named)
		return;
	e = uw_rowcache_slot(c, lookup);
	uw_rowcache_key(c->ws.tables, lookup, &e->key);
	e->row = *row;
	e->arch = (uint8_t)c->arch;
	e->valid = 1;
}
