/* uw-bench: per-frame cost of three unwinders on the same recorded
   snapshots, all from memory (no ptrace, no live process):
     ours       runtime/unwind (testsuite/harness/ours.c host callbacks)
     libdw      elfutils libdwfl: dwfl_attach_state with thread callbacks
                that read the snapshot
     libunwind  unw_create_addr_space with accessors over the snapshot
                (x86_64 snapshots only: Debian's libunwind unwinds only the
                host architecture)
   Every peer reads memory through the same function (uw_space_read:
   snapshot regions, then the mapped files) and keeps its own caches warm:
   one Dwfl and one unw_addr_space per memory map, our ELF table cache.

   usage: uw-bench [--reps N] [--callgrind | --pages] [--in-order]
                   [--no-compiled] [--no-row-cache | --new-rows]
                   [--step-many] [--fp] [--only PEER] [--sysroot=DIR]
                   SNAPSHOT-FILE...
     --only PEER   run that peer alone (ours, libdw, libunwind; fp-walk with
                   --fp), so that a profile of the run holds no other
                   peer's work
     --fp          one more peer, the frame-pointer walk (the floor of any
                   unwinder), for snapshots of programs built with frame
                   pointers
     --reps N      timed unwinds per snapshot and peer (default 20)
     --no-compiled ours without compiled tables (runtime/unwind/compile.c,
                   made for each file as it is loaded, as the kernel's
                   tracker makes them): every row parsed, or from the row
                   cache, as the interpreter alone does
     --in-order    each snapshot once, in the order recorded, the caches as
                   the unwinds before left them (a sampler's order), --reps
                   times over all of them; else (warm) each snapshot
                   --reps times in a row, after one unwind not timed
     --no-row-cache  ours without its row cache (struct uw_cache, kept
                   across unwinds like libunwind's UNW_CACHE_GLOBAL and
                   libdw's per-Dwfl CFI caches): every step parses CFI
     --new-rows    ours with its row cache's rows forgotten before each
                   unwind (uw_cache_forget_rows, outside what is timed or
                   counted), its tables and parsed CIEs kept: every
                   step parses its row, as a sampler's step at a pc never
                   seen, in modules seen before
     --step-many   ours by uw_step_many, which takes the frames of a walk in
                   one call; else frame by frame, one uw_step a frame, as
                   the kernel runtime walks (the same frames: uw-trace
                   checks it at every stop)
     --pages       ours alone: the pages of its cursor and row cache each
                   walk touches (each placed in pages of its own), after
                   one pass to warm the caches, warm or --in-order: what
                   a sampler's walk pays for memory gone cold since the
                   last (under TCG, a TLB refill a page)
     --sysroot=DIR the snapshot files after it name paths found under DIR
                   (snapshots recorded in the stapvm guest: DIR = its tree)
     --callgrind   one warm-up pass, then one pass per peer in
                   measure_ours / measure_libdw / measure_libunwind /
                   measure_fp (for valgrind --tool=callgrind
                   --collect-atstart=no --toggle-collect=measure_*
                   --toggle-collect=warm_up); warm (each counted unwind
                   right after the same one, in warm_up) or --in-order
                   (each once, in order); prints frames per peer
   Reports per peer: snapshots, frames, agreement with our frames, and the
   cost per frame of each unwind (ns; median and p99 over all unwinds,
   each unwind timed alone, so a clock read is in each), and the mean per
   frame of each whole pass timed at once ("pass"), which holds one clock
   read per pass: a peer with few frames an unwind (the frame-pointer
   walk) is not charged a clock read's share of each.  For ours, the steps
   by where their row came from.  */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBUNWIND
#define UNW_REMOTE_ONLY
#include <libunwind.h>
extern int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);
#endif

#include "../testsuite/harness/ours.h"
#include "../testsuite/harness/snapshot.h"

/* One distinct memory map: our space plus each peer's per-process state. */
struct process {
	struct uw_space *space;
	int arch;
	Dwfl *dwfl;
	const struct uw_snapshot *current; /* what the peers' callbacks read */
#ifdef HAVE_LIBUNWIND
	unw_addr_space_t unw;
#endif
	char vdso_path[64];
};

