/* stap-unwind: user-space unwinding for the SystemTap runtime.
 *
 * This file replaces the runtime's unwind.c in the overlay.  It connects
 * the freestanding unwinder core (stap-unwind/core/ in the overlay = runtime/unwind/)
 * to the SystemTap runtime:
 *   - memory: the current process's memory, read with stp_uw_uread()
 *     (stap-unwind/uread.h: no faults, no sleeping, NMI-safe on x86);
 *   - unwind tables: the .eh_frame/.eh_frame_hdr (and .debug_frame) copies
 *     the translator put in struct _stp_module for each module named with
 *     -d/--ldd, placed with the task-finder vma map; the vdso, and modules
 *     in the vma map without a struct _stp_module, from their ELF image as
 *     mapped in the process (PT_GNU_EH_FRAME read from the mapped pages);
 *   - the initial registers: entry_x86.h.
 * Kernel stacks do not go through here (stack.c uses the kernel's own
 * unwinder).
 */
#ifndef STP_UW_UNWIND_C
#define STP_UW_UNWIND_C

#include "unwind/unwind.h"
#include "stap-unwind/core.h"
#include "stap-unwind/uread.h"
#include "stap-unwind/entry_x86.h"
#include "stap-unwind/vma_map.h"
#include "stap-unwind/user_walk.h"
#include "stap-unwind/step_counts.h"
#include "stap-unwind/uretprobe.c"

#include <linux/elf.h>

/* The vdso's pages need not be mapped in this mm (a fork child that has
 * not touched them yet): its image is the kernel's own copy. */
static int stp_uw_read_vdso_image(uint64_t addr, void *buf, uint32_t len)
{
	const struct vdso_image *img;
	unsigned long base;

	if (!current->mm)
		return -1;
	base = (unsigned long)READ_ONCE(current->mm->context.vdso);
	img = READ_ONCE(current->mm->context.vdso_image);
	if (!base || !img || !img->data || addr < base
	    || addr - base >= img->size || len > img->size - (addr - base))
		return -1;
	memcpy(buf, (const char *)img->data + (addr - base), len);
	return 0;
}

static int stp_uw_read_mem(void *h, uint64_t addr, void *buf, uint32_t len)
{
	struct stp_uw_host *host = h;

	if (stp_uw_uread(buf, (unsigned long)addr, len, host->compat))
		return stp_uw_read_vdso_image(addr, buf, len);
	return 0;
}

static const struct uw_host_ops stp_uw_ops;

/* The unwind tables of an ELF image mapped at base (its first PT_LOAD,
 * file offset 0, is mapped there), from its own pages: the core's elfmem
 * scan (PT_GNU_EH_FRAME, bias, executable extent; every read checked),
 * in the context's storage (*info).  The scan's status. */
static int stp_uw_mapped_elf(struct stp_uw_host *host, unsigned long base,
			     const struct uw_elfmem_info **info)
{
	struct stp_unwind_context *uc =
		container_of(host, struct stp_unwind_context, host);

	*info = &uc->elf_info;
	return uw_elfmem_scan(&stp_uw_ops, host, base, &uc->elf_info,
			      &uc->elf_scratch);
}

/* The vdso of the current process, from its mapped image. */
static void stp_uw_find_vdso(struct stp_uw_host *host)
{
	struct stp_uw_vdso *v = &host->vdso;
	unsigned long base, end;
	const struct vdso_image *img;
	const struct uw_elfmem_info *info;
	struct stp_unwind_context *uc;

	v->state = -1;
	if (!current->mm)
		return;
	base = (unsigned long)READ_ONCE(current->mm->context.vdso);
	img = READ_ONCE(current->mm->context.vdso_image);
	if (!base)
		return;
	/* Found by an earlier unwind in this mm (ctx_id: never reused), at
	 * the same place. */
	uc = container_of(host, struct stp_unwind_context, host);
	if (uc->vdso_saved.state > 0 && uc->vdso_saved.start == base
	    && uc->vdso_mm_id == current->mm->context.ctx_id) {
		*v = uc->vdso_saved;
		return;
	}
	if (stp_uw_mapped_elf(host, base, &info) != UW_ELFMEM_OK)
		return;
	v->bias = info->tables.bias;
	v->hdr_addr = info->tables.eh_frame_hdr.addr;
	v->hdr_size = info->tables.eh_frame_hdr.size;
	end = info->text_end;
	v->start = base;
	v->end = img ? base + img->size : end;
	if (v->end < end)
		v->end = end;
	v->state = 1;
	uc->vdso_saved = *v;
	uc->vdso_mm_id = current->mm->context.ctx_id;
}

