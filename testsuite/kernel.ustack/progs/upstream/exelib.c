/* kernel.ustack/upstream.exp, after systemtap.exelib: a program that
 * recurses three times in exe_step, then calls into its library, which
 * recurses three times in lib_step; each step has an SDT marker.  Built
 * -O3, PIE or not, with debuginfo in the file or apart (debuglink). */
#include <sys/sdt.h>

void lib_entry(void);

static volatile int depth;

__attribute__((noinline)) int exe_step(int n)
{
	__asm__ volatile("" : : "r"(n));
	STAP_PROBE1(upstream, exe_mark, n);
	if (n - depth > 0)
		depth = exe_step(n - depth);
	else
		lib_entry();
	return depth;
}

int main(void)
{
	depth = 1;
	depth = exe_step(3);
	return 0;
}
