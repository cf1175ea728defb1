/* The library nod.c dlopen()s: its own chain down to readdir. */
#include <dirent.h>

#define NOINLINE __attribute__((noinline, noclone))
#define NO_TAIL() __asm__ volatile("" ::: "memory")

NOINLINE static int nodlib_leaf(void)
{
	DIR *d = opendir("/");
	int n = 0;

	if (d) {
		while (readdir(d))
			n++;
		closedir(d);
	}
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
