/* uw-trace: stop a test program under ptrace and, at every stop, compare
   the frames our library (runtime/unwind) finds with elfutils libdwfl's.

   usage:
     uw-trace [options] --step FUNC -- PROG ARGS...
         break at FUNC (a symbol of the main executable), then single-step
         until it returns: every instruction executed on the way, in FUNC and
         in everything it calls, is a stop
     uw-trace [options] --random N -- PROG ARGS...
         stop the running program with SIGSTOP at N random moments
     uw-trace [options] --replay FILE
         unwind the snapshots in FILE with our library and compare with the
         oracle frames recorded in them (no live process)
   options:
     --label STR        name of this run in reports
     --seed N           random seed (default 1)
     --max-delay-us N   random mode: longest pause between stops (300)
     --max-steps N      step mode: give up after N steps (200000)
     --max-visits N     step mode: check each instruction address at most N
                        times (16); loops (the vdso's clock retry loop runs
                        thousands of times under single-stepping) are still
                        stepped through but not re-checked
     --save FILE        write snapshots (with oracle frames) to FILE
     --save-every K     ... only every K-th one (default 1)
     --save-diffs FILE  write the snapshots where the unwinders disagree
     --max-reports N    print at most N disagreements in full (20)
     --no-ours          oracle only (to record snapshots)
   Prints one "DIFF" block per disagreement and finally
     uw-trace: LABEL stops=N agree=A differ=D oracle_errors=E
   and exits 0 when D == 0, 1 when they disagree, 2 on a harness error.  */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oracle.h"
#include "ours.h"
#include "snapshot.h"

struct options {
	const char *label;
	const char *step_func;
	long random_stops;
	const char *replay_file;
	unsigned seed;
	long max_delay_us;
	long max_steps;
	long max_visits;
	const char *save_file;
	long save_every;
	const char *save_diffs_file;
	long max_reports;
	bool no_ours;
};

struct stats {
	long stops, agree, differ, oracle_errors, ours_unclean;
};

struct tracer {
	struct options opt;
	pid_t pid;
	int arch;
	struct uw_oracle *oracle;
	struct uw_elf_cache *elf_cache;
	struct uw_space *space;
	FILE *save, *save_diffs;
	struct stats st;
	bool incomplete; /* stepping gave up before the function returned */
};

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* ---- reporting ---- */

static void print_frames(struct tracer *t, const char *who, const struct uw_frame *fr, int n)
{
	printf("  %s: %d frames\n", who, n);
	for (int i = 0; i < n; i++) {
		char sym[256];
		if (t->oracle)
			uw_oracle_describe(t->oracle, fr[i].pc, fr[i].activation, sym, sizeof sym);
		else
			snprintf(sym, sizeof sym, "?");
		printf("    #%-3d %#" PRIx64 "%s sp %#" PRIx64 "%s  %s\n", i, fr[i].pc,
		       fr[i].activation ? "    " : " ret", fr[i].sp, fr[i].has_sp ? "" : "?", sym);
	}
}

static int first_difference(const struct uw_frame *a, int na, const struct uw_frame *b, int nb)
{
	int i = 0;
	for (; i < na && i < nb; i++)
		if (a[i].pc != b[i].pc || a[i].activation != b[i].activation ||
		    (a[i].has_sp && b[i].has_sp && a[i].sp != b[i].sp))
			break;
	return i;
}

/* ---- one stop ---- */

