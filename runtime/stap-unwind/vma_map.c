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
 * Residency: probe handlers read unwind tables from the process's pages
 * without faulting, and a fresh process has usually never touched the
 * read-only segment holding an object's .eh_frame_hdr/.eh_frame.  So a
 * rescan reads one byte per page of that segment (the PT_LOAD holding
 * PT_GNU_EH_FRAME, at most STP_UW_VMA_PREFAULT_MAX bytes, default 8 MiB)
 * of each object new to the process, in process context (get_user in the
 * process itself, access_process_vm at module init), and again when a
 * later mmap replaces part of it (ld.so maps that segment after the
 * executable one).  This makes those pages count in the process's RSS.
 * Pages reclaimed later are reported by the unwinder as
 * UW_STOP_MEMORY_UNREADABLE at the address (-DSTP_UW_VMA_PREFAULT_MAX=0
 * shows that case; testsuite/kernel.ustack/nod.exp uses it).
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
 * 220 bytes per process (testsuite/kernel.ustack/nod.exp).
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
#include "stap-unwind/usym_elf.h"
#include "stap-unwind/features.h"

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
	unsigned build_id_len;
	unsigned char build_id[STP_UW_BUILD_ID_MAX];
	/* An .eh_frame that no .eh_frame_hdr searches: its FDEs, sorted
	 * (stp_uw_obj_index; one kvmalloc with the entries after it).
	 * NULL: none needed, or none could be made. */
	struct stp_uw_eh_index *index;
	size_t charged;
	char path[];			/* NUL-terminated, exact length */
};

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

static struct hlist_head stp_uw_proc_hash[STP_UW_VMA_HASH_SIZE];
static struct hlist_head stp_uw_obj_hash[STP_UW_VMA_HASH_SIZE];
static DEFINE_SPINLOCK(stp_uw_vma_lock);	/* writers: both hashes, refs */
static DEFINE_MUTEX(stp_uw_vma_rescan_mutex);	/* one rescan at a time */
static atomic_long_t stp_uw_vma_bytes = ATOMIC_LONG_INIT(0);
static atomic_long_t stp_uw_vma_peak = ATOMIC_LONG_INIT(0);
static atomic_long_t stp_uw_vma_generation = ATOMIC_LONG_INIT(0);
static atomic_long_t stp_uw_vma_release_count = ATOMIC_LONG_INIT(0);
static atomic_t stp_uw_vma_nprocs = ATOMIC_INIT(0);
static atomic_t stp_uw_vma_nobjs = ATOMIC_INIT(0);
static atomic_t stp_uw_vma_nmaps = ATOMIC_INIT(0);
static atomic_t stp_uw_vma_refused = ATOMIC_INIT(0);
static atomic_t stp_uw_vma_rescans = ATOMIC_INIT(0);
static atomic_t stp_uw_vma_active = ATOMIC_INIT(0);

static unsigned stp_uw_vma_hash(unsigned long key)
{
	return hash_long(key, STP_UW_VMA_HASH_BITS);
}

/* Charge size bytes to the budget; 0 if it fits. */
static int stp_uw_vma_charge(size_t size)
{
	long now = atomic_long_add_return(size, &stp_uw_vma_bytes);
	long peak;

	if (now > (long)STP_UW_VMA_MAX_BYTES) {
		atomic_long_sub(size, &stp_uw_vma_bytes);
		atomic_inc(&stp_uw_vma_refused);
		return -ENOMEM;
	}
	peak = atomic_long_read(&stp_uw_vma_peak);
	/* bound: one retry per charger that raised the peak meanwhile */
	while (now > peak) {
		long old = atomic_long_cmpxchg(&stp_uw_vma_peak, peak, now);
		if (old == peak)
			break;
		peak = old;
	}
	return 0;
}

static void stp_uw_vma_uncharge(size_t size)
{
	atomic_long_sub(size, &stp_uw_vma_bytes);
}

/* size bytes, charged to the budget: from kzalloc(), or, if large (an
 * .eh_frame index), from kvmalloc() and not zeroed.  NULL, with nothing
 * charged, when the budget or the allocator refuses.  Process context. */
static void *stp_uw_vma_alloc(size_t size, bool large)
{
	void *m;

	if (stp_uw_vma_charge(size))
		return NULL;
	m = large ? kvmalloc(size, GFP_KERNEL) : kzalloc(size, GFP_KERNEL);
	if (!m)
		stp_uw_vma_uncharge(size);
	return m;
}

