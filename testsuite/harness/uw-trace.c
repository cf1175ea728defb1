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
     --random-after F   random mode: start stopping once function F (of the
                        main executable) is first reached, i.e. skip startup
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
     --tables=WHERE     where our library's unwind tables come from: "file"
                        (default: the ELF files on disk, ours.c) or
                        "memory" (the tracee's own mapped PT_GNU_EH_FRAME,
                        found from its ELF headers in memory, ours_mem.c)
     --strict           no frame-pointer fallback in our library; by default
                        it follows the frame-pointer chain where no CFI
                        covers a pc, as libdwfl's x86 backends do
     --gdb-views N      third view, at most N times per run: at the first
                        disagreement of each kind (arch, function where the
                        two part, which side is longer) detach, let gdb print
                        the backtrace of the stopped thread, re-attach; gdb's
                        verdict then stands for every stop of that kind
   Prints a DIFFKEY line for every disagreement, a "DIFF" block with both
   frame lists for the first of each kind, one DIFFKIND line per kind with
   gdb's verdict, and finally
     uw-trace: LABEL stops=N agree=A differ=D ... ours_right=R
               oracle_right=O unresolved=U
   In step mode a shadow stack (calls, returns and signal deliveries seen
   while stepping) gives the true innermost frames at every stop; it is
   checked against both unwinders and settles their disagreements.
   Exit status: 0 when every disagreement (if any) was settled in our
   library's favour and no frame contradicts the shadow stack (except in
   code without CFI, reported separately), 1 otherwise, 2 on a harness
   error.  */
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
#include "ours_mem.h"
#include "snapshot.h"

struct options {
	const char *label;
	const char *step_func;
	const char *random_after;
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
	long gdb_views;
	bool strict;
	bool tables_memory;
};

struct stats {
	long stops, agree, differ, oracle_errors, ours_unclean;
	/* Disagreeing stops by the third view's verdict on their kind.  */
	long differ_ours_right, differ_oracle_right, differ_unresolved;
	/* Disagreements where the oracle's frame is an address no process of
	   the ABI can have: the oracle is wrong there, but that alone does
	   not show ours right; reported, not failed.  */
	long differ_oracle_invalid;
	/* Stops where the untraced walk by uw_step_many gave other frames
	   than the traced one by uw_step (check_step_many).  */
	long step_many_differ;
	long gdb_runs;
	/* Step mode: checks against the shadow stack.  */
	long truth_checked, truth_ours_wrong, truth_ours_wrong_nocfi, truth_oracle_wrong;
	long differ_both_wrong;
	long truth_settled_ours, truth_settled_oracle;
	/* Step mode: stops not checked because the thread's pc read again
	   for the snapshot was not the pc the shadow stack was built for
	   (seen once in some 60,000 single-steps under QEMU/TCG).  */
	long truth_moved;
};

#define MAX_DIFF_KINDS 256
enum verdict { UNDECIDED, OURS_RIGHT, ORACLE_RIGHT };
static const char *const verdict_names[] = { "undecided", "ours", "oracle" };

struct diff_kind {
	char key[600];
	long seen;
	enum verdict verdict;
	char evidence[80]; /* label of the stop gdb looked at */
	int looks;         /* gdb views that sided with one unwinder */
	int idle_looks;    /* gdb views that decided nothing */
};

struct tracer {
	struct options opt;
	pid_t pid;
	int arch;
	struct uw_oracle *oracle;
	struct uw_elf_cache *elf_cache;
	struct uw_space *space;
	struct uw_mem_space *mem_space; /* --tables=memory */
	FILE *save, *save_diffs;
	struct stats st;
	bool incomplete; /* stepping gave up before the function returned */
	int nkinds;
	struct diff_kind kinds[MAX_DIFF_KINDS];
	/* Disagreements the shadow stack settled for ours, by the same kind
	   of key (no gdb needed): their causes, for the report.  */
	int nsettled;
	struct diff_kind settled[MAX_DIFF_KINDS];
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

/* ---- the third view ---- */

static void wait_for_sigstop(pid_t pid)
{
	int status;
	while (waitpid(pid, &status, 0) == pid) {
		if (!WIFSTOPPED(status)) {
			fprintf(stderr, "uw-trace: tracee ended during a gdb view\n");
			exit(2);
		}
		if (WSTOPSIG(status) == SIGSTOP)
			return;
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(status));
	}
	die("waitpid");
}

