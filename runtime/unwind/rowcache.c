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

/* Forget the tables kept across unwinds (uw_cache.space). */
static void uw_rowcache_space_forget(struct uw_cache *cache)
{
	cache->space_count = 0;
	cache->space_next = 0;
}

/* Rows are found by their tables' tag: new tags for the same tables lose
 * them all at once, with no write to the entries (which a host may have
 * thousands of), and the CIEs kept follow their tables to the new tags. */
UW_API void uw_cache_forget_rows(struct uw_cache *cache)
{
	uint64_t old;
	uint32_t i, j;

	if (!cache->entries)
		return;
	for (i = 0; i < UW_CACHE_TABLES; i++) {	/* bound: UW_CACHE_TABLES */
		old = cache->tables[i].tag;
		if (!old)
			continue;
		cache->tables[i].tag = ++cache->tag_next;
		for (j = 0; j < UW_CACHE_CIES; j++)	/* bound: UW_CACHE_CIES */
			if (cache->cie_keys[j].tag == old)
				cache->cie_keys[j].tag = cache->tables[i].tag;
	}
	cache->range_next = 0;
	cache->range_last = 0;
	cache->range_count = 0;
	uw_rowcache_space_forget(cache);
}

UW_API void uw_cache_clear(struct uw_cache *cache)
{
	uint32_t i;

	uw_rowcache_space_forget(cache);
	if (!cache->entries)
		return;
	for (i = 0; i <= cache->mask; i++)	/* bound: number of entries */
		cache->entries[i].key.tag = 0;
	for (i = 0; i < UW_CACHE_RANGES; i++) {	/* bound: UW_CACHE_RANGES */
		cache->ranges[i].key.tag = 0;
		cache->range_pcs[i] = (struct uw_pc_range){ 0, 0 };
	}
	cache->range_next = 0;
	cache->range_last = 0;
	cache->range_count = 0;
	for (i = 0; i < UW_CACHE_TABLES; i++) {	/* bound: UW_CACHE_TABLES */
		cache->tables[i].tag = 0;
		cache->tables[i].used = 0;
	}
	for (i = 0; i < UW_CACHE_CIES; i++)	/* bound: UW_CACHE_CIES */
		cache->cie_keys[i].valid = 0;
	cache->cie_next = 0;
	cache->clock = 0;
}

UW_API void uw_cache_init(struct uw_cache *cache,
			  struct uw_cache_entry *entries, uint32_t n)
{
	uint32_t size = 1;

	cache->hits = 0;
	cache->misses = 0;
	cache->range_hits = 0;
	cache->cie_misses = 0;
	cache->tag_next = 0;
	cache->space = 0;
	cache->space_kept = 0;
	uw_rowcache_space_forget(cache);
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

/* The slot of c->ws.tables (just found, and naming their CFI) in the
 * table of tags: the one that holds them, or a new one in the slot used
 * least recently of their set. */
static struct uw_cache_tables *uw_rowcache_tag_slot(struct uw_cursor *c)
{
	const struct uw_tables *t = c->ws.tables;
	struct uw_cache *cache = c->cache;
	struct uw_cache_tables *set, *victim;
	uint64_t h;
	unsigned i;

