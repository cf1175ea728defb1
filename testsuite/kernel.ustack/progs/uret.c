/* kernel.ustack/uret.exp: call chains under uretprobes.  A uretprobe
 * replaces the return address of each call of its function with its
 * trampoline's; a backtrace below must still be the whole chain.
 *
 *   uret-VARIANT c     main > top > mid > leaf > getppid
 *   uret-VARIANT r N   main > recurse (N + 1 calls, n = N ... 0) > getppid
 *   uret-VARIANT s N   main > top > mid > leaf > sleep(N): blocked there
 *
 * Each mode prints "EXPECT MODE DEPTH" (DEPTH: the recursion's calls) and
 * makes its getppid system call once. */
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include "chain.h"

static volatile int sink;
static unsigned sleep_secs;	/* mode s: leaf sleeps, not getppid */

NOINLINE int leaf(void)
{
	int r = sleep_secs ? (int)sleep(sleep_secs) : (int)getppid();

	NO_TAIL();
	return r + sink;
}

NOINLINE int mid(void)
{
	int r = leaf();

	NO_TAIL();
	return r + sink;
}

NOINLINE int top(void)
{
	int r = mid();

	NO_TAIL();
	return r + sink;
}

/* One frame per call at every optimisation level: the asm after the
 * call keeps gcc from making the recursion a loop. */
NOINLINE int recurse(int n)
{
	int r;

	if (n == 0)
		r = (int)getppid();
	else
		r = recurse(n - 1);
	NO_TAIL();
	return r + sink;
}

int main(int argc, char **argv)
{
	int n;

	if (argc > 1 && argv[1][0] == 'c') {
		printf("EXPECT c 0\n");
		fflush(stdout);
		return top() < 0;
	}
	if (argc > 2 && argv[1][0] == 's') {
		sleep_secs = (unsigned)atoi(argv[2]);
		printf("EXPECT s 0\n");
		fflush(stdout);
		return top() < 0;
	}
	if (argc > 2 && argv[1][0] == 'r') {
		n = atoi(argv[2]);
		printf("EXPECT r %d\n", n + 1);
		fflush(stdout);
		return recurse(n) < 0;
	}
	fprintf(stderr, "usage: %s c | r N | s N\n", argv[0]);
	return 2;
}
