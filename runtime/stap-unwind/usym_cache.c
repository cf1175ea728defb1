/* stap-unwind: the per-CPU cache of names read from objects' .dynsym in
 * process memory (probe context).
 */
#ifndef STP_UW_USYM_CACHE_C
#define STP_UW_USYM_CACHE_C

#include "stap-unwind/usym_lookup.h"

/* Finding the .dynsym symbol that contains an address means reading the
 * object's ELF headers and scanning its dynamic symbols (thousands in
 * libc) through no-fault reads: about 260 us per frame in the TCG guest.
 * The answer depends only on the file's contents, so it is cached per CPU,
 * keyed by the object's build-id and the address's distance from where
 * the object's ELF header is mapped: one entry serves every process that
 * maps the same file.  Negative answers (no symbol contains it) are kept
 * too.  Objects without a build-id, and names longer than the entry's
 * buffer, are not cached.  Direct-mapped, STP_UW_USYM_CACHE entries of
 * 136 bytes per CPU (34 KiB; 0 turns it off), allocated at module init;
 * used only in probe context, where a CPU runs one probe at a time. */
#ifndef STP_UW_USYM_CACHE
#define STP_UW_USYM_CACHE	256	/* a power of two */
#endif
#define STP_UW_USYM_CACHE_NAME	88

struct stp_uw_usym_cached {
	u64 bid;			/* hash of the build-id; 0: empty */
	unsigned long rel;		/* key: (lookup address - ELF header
					 * address) << 1 | 1 for a caller */
	unsigned long start_rel, size;	/* the symbol */
	unsigned char found, contains;	/* found 0: no symbol names it */
	char name[STP_UW_USYM_CACHE_NAME];
};

static struct stp_uw_usym_cached __percpu *stp_uw_usym_cache;

/* Also the build-id part of unwind.c's row-cache identity of tables read
 * from process memory (stp_uw_tables_ident). */
static u64 stp_uw_bid_hash(const unsigned char *bid, unsigned len)
{
	u64 h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	unsigned i;

	for (i = 0; i < len; i++)
		h = (h ^ bid[i]) * 0x100000001b3ULL;
	h ^= len;
	return h ? h : 1;
}

static struct stp_uw_usym_cached *stp_uw_usym_cache_slot(u64 bid, unsigned long rel)
{
	u64 k = (bid ^ rel) * 0x9e3779b97f4a7c15ULL;

	return this_cpu_ptr(stp_uw_usym_cache)
		+ (unsigned)(k >> 32) % (STP_UW_USYM_CACHE > 0 ? STP_UW_USYM_CACHE : 1);
}

static void stp_uw_usym_cache_alloc(void)
{
	if (STP_UW_USYM_CACHE > 0 && !stp_uw_usym_cache)
		stp_uw_usym_cache = __alloc_percpu(sizeof(struct stp_uw_usym_cached)
						   * STP_UW_USYM_CACHE,
						   __alignof__(struct stp_uw_usym_cached));
}

static void stp_uw_usym_cache_free(void)
{
	free_percpu(stp_uw_usym_cache);
	stp_uw_usym_cache = NULL;
}

/* 1 and u->name set (or left NULL: no symbol names it) on a hit. */
static int stp_uw_usym_cache_get(struct stp_uw_usym *u, u64 bid,
				 unsigned long base, unsigned long key)
{
	struct stp_uw_usym_cached *e;

	if (!stp_uw_usym_cache || !bid)
		return 0;
	e = stp_uw_usym_cache_slot(bid, key);
	if (e->bid != bid || e->rel != key)
		return 0;
	if (e->found) {
		strscpy(u->namebuf, e->name, sizeof(u->namebuf));
		u->name = u->namebuf;
		u->contains = e->contains;
		u->sym_start = base + e->start_rel;
		u->sym_size = e->size;
	}
	return 1;
}

static void stp_uw_usym_cache_put(const struct stp_uw_usym *u, u64 bid,
				  unsigned long base, unsigned long key)
{
	struct stp_uw_usym_cached *e;

	if (!stp_uw_usym_cache || !bid
	    || (u->name && strlen(u->name) >= sizeof(e->name)))
		return;
	e = stp_uw_usym_cache_slot(bid, key);
	e->bid = bid;
	e->rel = key;
	e->found = !!u->name;
	e->contains = u->name && u->contains;
	e->size = u->name ? u->sym_size : 0;
	e->start_rel = u->name ? u->sym_start - base : 0;
	if (u->name)
		strscpy(e->name, u->name, sizeof(e->name));
}

/* The name cache's key of lookup in the object at base: a caller's name
 * (lookup = addr - 1) may be a symbol starting at addr, not the same
 * answer as for lookup itself. */
static inline unsigned long stp_uw_usym_ckey(unsigned long base,
					     unsigned long addr,
					     unsigned long lookup)
{
	return (lookup - base) << 1 | (lookup != addr);
}

#endif /* STP_UW_USYM_CACHE_C */
