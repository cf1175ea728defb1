/* Test program of kernel.ustack/names.exp: a stack of known depth.
 *
 *   deep DEPTH COUNT      calls getppid() COUNT times at the bottom
 *   deep DEPTH pause      at the bottom, prints "ready PID" and waits in
 *                         pause() until a signal ends it
 *
 * recurses DEPTH levels in one local function (only .symtab names it)
 * and returns.  Its stack at the bottom, innermost first: the system call
 * (libc), recurse DEPTH times, main, libc's start, _start. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static int recurse(int n, int count)
{
	volatile char pad[16];
	int r;

	pad[0] = (char)n;
	if (n <= 1) {
		if (count < 0) {
			printf("ready %d\n", (int)getpid());
			fflush(stdout);
			for (;;)	/* bound: until a signal ends the process */
				pause();
		}
		for (int i = 0; i < count; i++)	/* bound: count */
			sink += (int)syscall(SYS_getppid);
		return sink;
	}
	r = recurse(n - 1, count);
	return r + pad[0];
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	return recurse(atoi(argv[1]), strcmp(argv[2], "pause") ? atoi(argv[2]) : -1) == -1;
}