/* ------------------------------------------------------------------ */
/* Probe context                                                       */

static struct stp_uw_proc *stp_uw_proc_find_rcu(pid_t tgid)
{
	struct stp_uw_proc *p;

	/* bound: one hash chain */
	hlist_for_each_entry_rcu(p, &stp_uw_proc_hash[stp_uw_vma_hash(tgid)],
				 hnode) {
		if (p->tgid == tgid)
			return p;
	}
	return NULL;
}

static int stp_uw_vma_find(struct task_struct *tsk, unsigned long addr,
			   struct stp_uw_mapping *out)
{
	struct stp_uw_proc *p;
	struct stp_uw_snap *s;
	const struct stp_uw_map *m = NULL;
	unsigned lo, hi;
	int rc = -ENOENT;

	if (!tsk || !tsk->mm || !atomic_read(&stp_uw_vma_active))
		return -ENOENT;
	rcu_read_lock();
	p = stp_uw_proc_find_rcu(tsk->tgid);
	if (!p || READ_ONCE(p->mm) != tsk->mm)
		goto out;
	s = rcu_dereference(p->snap);
	if (!s)
		goto out;
	lo = 0;
	hi = s->n;
	while (lo < hi) {		/* bound: log2(STP_UW_VMA_MAX_MAPS) */
		unsigned mid = lo + (hi - lo) / 2;

		if (addr < s->map[mid].start)
			hi = mid;
		else if (addr >= s->map[mid].end)
			lo = mid + 1;
		else {
			m = &s->map[mid];
			break;
		}
	}
	if (!m)
		goto out;
	out->start = m->start;
	out->end = m->end;
	out->pgoff = m->pgoff;
	out->base = m->base;
	out->bias = m->obj->elf ? m->base - m->obj->delta : 0;
	out->bias_known = m->obj->elf;
	out->path = m->obj->path;
	out->build_id_len = m->obj->build_id_len;
	memcpy(out->build_id, m->obj->build_id, m->obj->build_id_len);
	out->index = m->obj->index;
	out->generation = s->generation;
	rc = 0;
out:
	rcu_read_unlock();
	return rc;
}

/* Rescans asked for on a miss: tgids, 0 = free slot. */
static atomic_t stp_uw_vma_miss_tgid[STP_UW_VMA_MISS_SLOTS];
static atomic_t stp_uw_vma_miss_asked = ATOMIC_INIT(0);
static void stp_uw_vma_miss_kick(struct irq_work *iw);
static struct irq_work stp_uw_vma_miss_irq_work = IRQ_WORK_INIT(stp_uw_vma_miss_kick);

/* The unwinder found no mapping for a pc of tsk's process (stp_uw_vma_find
 * failed): if the process is tracked, ask for a rescan of its map (see the
 * comment at the top).  Probe context: no lock, no allocation; a request
 * that finds every slot taken is dropped (the next miss asks again). */
static void stp_uw_vma_missed(struct task_struct *tsk)
{
	struct stp_uw_proc *p;
	unsigned long last, now = jiffies | 1;	/* 0 means never */
	unsigned i;

	if (!tsk || !tsk->mm || !atomic_read(&stp_uw_vma_active))
		return;
	rcu_read_lock();
	p = stp_uw_proc_find_rcu(tsk->tgid);
	if (!p || READ_ONCE(p->mm) != tsk->mm)
		goto out;
	last = READ_ONCE(p->miss_asked);
	if (last && time_before(now, last + STP_UW_VMA_MISS_INTERVAL))
		goto out;
	if (cmpxchg(&p->miss_asked, last, now) != last)
		goto out;		/* another CPU asked just now */
	/* bound: STP_UW_VMA_MISS_SLOTS */
	for (i = 0; i < STP_UW_VMA_MISS_SLOTS; i++) {
		if (atomic_cmpxchg(&stp_uw_vma_miss_tgid[i], 0, tsk->tgid) == 0) {
			atomic_inc(&stp_uw_vma_miss_asked);
			irq_work_queue(&stp_uw_vma_miss_irq_work);
			break;
		}
	}
out:
	rcu_read_unlock();
}

/* ------------------------------------------------------------------ */
/* Writers                                                             */

static void stp_uw_obj_free_rcu(struct rcu_head *head)
{
	struct stp_uw_obj *o = container_of(head, struct stp_uw_obj, rcu);

	kvfree(o->index);
	kfree(o);
}