struct sample {
	struct uw_snapshot snap;
	struct process *proc;
	int nframes_ours;
	struct uw_frame ours[UW_MAX_FRAMES];
};

static struct uw_elf_cache *elf_cache;
static struct process **procs;
static int nprocs;
static struct sample *samples;
static int nsamples;

/* ---- libdw over a snapshot ---- */

static pid_t dw_next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = dwfl_arg;
	return 1;
}

static bool dw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
	(void)dwfl;
	struct process *p = dwfl_arg;
	if (p->arch == 32) {
		uint32_t v;
		if (!uw_space_read(p->space, p->current, addr, &v, 4))
			return false;
		*result = v;
		return true;
	}
	uint64_t v;
	if (!uw_space_read(p->space, p->current, addr, &v, 8))
		return false;
	*result = v;
	return true;
}

static bool dw_set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct process *p = thread_arg;
	const struct user_regs_struct *r = &p->current->regs;
	if (p->arch == 64) {
		/* DWARF order: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
		Dwarf_Word regs[17] = { r->rax, r->rdx, r->rcx, r->rbx, r->rsi, r->rdi,
					r->rbp, r->rsp, r->r8,  r->r9,  r->r10, r->r11,
					r->r12, r->r13, r->r14, r->r15, r->rip };
		return dwfl_thread_state_registers(thread, 0, 17, regs);
	}
	/* eax ecx edx ebx esp ebp esi edi eip */
	Dwarf_Word regs[9] = { (uint32_t)r->rax, (uint32_t)r->rcx, (uint32_t)r->rdx,
			       (uint32_t)r->rbx, (uint32_t)r->rsp, (uint32_t)r->rbp,
			       (uint32_t)r->rsi, (uint32_t)r->rdi, (uint32_t)r->rip };
	return dwfl_thread_state_registers(thread, 0, 9, regs);
}

static const Dwfl_Thread_Callbacks dw_thread_callbacks = {
	.next_thread = dw_next_thread,
	.memory_read = dw_memory_read,
	.set_initial_registers = dw_set_initial_registers,
};

static const Dwfl_Callbacks dw_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static Dwfl *dw_new(struct process *p)
{
	Dwfl *dwfl = dwfl_begin(&dw_callbacks);
	dwfl_report_begin(dwfl);
	for (int i = 0; i < uw_space_nmodules(p->space); i++) {
		const struct uw_module_view *m = uw_space_module(p->space, i);
		const char *file = m->path;
		if (strcmp(m->path, "[vdso]") == 0) {
			/* libdwfl reports ELF files: give it the vdso image as one. */
			snprintf(p->vdso_path, sizeof p->vdso_path, "/tmp/uw-bench-vdso-%d-%p",
				 getpid(), (void *)p);
			int fd = open(p->vdso_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (fd < 0 || write(fd, m->image, m->image_size) != (ssize_t)m->image_size) {
				perror(p->vdso_path);
				exit(2);
			}
			close(fd);
			file = p->vdso_path;
		}
		/* add_p_vaddr: the module's addresses are its link-time ones
		   plus BASE, i.e. BASE is the load bias.  */
		if (!dwfl_report_elf(dwfl, m->path, file, -1, m->bias, true)) {
			fprintf(stderr, "uw-bench: libdw cannot report %s: %s\n", m->path,
				dwfl_errmsg(-1));
		}
	}
	dwfl_report_end(dwfl, NULL, NULL);
	if (!dwfl_attach_state(dwfl, NULL, 1, &dw_thread_callbacks, p)) {
		fprintf(stderr, "uw-bench: dwfl_attach_state: %s\n", dwfl_errmsg(-1));
		exit(2);
	}
	return dwfl;
}

struct dw_collect {
	struct uw_frame *out;
	int n, max;
};

static int dw_frame(Dwfl_Frame *state, void *arg)
{
	struct dw_collect *c = arg;
	Dwarf_Addr pc;
	bool activation;
	if (c->n == c->max || !dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	c->out[c->n++] = (struct uw_frame){ .pc = pc, .activation = activation };
	return DWARF_CB_OK;
}

static int unwind_libdw(struct sample *s, struct uw_frame *out, int max)
{
	struct dw_collect c = { out, 0, max };
	s->proc->current = &s->snap;
	dwfl_getthread_frames(s->proc->dwfl, 1, dw_frame, &c);
	return c.n;
}

/* ---- libunwind over a snapshot ---- */

#ifdef HAVE_LIBUNWIND
static int lu_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			     int need_unwind_info, void *arg)
{
	struct process *p = arg;
	const struct uw_module_view *m = uw_space_find_module(p->space, ip);
	if (!m || !m->eh_frame_hdr_size)
		return -UNW_ENOINFO;
	/* .eh_frame_hdr: version, 3 encodings, eh_frame_ptr, fde_count, then
	   the sorted table; libunwind reads it remotely through access_mem. */
	uint64_t hdr = m->eh_frame_hdr_addr + m->bias;
	uint8_t head[12];
	if (!uw_space_read(p->space, p->current, hdr, head, sizeof head) || head[0] != 1 ||
	    head[2] != 0x03 || head[3] != 0x3b)
		return -UNW_ENOINFO;
	uint32_t fde_count;
	memcpy(&fde_count, head + 8, 4);
	unw_dyn_info_t di = {
		.start_ip = m->start,
		.end_ip = m->end,
		.format = UNW_INFO_FORMAT_REMOTE_TABLE,
		.u.rti = { .name_ptr = 0, .segbase = hdr,
			   .table_len = fde_count * 8 / sizeof(unw_word_t),
			   .table_data = hdr + 12 },
	};
	return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

static void lu_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as;
	(void)arg;
	free(pi->unwind_info);
	pi->unwind_info = NULL;
}

static int lu_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as;
	(void)addr;
	(void)arg;
	return -UNW_ENOINFO;
}

