/* kernel.ustack/upstream.exp, after systemtap.context/uprobe_backtrace:
 * main > middle > bottom, built -O0, for backtraces at the entry and the
 * return of each of them. */
#include <stdlib.h>

static int bottom(int a, int b) { return a * b; }
static int middle(int n) { int k = n / 3; return bottom(k, n - k) + 1; }

int main(void)
{
	srand((unsigned)middle(17));
	return 0;
}