/* Whether pc may be in the vdso of the current process (cheap: the
 * mapped image is only read when it may be). */
static int stp_uw_maybe_vdso(unsigned long pc)
{
	const struct vdso_image *img;
	unsigned long base;

	if (!current->mm)
		return 0;
	base = (unsigned long)READ_ONCE(current->mm->context.vdso);
	img = READ_ONCE(current->mm->context.vdso_image);
	if (!base)
		return 0;
	return !img || (pc >= base && pc - base < img->size);
}

/* The identity of CFI read from process memory, for the row cache
 * (uw_tables.ident): what the object is (its build-id's hash, or a tag
 * for the vdso), where it is mapped and the address space, so that rows
 * are reused only for the same bytes at the same place in the same
 * process.  No row computed from one process's pages serves another: a
 * debugger may have patched them there.  0 = do not cache. */
static u64 stp_uw_ident(u64 what, unsigned long base)
{
	u64 h;

	if (!current->mm)
		return 0;
	h = what ^ (u64)base * 0x9e3779b97f4a7c15ULL;
	h ^= current->mm->context.ctx_id * 0xc2b2ae3d27d4eb4fULL;
	return h ? h : 1;
}

/* An object's own tables: named by build-id (none: not cached). */
static u64 stp_uw_tables_ident(const struct stp_uw_mapping *vm)
{
	if (!vm->build_id_len)
		return 0;
	return stp_uw_ident(stp_uw_bid_hash(vm->build_id,
					    min_t(unsigned, vm->build_id_len,
						  sizeof(vm->build_id))),
			    vm->base);
}

/* The work budget of one user walk, in the core's work units (see "Work
 * bounds" in unwind/unwind_core.h): the core's default (about 50 us of
 * the dearest work) for every 20 frames the walk may keep, SystemTap's
 * default MAXBACKTRACE, so that a deeper walk (-DMAXBACKTRACE=N, the
 * tools' --depth) has as much for each frame; about 80 units make a
 * frame of a big object when nothing is cached.  Hostile tables cannot
 * make a walk longer: at the tools' deepest, 1,024 frames, about 2.6 ms.
 * A walk past it stops with work_limit; -DSTP_UW_MAX_WORK=N sets it. */
#ifndef STP_UW_MAX_WORK
#define STP_UW_MAX_WORK \
	(UW_DEFAULT_MAX_WORK * (MAXBACKTRACE > 20 ? MAXBACKTRACE : 20) / 20)
#endif

/* No user code lies below mmap_min_addr, which the kernel does not
 * export: its configured default (65536 on Debian x86), which only root
 * can lower (sysctl vm.mmap_min_addr).  A return address below it stops
 * the walk with bad_return_address instead of being printed. */
#ifndef STP_UW_MIN_CODE
#ifdef CONFIG_DEFAULT_MMAP_MIN_ADDR
#define STP_UW_MIN_CODE CONFIG_DEFAULT_MMAP_MIN_ADDR
#else
#define STP_UW_MIN_CODE UW_DEFAULT_MIN_CODE
#endif
#endif

/* Where no CFI covers a pc (i386 crt's __x86.get_pc_thunk.bx, code
 * written by hand or at run time), the walk reads the code there
 * (unwind/nocfi.c): it goes on only where the instructions fix the caller
 * (straight-line code to a ret, a frame being set up), and otherwise stops
 * with no_unwind_data.  The bp chain, a guess, is never followed.
 * -DSTP_UW_NOCFI=0 keeps to the CFI alone. */
#ifndef STP_UW_NOCFI
#define STP_UW_NOCFI 1
#endif

/* Bytes of user stack one read fetches for the frames above (see
 * cursor.stack_window): the core's default.  A variable, so that
 * bench/ubacktrace-parts.stp can compare sizes in one run. */