/* Let gdb unwind the stopped thread: hand the process over stopped (detach
   with SIGSTOP), run gdb in batch mode on it, and take it back.  Returns
   gdb's frame pcs (return addresses above frame 0), or -1.  */
static int gdb_view(struct tracer *t, uint64_t *pcs, int max, char *text, size_t textlen)
{
	if (ptrace(PTRACE_DETACH, t->pid, NULL, (void *)(long)SIGSTOP) != 0)
		return -1;
	char cmd[512];
	snprintf(cmd, sizeof cmd,
		 "gdb -nx -q -batch -p %d -ex 'set backtrace past-main on'"
		 " -ex 'set backtrace past-entry on' -ex 'set backtrace limit %d'"
		 " -ex 'frame apply all -q p/x $pc' 2>/dev/null",
		 t->pid, max);
	FILE *p = popen(cmd, "r");
	int n = 0;
	size_t used = 0;
	char line[512];
	text[0] = '\0';
	while (p && fgets(line, sizeof line, p)) {
		unsigned long long pc;
		if (sscanf(line, "$%*d = 0x%llx", &pc) == 1 && n < max) {
			pcs[n++] = pc;
			used += (size_t)snprintf(text + used, used < textlen ? textlen - used : 0,
						 " %#llx", pc);
		}
	}
	if (p)
		pclose(p);
	/* gdb leaves a process it found stopped stopped; attach again.  */
	if (ptrace(PTRACE_ATTACH, t->pid, NULL, NULL) != 0)
		die("PTRACE_ATTACH after gdb");
	wait_for_sigstop(t->pid);
	ptrace(PTRACE_SETOPTIONS, t->pid, NULL, (void *)(long)PTRACE_O_EXITKILL);
	/* End the job-control stop the handover left behind, or the process
	   would stay stopped under every later PTRACE_CONT; the SIGCONT is
	   reported (and passed on) at the next resume.  */
	kill(t->pid, SIGCONT);
	return n;
}

static bool near(uint64_t a, uint64_t b);
static int wait_stop(pid_t pid);
static uint64_t read_word(pid_t pid, uint64_t addr, int arch);

/* gdb's view decided nothing (gdb 18 takes an i386 pc thunk without CFI,
   called from a signal handler, for the outermost frame): let frame 0
   return instead, by single-stepping until a step returns above the
   stop's sp (its new pc is the word it popped: a pop of a saved register
   moves sp but not pc there), and ask gdb there.  The pc it returned to
   is the true frame 1, and gdb's view from it, with CFI in hand, the
   rest.  Random mode only (the process goes on from where it is left).
   Returns the frames (pc0 first) or -1.  */
static int gdb_view_after_return(struct tracer *t, uint64_t pc0, uint64_t sp0, uint64_t *pcs,
				 int max, char *text, size_t textlen)
{
	struct user_regs_struct r;
	if (ptrace(PTRACE_GETREGS, t->pid, NULL, &r) != 0)
		return -1;
	uint64_t sp = t->arch == 32 ? (uint32_t)r.rsp : r.rsp;
	uint64_t top = read_word(t->pid, sp, t->arch);
	int sig = 0;
	for (int i = 0; i < 20000; i++) { /* bound: 20,000 single-steps */
		if (ptrace(PTRACE_SINGLESTEP, t->pid, NULL, (void *)(long)sig) != 0)
			return -1;
		sig = wait_stop(t->pid);
		if (sig == 0) {
			fprintf(stderr, "uw-trace: %s exited while stepping out\n", t->opt.label);
			exit(2);
		}
		if (sig == SIGTRAP || sig == SIGSTOP)
			sig = 0;
		if (sig)
			continue; /* delivered with the next step */
		if (ptrace(PTRACE_GETREGS, t->pid, NULL, &r) != 0)
			return -1;
		uint64_t prev_sp = sp, prev_top = top;
		uint64_t pc = t->arch == 32 ? (uint32_t)r.rip : r.rip;
		sp = t->arch == 32 ? (uint32_t)r.rsp : r.rsp;
		if (sp > sp0 && near(sp, sp0) && sp > prev_sp && pc == prev_top) {
			pcs[0] = pc0;
			t->st.gdb_runs++;
			int n = gdb_view(t, pcs + 1, max - 1, text, textlen);
			return n > 0 ? n + 1 : -1;
		}
		top = read_word(t->pid, sp, t->arch);
	}
	return -1;
}

static int common_prefix(const uint64_t *pcs, int n, const struct uw_frame *fr, int nfr)
{
	int i = 0;
	while (i < n && i < nfr && pcs[i] == fr[i].pc)
		i++;
	return i;
}

