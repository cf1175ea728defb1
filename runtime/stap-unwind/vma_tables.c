/* stap-unwind: the tables the VMA tracking's parts share: the hashes of
 * process records and of objects, the writers' lock, the rescans' mutex,
 * the core's scratch cursor of the rescans, and the counters
 * (stp_uw_vma_get_stats, vma_map.c).
 */
#ifndef STP_UW_VMA_TABLES_C
#define STP_UW_VMA_TABLES_C

#include "stap-unwind/vma_records.h"

static struct hlist_head stp_uw_proc_hash[STP_UW_VMA_HASH_SIZE];
static struct hlist_head stp_uw_obj_hash[STP_UW_VMA_HASH_SIZE];
static DEFINE_SPINLOCK(stp_uw_vma_lock);	/* writers: both hashes, refs */
static DEFINE_MUTEX(stp_uw_vma_rescan_mutex);	/* one rescan at a time */
/* The core's scratch cursor for what a rescan builds from an object's
 * tables (vma_object.c: index; vma_compiled.c: compiled table): the
 * rescan mutex is held there. */
static struct uw_cursor stp_uw_obj_scratch;
static atomic_long_t stp_uw_vma_generation = ATOMIC_LONG_INIT(0);
static atomic_long_t stp_uw_vma_release_count = ATOMIC_LONG_INIT(0);
static atomic_t stp_uw_vma_nprocs = ATOMIC_INIT(0);
static atomic_t stp_uw_vma_nobjs = ATOMIC_INIT(0);
static atomic_t stp_uw_vma_nmaps = ATOMIC_INIT(0);
static atomic_t stp_uw_vma_rescans = ATOMIC_INIT(0);
static atomic_t stp_uw_vma_active = ATOMIC_INIT(0);

static unsigned stp_uw_vma_hash(unsigned long key)
{
	return hash_long(key, STP_UW_VMA_HASH_BITS);
}

static long stp_uw_vma_releases(void)
{
	return atomic_long_read(&stp_uw_vma_release_count);
}

#endif /* STP_UW_VMA_TABLES_C */
