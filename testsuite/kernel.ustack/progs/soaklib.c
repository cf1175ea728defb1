/* libsoak: what soak.c dlopens and dlcloses: a call chain of its own that
 * ends in getppid, so that backtraces pass through a library that comes
 * and goes. */
#include <unistd.h>

__attribute__((noinline)) static int soaklib_leaf(int n)
{
	return n + (int)getppid();
}

__attribute__((noinline)) int soaklib_call(int depth)
{
	if (depth <= 0)
		return soaklib_leaf(depth);
	return soaklib_call(depth - 1) + 1;
}
