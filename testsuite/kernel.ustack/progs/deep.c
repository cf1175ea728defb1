/* Test program of kernel.ustack/names.exp: a stack of known depth.
 *
 *   deep DEPTH COUNT
 *
 * recurses DEPTH levels in one local function (only .symtab names it),
 * calls getppid() COUNT times from the deepest level, and returns.  Its
 * stack there, innermost first: syscall (libc), recurse DEPTH times, main,
 * libc's start, _start. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static int recurse(int n, int count)
{
	volatile char pad[16];
	int r;

	pad[0] = (char)n;
	if (n <= 1) {
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
	return recurse(atoi(argv[1]), atoi(argv[2])) == -1;
}