/* Drop a reference to o; the last one frees it after a grace period
 * (readers may still hold its path or index).  stp_uw_vma_lock held. */
static void stp_uw_obj_put_locked(struct stp_uw_obj *o)
{
	if (--o->refs != 0)
		return;
	hlist_del(&o->hnode);
	atomic_dec(&stp_uw_vma_nobjs);
	stp_uw_vma_uncharge(o->charged);
	call_rcu(&o->rcu, stp_uw_obj_free_rcu);
}

static long stp_uw_vma_releases(void)
{
	return atomic_long_read(&stp_uw_vma_release_count);
}

/* Drop a snapshot's object references and free it after a grace period.
 * Called with stp_uw_vma_lock held. */
static void stp_uw_snap_release_locked(struct stp_uw_snap *s)
{
	unsigned i;

	if (!s)
		return;
	/* Counted before anything is queued for freeing: a walk that read
	 * the old count runs in its probe handler, which the grace period
	 * waits for (stp_uw_vma_releases). */
	atomic_long_inc(&stp_uw_vma_release_count);
	smp_mb__after_atomic();
	for (i = 0; i < s->n; i++) {	/* bound: s->n <= STP_UW_VMA_MAX_MAPS */
		stp_uw_obj_put_locked(s->map[i].obj);
	}
	atomic_sub(s->n, &stp_uw_vma_nmaps);
	stp_uw_vma_uncharge(s->charged);
	kfree_rcu(s, rcu);
}

/* Take p out of the table of processes and free it, with its snapshot,
 * after a grace period (readers may still hold either).  Called with
 * stp_uw_vma_lock held. */
static void stp_uw_proc_unlink_locked(struct stp_uw_proc *p)
{
	hlist_del_rcu(&p->hnode);
	stp_uw_snap_release_locked(rcu_dereference_protected(p->snap, 1));
	atomic_dec(&stp_uw_vma_nprocs);
	stp_uw_vma_uncharge(sizeof(*p));
	kfree_rcu(p, rcu);
}

/* Forget process tgid (exec of a new image, exit).  Any context but a
 * probe handler's: spinlock only. */
static void stp_uw_vma_drop(pid_t tgid)
{
	struct stp_uw_proc *p;
	unsigned long flags;

	spin_lock_irqsave(&stp_uw_vma_lock, flags);
	/* bound: one hash chain */
	hlist_for_each_entry(p, &stp_uw_proc_hash[stp_uw_vma_hash(tgid)], hnode) {
		if (p->tgid == tgid) {
			stp_uw_proc_unlink_locked(p);
			break;
		}
	}
	spin_unlock_irqrestore(&stp_uw_vma_lock, flags);
}

/* The core's scratch cursor for stp_uw_obj_index: the rescan mutex is
 * held there. */
static struct uw_cursor stp_uw_obj_scratch;

/* If no .eh_frame_hdr of the file f searches its .eh_frame (none with a
 * table, one the lookup cannot use, a malformed one: a hostile object can
 * force a probe to scan 65,000 FDEs), index that .eh_frame once, here, so
 * that probe handlers only ever binary-search (uw_tables.index).  .eh_frame
 * is read from where the header says it starts to the end of its PT_LOAD's
 * file bytes (at most STP_UW_VMA_INDEX_MAX); its terminator ends the
 * parse.  Nothing is indexed when the budget refuses, the file cannot be
 * read, or the CFI is malformed: probes then scan within their work budget,
 * as they would anyway.  Process context, rescan mutex held. */
