/* stap-unwind: VMA tracking for every process.
 *
 * For each process on the system this keeps the file-backed executable
 * mappings of its address space (path, [start, end), file offset, where
 * the object's ELF header is mapped, load bias, GNU build-id), so that
 * the unwinder can find the unwind tables of objects nobody named with
 * -d/--ldd in the process's own pages, and the symbol code can name them.
 *
 * Who writes, and when (always process or tracepoint context, never a
 * probe handler):
 *   - module init (stap-unwind/init_exit.c): every process that
 *     exists, including ones started before the script, is scanned with
 *     its mmap lock held for reading (get_task_mm + VMA iterator);
 *   - a task-finder target of our own (pid 0, no procname: every
 *     process): its mmap/munmap/mprotect callbacks run as task work in
 *     the process itself after the syscall, and rescan that process's map
 *     when the change touches an executable file mapping (or one we
 *     hold); its attach callback (new process: fork/clone, after exec,
 *     processes attached at start) rescans; exec's detach of the old
 *     image and the death of the last thread drop the process's record
 *     (tracepoint context: spinlock only, no allocation, no sleeping).
 *   - a worker thread, when the unwinder misses: a pc of a tracked process
 *     that no mapping of its snapshot covers.  The task finder does not
 *     report mremap, so a moved executable mapping shows up that way (as
 *     would any other missed change).  The probe handler only notes the
 *     process (stp_uw_vma_missed: a static set of STP_UW_VMA_MISS_SLOTS
 *     pids, at most one request per process per STP_UW_VMA_MISS_INTERVAL,
 *     so JIT code, which no file backs, costs one rescan a second) and
 *     kicks the worker through irq_work; the walk at hand stops there with
 *     no_unwind_data, later ones see the new map.
 * A rescan rebuilds the process's whole list from its mm, so a missed or
 * reordered event is repaired by the next one.
 *
 * Readers (probe context: stp_uw_vma_find) take no lock and allocate
 * nothing: each process's list is an immutable snapshot published with
 * RCU; a reader finds its process in an RCU hash by tgid (and checks the
 * mm pointer, so a record of an old image or a recycled pid is never
 * used), then binary-searches the sorted snapshot.  Snapshots, process
 * records and object records (with their index) are freed after an RCU
 * grace period (kfree_rcu, call_rcu; rcu_barrier at exit); SystemTap probe
 * handlers run with preemption disabled, which RCU treats as a read-side
 * critical section, so what a reader found stays valid for the rest of
 * its probe handler.
 *
 * Objects (one per mapped file: device, inode, ctime) are shared by every
 * process that maps them: the path (exact length, kmalloc'd: no fixed
 * truncation; d_path's own PATH_MAX is the kernel's limit), build-id and
 * load-bias delta are read once, from the file (the core's ELF reader over
 * kernel_read: ELF header, program headers, PT_NOTE segments), so they do
 * not depend on which pages of the process are resident.
 *
 * Index: an object whose .eh_frame no .eh_frame_hdr searches gets a
 * sorted index of its FDEs, built once from the file when the object is
 * first seen (stp_uw_obj_index), so that a probe handler never scans a
 * table (a hostile object could make that 65,000 FDEs) but binary-searches.
 *
 * Compiled tables: when an object is first seen, its unwind tables, as
 * a probe finds them, are compiled into the core's sorted table of rows
 * (stp_uw_obj_compile), so that a probe's step finds its row by a binary
 * search and parses only the rows the table cannot say.  The tables
 * compiled are charged to the budget below, but take at most
 * STP_UW_VMA_COMPILE_BYTES of it (default half), so that the records
 * always have the rest; an object whose table would pass
 * STP_UW_VMA_COMPILE_MAX (4 MiB), or the share, keeps the interpreter and
 * is counted.  -DSTP_UW_COMPILED=0: no object is compiled.
 *
 * Residency: probe handlers read unwind tables from the process's pages
 * without faulting, and a fresh process has usually never touched the
 * read-only segment holding an object's .eh_frame_hdr/.eh_frame, nor has
 * a child of fork() its objects' headers.  So a rescan reads one byte per
 * page of that segment (the PT_LOAD holding PT_GNU_EH_FRAME, at most
 * STP_UW_VMA_PREFAULT_MAX bytes, default 8 MiB) and of the headers and
 * notes a walk reads (vma_resident.c) of each object new to the process, in process context (get_user in the
 * process itself, access_process_vm at module init), and again when a
 * later mmap replaces part of it (ld.so maps that segment after the
 * executable one).  This makes those pages count in the process's RSS.
 * Pages reclaimed later are reported by the unwinder as
 * UW_STOP_MEMORY_UNREADABLE at the address (-DSTP_UW_VMA_PREFAULT_MAX=0
 * shows that case; testsuite/kernel.ustack/tracking.exp uses it).
 *
 * Memory bound: every allocation (process records, snapshots, objects
 * with their paths) is charged to one byte budget, STP_UW_VMA_MAX_BYTES
 * (default 16 MiB; stap -DSTP_UW_VMA_MAX_BYTES=N), checked before the
 * allocation; when it is exhausted the process whose map changed keeps
 * no record (its lookups fail with -ENOENT: "no unwind data", not a
 * wrong frame) and the refusal is counted.  Per process at most
 * STP_UW_VMA_MAX_MAPS executable file mappings (default 1024; more are
 * dropped, highest addresses first).  Besides the budget: the static
 * hash heads (two tables of 2^STP_UW_VMA_HASH_BITS, 8 KiB each), the
 * STP_UW_VMA_MISS_SLOTS pids of rescans asked for on misses, and,
 * transiently during one
 * rescan, a PATH_MAX buffer and STP_UW_VMA_MAX_MAPS * 64 bytes.
 * Typical use: a process record (56 bytes) and a snapshot (40 bytes + 40
 * per executable mapping), plus one object record (about 150 bytes +
 * path) per distinct file, shared: measured with 1,000 processes of the
 * same program running (exe, libc, ld.so), 218,162 bytes in all, about
 * 220 bytes per process (testsuite/kernel.ustack/tracking.exp), and the
 * objects' compiled tables, once per file (bench/README.md).
 * stp_uw_vma_get_stats() (uw_vma_stats() in tapset/uw_vma.stp) reports
 * the counters.
 *
 * Unprivileged scripts (--privilege=stapusr): only the processes whose
 * effective uid is the user's own (_stp_uid, who ran staprun) are tracked,
 * by the same test stock SystemTap applies to probes (is_myproc(), and the
 * task finder's euid check, which already keeps the callbacks to the
 * user's processes).  The scans that do not go through the task finder,
 * module init's and the miss worker's, skip every other process, so the
 * tracker never reads, prefaults or keeps anything of another user's
 * address space (stp_uw_vma_tracks).
 */