	h = (t->ident ^ t->bias ^ t->eh_frame_hdr.addr ^ t->eh_frame.addr ^
	     t->debug_frame.addr ^ (uint64_t)(uintptr_t)t->eh_frame_hdr.data ^
	     (uint64_t)(uintptr_t)t->eh_frame.data ^
	     (uint64_t)(uintptr_t)t->debug_frame.data ^ (uint64_t)c->arch) *
	    0x9e3779b97f4a7c15ull;
	set = &cache->tables[(h >> 40) &
			     (UW_CACHE_TABLES - UW_CACHE_TABLES_WAYS)];
	victim = &set[0];
	for (i = 0; i < UW_CACHE_TABLES_WAYS; i++) {	/* bound: UW_CACHE_TABLES_WAYS */
		if (set[i].tag && uw_rowcache_tables_is(&set[i].key, t, c->arch)) {
			set[i].used = ++cache->clock;
			return &set[i];
		}
		if (set[i].used < victim->used)
			victim = &set[i];
	}
	uw_rowcache_tables_set(&victim->key, t, c->arch);
	victim->tag = ++cache->tag_next;
	victim->used = ++cache->clock;
	return victim;
}

/* The kept tables are of cache->space from here on: those of another
 * space are forgotten. */
static void uw_rowcache_space_enter(struct uw_cache *cache)
{
	if (cache->space_kept == cache->space)
		return;
	cache->space_kept = cache->space;
	uw_rowcache_space_forget(cache);
}

UW_INTERNAL void uw_rowcache_tables_found(struct uw_cursor *c)
{
	struct uw_cache *cache = c->cache;
	struct uw_cache_tables *slot = NULL;
	struct uw_cache_space_entry *e;

	c->ws.tables_tag = 0;
	if (!cache)
		return;
	if (cache->entries && uw_rowcache_names_cfi(c->ws.tables)) {
		slot = uw_rowcache_tag_slot(c);
		c->ws.tables_tag = slot->tag;
	}
	if (!cache->space || !c->ws.tables_reusable)
		return;
	uw_rowcache_space_enter(cache);
	e = &cache->space_entries[cache->space_next];
	e->tables = *c->ws.tables;
	e->tag = c->ws.tables_tag;
	e->slot = slot ? (uint32_t)(slot - cache->tables) : 0;
	e->arch = (uint32_t)c->arch;
	if (cache->space_count <= cache->space_next)
		cache->space_count = cache->space_next + 1;
	cache->space_next = (cache->space_next + 1) % UW_CACHE_SPACE_TABLES;
}

UW_INTERNAL int uw_rowcache_space_find(struct uw_cursor *c, uint64_t lookup)
{
	struct uw_cache *cache = c->cache;
	struct uw_cache_space_entry *e;
	struct uw_cache_tables *slot;
	uint32_t i;

	if (!cache || !cache->space)
		return 0;
	uw_rowcache_space_enter(cache);
	for (i = 0; i < cache->space_count; i++) {	/* bound: UW_CACHE_SPACE_TABLES */
		e = &cache->space_entries[i];
		if (e->arch != (uint32_t)c->arch ||
		    !uw_tables_cover(&e->tables, lookup))
			continue;
		*c->ws.tables = e->tables;
		if (e->tag) {
			/* A use of their tag, as a lookup would count it, so
			 * that the tag outlives tables used less; if it was
			 * taken for others meanwhile, tag them again, as
			 * find_tables' answer would be. */
			slot = &cache->tables[e->slot];
			if (slot->tag == e->tag) {
				slot->used = ++cache->clock;
			} else {
				slot = uw_rowcache_tag_slot(c);
				e->tag = slot->tag;
				e->slot = (uint32_t)(slot - cache->tables);
			}
		}
		c->ws.tables_tag = e->tag;
		return 1;
	}
	return 0;
}

static void uw_rowcache_fill(struct uw_cursor *c, struct uw_cache_entry *e,
			     uint64_t pc, const struct uw_compact_row *row)
{
	e->key = (struct uw_cache_key){ pc, c->ws.tables_tag };
	e->row = *row;
}

/* Keep row, just parsed (ws.row_pcs says where it holds), for
 * lookup pc, and for its range if that is more than the pc. */
UW_INTERNAL void uw_rowcache_store(struct uw_cursor *c, uint64_t lookup,
				   const struct uw_compact_row *row)
{
	const uint64_t mask = c->ad->addr_mask, bias = c->ws.tables->bias;
	struct uw_cache *cache = c->cache;
	uint64_t lo, hi;

	if (!c->ws.tables_tag)
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

	return lookup - pcs->lo < pcs->hi - pcs->lo &&
	       c->cache->ranges[i].key.tag == c->ws.tables_tag;
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