static void stp_uw_obj_index(struct stp_uw_obj *o, struct file *f,
			     const struct uw_elf_hdr *h,
			     const struct uw_elf_phdrs *p)
{
	const struct uw_elf_seg *seg;
	struct uw_section hdr = { NULL, p->eh_frame.vaddr, p->eh_frame.filesz };
	struct uw_tables t = { 0 };
	struct uw_index_entry *all = NULL;
	struct stp_uw_eh_index *idx;
	uint8_t *buf;
	uint64_t eh_at, len, max;
	size_t bytes;
	int n;

	if (!p->eh_frame.type || !hdr.size || hdr.size > STP_UW_VMA_INDEX_MAX)
		return;
	buf = kvmalloc(hdr.size, GFP_KERNEL);
	if (!buf || stp_uw_file_read(f, p->eh_frame.offset, buf, hdr.size))
		goto out;
	hdr.data = buf;
	if (uw_hdr_searchable(&stp_uw_obj_scratch, h->arch, &hdr, &eh_at) || !eh_at)
		goto out;
	kvfree(buf);
	buf = NULL;
	seg = uw_elf_load_of(p, eh_at, 1);
	if (!seg)
		goto out;
	len = min_t(uint64_t, seg->vaddr + seg->filesz - eh_at, STP_UW_VMA_INDEX_MAX);
	max = min_t(uint64_t, len / 8 + 1, UW_MAX_SCAN_ENTRIES);
	buf = kvmalloc(len, GFP_KERNEL);
	all = kvmalloc_array(max, sizeof(*all), GFP_KERNEL);
	if (!buf || !all
	    || stp_uw_file_read(f, seg->offset + (eh_at - seg->vaddr), buf, len))
		goto out;
	t.eh_frame = (struct uw_section){ buf, eh_at, len };
	n = uw_index_build(&stp_uw_obj_scratch, h->arch, &t, all, max);
	if (n <= 0)
		goto out;
	bytes = sizeof(*idx) + n * sizeof(*all);
	idx = stp_uw_vma_alloc(bytes, true);
	if (!idx)
		goto out;
	memcpy(idx + 1, all, n * sizeof(*all));
	idx->entries = (const struct uw_index_entry *)(idx + 1);
	idx->count = n;
	idx->eh_frame = eh_at;
	idx->eh_frame_size = len;
	o->index = idx;
	o->charged += bytes;
out:
	kvfree(all);
	kvfree(buf);
}

/* Build-id, bias delta and the extent of the unwind tables' segment of
 * the ELF file f, from the file itself, through the core's ELF reader
 * (stap-unwind/usym_elf.h's file source); an index of tables no header
 * searches (stp_uw_obj_index). */
static void stp_uw_obj_read_elf(struct stp_uw_obj *o, struct file *f)
{
	struct uw_elf_src src;
	struct uw_elf_hdr h;
	struct uw_elf_phdrs *p = kmalloc(sizeof(*p), GFP_KERNEL);
	const struct uw_elf_seg *ehf;
	uint32_t len;

	uw_elf_src_file(&src, stp_uw_file_read, f);
	if (!p || uw_elf_read_header(&src, &h) || uw_elf_read_phdrs(&src, &h, p))
		goto out;
	o->delta = p->link0;
	o->elf = 1;
	if (uw_elf_build_id(&src, p, o->build_id, STP_UW_BUILD_ID_MAX, &len) == 1)
		o->build_id_len = len;
	ehf = p->eh_frame.type ? uw_elf_load_of(p, p->eh_frame.vaddr, 1) : NULL;
	if (ehf) {
		o->ehf_lo = ehf->vaddr;
		o->ehf_hi = ehf->vaddr + ehf->filesz;
	}
	stp_uw_obj_index(o, f, &h, p);
out:
	kfree(p);
}

/* One executable file mapping, as read under the mmap lock. */
struct stp_uw_scan_ent {
	unsigned long start, end, pgoff, base;
	struct file *file;		/* referenced */
	struct stp_uw_obj *obj;
	unsigned long fault_lo, fault_hi;	/* to make resident */
};

/* Make [lo, hi) of tsk's address space resident, one read per page:
 * the unwind tables of an object new to the process, so that probe
 * handlers, which may not fault, find them in the process's own pages.
 * Process context.  At most STP_UW_VMA_PREFAULT_MAX bytes per object. */
static void stp_uw_vma_prefault(struct task_struct *tsk, unsigned long lo,
				unsigned long hi)
{
	unsigned long a;
	unsigned char b;

	if (hi - lo > STP_UW_VMA_PREFAULT_MAX)
		hi = lo + STP_UW_VMA_PREFAULT_MAX;
	/* bound: STP_UW_VMA_PREFAULT_MAX / PAGE_SIZE */
	for (a = lo & PAGE_MASK; a < hi; a += PAGE_SIZE) {
		if (tsk == current) {
			if (get_user(b, (const unsigned char __user *)a))
				break;
		} else if (access_process_vm(tsk, a, &b, 1, 0) != 1) {
			break;
		}
		cond_resched();
	}
}

static int stp_uw_obj_match(const struct stp_uw_obj *o, const struct inode *ino)
{
	struct timespec64 ct = inode_get_ctime(ino);

	return o->dev == ino->i_sb->s_dev && o->ino == ino->i_ino
		&& o->ctime_sec == ct.tv_sec && o->ctime_nsec == ct.tv_nsec;
}