#ifndef STP_UW_STACK_WINDOW
#define STP_UW_STACK_WINDOW UW_DEFAULT_STACK_WINDOW
#endif
static uint32_t stp_uw_stack_window = STP_UW_STACK_WINDOW;

#define STP_UW_VDSO_TAG 0x7664736f5f636669ULL	/* "vdso_cfi" */

/* ------------------------------------------------------------------ */
/* Unwind tables: the sources, tried in order                          */

/* What stock's vma map says of a pc (struct stp_uw_where, in host->where),
 * asked at most once per find_tables, by the first source that needs it. */
static void stp_uw_where_lookup(struct stp_uw_host *host, unsigned long pc,
				struct stp_uw_where *w)
{
	if (w->looked)
		return;
	w->looked = 1;
	w->mod = _stp_umod_lookup(pc, host->task, &w->name, &w->offset,
				  &w->vm_start, &w->vm_end);
}

/* What a table source returns: STP_UW_TABLES_FOUND (*out filled),
 * STP_UW_TABLES_NEXT (pc is not this source's: *out untouched, ask the
 * next), or -1 (pc is this source's, but it has no tables: find_tables'
 * failure, host->missing and out->unreadable set as it knows). */
#define STP_UW_TABLES_FOUND	0
#define STP_UW_TABLES_NEXT	1

/* The vdso, from its mapped image. */
static int stp_uw_tables_vdso(struct stp_uw_host *host, unsigned long pc,
			      struct stp_uw_where *w, struct uw_tables *out)
{
	if (host->vdso.state == 0 && stp_uw_maybe_vdso(pc))
		stp_uw_find_vdso(host);
	if (host->vdso.state <= 0 || pc < host->vdso.start || pc >= host->vdso.end)
		return STP_UW_TABLES_NEXT;
	/* Tables read from the mapped image: data == NULL. */
	out->eh_frame_hdr.addr = host->vdso.hdr_addr;
	out->eh_frame_hdr.size = host->vdso.hdr_size;
	out->bias = host->vdso.bias;
	out->module = "[vdso]";
	out->pc_lo = host->vdso.start;	/* the core reuses these tables */
	out->pc_hi = host->vdso.end;	/* while pcs stay in the vdso */
	out->ident = stp_uw_ident(STP_UW_VDSO_TAG, host->vdso.start);
	out->compiled = stp_uw_vdso_compiled_of(READ_ONCE(current->mm->context.vdso_image));
	/* Debian's 6.1 and 6.12 give the 32-bit vDSO's clock functions no
	 * CFI; the kernel builds them with frame pointers. */
	out->keeps_frame_pointer = 1;
	return STP_UW_TABLES_FOUND;
}

/* The tables of leader's -d module mapped at pc that stock's map gave
 * when its count of changes was changes (struct stp_unwind_context,
 * dmod_memo), or NULL. */
static const struct uw_tables *stp_uw_dmod_memo_find(struct stp_unwind_context *uc,
						     const struct task_struct *leader,
						     unsigned long pc, long changes)
{
	unsigned i;

	for (i = 0; i < STP_UW_DMOD_MEMO; i++)	/* bound: STP_UW_DMOD_MEMO */
		if (uc->dmod_memo[i].leader == leader
		    && uc->dmod_memo[i].changes == changes
		    && pc - uc->dmod_memo[i].tables.pc_lo
		       < uc->dmod_memo[i].tables.pc_hi - uc->dmod_memo[i].tables.pc_lo)
			return &uc->dmod_memo[i].tables;
	return NULL;
}

static void stp_uw_dmod_memo_put(struct stp_unwind_context *uc,
				 const struct task_struct *leader, long changes,
				 const struct uw_tables *tables)
{
	unsigned i = uc->dmod_memo_next++ % STP_UW_DMOD_MEMO;

	uc->dmod_memo[i].leader = leader;
	uc->dmod_memo[i].changes = changes;
	uc->dmod_memo[i].tables = *tables;
}

/* A module named with -d/--ldd: the tables the translator copied into it,
 * as stock's map places them (kept across walks: dmod_memo). */
static int stp_uw_tables_dmod(struct stp_uw_host *host, unsigned long pc,
			      struct stp_uw_where *w, struct uw_tables *out)
{
	struct stp_unwind_context *uc =
		container_of(host, struct stp_unwind_context, host);
	const struct task_struct *leader = host->task->group_leader;
	const struct uw_tables *kept;
	struct _stp_module *m;
	long changes;

