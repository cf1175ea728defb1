/* kernel.ustack/stackcount.exp (profile) and kernel.install/install.exp:
 * CPU time in two functions, in a ratio the program knows, for a sampler.
 *
 *   burn SECONDS
 *
 * Alternates turns in burn_a and burn_b for SECONDS of its own CPU time
 * (CLOCK_THREAD_CPUTIME_ID), then prints
 *
 *   spent burn_a UNITS
 *   spent burn_b UNITS
 *
 * the units of work each did, which a sampling profiler's counts of
 * main -> run_burn -> burn_a and -> burn_b should share.  A unit is the
 * same loop and clock read in both, so the share of work is the share of
 * the time the program ran: unlike its CPU clock, which in a guest also
 * counts the time the host did not run it.  A turn of burn_a is 1 to 3 ms
 * of work, drawn at random, and burn_b's turn after it three times that:
 * turns of fixed length beat with a sampler's fixed period (2 + 6 ms
 * against a 4 ms tick puts every tick at the same phase of the turn).
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

/* Each function its own, or the compiler makes the two one (-fipa-icf). */
static volatile unsigned long sink, sink_a, sink_b;

/* Does units of work, adding to sink; returns the CPU clock after the
 * last.  A macro, so that the loop is burn_a's or burn_b's own code. */
#define BURN_UNITS(units, sink)						\
	do {								\
		int64_t t_ = 0;						\
		for (int64_t u_ = 0; u_ < (units); u_++) {	/* bound: units */ \
			for (int i_ = 0; i_ < 1000; i_++)	/* bound: 1000 */ \
				sink += i_;				\
			t_ = cpu_ns();					\
		}							\
		return t_;						\
	} while (0)

static NOINLINE int64_t burn_a(int64_t units) { BURN_UNITS(units, sink_a); }
static NOINLINE int64_t burn_b(int64_t units) { BURN_UNITS(units, sink_b); }

/* Units of work in a millisecond of CPU time, measured over 20 ms.  The
 * arithmetic of the units is 32-bit: in i386 a 64-bit division is a call
 * of libgcc's (__moddi3), a frame the samplers' checks do not expect. */
static NOINLINE uint32_t units_per_ms(void)
{
	int64_t t0 = cpu_ns();
	uint32_t units = 0;

	while (cpu_ns() - t0 < 20000000) {	/* bound: 20 ms of CPU time */
		for (int i = 0; i < 1000; i++)	/* bound: 1000 */
			sink += i;
		units++;
	}
	return units / 20 > 0 ? units / 20 : 1;
}

static NOINLINE void run_burn(int64_t t0, int64_t total, uint32_t per_ms,
			      int64_t *a, int64_t *b)
{
	uint32_t seed = 1;
	int64_t t = t0;

	while (t - t0 < total) {	/* bound: total CPU time */
		seed = seed * 1103515245u + 12345u;
		uint32_t turn = per_ms + (seed >> 16) % (2 * per_ms + 1);

		burn_a(turn);
		*a += turn;
		t = burn_b(3 * (int64_t)turn);
		*b += 3 * (int64_t)turn;
	}
	NO_TAIL();
}

int main(int argc, char **argv)
{
	int64_t a = 0, b = 0, t0;
	uint32_t per_ms;

	if (argc != 2 || atoi(argv[1]) < 1) {
		fprintf(stderr, "usage: burn SECONDS\n");
		return 2;
	}
	per_ms = units_per_ms();
	t0 = cpu_ns();
	/* A sampler that must leave out the loader's and libc's start-up
	 * (kernel.install/install.exp) starts counting at this call. */
	(void)getppid();
	run_burn(t0, (int64_t)atoi(argv[1]) * 1000000000, per_ms, &a, &b);
	printf("spent burn_a %lld\nspent burn_b %lld\n", (long long)a,
	       (long long)b);
	return 0;
}
