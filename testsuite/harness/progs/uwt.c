/* Unwind test program: runs one scenario with a known call chain
   (main -> top -> mid -> ... -> leaf) so a tracer can stop it anywhere and
   compare two unwinders' frames.

   usage: uwt SCENARIO [REPEAT]
     SCENARIO: chain recurse signal altstack plt vfork vdso all
     REPEAT:   how many times main calls top (default 1; 0 = forever,
               used by the tracer's random-stop mode)
*/
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "uwt.h"

enum scenario { CHAIN, RECURSE, SIGNAL, ALTSTACK, PLT, VFORK, VDSO, ALL };
static const char *const scenario_names[] = {
	"chain", "recurse", "signal", "altstack", "plt", "vfork", "vdso", "all",
};

static volatile long sink;

/* A little computation so that random stops also land in plain code.  */
UWT_NOINLINE static long spin(int n)
{
	long acc = 0;
	for (int i = 0; i < n; i++) {
		acc += i * 7 + (acc >> 3);
		UWT_BARRIER(acc);
	}
	return acc;
}

/* A system call through libc: on -m32 glibc enters the kernel through
   __kernel_vsyscall in the vdso.  */
UWT_NOINLINE static int leaf(int x)
{
	int r = (int)getppid() + x;
	sink += spin(50);
	UWT_BARRIER(r);
	return r;
}

UWT_NOINLINE static int recurse(int depth)
{
	if (depth == 0)
		return leaf(depth);
	int r = recurse(depth - 1);
	UWT_BARRIER(r);
	return r + 1;
}

UWT_NOINLINE static int handler_leaf(int sig)
{
	int r = (int)getpid() + sig;
	sink += spin(20);
	UWT_BARRIER(r);
	return r;
}

UWT_NOINLINE static void handler(int sig)
{
	int r = handler_leaf(sig);
	UWT_BARRIER(r);
	sink += r;
}

UWT_NOINLINE static int leaf_signal(int x)
{
	raise(SIGUSR1);
	UWT_BARRIER(x);
	return x + 1;
}

UWT_NOINLINE static int leaf_altstack(int x)
{
	raise(SIGUSR2);
	UWT_BARRIER(x);
	return x + 1;
}

/* Called back from the shared library through a function pointer.  */
UWT_NOINLINE static int plt_callback(int x)
{
	int r = leaf(x);
	UWT_BARRIER(r);
	return r + 3;
}

UWT_NOINLINE static int leaf_vfork(int x)
{
	pid_t child = vfork();
	if (child == 0)
		_exit(0);
	if (child > 0)
		waitpid(child, NULL, 0);
	UWT_BARRIER(x);
	return x + (child > 0);
}

/* clock_gettime and gettimeofday run in the vdso without entering the
   kernel on -m64 (and on -m32 when the clocksource allows it).  */
UWT_NOINLINE static int leaf_vdso(int x)
{
	struct timespec ts;
	struct timeval tv;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	gettimeofday(&tv, NULL);
	sink += ts.tv_nsec + tv.tv_usec;
	UWT_BARRIER(x);
	return x + 1;
}

UWT_NOINLINE static int mid(enum scenario s, int x)
{
	int r;
	switch (s) {
	case CHAIN:    r = leaf(x); break;
	case RECURSE:  r = recurse(40); break;
	case SIGNAL:   r = leaf_signal(x); break;
	case ALTSTACK: r = leaf_altstack(x); break;
	case PLT:      r = lib_entry(plt_callback, x); break;
	case VFORK:    r = leaf_vfork(x); break;
	case VDSO:     r = leaf_vdso(x); break;
	default:       r = 0; break;
	}
	UWT_BARRIER(r);
	return r + 1;
}

UWT_NOINLINE static int top(enum scenario s, int x)
{
	int r = 0;
	if (s == ALL) {
		for (int i = 0; i < ALL; i++)
			r += mid((enum scenario)i, x);
	} else {
		r = mid(s, x);
	}
	UWT_BARRIER(r);
	return r + 1;
}

static void install_handlers(void)
{
	static char altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
	struct sigaction sa;

	if (sigaltstack(&ss, NULL) != 0) {
		perror("sigaltstack");
		exit(2);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR2, &sa, NULL);
}

int main(int argc, char **argv)
{
	enum scenario s = ALL;
	long repeat = 1;

	if (argc > 1) {
		for (s = 0; s <= ALL; s++)
			if (strcmp(argv[1], scenario_names[s]) == 0)
				break;
		if (s > ALL) {
			fprintf(stderr, "uwt: unknown scenario %s\n", argv[1]);
			return 2;
		}
	}
	if (argc > 2)
		repeat = strtol(argv[2], NULL, 0);
	install_handlers();
	for (long i = 0; repeat == 0 || i < repeat; i++)
		sink += top(s, (int)i);
	return 0;
}