	/* The object of the last in-memory tables had no -d data. */
	if (host->vm_end && pc >= host->vm_start && pc < host->vm_end)
		return STP_UW_TABLES_NEXT;
	/* Read before the map is asked: a change made after this read makes
	 * the answer's entry stale by its count. */
	changes = atomic_long_read(&stp_uw_stock_map_changes);
	smp_rmb();
	kept = stp_uw_dmod_memo_find(uc, leader, pc, changes);
	if (kept) {
		*out = *kept;
		return STP_UW_TABLES_FOUND;
	}
	stp_uw_where_lookup(host, pc, w);
	m = w->mod;
	if (!m)
		return STP_UW_TABLES_NEXT;
	if (!m->eh_frame_len && !m->debug_frame_len) {
		host->missing = m->path ? m->path : m->name;
		return -1;
	}
	/* With the index and compiled table made at module init. */
	stp_uw_dmod_tables(m, out);
	/* The translator records each mapping of a known module with its
	 * distance from the module's first mapping (file offset 0): so
	 * vm_start - offset is where link-time address 0 is, for ET_DYN.
	 * ET_EXEC (section ".absolute") is at its link-time addresses. */
	if (m->num_sections > 0 && m->sections[0].name
	    && strcmp(m->sections[0].name, ".absolute") == 0)
		out->bias = 0;
	else
		out->bias = w->vm_start - w->offset;
	out->module = m->path;
	out->pc_lo = w->vm_start;
	out->pc_hi = w->vm_end;
	stp_uw_dmod_memo_put(uc, leader, changes, out);
	return STP_UW_TABLES_FOUND;
}

/* The object of pc that the VMA tracking knows; 0, or -ENOENT.  Out of
 * line: the tracking's record (136 bytes, with the build-id) is not on the
 * kernel stack under the ELF scan. */
static __attribute__((__noinline__)) int stp_uw_tracked_find(struct stp_uw_host *host,
					unsigned long pc,
					struct stp_uw_tracked *t)
{
	struct stp_uw_mapping vm;

	if (stp_uw_vma_find(host->task, pc, &vm) != 0)
		return -ENOENT;
	t->base = vm.base;
	t->start = vm.start;
	t->end = vm.end;
	t->path = vm.path;
	t->ident = stp_uw_tables_ident(&vm);
	t->index = vm.index;
	t->compiled = vm.compiled;
	t->steps = vm.steps;
	return 0;
}

/* The tables of the object named ident that an earlier scan found
 * (struct stp_unwind_context, elf_memo), or NULL. */
static const struct uw_tables *stp_uw_elf_memo_find(struct stp_unwind_context *uc,
						    u64 ident)
{
	unsigned i;

	for (i = 0; i < STP_UW_ELF_MEMO; i++)	/* bound: STP_UW_ELF_MEMO */
		if (uc->elf_memo[i].ident == ident)
			return &uc->elf_memo[i].tables;
	return NULL;
}

static void stp_uw_elf_memo_put(struct stp_unwind_context *uc, u64 ident,
				const struct uw_tables *tables)
{
	unsigned i = uc->elf_memo_next++ % STP_UW_ELF_MEMO;

	uc->elf_memo[i].ident = ident;
	uc->elf_memo[i].tables = *tables;
}

/* An object the VMA tracking knows (stap-unwind/vma_map.c): its own
 * PT_GNU_EH_FRAME, read from the process's pages, or the tracker's index of
 * its .eh_frame where no header searches it.  Pages not resident:
 * uw_elfmem_fail_tables() makes the stop reason UW_STOP_MEMORY_UNREADABLE
 * at that address. */
static int stp_uw_tables_tracked(struct stp_uw_host *host, unsigned long pc,
				 struct stp_uw_where *w, struct uw_tables *out)
{
	struct stp_unwind_context *uc =
		container_of(host, struct stp_unwind_context, host);
	const struct stp_uw_tracked *vm = &host->tracked;
	const struct uw_elfmem_info *info;
	const struct uw_tables *kept;
	int st;

