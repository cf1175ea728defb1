/* uw-memcheck: in-memory unwind tables where a page of them is unreadable.

   usage: uw-memcheck [--label STR] -- PROG MODE
   PROG is testsuite/harness/mem/uwm-noread (built -m64 or -m32), MODE fde or
   hdr.  PROG makes one page of its unwind data PROT_NONE and stops itself
   (SIGSTOP) inside victim_mid -> victim_leaf -> raise, then makes the page
   readable and stops again there.  At each stop our library unwinds with
   tables from the process's memory (ours_mem.c, no frame-pointer
   fallback) and libdwfl (tables from the files on disk) is the oracle.
   Prints PASS:/FAIL:/UNSUPPORTED: lines:
     first stop:  our stop reason is "memory unreadable", at the address
                  PROG names (the FDE of victim_leaf, or .eh_frame_hdr),
                  at the frame of victim_leaf, and every frame before it
                  is libdwfl's;
     second stop: our frames are exactly those of our library with tables
                  from the ELF files (ours.c), and libdwfl's are a prefix
                  of them (libdwfl stops early at the 32-bit main's
                  caller, where the main suite's gdb views side with us;
                  see unit.trace).
   Exit status 0 when all passed, 1 otherwise, 2 on a harness error.  */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oracle.h"
#include "ours.h"
#include "ours_mem.h"
#include "snapshot.h"
#include "../../runtime/unwind/unwind_core.h"

static const char *label = "memcheck";
static int failures;

static void result(bool ok, const char *what)
{
	printf("%s: %s: %s\n", ok ? "PASS" : "FAIL", label, what);
	failures += !ok;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* Continue PID until it stops with SIGSTOP; false if it exited.  */
static bool run_to_sigstop(pid_t pid)
{
	int sig = 0, status;
	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) != 0)
			die("PTRACE_CONT");
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return false;
		sig = WSTOPSIG(status);
		if (sig == SIGSTOP)
			return true;
		if (sig == SIGTRAP)
			sig = 0;
	}
}

static void print_frames(const char *who, const struct uw_frame *fr, int n)
{
	printf("  %s: %d frames\n", who, n);
	for (int i = 0; i < n; i++)
		printf("    #%-3d %#" PRIx64 "%s sp %#" PRIx64 "\n", i, fr[i].pc,
		       fr[i].activation ? "    " : " ret", fr[i].sp);
}

/* Unwind the stopped PID both ways; returns our frame count.  */
static int unwind_both(pid_t pid, int arch, struct uw_oracle *oracle, struct uw_snapshot *s,
		       struct uw_frame *ours, struct uw_mem_stop *stop)
{
	int rc = uw_snapshot_capture(s, pid, arch);
	if (rc != 0) {
		errno = -rc;
		die("snapshot");
	}
	const char *err;
	s->nframes = uw_oracle_unwind(oracle, s, s->frames, UW_MAX_FRAMES, &err);
	struct uw_mem_space *sp = uw_mem_space_new(s);
	struct uw_ours_result res;
	int n = uw_mem_unwind(sp, s, pid, false, ours, UW_MAX_FRAMES, &res, stop);
	print_frames("oracle (libdwfl)", s->frames, s->nframes);
	if (err)
		printf("  oracle stopped with: %s\n", err);
	print_frames("ours (tables from memory)", ours, n);
	printf("  ours stopped with: %s at pc %#" PRIx64 " addr %#" PRIx64 " (%s)\n",
	       res.stop_reason, stop->pc, stop->addr, stop->module ? stop->module : "?");
	stop->module = NULL; /* points into sp */
	uw_mem_space_free(sp);
	return n;
}