/* The object record of file f, referenced (refs + 1); NULL if the budget
 * is exhausted or allocation fails.  Process context; the rescan mutex
 * is held, so no other writer creates objects concurrently. */
static struct stp_uw_obj *stp_uw_obj_get(struct file *f, char *pathbuf)
{
	struct inode *ino = file_inode(f);
	unsigned h = stp_uw_vma_hash(ino->i_ino ^ ((unsigned long)ino->i_sb->s_dev << 20));
	struct stp_uw_obj *o;
	struct timespec64 ct;
	unsigned long flags;
	char *path;
	size_t len, size;

	spin_lock_irqsave(&stp_uw_vma_lock, flags);
	/* bound: one hash chain */
	hlist_for_each_entry(o, &stp_uw_obj_hash[h], hnode) {
		if (stp_uw_obj_match(o, ino)) {
			o->refs++;
			spin_unlock_irqrestore(&stp_uw_vma_lock, flags);
			return o;
		}
	}
	spin_unlock_irqrestore(&stp_uw_vma_lock, flags);

	path = d_path(&f->f_path, pathbuf, PATH_MAX);
	if (IS_ERR(path))
		path = "(unknown)";
	len = strlen(path);
	size = sizeof(*o) + len + 1;
	o = stp_uw_vma_alloc(size, false);
	if (!o)
		return NULL;
	o->charged = size;
	memcpy(o->path, path, len + 1);
	o->dev = ino->i_sb->s_dev;
	o->ino = ino->i_ino;
	ct = inode_get_ctime(ino);
	o->ctime_sec = ct.tv_sec;
	o->ctime_nsec = ct.tv_nsec;
	stp_uw_obj_read_elf(o, f);
	o->refs = 1;
	spin_lock_irqsave(&stp_uw_vma_lock, flags);
	hlist_add_head(&o->hnode, &stp_uw_obj_hash[h]);
	spin_unlock_irqrestore(&stp_uw_vma_lock, flags);
	atomic_inc(&stp_uw_vma_nobjs);
	return o;
}

/* Whether tsk's process may be tracked: always, unless the script runs
 * unprivileged, where only the user's own processes may (see the top). */
static bool stp_uw_vma_tracks(struct task_struct *tsk)
{
#if STP_PRIVILEGE_CONTAINS(STP_PRIVILEGE, STP_PR_STAPDEV) || \
    STP_PRIVILEGE_CONTAINS(STP_PRIVILEGE, STP_PR_STAPSYS)
	return true;
#else
	return from_kuid_munged(current_user_ns(), task_euid(tsk)) == _stp_uid;
#endif
}

/* Rebuild the record of tsk's process from its mm.  Process context
 * (task work of the process itself, or module init for any process).
 * Sleeps (mmap lock, allocation, file reads). */
