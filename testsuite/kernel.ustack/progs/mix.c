/* Test program for kernel.ustack/profile.exp: a process that keeps two
 * CPUs' worth of work going in several kinds of user code for timer.profile
 * to sample: its own call chains, libc code calling back into it (qsort),
 * libc string functions, the vdso (clock_gettime) and two threads started
 * by pthread_create.  Built -m64 and -m32 (mix-m64, mix-m32), with CFI and
 * without frame pointers, not stripped.  It runs until killed.
 *
 *   main thread:  main > work_main > { chain_a > chain_b > spin_leaf,
 *                 qsort > cmp_ints, clock_gettime (vdso), memcmp/strlen }
 *   thread 1:     start_thread > worker_recurse > recurse x 12 > spin_leaf
 *   thread 2:     start_thread > worker_sort > qsort > ... > cmp_ints
 */
#define _GNU_SOURCE
#include "chain.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static volatile unsigned long sink;

NOINLINE static void spin_leaf(int n)
{
	for (int i = 0; i < n; i++)
		sink = sink * 31 + (unsigned)i;
	NO_TAIL();
}

NOINLINE static void chain_b(int n)
{
	spin_leaf(n);
	NO_TAIL();
}

NOINLINE static void chain_a(int n)
{
	chain_b(n);
	NO_TAIL();
}

NOINLINE static int cmp_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	sink += (unsigned)x;
	return (x > y) - (x < y);
}

NOINLINE static void sort_once(int *v, int n, unsigned seed)
{
	for (int i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = (int)(seed >> 8);
	}
	qsort(v, (size_t)n, sizeof *v, cmp_ints);
	NO_TAIL();
}

NOINLINE static void vdso_clock(int n)
{
	struct timespec ts;
	for (int i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sink += (unsigned long)ts.tv_nsec;
	}
	NO_TAIL();
}

NOINLINE static void strings(int n)
{
	static char a[4096], b[4096];
	memset(a, 'x', sizeof a - 1);
	memset(b, 'x', sizeof b - 1);
	for (int i = 0; i < n; i++)
		sink += strlen(a) + (unsigned)memcmp(a, b, sizeof a);
	NO_TAIL();
}

NOINLINE static void recurse(int depth)
{
	if (depth > 0)
		recurse(depth - 1);
	else
		spin_leaf(200000);
	NO_TAIL();
}

NOINLINE static void *worker_recurse(void *arg)
{
	(void)arg;
	for (;;)
		recurse(12);
	return NULL;
}

NOINLINE static void *worker_sort(void *arg)
{
	static int v[20000];
	unsigned seed = 1;
	(void)arg;
	for (;;)
		sort_once(v, 20000, seed++);
	return NULL;
}

NOINLINE static void work_main(void)
{
	static int v[5000];
	for (unsigned seed = 7;; seed++) {
		chain_a(300000);
		sort_once(v, 5000, seed);
		vdso_clock(20000);
		strings(200);
	}
}

int main(void)
{
	pthread_t t1, t2;
	pthread_create(&t1, NULL, worker_recurse, NULL);
	pthread_create(&t2, NULL, worker_sort, NULL);
	work_main();
	return 0;
}
