/* The library half of exelib.c. */
#include <sys/sdt.h>

static volatile int depth;

__attribute__((noinline)) int lib_step(int n)
{
	__asm__ volatile("" : : "r"(n));
	STAP_PROBE1(upstream, lib_mark, n);
	if (n - depth > 0)
		depth = lib_step(n - depth);
	return depth;
}

void lib_entry(void)
{
	depth = 1;
	depth = lib_step(3);
}
