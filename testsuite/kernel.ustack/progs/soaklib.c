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

/* Runs in the library's text for a while (soak.c's unmap race: another
 * thread unmaps and maps again the segment with this library's unwind
 * tables meanwhile). */
int soaklib_spin(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++) {	/* bound: n */
		if (i % 16 == 0)
			s += soaklib_call(i % 4);
		for (volatile int j = 0; j < 20000; j++)	/* bound: 20000 */
			;
	}
	return s;
}