int main(int argc, char **argv)
{
	int a = 1;
	if (a + 1 < argc && strcmp(argv[a], "--label") == 0) {
		label = argv[a + 1];
		a += 2;
	}
	if (a < argc && strcmp(argv[a], "--") == 0)
		a++;
	if (a + 1 >= argc) {
		fprintf(stderr, "usage: uw-memcheck [--label STR] -- PROG fde|hdr\n");
		return 2;
	}
	unsetenv("DEBUGINFOD_URLS");
	setvbuf(stdout, NULL, _IOLBF, 0);

	int out[2];
	if (pipe(out) != 0)
		die("pipe");
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		dup2(out[1], 1);
		close(out[0]);
		close(out[1]);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[a], &argv[a]);
		_exit(127);
	}
	close(out[1]);
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
		fprintf(stderr, "uw-memcheck: %s did not start\n", argv[a]);
		return 2;
	}
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_EXITKILL);
	struct user_regs_struct regs;
	ptrace(PTRACE_GETREGS, pid, NULL, &regs);
	int arch = regs.cs == 0x23 ? 32 : 64;

	bool stopped = run_to_sigstop(pid);
	FILE *po = fdopen(out[0], "r");
	char line[512] = "";
	if (!po || !fgets(line, sizeof line, po)) {
		fprintf(stderr, "uw-memcheck: no report from %s\n", argv[a]);
		return 2;
	}
	printf("%s", line);
	if (strncmp(line, "UWM skip", 8) == 0) {
		printf("UNSUPPORTED: %s: %s", label, line + 9);
		return 0;
	}
	unsigned long long page, len, expect, leaf;
	char mode[16];
	if (sscanf(line, "UWM mode=%15s page=%llx len=%llx expect=%llx leaf=%llx", mode, &page,
		   &len, &expect, &leaf) != 5 || !stopped) {
		fprintf(stderr, "uw-memcheck: bad report or no stop: %s", line);
		return 2;
	}

	struct uw_oracle *oracle = uw_oracle_new(pid);
	struct uw_snapshot s;
	struct uw_frame ours[UW_MAX_FRAMES];
	struct uw_mem_stop stop;

	/* 1: the page is unreadable.  */
	printf("stop 1: page %#llx unreadable\n", page);
	int n = unwind_both(pid, arch, oracle, &s, ours, &stop);
	char what[256];
	snprintf(what, sizeof what, "%s page unreadable: stop reason is memory unreadable", mode);
	result(stop.reason == UW_STOP_MEMORY_UNREADABLE, what);
	snprintf(what, sizeof what, "%s page unreadable: stop address is %#llx", mode, expect);
	result(stop.addr == expect, what);
	/* Our last frame must be victim_leaf's (the pc whose tables are on
	   the page), and it and every frame below it must be libdwfl's.  */
	bool prefix = n > 0 && n < s.nframes && uw_frames_equal(s.frames, n, ours, n);
	bool at_leaf = n > 0 && stop.pc == ours[n - 1].pc && ours[n - 1].pc > leaf &&
		       ours[n - 1].pc < leaf + 64;
	snprintf(what, sizeof what, "%s page unreadable: stops at victim_leaf after libdwfl's frames",
		 mode);
	result(prefix && at_leaf, what);
	uw_snapshot_free(&s);

	/* 2: readable again.  */
	if (!run_to_sigstop(pid)) {
		fprintf(stderr, "uw-memcheck: %s exited before its second stop\n", argv[a]);
		return 2;
	}
	printf("stop 2: page %#llx readable again\n", page);
	n = unwind_both(pid, arch, oracle, &s, ours, &stop);
	struct uw_elf_cache *cache = uw_elf_cache_new();
	struct uw_space *fsp = uw_space_new(cache, &s);
	struct uw_frame files[UW_MAX_FRAMES];
	struct uw_ours_result fres;
	int nf = uw_ours_unwind(fsp, &s, pid, false, files, UW_MAX_FRAMES, &fres);
	print_frames("ours (tables from files)", files, nf);
	snprintf(what, sizeof what, "%s page readable again: frames equal those from files", mode);
	result(nf == n && uw_frames_equal(files, nf, ours, n) && stop.reason == UW_STOP_END_OF_STACK,
	       what);
	snprintf(what, sizeof what, "%s page readable again: libdwfl's frames are a prefix", mode);
	result(s.nframes > 3 && s.nframes <= n && uw_frames_equal(s.frames, s.nframes, ours, s.nframes),
	       what);
	uw_space_free(fsp);
	uw_elf_cache_free(cache);
	uw_snapshot_free(&s);
	uw_oracle_free(oracle);
	run_to_sigstop(pid); /* let it exit */
	waitpid(pid, &status, WNOHANG);
	return failures ? 1 : 0;
}