static int lu_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write,
			 void *arg)
{
	(void)as;
	struct process *p = arg;
	if (write)
		return -UNW_EINVAL;
	return uw_space_read(p->space, p->current, addr, val, sizeof *val) ? 0 : -UNW_EINVAL;
}

static int lu_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write,
			 void *arg)
{
	(void)as;
	struct process *p = arg;
	const struct user_regs_struct *r = &p->current->regs;
	if (write)
		return -UNW_EINVAL;
	switch (reg) {
	case UNW_X86_64_RAX: *val = r->rax; break;
	case UNW_X86_64_RDX: *val = r->rdx; break;
	case UNW_X86_64_RCX: *val = r->rcx; break;
	case UNW_X86_64_RBX: *val = r->rbx; break;
	case UNW_X86_64_RSI: *val = r->rsi; break;
	case UNW_X86_64_RDI: *val = r->rdi; break;
	case UNW_X86_64_RBP: *val = r->rbp; break;
	case UNW_X86_64_RSP: *val = r->rsp; break;
	case UNW_X86_64_R8: *val = r->r8; break;
	case UNW_X86_64_R9: *val = r->r9; break;
	case UNW_X86_64_R10: *val = r->r10; break;
	case UNW_X86_64_R11: *val = r->r11; break;
	case UNW_X86_64_R12: *val = r->r12; break;
	case UNW_X86_64_R13: *val = r->r13; break;
	case UNW_X86_64_R14: *val = r->r14; break;
	case UNW_X86_64_R15: *val = r->r15; break;
	case UNW_X86_64_RIP: *val = r->rip; break;
	default: return -UNW_EBADREG;
	}
	return 0;
}

static int lu_access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			   void *arg)
{
	(void)as;
	(void)reg;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EBADREG;
}

static int lu_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as;
	(void)c;
	(void)arg;
	return -UNW_EINVAL;
}

static int lu_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			    unw_word_t *off, void *arg)
{
	(void)as;
	(void)addr;
	(void)buf;
	(void)len;
	(void)off;
	(void)arg;
	return -UNW_ENOINFO;
}

static unw_accessors_t lu_accessors = {
	.find_proc_info = lu_find_proc_info,
	.put_unwind_info = lu_put_unwind_info,
	.get_dyn_info_list_addr = lu_get_dyn_info_list_addr,
	.access_mem = lu_access_mem,
	.access_reg = lu_access_reg,
	.access_fpreg = lu_access_fpreg,
	.resume = lu_resume,
	.get_proc_name = lu_get_proc_name,
};

