/* Test program for kernel.ustack/tracking.exp: backtraces without -d/--ldd.
 * A known call chain of our own noinline functions ends in readdir's
 * getdents64 system call, reached in several ways:
 *
 *   tracking getdents    main > top > mid > leaf > readdir > getdents64
 *   tracking dl LIB      dlopen(LIB) after the probes started, then main >
 *                        trackinglib_top > trackinglib_mid >
 *                        trackinglib_leaf (in LIB) > readdir > getdents64
 *   tracking fork        fork; the child makes the getdents chain (the
 *                        parent only waits)
 *   tracking exec        exec of this program in mode "execd", which makes
 *                        the getdents chain in the new image
 *   tracking loop N      N times: sleep 1 s, then the getdents chain (a
 *                        process started before the script)
 *   tracking many N      N processes in all (this one and N-1 children)
 *                        that pause until this one gets SIGTERM, which it
 *                        passes on to each child by pid; prints "ready"
 *                        when all exist
 *   tracking move LIB N  dlopen(LIB), then move every mapping of it by one
 *                        distance with mremap (which the task finder does
 *                        not report), print "moved LO HI NEWLO", and N
 *                        times, 0.3 s apart, the dl chain through the
 *                        moved copy
 */
#define _GNU_SOURCE
#include "chain.h"
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

NOINLINE static int leaf(void)
{
	int n;

	COUNT_ROOT_ENTRIES(n);
	NO_TAIL();
	return n;
}

NOINLINE static int mid(void)
{
	int r = leaf();

	NO_TAIL();
	return r + 1;
}

NOINLINE static int top(void)
{
	int r = mid();

	NO_TAIL();
	return r + 1;
}

static pid_t *kids;
static int nkids;

static void on_term(int sig)
{
	int i;

	for (i = 0; i < nkids; i++)
		kill(kids[i], SIGTERM);
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "getdents";

	if (!strcmp(mode, "getdents") || !strcmp(mode, "execd")) {
		sink = top();
	} else if (!strcmp(mode, "dl") && argc > 2) {
		void *h = dlopen(argv[2], RTLD_NOW);
		int (*f)(void);

		if (!h)
			return 3;
		f = (int (*)(void))dlsym(h, "trackinglib_top");
		if (!f)
			return 3;
		sink = f();
	} else if (!strcmp(mode, "move") && argc > 3) {
		void *h = dlopen(argv[2], RTLD_NOW);
		unsigned long lo = ~0UL, hi = 0, start[32], end[32], newlo;
		int (*f)(void);
		struct stat64 st;
		char line[1024];
		int i, n = 0, times = atoi(argv[3]);
		FILE *maps;
		void *r;

		if (!h || stat64(argv[2], &st))
			return 3;
		f = (int (*)(void))dlsym(h, "trackinglib_top");
		maps = fopen("/proc/self/maps", "r");
		if (!f || !maps)
			return 3;
		while (n < 32 && fgets(line, sizeof(line), maps)) {
			unsigned long a, b;
			unsigned long long ino;

			if (sscanf(line, "%lx-%lx %*s %*s %*s %llu", &a, &b, &ino) != 3
			    || ino != (unsigned long long)st.st_ino)
				continue;
			start[n] = a;
			end[n++] = b;
			lo = a < lo ? a : lo;
			hi = b > hi ? b : hi;
		}
		fclose(maps);
		/* A free range for the whole object, then each mapping to its
		 * place in it: code and data keep their distances, so the
		 * moved code runs (PLT slots were bound by RTLD_NOW). */
		r = n ? mmap(NULL, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
		      : MAP_FAILED;
		if (r == MAP_FAILED)
			return 3;
		newlo = (unsigned long)r;
		for (i = 0; i < n; i++)
			if (mremap((void *)start[i], end[i] - start[i], end[i] - start[i],
				   MREMAP_MAYMOVE | MREMAP_FIXED,
				   (void *)(newlo + (start[i] - lo))) == MAP_FAILED)
				return 3;
		f = (int (*)(void))((unsigned long)f - lo + newlo);
		printf("moved 0x%lx 0x%lx 0x%lx\n", lo, hi, newlo);
		fflush(stdout);
		for (i = 0; i < times; i++) {
			usleep(300000);
			sink = f();
		}
		/* Not exit(): ld.so would run the library's destructors at
		 * the addresses it was loaded at. */
		_exit(0);
	} else if (!strcmp(mode, "fork")) {
		pid_t p = fork();

		if (p == 0) {
			sink = top();
			_exit(0);
		}
		if (p > 0)
			waitpid(p, NULL, 0);
	} else if (!strcmp(mode, "exec")) {
		execl("/proc/self/exe", argv[0], "execd", (char *)NULL);
		return 3;
	} else if (!strcmp(mode, "loop")) {
		int i, n = argc > 2 ? atoi(argv[2]) : 1;

		for (i = 0; i < n; i++) {
			sleep(1);
			sink = top();
		}
	} else if (!strcmp(mode, "many")) {
		int i, n = argc > 2 ? atoi(argv[2]) : 1000;

		kids = calloc(n, sizeof(*kids));
		if (!kids)
			return 3;
		for (i = 1; i < n; i++) {
			pid_t p = fork();

			if (p == 0) {
				for (;;)
					pause();
			}
			if (p < 0)
				break;
			kids[nkids++] = p;
		}
		signal(SIGTERM, on_term);
		printf("ready %d\n", nkids + 1);
		fflush(stdout);
		for (;;)
			pause();
	} else {
		return 2;
	}
	return 0;
}