static void compare_snapshot(struct tracer *t, struct uw_snapshot *s, const char *oracle_err,
			     pid_t live_pid)
{
	struct uw_frame ours[UW_MAX_FRAMES];
	struct uw_ours_result res = { 0 };

	t->st.stops++;
	if (t->opt.no_ours)
		return;
	if (!uw_space_matches(t->space, s)) {
		uw_space_free(t->space);
		t->space = uw_space_new(t->elf_cache, s);
	}
	int n = uw_ours_unwind(t->space, s, live_pid, ours, UW_MAX_FRAMES, &res);
	if (!res.stopped_cleanly)
		t->st.ours_unclean++;
	if (uw_frames_equal(s->frames, s->nframes, ours, n)) {
		t->st.agree++;
		return;
	}
	t->st.differ++;
	if (t->save_diffs)
		uw_snapshot_write(t->save_diffs, s);
	int at = first_difference(s->frames, s->nframes, ours, n);
	char sym0[256] = "?", symd[256] = "?";
	if (t->oracle) {
		uw_oracle_describe(t->oracle, uw_snapshot_pc(s), true, sym0, sizeof sym0);
		if (at < s->nframes)
			uw_oracle_describe(t->oracle, s->frames[at].pc, s->frames[at].activation, symd,
					   sizeof symd);
		else if (at < n)
			uw_oracle_describe(t->oracle, ours[at].pc, ours[at].activation, symd, sizeof symd);
	}
	/* One greppable line per disagreement, for grouping by cause.  */
	printf("DIFFKEY %s arch=%d at=%s frame=%d oracle_n=%d ours_n=%d ours_stop=%s near=%s\n",
	       s->label, s->arch, sym0, at, s->nframes, n, res.stop_reason, symd);
	if (t->st.differ <= t->opt.max_reports) {
		printf("DIFF %s stop %ld pc %#" PRIx64 " sp %#" PRIx64 " (%s)\n", s->label, t->st.stops,
		       uw_snapshot_pc(s), uw_snapshot_sp(s), sym0);
		print_frames(t, "oracle (libdwfl)", s->frames, s->nframes);
		if (oracle_err)
			printf("  oracle stopped with: %s\n", oracle_err);
		print_frames(t, "ours", ours, n);
		printf("  ours stopped with: %s at pc %#" PRIx64 "\n", res.stop_reason, res.stop_pc);
	}
}

static void check_live_stop(struct tracer *t, const char *where)
{
	struct uw_snapshot s;
	int rc = uw_snapshot_capture(&s, t->pid, t->arch);
	if (rc != 0) {
		errno = -rc;
		die("snapshot");
	}
	char label[512];
	snprintf(label, sizeof label, "%s:%s", t->opt.label, where);
	s.label = strdup(label);

	const char *err;
	s.nframes = uw_oracle_unwind(t->oracle, &s, s.frames, UW_MAX_FRAMES, &err);
	if (getenv("UW_TRACE_PCS")) {
		char sym[256];
		uw_oracle_describe(t->oracle, uw_snapshot_pc(&s), true, sym, sizeof sym);
		fprintf(stderr, "%s %s\n", label, sym);
	}
	if (err) {
		t->st.oracle_errors++;
		if (getenv("UW_TRACE_DEBUG"))
			fprintf(stderr, "%s: pc %#llx: oracle: %s after %d frames\n", label,
				(unsigned long long)uw_snapshot_pc(&s), err, s.nframes);
	}
	compare_snapshot(t, &s, err, t->pid);
	if (t->save && (t->st.stops - 1) % t->opt.save_every == 0)
		uw_snapshot_write(t->save, &s);
	uw_snapshot_free(&s);
}

/* ---- process control ---- */

static int arch_of(pid_t pid)
{
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0)
		die("PTRACE_GETREGS");
	return regs.cs == 0x23 ? 32 : 64; /* __USER32_CS : __USER_CS */
}

static pid_t launch(char **argv)
{
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
		fprintf(stderr, "uw-trace: %s did not stop at exec\n", argv[0]);
		exit(2);
	}
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_EXITKILL);
	return pid;
}

/* Wait for the next ptrace stop; returns its signal, or 0 if the tracee
   exited.  */
static int wait_stop(pid_t pid)
{
	int status;
	for (;;) {
		if (waitpid(pid, &status, 0) != pid) {
			if (errno == EINTR)
				continue;
			die("waitpid");
		}
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return 0;
		if (WIFSTOPPED(status))
			return WSTOPSIG(status);
	}
}