static int unwind_libunwind(struct sample *s, struct uw_frame *out, int max)
{
	unw_cursor_t cursor;
	struct process *p = s->proc;
	p->current = &s->snap;
	if (unw_init_remote(&cursor, p->unw, p) != 0)
		return 0;
	int n = 0;
	do {
		unw_word_t ip;
		unw_get_reg(&cursor, UNW_REG_IP, &ip);
		/* libunwind reports return addresses too (its ip is the
		   caller's resume address); the first frame is exact.  */
		out[n] = (struct uw_frame){ .pc = ip, .activation = n == 0 ||
					    unw_is_signal_frame(&cursor) > 0 };
		n++;
	} while (n < max && unw_step(&cursor) > 0);
	return n;
}
#endif

/* ---- ours ---- */

static int unwind_ours(struct sample *s, struct uw_frame *out, int max)
{
	struct uw_ours_result res;
	return uw_ours_unwind(s->proc->space, &s->snap, 0, true, out, max, &res);
}

/* ---- the frame-pointer walk: the floor ---- */

/* What any unwinder must at least do: one load of the saved frame pointer
   and one of the return address per frame, through the same memory reads
   as the others.  Right only where every frame keeps a frame pointer
   (programs built with -fno-omit-frame-pointer, outside prologues and
   epilogues): --fp adds it as a peer, for snapshots of such programs.  */
static int unwind_fp(struct sample *s, struct uw_frame *out, int max)
{
	const int w = s->snap.arch == 64 ? 8 : 4;
	uint64_t bp = s->snap.regs.rbp, next = 0, ra = 0;
	int n = 0;

	if (max < 1)
		return 0;
	out[n++].pc = s->snap.regs.rip;
	while (n < max) {	/* bound: max frames */
		if (!uw_space_read(s->proc->space, &s->snap, bp, &next, w) ||
		    !uw_space_read(s->proc->space, &s->snap, bp + w, &ra, w))
			break;
		if (ra == 0 || next <= bp)
			break;
		out[n++].pc = ra;
		bp = next;
	}
	return n;
}

/* ---- loading ---- */

static struct process *process_for(const struct uw_snapshot *s)
{
	for (int i = 0; i < nprocs; i++)
		if (procs[i]->arch == s->arch && uw_space_matches(procs[i]->space, s))
			return procs[i];
	struct process *p = calloc(1, sizeof *p);
	p->arch = s->arch;
	p->space = uw_space_new(elf_cache, s);
	p->current = s;
	p->dwfl = dw_new(p);
#ifdef HAVE_LIBUNWIND
	if (s->arch == 64) {
		p->unw = unw_create_addr_space(&lu_accessors, 0);
		unw_set_caching_policy(p->unw, UNW_CACHE_GLOBAL);
	}
#endif
	procs = realloc(procs, (size_t)(nprocs + 1) * sizeof *procs);
	procs[nprocs++] = p;
	return p;
}

static void load(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f || uw_snapshot_read_header(f) != 0) {
		fprintf(stderr, "uw-bench: %s: not a snapshot file\n", path);
		exit(2);
	}
	for (;;) {
		samples = realloc(samples, (size_t)(nsamples + 1) * sizeof *samples);
		struct sample *s = &samples[nsamples];
		memset(s, 0, sizeof *s);
		int rc = uw_snapshot_read_next(f, &s->snap);
		if (rc == 0)
			break;
		if (rc < 0) {
			fprintf(stderr, "uw-bench: %s: malformed snapshot\n", path);
			exit(2);
		}
		s->proc = process_for(&s->snap);
		nsamples++;
	}
	fclose(f);
}

/* ---- measuring ---- */

typedef int (*unwind_fn)(struct sample *, struct uw_frame *, int);

struct peer {
	const char *name;
	unwind_fn unwind;
	int arch_only; /* 0 = both */
};

static const struct peer peers[] = {
	{ "ours", unwind_ours, 0 },
	{ "libdw", unwind_libdw, 0 },
#ifdef HAVE_LIBUNWIND
	{ "libunwind", unwind_libunwind, 64 },
#endif
	{ "fp-walk", unwind_fp, 0 },	/* last: only with --fp */
};
#define NPEERS (int)(sizeof peers / sizeof peers[0])
static bool fp_floor;			/* --fp */
static const char *only_peer;		/* --only */
static const struct peer *only;		/* its peer, found once: no name
					   compared in the passes counted */
