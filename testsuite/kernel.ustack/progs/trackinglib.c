/* The library tracking.c dlopen()s: its own chain down to readdir. */
#include "chain.h"

NOINLINE static int trackinglib_leaf(void)
{
	int n;

	COUNT_ROOT_ENTRIES(n);
	NO_TAIL();
	return n;
}

NOINLINE static int trackinglib_mid(void)
{
	int r = trackinglib_leaf();

	NO_TAIL();
	return r + 1;
}

NOINLINE int trackinglib_top(void)
{
	int r = trackinglib_mid();

	NO_TAIL();
	return r + 1;
}