/* gdb sides with the unwinder whose pcs it shares the longer prefix with
   (a whole list counts one more than a prefix of it); a tie decides
   nothing.  */
static enum verdict gdb_verdict(const uint64_t *pcs, int n, const struct uw_frame *oracle,
				int noracle, const struct uw_frame *ours, int nours)
{
	if (n <= 0)
		return UNDECIDED;
	int with_ours = common_prefix(pcs, n, ours, nours);
	int with_oracle = common_prefix(pcs, n, oracle, noracle);
	with_ours += with_ours == n && n == nours;
	with_oracle += with_oracle == n && n == noracle;
	return with_ours > with_oracle ? OURS_RIGHT : with_oracle > with_ours ? ORACLE_RIGHT : UNDECIDED;
}

static struct diff_kind *kind_in(struct diff_kind *kinds, int *nkinds, const char *key)
{
	for (int i = 0; i < *nkinds; i++)
		if (strcmp(kinds[i].key, key) == 0)
			return &kinds[i];
	if (*nkinds == MAX_DIFF_KINDS)
		return NULL;
	struct diff_kind *k = &kinds[(*nkinds)++];
	snprintf(k->key, sizeof k->key, "%s", key);
	k->verdict = UNDECIDED;
	k->seen = k->looks = k->idle_looks = 0;
	return k;
}

/* ---- one stop ---- */

/* A disagreement the shadow stack settled for ours: count it under where
   the two lists part (named from our side) or where libdwfl stopped.  */
static void note_settled(struct tracer *t, const struct uw_snapshot *s, const struct uw_frame *ours,
			 int n, const char *oracle_err)
{
	int at = uw_frames_first_difference(s->frames, s->nframes, ours, n);
	char fn[256] = "?", key[600];
	if (t->oracle && at < n)
		uw_oracle_describe(t->oracle, ours[at].pc, ours[at].activation, fn, sizeof fn);
	strtok(fn, "+");
	if (at == s->nframes && n > s->nframes)
		snprintf(key, sizeof key, "arch=%d oracle-ends-before=%s%s", s->arch, fn,
			 oracle_err ? " (libdwfl: error)" : "");
	else
		snprintf(key, sizeof key, "arch=%d part-at=%s %s", s->arch, fn,
			 n > s->nframes ? "ours-longer" : n < s->nframes ? "oracle-longer" : "same-length");
	struct diff_kind *k = kind_in(t->settled, &t->nsettled, key);
	if (k)
		k->seen++;
}

/* Does FR start with the pcs of TRUTH?  */
static int truth_prefix(const struct uw_frame *fr, int n, const struct uw_frame *truth,
			int ntruth)
{
	int i = 0;
	while (i < n && i < ntruth && fr[i].pc == truth[i].pc)
		i++;
	return i;
}

static bool matches_truth(const struct uw_frame *fr, int n, const struct uw_frame *truth,
			  int ntruth)
{
	return truth_prefix(fr, n, truth, ntruth) == ntruth;
}

/* The same unwind again, untraced, by uw_step_many (uw-bench
   --step-many): it must give the frames (with the CFA each step found)
   and the stop that the traced one, frame by frame by uw_step, gave
   (OURS, N, RES).  Not the work spent: the traced walk, run first, leaves
   the rows it parsed in the row cache, and this one finds them there.  */
static void check_step_many(struct tracer *t, const struct uw_snapshot *s, pid_t live_pid,
			    const struct uw_frame *ours, int n, const struct uw_ours_result *res)
{
	struct uw_frame again[UW_MAX_FRAMES];
	struct uw_ours_result res2 = { 0 };

	uw_ours_set_trace(false);
	uw_ours_set_step_many(true);
	int n2 = uw_ours_unwind(t->space, s, live_pid, !t->opt.strict, again, UW_MAX_FRAMES,
				&res2);
	uw_ours_set_step_many(false);
	uw_ours_set_trace(true);
	bool same = n2 == n && strcmp(res2.stop_reason, res->stop_reason) == 0 &&
		    res2.stop_pc == res->stop_pc;
	for (int i = 0; same && i < n; i++)
		same = again[i].pc == ours[i].pc && again[i].sp == ours[i].sp &&
		       again[i].activation == ours[i].activation &&
		       again[i].has_sp == ours[i].has_sp && again[i].cfa == ours[i].cfa;
	if (same)
		return;
	t->st.step_many_differ++;
	if (t->st.step_many_differ <= t->opt.max_reports)
		printf("STEPMANY %s arch=%d pc=%#llx: %d frames, stop %s; by uw_step %d, stop %s\n",
		       s->label, s->arch, (unsigned long long)uw_snapshot_pc(s), n2,
		       res2.stop_reason, n, res->stop_reason);
}