static void stp_uw_vma_rescan(struct task_struct *tsk)
{
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	struct stp_uw_scan_ent *ents;
	struct stp_uw_snap *s = NULL, *old;
	struct stp_uw_proc *p, *newp = NULL;
	const struct inode *hdr_ino = NULL;
	unsigned long hdr_start = 0, flags;
	unsigned n = 0, i, k;
	char *pathbuf;
	size_t ssize;
	pid_t tgid = tsk->tgid;

	if (!atomic_read(&stp_uw_vma_active))
		return;
	if (!stp_uw_vma_tracks(tsk)) {
		/* Another user's, or no longer ours (a set-user-ID program
		 * that dropped to our euid and took its own back). */
		stp_uw_vma_drop(tgid);
		return;
	}
	mm = get_task_mm(tsk);
	if (!mm)
		return;
	ents = kvmalloc_array(STP_UW_VMA_MAX_MAPS, sizeof(*ents), GFP_KERNEL);
	pathbuf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!ents || !pathbuf)
		goto out_free;

	mutex_lock(&stp_uw_vma_rescan_mutex);
	if (!atomic_read(&stp_uw_vma_active)) {	/* stp_uw_vma_done() ran */
		mutex_unlock(&stp_uw_vma_rescan_mutex);
		goto out_free;
	}
	atomic_inc(&stp_uw_vma_rescans);
	mmap_read_lock(mm);
	{
		/* In address order: the maple tree's iterator, or, on kernels
		 * without it (stap-unwind/features.h), find_vma() from each
		 * mapping's end to the next. */
#ifdef STP_UW_HAVE_FOR_EACH_VMA
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma) {	/* bound: mm->map_count */
#else
		for (vma = find_vma(mm, 0); vma;	/* bound: mm->map_count */
		     vma = find_vma(mm, vma->vm_end)) {
#endif
			struct file *f = vma->vm_file;

			if (!f)
				continue;
			/* The object's ELF header: the mapping of file
			 * offset 0, below its other mappings. */
			if (vma->vm_pgoff == 0) {
				hdr_ino = file_inode(f);
				hdr_start = vma->vm_start;
			}
			if (!(vma->vm_flags & VM_EXEC) || n >= STP_UW_VMA_MAX_MAPS)
				continue;
			ents[n].start = vma->vm_start;
			ents[n].end = vma->vm_end;
			ents[n].pgoff = vma->vm_pgoff << PAGE_SHIFT;
			if (hdr_ino == file_inode(f) && hdr_start <= vma->vm_start)
				ents[n].base = hdr_start;
			else
				ents[n].base = vma->vm_start - ents[n].pgoff;
			ents[n].file = get_file(f);
			ents[n].obj = NULL;
			n++;
		}
	}
	mmap_read_unlock(mm);

	for (i = 0; i < n; i++) {	/* bound: n <= STP_UW_VMA_MAX_MAPS */
		ents[i].obj = stp_uw_obj_get(ents[i].file, pathbuf);
		ents[i].fault_lo = ents[i].fault_hi = 0;
	}
	/* Objects new to this process (not at the same base in its last
	 * snapshot): make their unwind tables resident, below. */
	rcu_read_lock();
	p = stp_uw_proc_find_rcu(tgid);
	old = (p && p->mm == mm) ? rcu_dereference(p->snap) : NULL;
	for (i = 0; i < n; i++) {	/* bound: n <= STP_UW_VMA_MAX_MAPS */
		struct stp_uw_obj *o = ents[i].obj;
		int seen = 0;

		if (!o || !o->elf || !o->ehf_hi)
			continue;
		for (k = 0; k < i && !seen; k++)	/* bound: i */
			seen = ents[k].obj == o && ents[k].base == ents[i].base;
		/* bound: old->n */
		for (k = 0; old && k < old->n && !seen; k++)
			seen = old->map[k].obj == o && old->map[k].base == ents[i].base;
		if (seen)
			continue;
		ents[i].fault_lo = ents[i].base - o->delta + o->ehf_lo;
		ents[i].fault_hi = ents[i].base - o->delta + o->ehf_hi;
	}
	rcu_read_unlock();

	/* Adjacent mappings of one object with the same base (the same
	 * segment split by mprotect) stay separate entries: cheap. */
	ssize = sizeof(*s) + n * sizeof(s->map[0]);
	s = stp_uw_vma_alloc(ssize, false);
	if (s) {
		s->charged = ssize;
		/* bound: n <= STP_UW_VMA_MAX_MAPS */
		for (i = 0, k = 0; i < n; i++) {
			if (!ents[i].obj)
				continue;
			s->map[k].start = ents[i].start;
			s->map[k].end = ents[i].end;
			s->map[k].pgoff = ents[i].pgoff;
			s->map[k].base = ents[i].base;
			s->map[k].obj = ents[i].obj;
			ents[i].obj = NULL;
			k++;
		}
		s->n = k;
		s->generation = atomic_long_inc_return(&stp_uw_vma_generation);
		atomic_add(k, &stp_uw_vma_nmaps);
		newp = stp_uw_vma_alloc(sizeof(*newp), false);
	}

	spin_lock_irqsave(&stp_uw_vma_lock, flags);
	/* Objects not used (allocation failed): drop their references. */
	for (i = 0; i < n; i++) {	/* bound: n <= STP_UW_VMA_MAX_MAPS */
		if (ents[i].obj)
			stp_uw_obj_put_locked(ents[i].obj);
	}
	/* bound: one hash chain */
	hlist_for_each_entry(p, &stp_uw_proc_hash[stp_uw_vma_hash(tgid)], hnode)
		if (p->tgid == tgid)
			break;
	/* The process exited or exec'd meanwhile: keep no record of it. */
	if (READ_ONCE(tsk->mm) != mm || !s) {
		if (p)
			stp_uw_proc_unlink_locked(p);
		stp_uw_snap_release_locked(s);
		s = NULL;
	} else if (p) {
		old = rcu_dereference_protected(p->snap, 1);
		WRITE_ONCE(p->mm, mm);
		rcu_assign_pointer(p->snap, s);
		stp_uw_snap_release_locked(old);
	} else if (newp) {
		newp->tgid = tgid;
		newp->mm = mm;
		RCU_INIT_POINTER(newp->snap, s);
		hlist_add_head_rcu(&newp->hnode,
				   &stp_uw_proc_hash[stp_uw_vma_hash(tgid)]);
		atomic_inc(&stp_uw_vma_nprocs);
		newp = NULL;
	} else {
		stp_uw_snap_release_locked(s);
	}
	spin_unlock_irqrestore(&stp_uw_vma_lock, flags);
	mutex_unlock(&stp_uw_vma_rescan_mutex);

	if (newp) {
		kfree(newp);
		stp_uw_vma_uncharge(sizeof(*newp));
	}
	for (i = 0; i < n; i++) {	/* bound: n <= STP_UW_VMA_MAX_MAPS */
		if (ents[i].fault_hi > ents[i].fault_lo)
			stp_uw_vma_prefault(tsk, ents[i].fault_lo, ents[i].fault_hi);
		fput(ents[i].file);
	}