static void finish(pid_t pid)
{
	kill(pid, SIGKILL);
	int status;
	while (waitpid(pid, &status, 0) == pid && !WIFEXITED(status) && !WIFSIGNALED(status))
		;
}

static uint64_t read_word(pid_t pid, uint64_t addr, int arch)
{
	errno = 0;
	unsigned long v = (unsigned long)ptrace(PTRACE_PEEKDATA, pid, (void *)addr, NULL);
	if (errno)
		die("PTRACE_PEEKDATA");
	return arch == 32 ? (uint32_t)v : v;
}

static void run_to_breakpoint(struct tracer *t, uint64_t addr)
{
	errno = 0;
	long orig = ptrace(PTRACE_PEEKTEXT, t->pid, (void *)addr, NULL);
	if (errno)
		die("PTRACE_PEEKTEXT");
	long patched = (orig & ~0xffL) | 0xcc;
	if (ptrace(PTRACE_POKETEXT, t->pid, (void *)addr, (void *)patched) != 0)
		die("PTRACE_POKETEXT");
	int sig = 0;
	for (;;) {
		ptrace(PTRACE_CONT, t->pid, NULL, (void *)(long)sig);
		sig = wait_stop(t->pid);
		if (sig == 0) {
			fprintf(stderr, "uw-trace: %s exited before reaching %s\n", t->opt.label,
				t->opt.step_func);
			exit(2);
		}
		struct user_regs_struct regs;
		ptrace(PTRACE_GETREGS, t->pid, NULL, &regs);
		uint64_t pc = t->arch == 32 ? (uint32_t)regs.rip : regs.rip;
		if (sig == SIGTRAP && pc == addr + 1) {
			regs.rip = addr;
			ptrace(PTRACE_SETREGS, t->pid, NULL, &regs);
			break;
		}
		if (sig == SIGTRAP)
			sig = 0;
	}
	if (ptrace(PTRACE_POKETEXT, t->pid, (void *)addr, (void *)orig) != 0)
		die("PTRACE_POKETEXT");
}

/* How often each instruction address was checked: open addressing over
   pcs, sized for the few thousand distinct instructions one run executes. */
struct visits {
	uint64_t *pcs;
	uint32_t *counts;
	size_t cap, used;
};

static uint32_t *visit_count(struct visits *v, uint64_t pc)
{
	if (2 * (v->used + 1) > v->cap) {
		struct visits old = *v;
		v->cap = old.cap ? old.cap * 2 : 4096;
		v->pcs = calloc(v->cap, sizeof *v->pcs);
		v->counts = calloc(v->cap, sizeof *v->counts);
		v->used = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.pcs[i]) {
				*visit_count(v, old.pcs[i]) = old.counts[i];
			}
		free(old.pcs);
		free(old.counts);
	}
	size_t i = (size_t)(pc * 0x9e3779b97f4a7c15ull >> 20) & (v->cap - 1);
	while (v->pcs[i] && v->pcs[i] != pc)
		i = (i + 1) & (v->cap - 1);
	if (!v->pcs[i]) {
		v->pcs[i] = pc;
		v->used++;
	}
	return &v->counts[i];
}

