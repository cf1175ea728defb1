/* Test program for the kernel.ustack tests: a known call chain of our own
 * noinline functions ending in one system call, so that a backtrace taken
 * at that system call (or by a timer while spinning) has exactly known
 * frames.  Built -m64/-m32, -O0/-O2, with and without frame pointers.
 *
 *   ustack getdents   main > top > mid > leaf > readdir (libc) > getdents64
 *                     (32-bit: libc enters through the vdso's __kernel_vsyscall)
 *   ustack direct     main > top > mid > leaf_direct > getdents64 made by an
 *                     inline `syscall` (64-bit) or `int $0x80` (32-bit)
 *   ustack signal     main > sig_top > kill(SIGUSR1); the handler runs
 *                     on_signal > top > mid > leaf > readdir > getdents64,
 *                     so the stack goes through the signal frame back into
 *                     kill > sig_top > main
 *   ustack recurse N  main > recurse x N > leaf > readdir > getdents64
 *   ustack spin       main > top > mid > spin_leaf, looping for ~4 s (for
 *                     timer.profile)
 *   ustack context    main > top > mid > leaf_context > write(-1, &uw_ctx, 24):
 *                     top first records in uw_ctx the pc, sp and fp it has
 *                     right after a call (see capture_context), for the
 *                     print_ubacktrace(pc, sp, fp) variants; the write
 *                     fails (EBADF) and tells the probe where uw_ctx is
 * The chain is entered once; the program prints nothing.
 */
#define _GNU_SOURCE
#include "chain.h"
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdint.h>

static volatile int sink;
static const char *mode = "getdents";

NOINLINE static int leaf(void)
{
	int n;

	COUNT_ROOT_ENTRIES(n);
	NO_TAIL();
	return n;
}

NOINLINE static int leaf_direct(void)
{
	static char buf[4096];
	int fd = open("/", O_RDONLY | O_DIRECTORY);
	long r;

	if (fd < 0)
		return -1;
#if defined(__x86_64__)
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"((long)SYS_getdents64), "D"((long)fd), "S"(buf),
			   "d"((long)sizeof(buf))
			 : "rcx", "r11", "memory");
#else
	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "0"((long)SYS_getdents64), "b"(fd), "c"(buf),
			   "d"(sizeof(buf))
			 : "memory");
#endif
	close(fd);
	NO_TAIL();
	return (int)r;
}

/* A register state of top's: the pc right after its call of
 * capture_context, with the sp and fp it has there.  64-bit fields in both
 * ABIs, so that the probe reads them the same way. */
static struct { uint64_t pc, sp, fp; } uw_ctx;

/* __builtin_frame_address(0) gives this function a frame pointer, so the
 * word it points at is the caller's fp; the CFA is the caller's sp once
 * this call has returned. */
NOINLINE static void capture_context(void)
{
	uw_ctx.pc = (uintptr_t)__builtin_return_address(0);
	uw_ctx.sp = (uintptr_t)__builtin_dwarf_cfa();
	uw_ctx.fp = *(uintptr_t *)__builtin_frame_address(0);
}

NOINLINE static int leaf_context(void)
{
	int r = (int)write(-1, &uw_ctx, sizeof(uw_ctx));

	NO_TAIL();
	return r;
}

NOINLINE static int spin_leaf(void)
{
	struct timespec t0, t;
	unsigned long i = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int k = 0; k < 1000000; k++)
			sink += k;
		i++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 4);
	NO_TAIL();
	return (int)i;
}

NOINLINE static int mid(int how)
{
	int r;

	if (how == 1)
		r = leaf_direct();
	else if (how == 2)
		r = spin_leaf();
	else if (how == 3)
		r = leaf_context();
	else
		r = leaf();
	NO_TAIL();
	return r + 1;
}

NOINLINE static int top(int how)
{
	int r;

	if (how == 3)
		capture_context();
	r = mid(how);

	NO_TAIL();
	return r + 1;
}

NOINLINE static int recurse(int n)
{
	int r = n > 0 ? recurse(n - 1) : leaf();

	NO_TAIL();
	return r + 1;
}

NOINLINE static void on_signal(int sig)
{
	sink += top(0) + sig;
	NO_TAIL();
}

NOINLINE static int sig_top(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	kill(getpid(), SIGUSR1);
	NO_TAIL();
	return sink;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		mode = argv[1];
	if (!strcmp(mode, "getdents"))
		sink = top(0);
	else if (!strcmp(mode, "direct"))
		sink = top(1);
	else if (!strcmp(mode, "spin"))
		sink = top(2);
	else if (!strcmp(mode, "context"))
		sink = top(3);
	else if (!strcmp(mode, "signal"))
		sink = sig_top();
	else if (!strcmp(mode, "recurse"))
		sink = recurse(argc > 2 ? atoi(argv[2]) : 40);
	else
		return 2;
	return 0;
}
