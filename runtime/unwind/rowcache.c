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

/* Do the tables name their CFI?  Local sections do by their buffers;
 * sections read from the target only with the host's ident (the contract
 * of uw_tables.ident). */
static int uw_rowcache_names_cfi(const struct uw_tables *t)
{
	if (t->ident)
		return 1;
	return (t->eh_frame_hdr.data || !t->eh_frame_hdr.size) &&
	       (t->eh_frame.data || (!t->eh_frame.size &&
				     !t->eh_frame_hdr.size)) &&
	       (t->debug_frame.data || !t->debug_frame.size);
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

/* Does the entry's key name these tables at this pc?  Every cached step
 * compares all fourteen words, so it is one OR of differences rather than
 * a branch per word. */
static int uw_rowcache_key_is(const struct uw_cache_key *k,
			      const struct uw_tables *t, uint64_t pc)
{
	uint64_t d;

	d = (k->pc ^ pc) | (k->bias ^ t->bias) |
	    (k->text_base ^ t->text_base) | (k->data_base ^ t->data_base) |
	    (k->ident ^ t->ident);
	d |= (k->sec[0][0] ^ (uint64_t)(uintptr_t)t->eh_frame_hdr.data) |
	     (k->sec[0][1] ^ t->eh_frame_hdr.addr) |
	     (k->sec[0][2] ^ t->eh_frame_hdr.size);
	d |= (k->sec[1][0] ^ (uint64_t)(uintptr_t)t->eh_frame.data) |
	     (k->sec[1][1] ^ t->eh_frame.addr) |
	     (k->sec[1][2] ^ t->eh_frame.size);
	d |= (k->sec[2][0] ^ (uint64_t)(uintptr_t)t->debug_frame.data) |
	     (k->sec[2][1] ^ t->debug_frame.addr) |
	     (k->sec[2][2] ^ t->debug_frame.size);
	return d == 0;
}

/* The slot of lookup pc, or NULL where no cache applies. */
static struct uw_cache_entry *uw_rowcache_slot(struct uw_cursor *c,
					       uint64_t pc)
{
	uint64_t h = pc * 0x9e3779b97f4a7c15ull;

	if (!c->cache || !c->cache->entries ||
	    !uw_rowcache_names_cfi(&c->ws.tables))
		return NULL;
	return &c->cache->entries[(uint32_t)(h >> 40) & c->cache->mask];
}

UW_INTERNAL const struct uw_compact_row *uw_rowcache_find(struct uw_cursor *c,
							  uint64_t lookup)
{
	struct uw_cache_entry *e = uw_rowcache_slot(c, lookup);

	if (!e)
		return NULL;
	if (e->valid && e->arch == (uint8_t)c->arch &&
	    uw_rowcache_key_is(&e->key, &c->ws.tables, lookup)) {
		c->cache->hits++;
		return &e->row;
	}
	c->cache->misses++;
	return NULL;
}

UW_INTERNAL void uw_rowcache_store(struct uw_cursor *c, uint64_t lookup,
				   const struct uw_compact_row *row)
{
	struct uw_cache_entry *e = uw_rowcache_slot(c, lookup);

	if (!e)
		return;
	uw_rowcache_key(&c->ws.tables, lookup, &e->key);
	e->row = *row;
	e->arch = (uint8_t)c->arch;
	e->valid = 1;
}