/* TRUTH (may be NULL): the innermost frames as the step mode's shadow
   stack knows them, independent of any unwind table.  */
static void compare_snapshot(struct tracer *t, struct uw_snapshot *s, const char *oracle_err,
			     pid_t live_pid, const struct uw_frame *truth, int ntruth)
{
	struct uw_frame ours[UW_MAX_FRAMES];
	struct uw_ours_result res = { 0 };

	t->st.stops++;
	if (t->opt.no_ours)
		return;
	int n;
	if (t->opt.tables_memory) {
		if (!uw_mem_space_matches(t->mem_space, s)) {
			uw_mem_space_free(t->mem_space);
			t->mem_space = uw_mem_space_new(s);
		}
		n = uw_mem_unwind(t->mem_space, s, live_pid, !t->opt.strict, ours, UW_MAX_FRAMES,
				  &res, NULL);
	} else {
		if (!uw_space_matches(t->space, s)) {
			uw_space_free(t->space);
			t->space = uw_space_new(t->elf_cache, s);
		}
		n = uw_ours_unwind(t->space, s, live_pid, !t->opt.strict, ours, UW_MAX_FRAMES, &res);
		check_step_many(t, s, live_pid, ours, n, &res);
	}
	if (!res.stopped_cleanly)
		t->st.ours_unclean++;
	bool ours_true = true, oracle_true = true;
	if (truth) {
		t->st.truth_checked++;
		ours_true = matches_truth(ours, n, truth, ntruth);
		oracle_true = matches_truth(s->frames, s->nframes, truth, ntruth);
		if (!ours_true) {
			/* A wrong frame made by the frame-pointer fallback (no CFI
			   for the frame below it) is a known limitation; anything
			   else is a bug.  */
			int wrong = truth_prefix(ours, n, truth, ntruth);
			bool no_cfi = wrong > 0 && wrong <= n && ours[wrong - 1].no_cfi_to_caller;
			if (no_cfi)
				t->st.truth_ours_wrong_nocfi++;
			else
				t->st.truth_ours_wrong++;
			char sym[256] = "?";
			if (t->oracle)
				uw_oracle_describe(t->oracle, uw_snapshot_pc(s), true, sym, sizeof sym);
			printf("TRUTHKEY %s arch=%d at=%s ours wrong at frame %d%s%s\n", s->label, s->arch,
			       sym, wrong, no_cfi ? " (frame-pointer fallback: no CFI)" : "",
			       oracle_true ? "" : " (oracle too)");
			if (t->st.truth_ours_wrong <= t->opt.max_reports) {
				printf("TRUTH %s: our frames contradict the shadow stack\n", s->label);
				print_frames(t, "shadow stack (truth, innermost frames)", truth, ntruth);
				print_frames(t, "ours", ours, n);
				print_frames(t, "oracle (libdwfl)", s->frames, s->nframes);
			}
		}
		if (!oracle_true)
			t->st.truth_oracle_wrong++;
	}
	if (uw_frames_equal(s->frames, s->nframes, ours, n)) {
		t->st.agree++;
		return;
	}
	t->st.differ++;
	/* The shadow stack settles a disagreement within its frames.  */
	if (truth && !ours_true && !oracle_true) {
		t->st.differ_both_wrong++;
		return;
	}
	if (ours_true != oracle_true) {
		if (ours_true) {
			t->st.truth_settled_ours++;
			note_settled(t, s, ours, n, oracle_err);
		}
		else
			t->st.truth_settled_oracle++;
		return;
	}
	if (t->save_diffs)
		uw_snapshot_write(t->save_diffs, s);
	int at = uw_frames_first_difference(s->frames, s->nframes, ours, n);
	/* libdwfl's i386 unwinding through the vdso can return a pc above
	   4 GiB (seen: 0x1f7d6b20c where the caller is at 0xf7d6b20c), which
	   gdb then cannot settle either.  */
	if (s->arch == 32 && at < s->nframes && s->frames[at].pc > 0xffffffffu) {
		t->st.differ_oracle_invalid++;
		printf("DIFFKEY %s arch=32 frame=%d oracle-invalid pc=%#" PRIx64 " (not a 32-bit address)\n",
		       s->label, at, s->frames[at].pc);
		return;
	}
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
	/* Kind of disagreement.  When the oracle's list is a clean prefix of
	   ours (it stopped early without an error) the kind is where it
	   stopped; otherwise it is the function stopped in, the function where
	   the lists part (named from our side, as the oracle's pc may be
	   garbage), and which side is longer.  */
	char kind_key[600], fn0[256], fnd[256];
	bool oracle_stopped_early = at == s->nframes && n > s->nframes && !oracle_err;
	snprintf(fn0, sizeof fn0, "%s", sym0);
	if (at < n && t->oracle)
		uw_oracle_describe(t->oracle, ours[at].pc, ours[at].activation, fnd, sizeof fnd);
	else
		snprintf(fnd, sizeof fnd, "%s", symd);
	strtok(fn0, "+");
	strtok(fnd, "+");
	if (oracle_stopped_early)
		snprintf(kind_key, sizeof kind_key, "arch=%d oracle-ends-before=%s", s->arch, fnd);
	else
		snprintf(kind_key, sizeof kind_key, "arch=%d in=%s part-at=%s %s", s->arch, fn0, fnd,
			 n > s->nframes ? "ours-longer" :
			 n < s->nframes ? "oracle-longer" : "same-length");
	struct diff_kind *kind = kind_in(t->kinds, &t->nkinds, kind_key);
	if (kind)
		kind->seen++;
	/* gdb looks at the 1st, 50th and 500th stop of each kind; the kind's
	   verdict stands only while every look agrees.  A view that sides
	   with neither unwinder says nothing of the frames in question: gdb
	   found no caller of frame 0 (gdb 18 loses it at an i386 pc thunk
	   called from a signal handler), or it shares as long a prefix with
	   both (gdb parts from both where they part, as at a pc without CFI).
	   In random mode gdb looks again once frame 0 has returned, with the
	   caller's CFI in hand; a view that still decides nothing is not a
	   look, and the next stop of the kind (up to two more) is looked at
	   instead.  */
	bool sample = kind && (kind->looks == 0 ? kind->idle_looks < 3 && kind->seen == kind->idle_looks + 1
						: kind->seen == 50 || kind->seen == 500);
	if (sample && live_pid > 0 && t->st.gdb_runs < t->opt.gdb_views &&
	    (kind->looks == 0 || kind->verdict != UNDECIDED)) {
		uint64_t gdb_pcs[UW_MAX_FRAMES];
		char text[2048];
		t->st.gdb_runs++;
		int ng = gdb_view(t, gdb_pcs, UW_MAX_FRAMES, text, sizeof text);
		enum verdict v = gdb_verdict(gdb_pcs, ng, s->frames, s->nframes, ours, n);
		if (v == UNDECIDED && !t->opt.step_func) {
			printf("GDBVIEW %s: gdb's view decided nothing (%s); looking again after frame 0 returned; gdb pcs:%s\n",
			       s->label, ng <= 1 ? "no caller of frame 0" : "as near to both", text);
			ng = gdb_view_after_return(t, uw_snapshot_pc(s), uw_snapshot_sp(s), gdb_pcs,
						   UW_MAX_FRAMES, text, sizeof text);
			v = gdb_verdict(gdb_pcs, ng, s->frames, s->nframes, ours, n);
		}
		if (v == UNDECIDED) {
			kind->idle_looks++;
			printf("GDBVIEW %s kind \"%s\": gdb's view decided nothing (not a look);"
			       " gdb pcs:%s\n", s->label, kind_key, text);
		} else {
			kind->verdict = kind->looks == 0 || v == kind->verdict ? v : UNDECIDED;
			kind->looks++;
			snprintf(kind->evidence, sizeof kind->evidence, "%s", s->label);
			printf("GDBVIEW %s kind \"%s\": gdb sides with %s; gdb pcs:%s\n", s->label,
			       kind_key, verdict_names[v], text);
		}
	}
	/* Show both frame lists for the first of each kind, and for the
	   first --max-reports disagreements.  */
	if (t->st.differ <= t->opt.max_reports || (kind && kind->seen == 1)) {
		printf("DIFF %s stop %ld pc %#" PRIx64 " sp %#" PRIx64 " (%s)\n", s->label, t->st.stops,
		       uw_snapshot_pc(s), uw_snapshot_sp(s), sym0);
		print_frames(t, "oracle (libdwfl)", s->frames, s->nframes);
		if (oracle_err)
			printf("  oracle stopped with: %s\n", oracle_err);
		print_frames(t, "ours", ours, n);
		printf("  ours stopped with: %s at pc %#" PRIx64 "\n", res.stop_reason, res.stop_pc);
	}
}