#ifndef STP_UW_VMA_MAP_C
#define STP_UW_VMA_MAP_C

#include "stap-unwind/vma_map.h"
#include "stap-unwind/features.h"
#include "stap-unwind/step_counts.h"	/* for uw_vma_stats() */

#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/mm.h>
#include <linux/fs.h>
#include <linux/dcache.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/elf.h>
#include <linux/hash.h>
#include <linux/mman.h>
#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <linux/pid.h>

/* The parts, each on those before it. */
#include "stap-unwind/vma_records.h"	/* the records and their limits */
#include "stap-unwind/vma_budget.c"	/* the byte budget of every allocation */
#include "stap-unwind/vma_tables.c"	/* the hashes, lock and counters */
#include "stap-unwind/compiled.c"	/* tables compiled (also -d modules') */
#include "stap-unwind/vma_compiled.c"	/* an object's tables compiled */
#include "stap-unwind/vma_object.c"	/* one record per mapped file */
#include "stap-unwind/vma_process.c"	/* one record per process: its snapshot */
#include "stap-unwind/vma_reader.c"	/* lookups without locks (probe context) */
#include "stap-unwind/vma_resident.c"	/* making unwind tables resident */
#include "stap-unwind/vma_rescan.c"	/* a process's record rebuilt from its mm */
#include "stap-unwind/vma_miss.c"	/* rescans asked for by the unwinder */
#include "stap-unwind/vma_events.c"	/* the task finder's map changes */

