/* Our library (runtime/unwind) driven over a snapshot: the host side of
   struct uw_host_ops for user space.  Memory comes from the snapshot's
   regions, then from the read-only file mappings named in its maps, then
   (live mode only) from the process; unwind tables come from the ELF files
   on disk (or the vdso image in the snapshot), parsed once per file.  */
#ifndef UW_OURS_H
#define UW_OURS_H

#include <stdio.h>

#include "snapshot.h"
#include "../../runtime/unwind/unwind_core.h"

/* ELF files opened and parsed once, shared by every address space.  */
struct uw_elf_cache;
struct uw_elf_cache *uw_elf_cache_new(void);
void uw_elf_cache_free(struct uw_elf_cache *c);

/* The modules of one memory map, resolved to unwind tables and load
   biases.  Valid for every snapshot whose maps text is identical.  */
struct uw_space;
struct uw_space *uw_space_new(struct uw_elf_cache *cache, const struct uw_snapshot *s);
void uw_space_free(struct uw_space *sp);
bool uw_space_matches(const struct uw_space *sp, const struct uw_snapshot *s);

struct uw_ours_result {
	int nframes;
	const char *stop_reason; /* the library's name for why it stopped */
	uint64_t stop_pc;
	bool stopped_cleanly;    /* end of stack, not an error */
};

/* Unwind snapshot S in space SP; LIVE_PID > 0 lets reads fall back to the
   live process; FP_FALLBACK sets UW_POLICY_ALL (code reading, then the
   frame-pointer chain).  */
/* The row cache (struct uw_cache) uw_ours_unwind attaches to its cursor:
   one per thread, kept across unwinds, 4096 entries; on by default.  The
   tables it reports are ELF images in the uw_elf_cache, which stay valid,
   so the cache never needs clearing here.  Off: every step parses.  */
void uw_ours_set_row_cache(bool on);
/* Compile each ELF file's tables when it is first read (default on), as
   the kernel's VMA tracker does: steps then take their rows from the
   compiled table (uw_tables.compiled).  Off: every row is parsed (or
   found in the row cache).  Set before the first file is read. */
void uw_ours_set_compiled(bool on);
/* The unwind tables of the ELF file at PATH (bias 0), its architecture,
   and, where it was compiled, the compile's statistics and time (ns);
   false if it has none. */
bool uw_elf_file_tables(struct uw_elf_cache *c, const char *path, struct uw_tables *t,
			enum uw_arch *arch, const struct uw_compile_stats **stats, double *compile_ns);
/* Pass the host's trace callback to the core (default): frames then know
   whether CFI covered the step to their caller. */
void uw_ours_set_trace(bool on);
/* Walk untraced snapshots by uw_step_many, or frame by frame by uw_step
   (default), as the kernel runtime walks: the same frames. */
void uw_ours_set_step_many(bool on);
/* From now on, count the pages of the cursor and of the row cache (its
   state, its entries) each walk touches, each placed in pages of its
   own.  Single-threaded callers only: it handles SIGSEGV.  Then
   uw_ours_page_stats prints to OUT (if not NULL), for the walks since
   the last call, the mean and the most per walk of each, and starts the
   count again. */
void uw_ours_count_pages(void);
void uw_ours_page_stats(FILE *out, const char *what);
void uw_ours_row_cache_stats(unsigned long long *hits, unsigned long long *misses,
			     unsigned long long *cie_misses);
/* Steps of uw_ours_unwind so far by where their CFI row came from
   (struct uw_cursor: steps_compiled, steps_full, steps_marked,
   steps_uncompiled). */
void uw_ours_step_stats(unsigned long long *compiled, unsigned long long *full,
			unsigned long long *marked, unsigned long long *uncompiled);
/* One object's steps, by where their CFI row came from (as
   uw_ours_step_stats), and what its compiled table holds (rows: NULL
   where it has none).  steps counts every step out of a frame of the
   object, those by other methods (signal frames found by their code,
   code without CFI, frame pointers) and those that stopped too. */