out_free:
	kfree(pathbuf);
	kvfree(ents);
	mmput(mm);
}

/* 1 if tsk's process has a record for its current mm whose snapshot has
 * a mapping intersecting [addr, addr + len) (len 0: containing addr). */
static int stp_uw_vma_known(struct task_struct *tsk, unsigned long addr,
			    unsigned long len)
{
	struct stp_uw_proc *p;
	struct stp_uw_snap *s;
	unsigned i;
	int rc = 0;

	rcu_read_lock();
	p = stp_uw_proc_find_rcu(tsk->tgid);
	if (p && p->mm == tsk->mm && (s = rcu_dereference(p->snap)) != NULL) {
		/* bound: s->n <= STP_UW_VMA_MAX_MAPS */
		for (i = 0; i < s->n; i++) {
			if (s->map[i].start < addr + (len ? len : 1)
			    && s->map[i].end > addr) {
				rc = 1;
				/* mmap: an exact, already recorded mapping
				 * needs no rescan (2); anything else does. */
				if (s->map[i].start == addr
				    && s->map[i].end == addr + len)
					rc = 2;
				break;
			}
		}
	} else if (!p || p->mm != tsk->mm) {
		rc = -1;		/* no record for this image */
	}
	rcu_read_unlock();
	return rc;
}

/* A new mapping [addr, addr + len) of tsk (current) replaced part of the
 * unwind tables of objects it has mapped: make that part resident. */
static void stp_uw_vma_refault(struct task_struct *tsk, unsigned long addr,
			       unsigned long len)
{
	struct stp_uw_proc *p;
	struct stp_uw_snap *s;
	unsigned long lo[4], hi[4];
	unsigned i, n = 0;

	if (!stp_uw_vma_tracks(tsk))
		return;
	rcu_read_lock();
	p = stp_uw_proc_find_rcu(tsk->tgid);
	if (p && p->mm == tsk->mm && (s = rcu_dereference(p->snap)) != NULL) {
		/* bound: s->n <= STP_UW_VMA_MAX_MAPS */
		for (i = 0; i < s->n && n < 4; i++) {
			const struct stp_uw_obj *o = s->map[i].obj;
			unsigned long a, b;

			if (!o->elf || !o->ehf_hi)
				continue;
			a = s->map[i].base - o->delta + o->ehf_lo;
			b = s->map[i].base - o->delta + o->ehf_hi;
			if (a < addr)
				a = addr;
			if (b > addr + len)
				b = addr + len;
			if (a < b && (n == 0 || lo[n - 1] != a)) {
				lo[n] = a;
				hi[n++] = b;
			}
		}
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++)	/* bound: n <= 4 */
		stp_uw_vma_prefault(tsk, lo[i], hi[i]);
}

#ifdef HAVE_TASK_FINDER
static int stp_uw_vma_task_cb(struct stap_task_finder_target *tgt,
			      struct task_struct *tsk, int register_p,
			      int process_p)
{
	if (!process_p)
		return 0;
	if (register_p) {
		/* New process (fork, exec's new image, attached at start):
		 * task work in the process itself. */
		if (tsk == current && stp_uw_vma_known(tsk, 0, 0) < 0)
			stp_uw_vma_rescan(tsk);
	} else {
		/* exec (old image) or exit of the last thread. */
		stp_uw_vma_drop(tsk->tgid);
	}
	return 0;
}

