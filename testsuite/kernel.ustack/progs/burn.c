/* kernel.ustack/stackcount.exp (profile): CPU time in two functions, in a
 * ratio the program measures itself, for stap-unwind-profile.
 *
 *   burn SECONDS
 *
 * Alternates 2 ms of its own CPU time (CLOCK_THREAD_CPUTIME_ID) spinning
 * in burn_a with 6 ms in burn_b, for SECONDS of CPU time, then prints
 *
 *   spent burn_a NS
 *   spent burn_b NS
 *
 * the CPU time each took, which a sampling profiler's counts of
 * main -> run_burn -> burn_a and -> burn_b should share.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "chain.h"

static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static volatile unsigned long sink;

/* Spin until ns of CPU time have passed; returns the CPU time taken. */
#define BURN_FOR(ns)							\
	do {								\
		int64_t t0_ = cpu_ns(), t_;				\
		do {	/* bound: ns of CPU time */			\
			for (int i_ = 0; i_ < 1000; i_++)		\
				sink += i_;				\
			t_ = cpu_ns();					\
		} while (t_ - t0_ < (ns));				\
		return t_ - t0_;					\
	} while (0)

static NOINLINE int64_t burn_a(void) { BURN_FOR(2000000); }
static NOINLINE int64_t burn_b(void) { BURN_FOR(6000000); }

static NOINLINE void run_burn(int64_t total, int64_t *a, int64_t *b)
{
	while (*a + *b < total) {	/* bound: total CPU time */
		*a += burn_a();
		*b += burn_b();
	}
	NO_TAIL();
}

int main(int argc, char **argv)
{
	int64_t a = 0, b = 0;

	if (argc != 2 || atoi(argv[1]) < 1) {
		fprintf(stderr, "usage: burn SECONDS\n");
		return 2;
	}
	/* A sampler that must leave out the loader's and libc's start-up
	 * (kernel.install/install.exp) starts counting at this call. */
	(void)getppid();
	run_burn((int64_t)atoi(argv[1]) * 1000000000, &a, &b);
	printf("spent burn_a %lld\nspent burn_b %lld\n", (long long)a,
	       (long long)b);
	return 0;
}
