/* stap-unwind: where a user address is mapped, for every process.
 *
 * Interface shared by unwind.c (unwind tables of objects not named with -d)
 * and the symbol code (names from an object's own .dynsym, build-ids).
 * The implementation (VMA tracking for every process) is vma_map.c,
 * included by the overlay's vma.c (runtime/stock/vma.c) in every module.
 */
#ifndef STP_UW_VMA_MAP_H
#define STP_UW_VMA_MAP_H

#define STP_UW_BUILD_ID_MAX	64

struct uw_index_entry;		/* the unwinder core's (unwind_core.h) */

/* A sorted index of the FDEs of an object's .eh_frame that no
 * .eh_frame_hdr searches (vma_object.c, stp_uw_obj_index), and the link-time
 * [eh_frame, eh_frame + eh_frame_size) it indexes. */
struct stp_uw_eh_index {
	const struct uw_index_entry *entries;
	uint32_t count;
	unsigned long eh_frame, eh_frame_size;
};

/* One executable file mapping of a process, as seen when it was mapped. */
struct stp_uw_mapping {
	unsigned long start, end;	/* [start, end) of this mapping */
	unsigned long pgoff;		/* file offset (bytes) mapped at start */
	unsigned long base;		/* where file offset 0 of the object is
					 * mapped: start - pgoff of its mapping
					 * of offset 0 (its ELF header) */
	const char *path;		/* full path, NUL-terminated; valid for
					 * the rest of the probe handler, and
					 * after it while
					 * stp_uw_vma_releases() is unchanged */
	unsigned long bias;		/* load bias: runtime minus link-time
					 * address (ET_EXEC: 0); valid only if
					 * bias_known */
	int bias_known;			/* the file's ELF headers were read */
	unsigned char build_id[STP_UW_BUILD_ID_MAX];
	unsigned build_id_len;		/* 0: not known (GNU ld: 20) */
	/* The index of the object's .eh_frame if no .eh_frame_hdr of it
	 * searches it (uw_tables.index), valid as path is; NULL: none. */
	const struct stp_uw_eh_index *index;
	/* The object's tables compiled (uw_tables.compiled), valid as path
	 * is; NULL: none. */
	const struct uw_compiled_table *compiled;
	uint32_t compiled_parse_rows;	/* of those, left to the parse */
	/* The object's step counts (struct stp_uw_obj), valid as path is;
	 * NULL: none. */
	struct uw_step_counts __percpu *steps;
	unsigned long generation;	/* changes whenever this process's
					 * map changes (row-cache key) */
};

/* The file mapping of tsk's address space that contains addr.  Safe in
 * probe context: no sleeping, no allocation, no blocking locks.  Returns 0
 * and fills *out, or a negative errno (-ENOENT: not mapped or not known). */
static int stp_uw_vma_find(struct task_struct *tsk, unsigned long addr,
			   struct stp_uw_mapping *out);

/* The compiled table of the vdso image img (mm->context.vdso_image),
 * compiled when a rescan first found a process mapping it, or NULL.
 * Probe context. */
struct vdso_image;
static const struct uw_compiled_table *stp_uw_vdso_compiled_of(const struct vdso_image *img);

/* stp_uw_vma_find() found nothing for a pc of tsk: the map may be out of
 * date (a moved mapping); ask for a rescan.  Probe context. */
static void stp_uw_vma_missed(struct task_struct *tsk);

/* Counts the tracking's releases of what a lookup may have returned (a
 * process's map replaced or dropped; what it held is freed a grace
 * period later): the paths and indexes found before stay valid while it
 * reads the same.  Probe context. */
static long stp_uw_vma_releases(void);

/* Module init: track every process (process context, before the task
 * finder starts).  Module exit: free everything (after the task finder
 * stopped, no probe handler running). */
static int stp_uw_vma_init(void);
static void stp_uw_vma_done(void);

#endif /* STP_UW_VMA_MAP_H */