static int stp_uw_vma_mmap_cb(struct stap_task_finder_target *tgt,
			      struct task_struct *tsk, char *path,
			      struct dentry *dentry, unsigned long addr,
			      unsigned long length, unsigned long offset,
			      unsigned long vm_flags)
{
	if (tsk != current)
		return 0;
	if (!(vm_flags & VM_EXEC)) {
		/* ld.so maps an object's read-only segment (where its
		 * unwind tables are) over its first, whole-file mapping after
		 * the executable one: those pages must be made resident
		 * again. */
		stp_uw_vma_refault(tsk, addr, length);
		return 0;
	}
	if (stp_uw_vma_known(tsk, addr, length) == 2)
		return 0;
	stp_uw_vma_rescan(tsk);
	return 0;
}

static int stp_uw_vma_munmap_cb(struct stap_task_finder_target *tgt,
				struct task_struct *tsk, unsigned long addr,
				unsigned long length)
{
	if (tsk == current && stp_uw_vma_known(tsk, addr, length) > 0)
		stp_uw_vma_rescan(tsk);
	return 0;
}

static int stp_uw_vma_mprotect_cb(struct stap_task_finder_target *tgt,
				  struct task_struct *tsk, unsigned long addr,
				  unsigned long length, int prot)
{
	if (tsk != current)
		return 0;
	if ((prot & PROT_EXEC) || stp_uw_vma_known(tsk, addr, length) > 0)
		stp_uw_vma_rescan(tsk);
	return 0;
}

static struct stap_task_finder_target stp_uw_vma_target = {
	.pid = 0,
	.procname = NULL,
	.build_id_len = 0,
	.purpose = "stap-unwind vma map",
	.callback = &stp_uw_vma_task_cb,
	.mmap_callback = &stp_uw_vma_mmap_cb,
	.munmap_callback = &stp_uw_vma_munmap_cb,
	.mprotect_callback = &stp_uw_vma_mprotect_cb,
};
#endif

/* The rescans asked for on misses (stp_uw_vma_missed), in a worker: any
 * process, like module init's scan. */
static void stp_uw_vma_miss_work_fn(struct work_struct *work)
{
	unsigned i;

	/* bound: STP_UW_VMA_MISS_SLOTS */
	for (i = 0; i < STP_UW_VMA_MISS_SLOTS; i++) {
		pid_t tgid = atomic_xchg(&stp_uw_vma_miss_tgid[i], 0);
		struct task_struct *t = NULL;
		struct pid *pid;

		if (!tgid)
			continue;
		pid = find_get_pid(tgid);	/* the worker's namespace: init's */
		if (pid) {
			t = get_pid_task(pid, PIDTYPE_TGID);
			put_pid(pid);
		}
		if (!t)
			continue;
		if (!(t->flags & PF_EXITING))
			stp_uw_vma_rescan(t);
		put_task_struct(t);
	}
}

static DECLARE_WORK(stp_uw_vma_miss_work, stp_uw_vma_miss_work_fn);

/* irq_work: from any context the probe ran in, to one that may queue work. */
static void stp_uw_vma_miss_kick(struct irq_work *iw)
{
	schedule_work(&stp_uw_vma_miss_work);
}

/* Scan every process that exists now.  Module init: process context. */
static void stp_uw_vma_scan_all(void)
{
	struct task_struct *p, **tasks;
	unsigned n = 0, cap = 0, i;

	rcu_read_lock();
	for_each_process(p)	/* bound: the processes */
		cap++;
	rcu_read_unlock();
	cap += 64;
	tasks = kvmalloc_array(cap, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return;
	rcu_read_lock();
	for_each_process(p) {	/* bound: the processes */
		if (n >= cap)
			break;
		if (p->flags & (PF_KTHREAD | PF_EXITING) || !p->mm)
			continue;
		get_task_struct(p);
		tasks[n++] = p;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {	/* bound: n <= cap */
		stp_uw_vma_rescan(tasks[i]);
		put_task_struct(tasks[i]);
	}
	kvfree(tasks);
}

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
	mutex_unlock(&stp_uw_vma_rescan_mutex);
	/* The objects' RCU callbacks are this module's code. */
	rcu_barrier();
}

/* Counters for scripts and tests (tapset/uw_vma.stp). */
struct stp_uw_vma_stats {
	long bytes, peak, limit;
	int procs, objs, maps, refused, rescans, miss_asked;
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
}

#endif /* STP_UW_VMA_MAP_C */