static void step_mode(struct tracer *t)
{
	struct visits visits = { 0 };
	char exe[4096];
	char link[64];
	snprintf(link, sizeof link, "/proc/%d/exe", t->pid);
	ssize_t len = readlink(link, exe, sizeof exe - 1);
	if (len < 0)
		die("readlink exe");
	exe[len] = '\0';

	struct uw_snapshot at_exec;
	uw_snapshot_capture(&at_exec, t->pid, t->arch);
	uw_oracle_report(t->oracle, at_exec.maps_text);
	uw_snapshot_free(&at_exec);
	uint64_t func = uw_oracle_lookup_symbol(t->oracle, exe, t->opt.step_func);
	if (!func) {
		fprintf(stderr, "uw-trace: no function %s in %s\n", t->opt.step_func, exe);
		exit(2);
	}
	run_to_breakpoint(t, func);

	struct user_regs_struct regs;
	ptrace(PTRACE_GETREGS, t->pid, NULL, &regs);
	uint64_t entry_sp = t->arch == 32 ? (uint32_t)regs.rsp : regs.rsp;
	uint64_t return_to = read_word(t->pid, entry_sp, t->arch);

	int sig = 0;
	for (long steps = 0;; steps++) {
		uint64_t pc = t->arch == 32 ? (uint32_t)regs.rip : regs.rip;
		if (sig == 0 && ++*visit_count(&visits, pc) <= (uint32_t)t->opt.max_visits) {
			char where[64];
			snprintf(where, sizeof where, "step%ld", steps);
			check_live_stop(t, where);
		}
		if (steps >= t->opt.max_steps) {
			fprintf(stderr, "uw-trace: %s: %s did not return within %ld steps\n",
				t->opt.label, t->opt.step_func, t->opt.max_steps);
			t->incomplete = true;
			break;
		}
		if (ptrace(PTRACE_SINGLESTEP, t->pid, NULL, (void *)(long)sig) != 0)
			die("PTRACE_SINGLESTEP");
		sig = wait_stop(t->pid);
		if (sig == 0) {
			fprintf(stderr, "uw-trace: %s exited while stepping\n", t->opt.label);
			exit(2);
		}
		/* A signal other than our trap is about to be delivered: pass it
		   on with the next step, which then stops in its handler.  */
		if (sig == SIGTRAP)
			sig = 0;
		ptrace(PTRACE_GETREGS, t->pid, NULL, &regs);
		pc = t->arch == 32 ? (uint32_t)regs.rip : regs.rip;
		uint64_t sp = t->arch == 32 ? (uint32_t)regs.rsp : regs.rsp;
		if (sig == 0 && pc == return_to && sp > entry_sp)
			break;
	}
	free(visits.pcs);
	free(visits.counts);
	finish(t->pid);
}

static void random_mode(struct tracer *t)
{
	srandom(t->opt.seed);
	int sig = 0;
	for (long i = 0; i < t->opt.random_stops;) {
		if (ptrace(PTRACE_CONT, t->pid, NULL, (void *)(long)sig) != 0)
			die("PTRACE_CONT");
		sig = 0;
		long delay_ns = random() % (t->opt.max_delay_us * 1000 + 1);
		struct timespec ts = { 0, delay_ns };
		nanosleep(&ts, NULL);
		kill(t->pid, SIGSTOP);
		/* Signals the program raises itself may arrive first; pass them
		   on and keep waiting for ours.  */
		for (;;) {
			int got = wait_stop(t->pid);
			if (got == 0) {
				fprintf(stderr, "uw-trace: %s exited\n", t->opt.label);
				exit(2);
			}
			if (got == SIGSTOP)
				break;
			ptrace(PTRACE_CONT, t->pid, NULL, (void *)(long)(got == SIGTRAP ? 0 : got));
		}
		char where[64];
		snprintf(where, sizeof where, "random%ld", i);
		check_live_stop(t, where);
		i++;
	}
	finish(t->pid);
}

static void replay_mode(struct tracer *t)
{
	FILE *f = fopen(t->opt.replay_file, "rb");
	if (!f || uw_snapshot_read_header(f) != 0) {
		fprintf(stderr, "uw-trace: %s: not a snapshot file\n", t->opt.replay_file);
		exit(2);
	}
	struct uw_snapshot s;
	int rc;
	while ((rc = uw_snapshot_read_next(f, &s)) == 1) {
		compare_snapshot(t, &s, NULL, 0);
		uw_snapshot_free(&s);
	}
	if (rc < 0) {
		fprintf(stderr, "uw-trace: %s: malformed snapshot\n", t->opt.replay_file);
		exit(2);
	}
	fclose(f);
}

