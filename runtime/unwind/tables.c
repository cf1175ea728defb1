/* Which tables serve a pc: the ones this unwind found last, then the ones
 * before them, then those earlier unwinds of the same space found, and
 * only then the host's find_tables.
 *
 * Within an unwind, frames stay in one object for a while and alternate
 * between two (a program's frames and libc's), so the cursor keeps the
 * last two tables found with a pc range (uw_tables.pc_lo) and asks
 * find_tables only when a pc leaves both.  Across unwinds, a sampler or
 * a probe on a system call walks the same few processes again and again:
 * where the host vouches that the tables it gave still hold
 * (uw_cache.space, "Tables across unwinds" in unwind_core.h), the row
 * cache keeps the last UW_CACHE_KEPT_TABLES of them, each with its space,
 * and an unwind looks among its own space's before it asks the host.  Here is all of that but the first two
 * tests, which every step makes, inline in uw_internal.h
 * (uw_tables_known, uw_tables_for); the host's side, naming its spaces,
 * is its own (runtime/stock/unwind.c: stp_uw_space).
 */
#include "uw_internal.h"

/* The kept tables of the cache's space: a mask of k's keys, made again
 * only when the space is not the last one asked for. */
static uint32_t uw_tables_kept_mask(struct uw_kept_tables *k, uint64_t space)
{
	uint32_t i;

	if (k->mask_space == space)
		return k->mask;
	k->mask_space = space;
	k->mask = 0;
	for (i = 0; i < k->count; i++)	/* bound: count <= UW_CACHE_KEPT_TABLES */
		if (k->key[i].space == space)
			k->mask |= 1u << i;
	return k->mask;
}

/* c->state.tables, just found by find_tables with a pc range: kept for
 * later unwinds of the cache's space, with slot, their tag's, in place
 * of the oldest kept.  This and the helpers below are not inlined: their
 * frames stay off the kernel stack budget's deepest chain, the host's
 * find_tables (unwind_core.h). */
static __attribute__((__noinline__)) void
uw_tables_keep(struct uw_cursor *c, uint32_t slot)
{
	struct uw_kept_tables *k = &c->cache->state.kept;
	const struct uw_tables *t = c->state.tables;
	const uint64_t space = c->cache->space;
	const uint32_t i = k->next;

	(void)uw_tables_kept_mask(k, space);
	k->key[i] = (struct uw_kept_tables_key){
		.space = space, .pc_lo = t->pc_lo, .pc_hi = t->pc_hi,
		.arch = (uint32_t)c->arch };
	k->entry[i] = (struct uw_kept_tables_entry){
		.tables = *t, .tag = c->state.tables_tag, .slot = slot };
	k->mask |= 1u << i;	/* in place of another space's, maybe */
	if (k->count <= i)
		k->count = i + 1;
	k->next = (i + 1) % UW_CACHE_KEPT_TABLES;
}

/* The kept tables an earlier unwind of the cache's space found for
 * lookup, or NULL. */
static __attribute__((__noinline__)) struct uw_kept_tables_entry *
uw_tables_kept_find(struct uw_cursor *c, uint64_t lookup)
{
	struct uw_cache *cache = c->cache;
	const struct uw_kept_tables_key *key;
	uint32_t todo, i;

	if (!cache || !cache->space)
		return NULL;
	todo = uw_tables_kept_mask(&cache->state.kept, cache->space);
	while (todo) {	/* bound: UW_CACHE_KEPT_TABLES bits */
		i = (uint32_t)__builtin_ctz(todo);
		todo &= todo - 1;
		key = &cache->state.kept.key[i];
		if (uw_pc_in(lookup, key->pc_lo, key->pc_hi) &&
		    key->arch == (uint32_t)c->arch)
			return &cache->state.kept.entry[i];
	}
	return NULL;
}

/* find_tables found nothing: c->state.tables keep only why (unreadable,
 * with its module) for the stop report. */
static __attribute__((__noinline__)) int uw_tables_none(struct uw_cursor *c)
{
	uint64_t unreadable = c->state.tables->unreadable;
	const char *module = unreadable ? c->state.tables->module : NULL;

	*c->state.tables = (struct uw_tables){ .module = module,
					       .unreadable = unreadable };
	c->state.tables_reusable = 0;
	c->state.tables_tag = 0;
	return -1;
}

/* find_tables found c->state.tables: their tag, and kept across unwinds
 * if they have a pc range. */
static __attribute__((__noinline__)) void uw_tables_found(struct uw_cursor *c)
{
	uint32_t slot;

	c->state.tables->unreadable = 0;
	c->state.tables_reusable =
		c->state.tables->pc_hi > c->state.tables->pc_lo;
	slot = uw_rowcache_tag_tables(c);
	if (c->cache && c->cache->space && c->state.tables_reusable)
		uw_tables_keep(c, slot);
}

UW_INTERNAL int uw_tables_kept_take(struct uw_cursor *c, uint64_t lookup)
{
	struct uw_kept_tables_entry *e;

	e = uw_tables_kept_find(c, lookup);
	if (!e)
		return -1;
	/* The current tables, if reusable, become the ones before. */
	if (c->state.tables_reusable)
		uw_tables_swap(c);
	*c->state.tables = e->tables;
	c->state.tables_reusable = 1;
	/* A use of their tag, as a lookup would count it; or, if it was
	 * taken for others meanwhile, a new one, as find_tables' answer
	 * would get. */
	uw_rowcache_use_tag(c, &e->tag, &e->slot);
	return 0;
}

UW_INTERNAL int uw_tables_find(struct uw_cursor *c, uint64_t lookup)
{
	/* The current tables, if reusable, become the ones before; the
	 * lookup fills the storage of those kept before them. */
	if (c->state.tables_reusable)
		uw_tables_swap(c);
	if (c->state.ops->find_tables(c->state.host, lookup,
				      c->state.tables) != 0)
		return uw_tables_none(c);
	uw_tables_found(c);
	return 0;
}
