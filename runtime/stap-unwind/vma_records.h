/* stap-unwind: the VMA tracking's records, and the limits on them.
 *
 * Objects (one per mapped file, shared by every process that maps it),
 * snapshots (one process's executable file mappings, immutable once
 * published) and process records (tgid, mm, the current snapshot).  Who
 * creates and frees each, and when, is in vma_map.c's top comment; the
 * limits below are the ones it describes (stap -DNAME=N sets each).
 * Included by each part of the tracking (vma_map.c lists them).
 */
#ifndef STP_UW_VMA_RECORDS_H
#define STP_UW_VMA_RECORDS_H

#include "stap-unwind/vma_map.h"
#include "stap-unwind/compiled.h"

#ifndef STP_UW_VMA_MAX_BYTES
#define STP_UW_VMA_MAX_BYTES	(16UL << 20)
#endif
#ifndef STP_UW_VMA_MAX_MAPS
#define STP_UW_VMA_MAX_MAPS	1024
#endif
#ifndef STP_UW_VMA_HASH_BITS
#define STP_UW_VMA_HASH_BITS	10
#endif
#define STP_UW_VMA_HASH_SIZE	(1U << STP_UW_VMA_HASH_BITS)
#ifndef STP_UW_VMA_INDEX_MAX		/* bytes of .eh_frame read to index it */
#define STP_UW_VMA_INDEX_MAX	(16UL << 20)
#endif
#ifndef STP_UW_VMA_PREFAULT_MAX
#define STP_UW_VMA_PREFAULT_MAX	(8UL << 20)
#endif
/* Compiled tables (vma_compiled.c; -DSTP_UW_COMPILED=0: none,
 * compiled.h): an object whose table would take more than
 * STP_UW_VMA_COMPILE_MAX bytes, or bring all tables past
 * STP_UW_VMA_COMPILE_BYTES of the budget, keeps the interpreter. */
#ifndef STP_UW_VMA_COMPILE_MAX
#define STP_UW_VMA_COMPILE_MAX	(4UL << 20)
#endif
#ifndef STP_UW_VMA_COMPILE_BYTES
#define STP_UW_VMA_COMPILE_BYTES	(STP_UW_VMA_MAX_BYTES / 2)
#endif
#ifndef STP_UW_VMA_MISS_SLOTS
#define STP_UW_VMA_MISS_SLOTS	16
#endif
#ifndef STP_UW_VMA_MISS_INTERVAL
#define STP_UW_VMA_MISS_INTERVAL	HZ
#endif

/* One mapped file, shared by every process that maps it. */
struct stp_uw_obj {
	struct hlist_node hnode;	/* stp_uw_obj_hash; writers only */
	struct rcu_head rcu;
	dev_t dev;
	unsigned long ino;
	s64 ctime_sec;
	long ctime_nsec;
	unsigned refs;			/* snapshot entries using it */
	int elf;			/* 1: ELF headers read; delta valid */
	unsigned long delta;		/* p_vaddr - p_offset of the first
					 * PT_LOAD: bias = base - delta */
	unsigned long ehf_lo, ehf_hi;	/* link-time [lo, hi) of the PT_LOAD
					 * holding PT_GNU_EH_FRAME; 0,0: none */
	unsigned long head_size;	/* bytes from the ELF header on that a
					 * probe's ELF scan reads: the program
					 * headers and notes in the first
					 * segment (stp_uw_obj_read_elf) */
	unsigned build_id_len;
	unsigned char build_id[STP_UW_BUILD_ID_MAX];
	/* An .eh_frame that no .eh_frame_hdr searches: its FDEs, sorted
	 * (stp_uw_obj_index; one kvmalloc with the entries after it).
	 * NULL: none needed, or none could be made. */
	struct stp_uw_eh_index *index;
	/* Its tables compiled, as probes find them; NULL: not compiled. */
	struct stp_uw_compiled *compiled;
	/* The steps of user walks its tables served, by where their row
	 * came from (the core counts them: uw_tables.steps), each CPU's
	 * apart; read by uw_vma_object_steps().  NULL: none could be
	 * allocated (then nothing is counted, and it says so). */
	struct uw_step_counts __percpu *steps;
	size_t charged;
	char path[];			/* NUL-terminated, exact length */
};

/* What an object's step counts are charged (struct stp_uw_obj, steps). */
#define STP_UW_OBJ_STEPS_BYTES	(sizeof(struct uw_step_counts) * nr_cpu_ids)

/* The extents of an object that probes read (vma_resident.c). */
#define STP_UW_OBJ_EXTENTS	2

struct stp_uw_map {
	unsigned long start, end, pgoff, base;
	struct stp_uw_obj *obj;
};

/* Immutable once published. */
struct stp_uw_snap {
	struct rcu_head rcu;
	unsigned long generation;
	size_t charged;
	unsigned n;
	struct stp_uw_map map[];	/* sorted by start, disjoint */
};

struct stp_uw_proc {
	struct hlist_node hnode;	/* stp_uw_proc_hash (RCU) */
	struct rcu_head rcu;
	pid_t tgid;
	struct mm_struct *mm;		/* identity only, never dereferenced */
	struct stp_uw_snap __rcu *snap;
	unsigned long miss_asked;	/* jiffies of the last rescan asked for
					 * on a miss (stp_uw_vma_missed); 0 none */
};

#endif /* STP_UW_VMA_RECORDS_H */