static FILE *open_snapshot_file(const char *path)
{
	if (!path)
		return NULL;
	FILE *f = fopen(path, "wb");
	if (!f || uw_snapshot_write_header(f) != 0)
		die(path);
	return f;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "label", required_argument, NULL, 'l' },
		{ "step", required_argument, NULL, 's' },
		{ "random", required_argument, NULL, 'r' },
		{ "replay", required_argument, NULL, 'R' },
		{ "seed", required_argument, NULL, 'S' },
		{ "max-delay-us", required_argument, NULL, 'd' },
		{ "max-steps", required_argument, NULL, 'm' },
		{ "max-visits", required_argument, NULL, 'v' },
		{ "save", required_argument, NULL, 'w' },
		{ "save-every", required_argument, NULL, 'e' },
		{ "save-diffs", required_argument, NULL, 'D' },
		{ "max-reports", required_argument, NULL, 'M' },
		{ "no-ours", no_argument, NULL, 'n' },
		{ 0 },
	};
	struct tracer t = { .opt = { .label = "run", .seed = 1, .max_delay_us = 300,
				     .max_steps = 200000, .max_visits = 16, .save_every = 1, .max_reports = 20 } };
	int c;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': t.opt.label = optarg; break;
		case 's': t.opt.step_func = optarg; break;
		case 'r': t.opt.random_stops = strtol(optarg, NULL, 0); break;
		case 'R': t.opt.replay_file = optarg; break;
		case 'S': t.opt.seed = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'd': t.opt.max_delay_us = strtol(optarg, NULL, 0); break;
		case 'm': t.opt.max_steps = strtol(optarg, NULL, 0); break;
		case 'v': t.opt.max_visits = strtol(optarg, NULL, 0); break;
		case 'w': t.opt.save_file = optarg; break;
		case 'e': t.opt.save_every = strtol(optarg, NULL, 0); break;
		case 'D': t.opt.save_diffs_file = optarg; break;
		case 'M': t.opt.max_reports = strtol(optarg, NULL, 0); break;
		case 'n': t.opt.no_ours = true; break;
		default: return 2;
		}
	}
	if (!t.opt.replay_file && (optind >= argc || (!t.opt.step_func && !t.opt.random_stops))) {
		fprintf(stderr, "usage: uw-trace [options] (--step FUNC | --random N) -- PROG ARGS...\n"
				"       uw-trace [options] --replay FILE\n");
		return 2;
	}
	if (t.opt.save_every < 1)
		t.opt.save_every = 1;
	unsetenv("DEBUGINFOD_URLS"); /* the oracle must not go to the network */
	setvbuf(stdout, NULL, _IOLBF, 0);
	t.elf_cache = uw_elf_cache_new();
	t.save = open_snapshot_file(t.opt.save_file);
	t.save_diffs = open_snapshot_file(t.opt.save_diffs_file);

	if (t.opt.replay_file) {
		replay_mode(&t);
	} else {
		t.pid = launch(&argv[optind]);
		t.arch = arch_of(t.pid);
		t.oracle = uw_oracle_new(t.pid);
		if (t.opt.step_func)
			step_mode(&t);
		else
			random_mode(&t);
	}
	if (t.save)
		fclose(t.save);
	if (t.save_diffs)
		fclose(t.save_diffs);
	printf("uw-trace: %s stops=%ld agree=%ld differ=%ld oracle_errors=%ld ours_unclean=%ld\n",
	       t.opt.label, t.st.stops, t.st.agree, t.st.differ, t.st.oracle_errors,
	       t.st.ours_unclean);
	uw_space_free(t.space);
	uw_elf_cache_free(t.elf_cache);
	uw_oracle_free(t.oracle);
	return t.st.differ ? 1 : t.incomplete ? 2 : 0;
}