	if (host->vm_end && pc >= host->vm_start && pc < host->vm_end) {
		*out = host->vm_tables;
		return STP_UW_TABLES_FOUND;
	}
	if (stp_uw_tracked_find(host, pc, &host->tracked) != 0)
		return STP_UW_TABLES_NEXT;
	kept = vm->ident ? stp_uw_elf_memo_find(uc, vm->ident) : NULL;
	if (kept) {
		*out = *kept;
	} else {
		st = stp_uw_mapped_elf(host, vm->base, &info);
		if (st != UW_ELFMEM_OK) {
			host->missing = vm->path;
			return uw_elfmem_fail_tables(out, st, info);
		}
		*out = info->tables;
		if (vm->ident)
			stp_uw_elf_memo_put(uc, vm->ident, out);
	}
	if (vm->index) {
		/* Tables no header searches: the tracker's index, made in
		 * process context; the FDEs are read from the process. */
		out->index = vm->index->entries;
		out->index_count = vm->index->count;
		out->eh_frame = (struct uw_section){ NULL, vm->index->eh_frame,
						     vm->index->eh_frame_size };
	}
	/* Compiled from these same tables, in process context. */
	out->compiled = vm->compiled;
	/* This CPU's counts: a walk runs in a probe's context, with
	 * preemption off, and the tables kept across walks are this CPU's
	 * context's (uc). */
	out->steps = vm->steps ? this_cpu_ptr(vm->steps) : NULL;
	out->module = vm->path;
	out->pc_lo = vm->start;
	out->pc_hi = vm->end;
	out->ident = vm->ident;
	host->vm_start = vm->start;
	host->vm_end = vm->end;
	host->vm_tables = *out;
	return STP_UW_TABLES_FOUND;
}

/* An object only stock's vma map knows (a -c/-x target's mapping the
 * tracking has not recorded): its PT_GNU_EH_FRAME the same way. */
static int stp_uw_tables_stock_map(struct stp_uw_host *host, unsigned long pc,
				   struct stp_uw_where *w, struct uw_tables *out)
{
	const struct uw_elfmem_info *info;

	stp_uw_where_lookup(host, pc, w);
	if (!w->name || w->vm_start < w->offset
	    || stp_uw_mapped_elf(host, w->vm_start - w->offset, &info)
	       != UW_ELFMEM_OK)
		return STP_UW_TABLES_NEXT;
	*out = info->tables;
	out->module = w->name;
	return STP_UW_TABLES_FOUND;
}

/* The sources, in order, like the kernel's ORC lookup (orc_find: the
 * ftrace trampolines, the kernel's and the modules' tables). */
static int (*const stp_uw_table_sources[])(struct stp_uw_host *host,
					   unsigned long pc,
					   struct stp_uw_where *w,
					   struct uw_tables *out) = {
	stp_uw_tables_vdso,
	stp_uw_tables_dmod,
	stp_uw_tables_tracked,
	stp_uw_tables_stock_map,
};

/* find_tables of the host: the first source that knows pc answers.  The
 * row cache (cursor.cache, set at uw_init) is used by the core only for
 * tables that name their bytes: local data, or an ident (uw_tables). */
static int stp_uw_find_tables(void *h, uint64_t pc64, struct uw_tables *out)
{
	struct stp_uw_host *host = h;
	unsigned long pc = (unsigned long)pc64;
	struct stp_uw_where *w = &host->where;
	unsigned i;
	int rc;

	memset(out, 0, sizeof(*out));
	host->missing = NULL;
	w->looked = 0;
	for (i = 0; i < ARRAY_SIZE(stp_uw_table_sources); i++) { /* bound: 4 sources */
		rc = stp_uw_table_sources[i](host, pc, w, out);
		if (rc != STP_UW_TABLES_NEXT)
			return rc;
	}
	/* No source knows pc: perhaps a mapping the tracker has not seen
	 * move. */
	stp_uw_vma_missed(host->task);
	host->missing = w->name ? w->name : "(unknown; retry with -DDEBUG_UNWIND)";
	return -1;
}

static const struct uw_host_ops stp_uw_ops = {
	.read_mem = stp_uw_read_mem,
	.find_tables = stp_uw_find_tables,
	.return_address = STP_UW_RETURN_ADDRESS,	/* stap-unwind/uretprobe.c */
};

