/* The library nod.c dlopen()s: its own chain down to readdir. */
#include "chain.h"

NOINLINE static int nodlib_leaf(void)
{
	int n;

	COUNT_ROOT_ENTRIES(n);
	NO_TAIL();
	return n;
}

NOINLINE static int nodlib_mid(void)
{
	int r = nodlib_leaf();

	NO_TAIL();
	return r + 1;
}

NOINLINE int nodlib_top(void)
{
	int r = nodlib_mid();

	NO_TAIL();
	return r + 1;
}
