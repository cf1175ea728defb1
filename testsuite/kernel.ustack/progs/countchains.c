/* kernel.ustack/stackcount.exp: getppid() through call chains the program
 * knows, a known number of times each, for stap-unwind-stackcount.
 *
 *   countchains FIFO
 *   countchains --rounds N
 *
 * prints its truth:
 *
 *   chain K COUNT FN_INNER ... FN_OUTER   one per chain: the functions
 *                                         from the one that calls getppid
 *                                         out to main
 *   ready PID
 *
 * then reads lines from FIFO: `go` calls getppid COUNT times through each
 * chain K and prints `done` (`go N`: N rounds of that); `quit` exits.
 *
 * With --rounds it runs N rounds at once, and prints what each call cost
 * its thread in CPU time, and exits (bench/stackcount-cost.sh):
 *
 *   calls C ns_per_call NS  The chains call nothing else
 * that makes a system call between go and done.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chain.h"

#define NCHAINS 6

static volatile long sink;

static NOINLINE void call_getppid(void)
{
	sink += getppid();
	NO_TAIL();
}

/* Each body differs (its own constant): gcc -O2 folds identical
 * functions into one (-fipa-icf), whose frames would then all carry one
 * name. */
#define STEP(callee, n) do { callee(); sink += (n); NO_TAIL(); } while (0)
static NOINLINE void a_leaf(void) { STEP(call_getppid, 1); }
static NOINLINE void a_mid(void) { STEP(a_leaf, 2); }
static NOINLINE void b_leaf(void) { STEP(call_getppid, 3); }
static NOINLINE void c_leaf(void) { STEP(call_getppid, 4); }
static NOINLINE void c_mid(void) { STEP(c_leaf, 5); }
static NOINLINE void c_top(void) { STEP(c_mid, 6); }
/* Two chains through the same leaf: only their callers tell them apart. */
static NOINLINE void shared_leaf(void) { STEP(call_getppid, 7); }
static NOINLINE void d_top(void) { STEP(shared_leaf, 8); }
static NOINLINE void e_top(void) { STEP(shared_leaf, 9); }
static NOINLINE void f_deep4(void) { STEP(call_getppid, 10); }
static NOINLINE void f_deep3(void) { STEP(f_deep4, 11); }
static NOINLINE void f_deep2(void) { STEP(f_deep3, 12); }
static NOINLINE void f_deep1(void) { STEP(f_deep2, 13); }

static const struct {
	void (*fn)(void);
	int count;
	const char *names;	/* inner to outer, up to (not with) run_chains */
} chains[NCHAINS] = {
	{ a_mid,  7,  "call_getppid a_leaf a_mid" },
	{ b_leaf, 13, "call_getppid b_leaf" },
	{ c_top,  1,  "call_getppid c_leaf c_mid c_top" },
	{ d_top,  21, "call_getppid shared_leaf d_top" },
	{ e_top,  5,  "call_getppid shared_leaf e_top" },
	{ f_deep1, 34, "call_getppid f_deep4 f_deep3 f_deep2 f_deep1" },
};

static NOINLINE void run_chains(void)
{
	for (int k = 0; k < NCHAINS; k++)		/* bound: NCHAINS */
		for (int i = 0; i < chains[k].count; i++)	/* bound: count */
			chains[k].fn();
	NO_TAIL();
}

/* `go`: every chain once; `go N`: N times (bench/stackcount-cost.sh). */
static void handle(const char *line)
{
	int rounds = 0;

	if (strcmp(line, "go\n") == 0)
		rounds = 1;
	else if (sscanf(line, "go %d", &rounds) != 1)
		rounds = 0;
	for (int i = 0; i < rounds; i++)	/* bound: rounds */
		run_chains();
}

static double thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--rounds") == 0) {
		int rounds = atoi(argv[2]), calls = 0;
		double t0 = thread_ns();

		for (int i = 0; i < rounds; i++)	/* bound: rounds */
			run_chains();
		for (int k = 0; k < NCHAINS; k++)	/* bound: NCHAINS */
			calls += rounds * chains[k].count;
		printf("calls %d ns_per_call %.0f\n", calls,
		       calls ? (thread_ns() - t0) / calls : 0);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: countchains FIFO | countchains --rounds N\n");
		return 2;
	}
	for (int k = 0; k < NCHAINS; k++)		/* bound: NCHAINS */
		printf("chain %d %d %s run_chains main\n", k, chains[k].count,
		       chains[k].names);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	return serve_fifo(argv[1], handle);
}
