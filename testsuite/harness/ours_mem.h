/* Our library driven over a snapshot with unwind tables found purely in
   the tracee's memory (runtime/unwind/elfmem.c), the way the kernel side
   finds them for modules not named with -d: no ELF file is opened.
   /proc/PID/maps (the snapshot's maps text) is used only to find where each
   object's ELF header is mapped (its lowest mapping at file offset 0),
   which is what VMA tracking gives the kernel.

   Memory: the snapshot's regions (stack, vdso), then, live, the process
   through process_vm_readv, which fails on pages the process cannot read
   (PROT_NONE), as a nofault read fails on a page that is not resident.
   In replay (no live process) file mappings are read from the files on
   disk instead, honouring the mapping's 'r' permission; writable pages
   then show their file contents, not the process's (DT_PLTGOT may be
   unrelocated: elfmem.c accepts both).  */
#ifndef UW_OURS_MEM_H
#define UW_OURS_MEM_H

#include "ours.h"
#include "snapshot.h"

struct uw_mem_space;
struct uw_mem_space *uw_mem_space_new(const struct uw_snapshot *s);
void uw_mem_space_free(struct uw_mem_space *sp);
bool uw_mem_space_matches(const struct uw_mem_space *sp, const struct uw_snapshot *s);

/* Why and where our library stopped (struct uw_stop, without the enum's
   header).  */
struct uw_mem_stop {
	int reason;          /* enum uw_stop_reason */
	uint64_t pc, addr;
	const char *module;  /* points into the space; valid while it lives */
};

/* Same contract as uw_ours_unwind (ours.h); STOP may be NULL.  */
int uw_mem_unwind(struct uw_mem_space *sp, const struct uw_snapshot *s, pid_t live_pid,
		  bool fp_fallback, struct uw_frame *out, int max, struct uw_ours_result *res,
		  struct uw_mem_stop *stop);

/* Counters over the space's life: ELF scans made, memo hits, scans that
   failed on unreadable memory.  */
void uw_mem_space_stats(const struct uw_mem_space *sp, unsigned long *scans,
			unsigned long *hits, unsigned long *unreadable);

#endif