struct uw_object_steps {
	const char *path;
	const struct uw_compile_stats *rows;
	unsigned long long steps;
	struct uw_step_counts by_frame;	/* uw_ours_object_steps' */
	struct uw_step_counts counted;	/* uw_ours_object_counts' */
};
/* Walk s once more by uw_step, with the caches as they stand, and add
   each step to the entry of objs[0, *n) of the object whose code holds
   its frame's lookup pc (a new entry for an object not there yet, while
   *n < max; steps at pcs no object holds are not counted). */
void uw_ours_object_steps(struct uw_space *sp, const struct uw_snapshot *s, bool fp_fallback,
			  struct uw_object_steps *objs, int max, int *n);
/* The same walk by uw_step_many, the steps counted by the core itself in
   the counts of the tables that served them (uw_tables.steps), added to
   the objects' counted: what a kernel host's counts per object say. */
void uw_ours_object_counts(struct uw_space *sp, const struct uw_snapshot *s, bool fp_fallback,
			   struct uw_object_steps *objs, int max, int *n);
/* Forget the row cache's rows, keeping its tables and their parsed CIEs
   (uw_cache_forget_rows): the next unwind parses every row, as a
   sampler's step at a pc never seen, in modules seen before. */
void uw_ours_forget_rows(void);

int uw_ours_unwind(struct uw_space *sp, const struct uw_snapshot *s, pid_t live_pid,
		   bool fp_fallback, struct uw_frame *out, int max, struct uw_ours_result *res);

/* The walk every host of the core in these tests shares (here and in
   ours_mem.c): they differ only in where memory and tables come from.  */
struct uw_walk {
	/* The uw_step in progress found CFI (or a signal frame) for its pc;
	   kept by uw_walk_trace.  */
	bool step_found_fde;
};
/* A read of live process PID's memory (process_vm_readv, so a bad address
   fails instead of faulting): 0 = read, -EFAULT = not.  */
int uw_walk_read_live(pid_t pid, uint64_t addr, void *buf, uint32_t len);
/* The host's trace callback passes every event here.  */
void uw_walk_trace(struct uw_walk *w, enum uw_trace_event ev);
/* Unwind snapshot S with the host OPS/HOST (whose trace callback calls
   uw_walk_trace on W, or which has none): its registers all trusted,
   FP_FALLBACK sets UW_POLICY_ALL, CACHE (may be NULL) is the row
   cache.  Up to MAX frames into OUT, how it ended into RES; the cursor C
   is left stopped.  Returns the number of frames.  */
int uw_walk_snapshot(struct uw_cursor *c, struct uw_walk *w, const struct uw_snapshot *s,
		     const struct uw_host_ops *ops, void *host, bool fp_fallback,
		     struct uw_cache *cache, struct uw_frame *out, int max,
		     struct uw_ours_result *res);

/* Exposed for the benchmark and for other peers that want the same table
   lookup: the module covering PC, with its ELF image and bias.  */
struct uw_module_view {
	uint64_t start, end;   /* runtime range of the executable mapping */
	uint64_t bias;
	const uint8_t *image;  /* whole ELF file / vdso image */
	size_t image_size;
	const char *path;
	uint64_t eh_frame_hdr_addr, eh_frame_hdr_size; /* link-time */
	uint64_t eh_frame_addr, eh_frame_size;
	uint64_t debug_frame_off, debug_frame_size; /* file offset, unloaded */
};
const struct uw_module_view *uw_space_find_module(struct uw_space *sp, uint64_t pc);
int uw_space_nmodules(const struct uw_space *sp);
const struct uw_module_view *uw_space_module(const struct uw_space *sp, int i);

/* The memory model every peer uses: the snapshot's regions, then the
   read-only file mappings (from the files on disk).  Remembers the
   region of the last read in SP (not thread-safe).  */
bool uw_space_read(struct uw_space *sp, const struct uw_snapshot *s, uint64_t addr,
		   void *buf, size_t len);

#endif