/* The same for a walk that cannot meet a uretprobe's trampoline
 * (stp_uw_uretprobe_may_meet): no call to the host at each step. */
static const struct uw_host_ops stp_uw_ops_no_uretprobe = {
	.read_mem = stp_uw_read_mem,
	.find_tables = stp_uw_find_tables,
};

static void stp_uw_row_cache_clear(struct stp_unwind_context *uc)
{
	memset(uc->elf_memo, 0, sizeof(uc->elf_memo));
	memset(uc->dmod_memo, 0, sizeof(uc->dmod_memo));
	if (!uc->rows_ready)
		return;
	uw_cache_clear(&uc->rows);
	uc->vdso_saved.state = 0;
}

static void stp_uw_sync_info(struct stp_unwind_context *uc)
{
	struct unwind_frame_info *info = &uc->info;
	const struct uw_cursor *cur = &uc->cursor;
	uint64_t bp = 0;

	info->regs.ip = (unsigned long)uw_pc(cur);
	info->regs.sp = (unsigned long)uw_sp(cur);
	uw_get_reg(cur, info->compat ? UW_I386_EBP : UW_X86_64_RBP, &bp);
	info->regs.bp = (unsigned long)bp;
	info->defined = cur->regs->defined;
}

/* *seq: the count of mm's mapping changes (mm_lock_seq, moved by every
 * mmap_lock write), if no change is under way (even).  0: none, or the
 * kernel keeps no such count (Linux 6.12 and older, or without per-VMA
 * locks).  Where the kernel's own reader is missing but the count is its
 * seqcount (Debian's 6.12), read it as that reader does. */
static bool stp_uw_mm_seq(struct mm_struct *mm, unsigned int *seq)
{
#if defined(STP_UW_NO_KEPT_TABLES)	/* -D: measure what the kept tables save */
	return false;
#elif defined(STP_UW_KF_MMAP_LOCK_SPECULATE)
	return mmap_lock_speculate_try_begin(mm, seq);
#elif defined(STP_UW_KF_MM_LOCK_SEQCOUNT)
	*seq = raw_read_seqcount(&mm->mm_lock_seq);
	return !(*seq & 1);
#else
	return false;
#endif
}

/* The row cache's space for a walk of task's user stack (struct
 * uw_cache, "Tables across unwinds"): the number under which the core
 * may reuse the tables find_tables gave in earlier walks.  They hold
 * while
 *   - the address space is the same: mm->context.ctx_id, never reused;
 *   - no mapping of it changed: every change holds mmap_lock for
 *     writing, which moves mm_lock_seq (odd while held: no number);
 *   - stock's map, which places the -d modules, is unchanged (its count
 *     of changes), and the VMA tracking released nothing (its count):
 *     the tracked objects' tables point into its records (path, index).
 * -d modules' tables are the module's own data, and the vdso's are read
 * from its pages (ident); tables without a pc range are never kept.
 * 0 = vouch for nothing: a kernel without mm_lock_seq as a seqcount
 * (stp_uw_mm_seq), or no mm.  Each of the last STP_UW_SPACES address
 * spaces walked keeps its number while its state lasts, so that a
 * sampler's walks of a few processes in turn find their tables kept;
 * each new state gets the number after the last one (never 0, never
 * again). */
static u64 stp_uw_space(struct stp_unwind_context *uc,
			struct task_struct *task)
{
	struct mm_struct *mm = task->mm;
	unsigned int seq, i;
	long stock, tracked;

	if (!mm || !stp_uw_mm_seq(mm, &seq))
		return 0;
	stock = atomic_long_read(&stp_uw_stock_map_changes);
	tracked = stp_uw_vma_releases();
	for (i = 0; i < STP_UW_SPACES; i++)	/* bound: STP_UW_SPACES */
		if (uc->space[i].id && uc->space[i].mm_id == mm->context.ctx_id)
			break;
	if (i < STP_UW_SPACES && uc->space[i].mm_seq == seq
	    && uc->space[i].stock_changes == stock
	    && uc->space[i].tracked_releases == tracked)
		return uc->space[i].id;
	/* A space not among the last ones takes the oldest record; one
	 * whose state changed keeps its own, with a new number. */
	if (i == STP_UW_SPACES) {
		i = uc->space_next;
		uc->space_next = (i + 1) % STP_UW_SPACES;
	}
	uc->space[i].id = ++uc->last_space;
	uc->space[i].mm_id = mm->context.ctx_id;
	uc->space[i].mm_seq = seq;
	uc->space[i].stock_changes = stock;
	uc->space[i].tracked_releases = tracked;
	return uc->space[i].id;
}

