/* The two libraries of dmod_replaced.c, from one source: with -DSIDE_A the
 * functions are dmod_replaced_a_*, with -DSIDE_B dmod_replaced_b_*.  B's
 * differ from A's in what an unwinder must know of them: their frames are larger (a 4 KiB
 * buffer in the leaf, 512 bytes in mid) and its code is laid out after a
 * filler, so A's unwind rows applied to B's pcs give wrong callers. */
#include <unistd.h>
#include "chain.h"

#ifdef SIDE_B
#define FN(x) dmod_replaced_b_##x
#define LEAF_PAD 4096
#define MID_PAD 512
/* Moves B's chain away from where A's starts. */
NOINLINE int dmod_replaced_b_filler(volatile int *p)
{
	int i;

	for (i = 0; i < 64; i++)	/* bound: 64 */
		p[i & 3] += i * 3 + p[(i + 1) & 3];
	return p[0];
}
#else
#define FN(x) dmod_replaced_a_##x
#define LEAF_PAD 16
#define MID_PAD 16
#endif

NOINLINE static int FN(leaf)(void)
{
	volatile char pad[LEAF_PAD];
	int r;

	pad[0] = 1;
	pad[LEAF_PAD - 1] = 2;
	r = (int)getppid();
	NO_TAIL();
	return r + pad[0] + pad[LEAF_PAD - 1];
}

NOINLINE static int FN(mid)(void)
{
	volatile char pad[MID_PAD];
	int r;

	pad[0] = 1;
	r = FN(leaf)();
	NO_TAIL();
	return r + pad[0];
}

NOINLINE int FN(top)(void)
{
	int r = FN(mid)();

	NO_TAIL();
	return r + 1;
}
