/* dmod_replaced: kernel.ustack/dmod_replaced.exp's program.
 *
 *   dmod_replaced LIB_A LIB_B ROUNDS
 *
 * ROUNDS times: dlopen(LIB_A), a getppid through its chain
 * (dmod_replaced_a_top, mid, leaf), dlclose; then the same with LIB_B
 * (dmod_replaced_b_*).  Each library is gone before the next is loaded, so
 * the loader maps B where A was: a pc of B's is one that A's tables were
 * found for a moment ago.  Before each call prints "base SIDE ADDRESS",
 * where the library is mapped (dladdr), so that the test knows the case
 * happened. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	static const char *const top[2] = { "dmod_replaced_a_top", "dmod_replaced_b_top" };
	int rounds, r, side;

	if (argc != 4) {
		fprintf(stderr, "usage: dmod_replaced LIB_A LIB_B ROUNDS\n");
		return 2;
	}
	rounds = atoi(argv[3]);
	for (r = 0; r < rounds; r++) {		/* bound: ROUNDS */
		for (side = 0; side < 2; side++) {	/* bound: 2 */
			void *h = dlopen(argv[1 + side], RTLD_NOW | RTLD_LOCAL);
			int (*call)(void);
			Dl_info info;

			if (!h) {
				fprintf(stderr, "dmod_replaced: %s\n", dlerror());
				return 1;
			}
			call = (int (*)(void))dlsym(h, top[side]);
			if (!call || !dladdr((void *)call, &info)) {
				fprintf(stderr, "dmod_replaced: no %s\n", top[side]);
				return 1;
			}
			printf("base %c %p\n", "ab"[side], info.dli_fbase);
			fflush(stdout);
			call();
			dlclose(h);
		}
	}
	return 0;
}