static unsigned long stp_uw_user_begin_regs(struct stp_unwind_context *uc,
					     struct task_struct *task,
					     int compat, enum stp_uw_entry entry,
					     const struct uw_regs *r)
{
	memset(&uc->host, 0, sizeof(uc->host));
	memset(&uc->info, 0, sizeof(uc->info));
	uc->info.entry = entry;
	uc->info.compat = compat;
	uc->deferred = 0;
	if (entry == STP_UW_ENTRY_NONE || !r)
		return 0;
	uc->host.task = task;
	uc->host.compat = compat;
	if (uw_init(&uc->cursor, compat ? UW_ARCH_I386 : UW_ARCH_X86_64,
		    stp_uw_uretprobe_may_meet(task) ? &stp_uw_ops
						    : &stp_uw_ops_no_uretprobe,
		    &uc->host, r) != 0)
		return 0;
	if (!uc->rows_ready) {
		uw_cache_init(&uc->rows, uc->row_entries, STP_UW_ROW_CACHE);
		uc->rows_ready = 1;
	}
	/* The rows of every table source: the core itself refuses the
	 * cache for tables in process memory without an ident. */
	uc->cursor.cache = &uc->rows;
	uc->rows.space = stp_uw_space(uc, task);
	uc->cursor.max_depth = MAXBACKTRACE;
	uc->cursor.max_work = STP_UW_MAX_WORK;
	uc->cursor.min_code = STP_UW_MIN_CODE;
	uc->cursor.stack_window = stp_uw_stack_window;
	uc->cursor.policy = STP_UW_NOCFI ? UW_POLICY_NOCFI : 0;
	stp_uw_sync_info(uc);
	return UNW_PC(&uc->info);
}

static unsigned long stp_uw_user_begin(struct stp_unwind_context *uc,
					struct pt_regs *regs,
					enum stp_uw_entry entry)
{
	struct uw_regs r;
	int compat = _stp_is_compat_task();

	if (entry == STP_UW_ENTRY_NONE || !regs)
		return stp_uw_user_begin_regs(uc, current, compat,
					      STP_UW_ENTRY_NONE, NULL);
	stp_uw_entry_regs(&r, compat ? UW_ARCH_I386 : UW_ARCH_X86_64, entry, regs);
	return stp_uw_user_begin_regs(uc, current, compat, entry, &r);
}

/* A user walk the core stopped: its steps counted, and a module without
 * unwind data named once. */
static void stp_uw_user_stopped(struct stp_unwind_context *uc)
{
	stp_uw_step_counts_add(&uc->cursor);
	if (uc->cursor.stop.reason == UW_STOP_NO_UNWIND_DATA
	    && uc->host.missing && !uc->host.warned) {
		uc->host.warned = 1;
		_stp_warn("Missing unwind data for a module, rerun with 'stap -d %s'\n",
			  uc->host.missing);
	}
	dbug_unwind(1, "user unwind stopped: %s at pc %llx\n",
		    uw_stop_reason_name(uc->cursor.stop.reason),
		    (unsigned long long)uc->cursor.stop.pc);
}

static int stp_uw_user_pc_ok(const struct stp_unwind_context *uc,
			     unsigned long pc)
{
	return pc != 0 &&
	       pc < (uc->host.compat ? 0xffffffffUL : TASK_SIZE_MAX);
}

static unsigned stp_uw_user_many(struct stp_unwind_context *uc, unsigned max)
{
	unsigned n;

	if (!uc->host.task)
		return 0;
	max = min_t(unsigned, max, STP_UW_STEPPED);
	n = uw_step_many(&uc->cursor, uc->stepped, max);
	if (n > 0)
		stp_uw_sync_info(uc);
	if (n < max)
		stp_uw_user_stopped(uc);
	return n;
}

/* The initial registers per kernel entry path, for this file's walks and
 * stack.c's. */
#include "stap-unwind/entry_x86.c"

#endif /* STP_UW_UNWIND_C */