static bool new_rows;			/* --new-rows */
static bool in_order;			/* --in-order */

/* Before each of ours' unwinds with --new-rows: not timed, and not
   counted under callgrind (run.sh toggles collection off inside it). */
__attribute__((noinline)) void forget_rows(const struct peer *p)
{
	if (new_rows && p->unwind == unwind_ours)
		uw_ours_forget_rows();
}

static bool peer_takes(const struct peer *p, const struct sample *s)
{
	if (p->unwind == unwind_fp && !fp_floor)
		return false;
	if (only && p != only)
		return false;
	return !p->arch_only || p->arch_only == s->snap.arch;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Before each counted unwind of a warm pass (not --in-order): the same
   unwind, not counted (run.sh toggles collection off inside it), so that
   the one counted finds the caches as it left them. */
__attribute__((noinline)) void warm_up(const struct peer *p, struct sample *s)
{
	struct uw_frame fr[UW_MAX_FRAMES];

	if (!in_order)
		p->unwind(s, fr, UW_MAX_FRAMES);
}

/* Pass over every snapshot with one peer; returns frames found.  Each
   unwind after its warm-up (warm_up) if warm_each; else not, as in the
   passes that warm the caches before those callgrind counts, in which no
   call of warm_up may toggle the collection on.  */
static long pass(const struct peer *p, int arch, bool warm_each)
{
	struct uw_frame fr[UW_MAX_FRAMES];
	long frames = 0;
	for (int i = 0; i < nsamples; i++)
		if (peer_takes(p, &samples[i]) && (!arch || samples[i].snap.arch == arch)) {
			if (warm_each)
				warm_up(p, &samples[i]);
			forget_rows(p);
			frames += p->unwind(&samples[i], fr, UW_MAX_FRAMES);
		}
	return frames;
}

/* Named so callgrind can collect exactly these (--toggle-collect).  */
__attribute__((noinline)) long measure_ours(int arch) { return pass(&peers[0], arch, true); }
__attribute__((noinline)) long measure_libdw(int arch) { return pass(&peers[1], arch, true); }
#ifdef HAVE_LIBUNWIND
__attribute__((noinline)) long measure_libunwind(int arch) { return pass(&peers[2], arch, true); }
#endif
__attribute__((noinline)) long measure_fp(int arch) { return pass(&peers[NPEERS - 1], arch, true); }

static void report_agreement(void)
{
	struct uw_frame fr[UW_MAX_FRAMES];
	for (int i = 0; i < nsamples; i++)
		samples[i].nframes_ours = unwind_ours(&samples[i], samples[i].ours, UW_MAX_FRAMES);
	for (int k = 0; k < NPEERS; k++) {
		for (int arch = 64; arch >= 32; arch -= 32) {
			long taken = 0, same = 0, frames = 0;
			for (int i = 0; i < nsamples; i++) {
				struct sample *s = &samples[i];
				if (s->snap.arch != arch || !peer_takes(&peers[k], s))
					continue;
				int n = peers[k].unwind(s, fr, UW_MAX_FRAMES);
				taken++;
				frames += n;
				/* The frame-pointer walk ends where a frame keeps
				   no frame pointer (libc's, at the latest): right
				   if its frames begin ours. */
				bool prefix = peers[k].unwind == unwind_fp;
				bool eq = prefix ? n <= s->nframes_ours : n == s->nframes_ours;
				for (int j = 0; eq && j < n; j++)
					eq = fr[j].pc == s->ours[j].pc;
				same += eq;
			}
			if (taken)
				printf("frames: %-9s x86_%-2s %6ld snapshots, %7ld frames (%.1f/snapshot),"
				       " same pcs as ours in %ld%s\n",
				       peers[k].name, arch == 64 ? "64" : "32", taken, frames,
				       (double)frames / taken, same,
				       peers[k].unwind == unwind_fp ? " (as far as it goes)" : "");
		}
	}
}

/* The unwinds of one timed run of peer k over arch's snapshots: warm,
   each snapshot reps times in a row after one more; in order, every
   snapshot once per rep, in the order recorded.  Per-unwind times (ns per
   frame) into per_frame[*n]; the frames and the time of whole passes
   (one clock read each) into *pass_frames, *pass_ns. */
static void time_run(int k, int arch, int reps, double *per_frame, size_t *n,
		     long *frames_total, double *ns_total, long *pass_frames, double *pass_ns)
{
	struct uw_frame fr[UW_MAX_FRAMES];
	int outer = in_order ? reps : 1, inner = in_order ? 1 : reps;

	for (int o = 0; o < outer; o++) {
		double p0 = now_ns(), timed = 0;
		long frames = 0;
		for (int i = 0; i < nsamples; i++) {
			struct sample *s = &samples[i];
			if (s->snap.arch != arch || !peer_takes(&peers[k], s))
				continue;
			if (!in_order)
				peers[k].unwind(s, fr, UW_MAX_FRAMES); /* warm */
			for (int r = 0; r < inner; r++) {
				forget_rows(&peers[k]);
				double t0 = now_ns();
				int nf = peers[k].unwind(s, fr, UW_MAX_FRAMES);
				double dt = now_ns() - t0;
				timed += dt;
				if (nf > 0) {
					per_frame[(*n)++] = dt / nf;
					*frames_total += nf;
					*ns_total += dt;
					frames += nf;
				}
			}
		}
		/* A pass in order is timed whole; a warm one, by its unwinds
		   (its untimed warm-ups are between them). */
		*pass_ns += in_order ? now_ns() - p0 : timed;
		*pass_frames += frames;
	}
}

static void time_peers(int reps)
{
	double median[NPEERS][2] = { { 0 } };
	double pass_mean[NPEERS][2] = { { 0 } };
	for (int arch = 64; arch >= 32; arch -= 32) {
		for (int k = 0; k < NPEERS; k++) {
			size_t cap = (size_t)nsamples * (size_t)reps, n = 0;
			double *per_frame = malloc(cap * sizeof *per_frame);
			long frames_total = 0, pass_frames = 0;
			double ns_total = 0, pass_ns = 0;
			time_run(k, arch, reps, per_frame, &n, &frames_total, &ns_total,
				 &pass_frames, &pass_ns);
			if (n) {
				qsort(per_frame, n, sizeof *per_frame, cmp_double);
				median[k][arch == 32] = per_frame[n / 2];
				pass_mean[k][arch == 32] = pass_ns / pass_frames;
				printf("time:   %-9s x86_%-2s median %8.1f ns/frame  p99 %8.1f ns/frame"
				       "  mean %8.1f ns/frame  pass %8.1f ns/frame  (%zu unwinds%s)\n",
				       peers[k].name, arch == 64 ? "64" : "32", per_frame[n / 2],
				       per_frame[(size_t)(n * 0.99)], ns_total / frames_total,
				       pass_ns / pass_frames, n, in_order ? ", in order" : "");
			}
			free(per_frame);
		}
		for (int k = 1; k < NPEERS; k++) {
			double m = median[k][arch == 32], o = median[0][arch == 32];
			double pm = pass_mean[k][arch == 32], po = pass_mean[0][arch == 32];

			if (m <= 0 || o <= 0)
				continue;
			if (peers[k].unwind == unwind_fp)	/* the floor */
				printf("ratio:  ours / %s (median, x86_%s) = %.1fx; (pass) = %.1fx\n",
				       peers[k].name, arch == 64 ? "64" : "32", o / m, po / pm);
			else
				printf("ratio:  %s / ours (median, x86_%s) = %.1fx\n", peers[k].name,
				       arch == 64 ? "64" : "32", m / o);
		}
	}
	unsigned long long compiled, full, marked, uncompiled;
	uw_ours_step_stats(&compiled, &full, &marked, &uncompiled);
	printf("steps:  ours %llu: %llu compact rows, %llu full rows, %llu parsed where marked,"
	       " %llu in tables not compiled\n", compiled + full + marked + uncompiled, compiled,
	       full, marked, uncompiled);
}

/* Share of part in whole, in percent. */
static double percent(unsigned long long part, unsigned long long whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static int cmp_object_steps(const void *a, const void *b)
{
	const struct uw_object_steps *x = a, *y = b;

	return x->steps < y->steps ? 1 : x->steps > y->steps ? -1 : strcmp(x->path, y->path);
}

/* Ours' steps of one more walk of every snapshot, by the object each
   stepped out of: where their rows came from, and the share of the
   object's compiled rows, and of its code, that fall back to the
   interpreter (kept whole, or left to the parse). */
#define MAX_OBJECTS 64
static void report_objects(void)
{
	static struct uw_object_steps objs[MAX_OBJECTS];
	int n = 0, differ = 0;

	for (int i = 0; i < nsamples; i++) {	/* bound: nsamples */
		uw_ours_object_steps(samples[i].proc->space, &samples[i].snap, true, objs,
				     MAX_OBJECTS, &n);
		uw_ours_object_counts(samples[i].proc->space, &samples[i].snap, true, objs,
				      MAX_OBJECTS, &n);
	}
	qsort(objs, (size_t)n, sizeof *objs, cmp_object_steps);
	printf("objects: ours, one walk of each snapshot: steps out of each object's frames by"
	       " where their row came from; its compiled rows and code kept whole or left to"
	       " the parse\n");
	for (int i = 0; i < n; i++) {	/* bound: n <= MAX_OBJECTS */
		const struct uw_object_steps *o = &objs[i];
		const struct uw_step_counts *f = &o->by_frame;
		const struct uw_compile_stats *r = o->rows;
		char rows[160] = "not compiled";

		if (r)
			snprintf(rows, sizeof rows,
				 "%u rows: whole %.2f%%, parse %.2f%%; code whole %.2f%%, parse %.2f%%",
				 r->rows, percent(r->full_rows, r->rows),
				 percent(r->parse_rows, r->rows), percent(r->full_bytes, r->bytes),
				 percent(r->parse_bytes, r->bytes));
		printf("object: %7llu steps: compact %6.2f%%, whole %5.2f%%, parse %5.2f%%,"
		       " not compiled %6.2f%%, other %5.2f%% | %s | %s\n", o->steps,
		       percent(f->compiled, o->steps), percent(f->full, o->steps),
		       percent(f->marked, o->steps), percent(f->uncompiled, o->steps),
		       percent(o->steps - f->compiled - f->full - f->marked - f->uncompiled,
			       o->steps),
		       rows, o->path);
	}
	if (n == MAX_OBJECTS)
		printf("objects: the room for %d objects is full: the steps of any further object"
		       " are not counted\n", MAX_OBJECTS);
	/* The same walks by uw_step_many, counted by the core in each
	   object's tables (what the kernel's uw_vma_object_steps() reads),
	   against the steps above, told apart by frame. */
	for (int i = 0; i < n; i++) {	/* bound: n <= MAX_OBJECTS */
		const struct uw_object_steps *o = &objs[i];
		const struct uw_step_counts *k = &o->counted, *f = &o->by_frame;

		if (memcmp(k, f, sizeof *k) == 0)
			continue;
		differ++;
		printf("objects: %s: its tables counted compact %llu, whole %llu, parse %llu,"
		       " not compiled %llu; its frames' steps %llu, %llu, %llu, %llu\n", o->path,
		       (unsigned long long)k->compiled, (unsigned long long)k->full,
		       (unsigned long long)k->marked, (unsigned long long)k->uncompiled,
		       (unsigned long long)f->compiled, (unsigned long long)f->full,
		       (unsigned long long)f->marked, (unsigned long long)f->uncompiled);
	}
	printf("objects: the counts of each object's tables %s the steps by frame"
	       " (%d of %d objects differ)\n", differ ? "differ from" : "agree with", differ, n);
}

static int usage(void)
{
	fprintf(stderr, "usage: uw-bench [--reps N] [--callgrind | --pages] [--in-order] [--no-compiled]"
		" [--no-row-cache | --new-rows] [--step-many] [--fp] [--only PEER]"
		" [--sysroot=DIR]"
		" SNAPSHOT-FILE...\n");
	return 2;
}

int main(int argc, char **argv)
{
	int reps = 20;
	bool callgrind = false, pages = false;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "--callgrind") == 0)
			callgrind = true;
		else if (strcmp(argv[i], "--pages") == 0)
			pages = true;
		else if (strcmp(argv[i], "--no-row-cache") == 0)
			uw_ours_set_row_cache(false);
		else if (strcmp(argv[i], "--new-rows") == 0)
			new_rows = true;
		else if (strcmp(argv[i], "--in-order") == 0)
			in_order = true;
		else if (strcmp(argv[i], "--no-compiled") == 0)
			uw_ours_set_compiled(false);
		else if (strcmp(argv[i], "--step-many") == 0)
			uw_ours_set_step_many(true);
		else if (strcmp(argv[i], "--fp") == 0)
			fp_floor = true;
		else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
			only_peer = argv[++i];
		else if (strncmp(argv[i], "--sysroot=", 10) == 0)
			break; /* a file-list item: see below */
		else {
			return usage();
		}
	}
	if (i == argc) {
		return usage();
	}
	if (only_peer) {
		int k = 0;
		while (k < NPEERS && strcmp(peers[k].name, only_peer) != 0)	/* bound: NPEERS */
			k++;
		if (k == NPEERS) {
			fprintf(stderr, "uw-bench: --only %s: no such peer in this build\n", only_peer);
			return 2;
		}
		only = &peers[k];
	}
	if (pages) {
		only = &peers[0];
		uw_ours_count_pages();
	}
	unsetenv("DEBUGINFOD_URLS");
	/* Ours runs as the kernel runtime runs it: no trace callback. */
	uw_ours_set_trace(false);
	elf_cache = uw_elf_cache_new();
	/* "--sysroot=DIR" among the files: the files after it name paths
	   found under DIR here (snapshots recorded in the stapvm guest,
	   whose files are in the target tree; see snapshot.c).  */
	for (; i < argc; i++) {
		if (strncmp(argv[i], "--sysroot=", 10) == 0)
			setenv("UW_SYSROOT", argv[i] + 10, 1);
		else
			load(argv[i]);
	}
	printf("uw-bench: %d snapshots, %d distinct memory maps\n", nsamples, nprocs);

	if (pages) {
		/* One pass to warm the caches, then the pass counted. */
		for (int arch = 64; arch >= 32; arch -= 32) {
			pass(&peers[0], arch, true);
			uw_ours_page_stats(NULL, NULL);
			pass(&peers[0], arch, true);
			uw_ours_page_stats(stdout, arch == 64 ? "x86_64" : "i386");
		}
	} else if (callgrind) {
		/* Warm every cache outside the collected functions, then one
		   collected pass per peer and architecture.  */
		for (int arch = 64; arch >= 32; arch -= 32) {
			for (int k = 0; k < NPEERS; k++)
				pass(&peers[k], arch, false);
			printf("callgrind x86_%d: ours %ld frames\n", arch, measure_ours(arch));
			printf("callgrind x86_%d: libdw %ld frames\n", arch, measure_libdw(arch));
#ifdef HAVE_LIBUNWIND
			if (arch == 64)
				printf("callgrind x86_%d: libunwind %ld frames\n", arch,
				       measure_libunwind(arch));
#endif
			if (fp_floor)
				printf("callgrind x86_%d: fp %ld frames\n", arch, measure_fp(arch));
		}
		unsigned long long hits, misses, cie_misses;
		uw_ours_row_cache_stats(&hits, &misses, &cie_misses);
		printf("callgrind: ours row cache %llu hits %llu misses, %llu CIEs parsed (all passes)\n",
		       hits, misses, cie_misses);
		unsigned long long compiled, full, marked, uncompiled;
		uw_ours_step_stats(&compiled, &full, &marked, &uncompiled);
		printf("callgrind: ours steps: %llu compact rows, %llu full rows, %llu parsed where"
		       " marked, %llu in tables not compiled (all passes)\n", compiled, full, marked,
		       uncompiled);
	} else {
		report_agreement();
		time_peers(reps);
		report_objects();
	}
	for (int k = 0; k < nprocs; k++)
		if (procs[k]->vdso_path[0])
			unlink(procs[k]->vdso_path);
	return 0;
}