static int stp_uw_vma_init(void)
{
	int rc = 0;

	atomic_set(&stp_uw_vma_active, 1);
#ifdef HAVE_TASK_FINDER
	rc = stap_register_task_finder_target(&stp_uw_vma_target);
	if (rc) {
		atomic_set(&stp_uw_vma_active, 0);
		return rc;
	}
#endif
	mutex_lock(&stp_uw_vma_rescan_mutex);
	stp_uw_vdso_compile_named();
	mutex_unlock(&stp_uw_vma_rescan_mutex);
	stp_uw_vma_scan_all();
	return 0;
}

static void stp_uw_vma_done(void)
{
	struct stp_uw_proc *p;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned b;

	atomic_set(&stp_uw_vma_active, 0);
	/* No probe runs any more: let the last kick and rescan finish. */
	irq_work_sync(&stp_uw_vma_miss_irq_work);
	cancel_work_sync(&stp_uw_vma_miss_work);
	mutex_lock(&stp_uw_vma_rescan_mutex);
	spin_lock_irqsave(&stp_uw_vma_lock, flags);
	/* bound: STP_UW_VMA_HASH_SIZE */
	for (b = 0; b < STP_UW_VMA_HASH_SIZE; b++) {
		/* bound: one hash chain */
		hlist_for_each_entry_safe(p, tmp, &stp_uw_proc_hash[b], hnode)
			stp_uw_proc_unlink_locked(p);
	}
	spin_unlock_irqrestore(&stp_uw_vma_lock, flags);
	stp_uw_vdso_free();
	mutex_unlock(&stp_uw_vma_rescan_mutex);
	/* The objects' RCU callbacks are this module's code. */
	rcu_barrier();
}

/* Counters for scripts and tests (tapset/uw_vma.stp). */
struct stp_uw_vma_stats {
	long bytes, peak, limit;
	int procs, objs, maps, refused, rescans, miss_asked;
	/* Compiled tables: objects, their bytes and rows, rows left to
	 * the parse, objects refused (vma_compiled.c). */
	int compiled, compile_refused;
	long compiled_bytes, compiled_rows, parse_rows;
};

static void stp_uw_vma_get_stats(struct stp_uw_vma_stats *st)
{
	st->bytes = atomic_long_read(&stp_uw_vma_bytes);
	st->peak = atomic_long_read(&stp_uw_vma_peak);
	st->limit = STP_UW_VMA_MAX_BYTES;
	st->procs = atomic_read(&stp_uw_vma_nprocs);
	st->objs = atomic_read(&stp_uw_vma_nobjs);
	st->maps = atomic_read(&stp_uw_vma_nmaps);
	st->refused = atomic_read(&stp_uw_vma_refused);
	st->rescans = atomic_read(&stp_uw_vma_rescans);
	st->miss_asked = atomic_read(&stp_uw_vma_miss_asked);
	st->compiled = atomic_read(&stp_uw_compiled_objs);
	st->compile_refused = atomic_read(&stp_uw_compiled_refused);
	st->compiled_bytes = atomic_long_read(&stp_uw_compiled_bytes);
	st->compiled_rows = atomic_long_read(&stp_uw_compiled_rows);
	st->parse_rows = atomic_long_read(&stp_uw_compiled_parse_rows);
}

#endif /* STP_UW_VMA_MAP_C */