static void check_live_stop(struct tracer *t, const char *where, const struct uw_frame *truth,
			    int ntruth)
{
	struct uw_snapshot s;
	int rc = uw_snapshot_capture(&s, t->pid, t->arch);
	if (rc != 0) {
		errno = -rc;
		die("snapshot");
	}
	/* The truth's frame 0 is the pc the shadow stack was built for; a
	   snapshot at another pc would be judged against the wrong truth.  */
	if (truth && ntruth > 0 && uw_snapshot_pc(&s) != truth[0].pc) {
		printf("MOVED %s:%s: pc %#" PRIx64 " at the stop, %#" PRIx64 " in the snapshot: not checked\n",
		       t->opt.label, where, truth[0].pc, uw_snapshot_pc(&s));
		t->st.truth_moved++;
		uw_snapshot_free(&s);
		return;
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
	compare_snapshot(t, &s, err, t->pid, truth, ntruth);
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
			fprintf(stderr, "uw-trace: %s exited before reaching %#llx\n", t->opt.label,
				(unsigned long long)addr);
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

/* The shadow stack: while single-stepping, every call, return and signal
   delivery is seen, so the return addresses on the stack are known without
   any unwind table.  A call entry is a return address and the stack slot
   holding it; it is live while sp <= slot.  A signal delivery adds two
   entries: a signal entry (the interrupted pc, an exact pc, live until sp
   is back at the interrupted sp) and above it a call entry for the
   handler's return address, the trampoline.
   When sp moves past a call entry without returning to it (x86_64 glibc
   vfork pops its return address into a register around the system call)
   the truth is unknown until the same value is pushed back to the same
   slot or the next entry goes away; such stops are not checked.  */
struct shadow_entry {
	uint64_t slot, value; /* call: return address; signal: interrupted pc */
	bool signal;
};

struct shadow {
	int n;
	struct shadow_entry e[4 * UW_MAX_FRAMES];
	bool lost;              /* an entry left the stack without a return */
	struct shadow_entry lost_entry;
};

static void shadow_push(struct shadow *sh, struct shadow_entry e)
{
	if (sh->n < (int)(sizeof sh->e / sizeof sh->e[0]))
		sh->e[sh->n++] = e;
}

/* Same-region test: an alternate signal stack and the main stack are far
   apart, and sp on one says nothing about slots on the other.  */
static bool near(uint64_t a, uint64_t b)
{
	return (a > b ? a - b : b - a) < (1u << 20);
}

static void shadow_update(struct shadow *sh, struct tracer *t, uint64_t prev_pc,
			  uint64_t prev_sp, bool signal_passed, uint64_t pc, uint64_t sp)
{
	unsigned word = t->arch == 32 ? 4 : 8;
	while (sh->n > 0) {
		struct shadow_entry *top = &sh->e[sh->n - 1];
		if (!near(top->slot, sp))
			break;
		if (top->signal ? sp < top->slot : sp <= top->slot)
			break;
		if (!top->signal && pc != top->value) {
			sh->lost = true;
			sh->lost_entry = *top;
		} else if (sh->lost && !top->signal) {
			sh->lost = false; /* the frame below returned */
		}
		sh->n--;
	}
	if (signal_passed && !(near(sp, prev_sp) && sp + 64 > prev_sp)) {
		shadow_push(sh, (struct shadow_entry){ prev_sp, prev_pc, true });
		shadow_push(sh, (struct shadow_entry){ sp, read_word(t->pid, sp, t->arch), false });
		return;
	}
	if (sp == prev_sp - word) {
		uint64_t pushed = read_word(t->pid, sp, t->arch);
		if (sh->lost && sh->lost_entry.slot == sp && sh->lost_entry.value == pushed) {
			shadow_push(sh, sh->lost_entry);
			sh->lost = false;
		} else if (pushed > prev_pc && pushed <= prev_pc + 15 && pushed != pc) {
			/* A call (but not "call next; pop reg", the i386 PIC
			   idiom, which lands on its own return address).  */
			shadow_push(sh, (struct shadow_entry){ sp, pushed, false });
		}
	}
}

/* The frames the shadow stack knows, innermost first; 0 when unknown.  */
static int shadow_frames(const struct shadow *sh, uint64_t pc, struct uw_frame *out, int max)
{
	if (sh->lost)
		return 0;
	int n = 0;
	out[n++] = (struct uw_frame){ .pc = pc, .activation = true };
	for (int i = sh->n - 1; i >= 0 && n < max; i--)
		out[n++] = (struct uw_frame){ .pc = sh->e[i].value, .activation = sh->e[i].signal };
	return n;
}

/* Address of FUNC in the main executable of the freshly exec'ed tracee. */
static uint64_t lookup_function(struct tracer *t, const char *func)
{
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
	uint64_t addr = uw_oracle_lookup_symbol(t->oracle, exe, func);
	if (!addr) {
		fprintf(stderr, "uw-trace: no function %s in %s\n", func, exe);
		exit(2);
	}
	return addr;
}

static void step_mode(struct tracer *t)
{
	struct visits visits = { 0 };
	static struct shadow shadow;
	struct uw_frame truth[UW_MAX_FRAMES];
	uint64_t func = lookup_function(t, t->opt.step_func);
	run_to_breakpoint(t, func);

	struct user_regs_struct regs;
	ptrace(PTRACE_GETREGS, t->pid, NULL, &regs);
	uint64_t entry_sp = t->arch == 32 ? (uint32_t)regs.rsp : regs.rsp;
	uint64_t return_to = read_word(t->pid, entry_sp, t->arch);

	/* The frames below FUNC's caller do not change while FUNC runs: take
	   them from gdb once, at FUNC's entry (ordinary code with CFI, where
	   gdb is reliable), so the truth reaches the outermost frame.  */
	uint64_t outer[UW_MAX_FRAMES];
	int nouter = 0;
	if (t->opt.gdb_views > 0) {
		char text[2048];
		int ng = gdb_view(t, outer, UW_MAX_FRAMES, text, sizeof text);
		if (ng >= 2 && outer[0] == func && outer[1] == return_to) {
			nouter = ng - 2;
			memmove(outer, outer + 2, (size_t)nouter * sizeof outer[0]);
		}
		printf("GDBOUTER %s: %s%s\n", t->opt.label, nouter ? "" : "(not used) ", text);
	}
	shadow.n = 0;
	shadow.lost = false;
	shadow_push(&shadow, (struct shadow_entry){ entry_sp, return_to, false });

	int sig = 0;
	uint64_t sp = entry_sp;
	for (long steps = 0;; steps++) {
		uint64_t pc = t->arch == 32 ? (uint32_t)regs.rip : regs.rip;
		if (sig == 0 && ++*visit_count(&visits, pc) <= (uint32_t)t->opt.max_visits) {
			char where[64];
			snprintf(where, sizeof where, "step%ld", steps);
			int ntruth = shadow_frames(&shadow, pc, truth, UW_MAX_FRAMES);
			for (int i = 0; ntruth && i < nouter && ntruth < UW_MAX_FRAMES; i++)
				truth[ntruth++] = (struct uw_frame){ .pc = outer[i] };
			check_live_stop(t, where, ntruth ? truth : NULL, ntruth);
		}
		if (steps >= t->opt.max_steps) {
			fprintf(stderr, "uw-trace: %s: %s did not return within %ld steps\n",
				t->opt.label, t->opt.step_func, t->opt.max_steps);
			t->incomplete = true;
			break;
		}
		uint64_t prev_pc = pc, prev_sp = sp;
		bool signal_passed = sig != 0;
		if (ptrace(PTRACE_SINGLESTEP, t->pid, NULL, (void *)(long)sig) != 0)
			die("PTRACE_SINGLESTEP");
		sig = wait_stop(t->pid);
		if (sig == 0) {
			fprintf(stderr, "uw-trace: %s exited while stepping\n", t->opt.label);
			exit(2);
		}
		/* A signal other than our trap is about to be delivered: pass it
		   on with the next step, which then stops in its handler.  */
		if (sig == SIGTRAP || sig == SIGSTOP)
			sig = 0;
		if (ptrace(PTRACE_GETREGS, t->pid, NULL, &regs) != 0)
			printf("uw-trace: %s: PTRACE_GETREGS after step %ld failed: %s\n",
			       t->opt.label, steps, strerror(errno));
		pc = t->arch == 32 ? (uint32_t)regs.rip : regs.rip;
		sp = t->arch == 32 ? (uint32_t)regs.rsp : regs.rsp;
		if (sig == 0 && pc == return_to && sp > entry_sp)
			break;
		shadow_update(&shadow, t, prev_pc, prev_sp, signal_passed, pc, sp);
	}
	free(visits.pcs);
	free(visits.counts);
	finish(t->pid);
}

static void random_mode(struct tracer *t)
{
	srandom(t->opt.seed);
	if (t->opt.random_after)
		run_to_breakpoint(t, lookup_function(t, t->opt.random_after));
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
		check_live_stop(t, where, NULL, 0);
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
		compare_snapshot(t, &s, NULL, 0, NULL, 0);
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
		{ "random-after", required_argument, NULL, 'A' },
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
		{ "gdb-views", required_argument, NULL, 'g' },
		{ "strict", no_argument, NULL, 'T' },
		{ "tables", required_argument, NULL, 't' },
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
		case 'A': t.opt.random_after = optarg; break;
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
		case 'g': t.opt.gdb_views = strtol(optarg, NULL, 0); break;
		case 'T': t.opt.strict = true; break;
		case 't':
			if (strcmp(optarg, "memory") != 0 && strcmp(optarg, "file") != 0) {
				fprintf(stderr, "uw-trace: --tables=file or --tables=memory\n");
				return 2;
			}
			t.opt.tables_memory = strcmp(optarg, "memory") == 0;
			break;
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
	for (int i = 0; i < t.nkinds; i++) {
		switch (t.kinds[i].verdict) {
		case OURS_RIGHT: t.st.differ_ours_right += t.kinds[i].seen; break;
		case ORACLE_RIGHT: t.st.differ_oracle_right += t.kinds[i].seen; break;
		default: t.st.differ_unresolved += t.kinds[i].seen; break;
		}
	}
	t.st.differ_ours_right += t.st.truth_settled_ours;
	t.st.differ_oracle_right += t.st.truth_settled_oracle;
	t.st.differ_unresolved += t.st.differ - t.st.differ_ours_right - t.st.differ_oracle_right -
				  t.st.differ_both_wrong - t.st.differ_oracle_invalid -
				  t.st.differ_unresolved; /* stops beyond MAX_DIFF_KINDS */
	for (int i = 0; i < t.nkinds; i++)
		printf("DIFFKIND %s: %ld stops; gdb: %s (%s)\n", t.kinds[i].key, t.kinds[i].seen,
		       verdict_names[t.kinds[i].verdict],
		       t.kinds[i].evidence[0] ? t.kinds[i].evidence : "not asked");

	for (int i = 0; i < t.nsettled; i++)
		printf("SETTLEDKIND %s: %ld stops; shadow stack: ours\n", t.settled[i].key,
		       t.settled[i].seen);

	printf("uw-trace: %s stops=%ld agree=%ld differ=%ld oracle_errors=%ld ours_unclean=%ld"
	       " ours_right=%ld oracle_right=%ld both_wrong=%ld unresolved=%ld oracle_invalid=%ld"
	       " step_many_differ=%ld\n",
	       t.opt.label, t.st.stops, t.st.agree, t.st.differ, t.st.oracle_errors,
	       t.st.ours_unclean, t.st.differ_ours_right, t.st.differ_oracle_right,
	       t.st.differ_both_wrong, t.st.differ_unresolved, t.st.differ_oracle_invalid,
	       t.st.step_many_differ);
	if (t.st.truth_checked)
		printf("uw-trace: %s shadow-stack checks=%ld ours_wrong=%ld ours_wrong_nocfi=%ld"
		       " oracle_wrong=%ld (disagreements settled: ours=%ld oracle=%ld)\n",
		       t.opt.label, t.st.truth_checked, t.st.truth_ours_wrong,
		       t.st.truth_ours_wrong_nocfi, t.st.truth_oracle_wrong,
		       t.st.truth_settled_ours, t.st.truth_settled_oracle);
	if (t.st.truth_moved)
		printf("uw-trace: %s moved=%ld stops not checked (the pc changed between two reads)\n",
		       t.opt.label, t.st.truth_moved);
	uw_space_free(t.space);
	uw_mem_space_free(t.mem_space);
	uw_elf_cache_free(t.elf_cache);
	uw_oracle_free(t.oracle);
	/* Failure: a stop where the oracle (confirmed by the shadow stack or
	   gdb) or nobody is known to be right, or where our frames contradict
	   the shadow stack outside code without CFI.  Disagreements settled in
	   our favour, and the frame-pointer fallback's known limitation in code
	   without CFI, are reported but do not fail (DejaGnu reports the
	   latter as XFAIL).  */
	if (t.st.differ_oracle_right || t.st.differ_unresolved || t.st.truth_ours_wrong)
		return 1;
	return t.incomplete ? 2 : 0;
}
