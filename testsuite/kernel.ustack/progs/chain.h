/* What the kernel.ustack test programs share: their call chains must keep
 * one frame per function, whatever the optimisation level, and end in a
 * getdents system call that the scripts probe.
 */
#ifndef KERNEL_USTACK_CHAIN_H
#define KERNEL_USTACK_CHAIN_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))
/* Keeps the call before it from becoming a tail call at -O2. */
#define NO_TAIL() __asm__ volatile("" ::: "memory")

/* Count the entries of / into the int n, through readdir (getdents64).
 * A macro, not a function: the frame that calls readdir must be the
 * caller's own (an inlined helper would add an inline frame in gdb). */
#define COUNT_ROOT_ENTRIES(n)						\
	do {								\
		DIR *d_ = opendir("/");					\
									\
		(n) = 0;						\
		if (d_) {						\
			while (readdir(d_))				\
				(n)++;					\
			closedir(d_);					\
		}							\
	} while (0)

/* The commands of a test that drives a program through a FIFO (the tools'
 * tests: countchains.c, stackusage.c): each line read from fifo but
 * `quit` goes to handle(), which answers on stdout; each answer ends with
 * `done`, flushed.  Each writer opens the FIFO, writes a line and closes
 * it, so the FIFO is opened again after each end of file.  Returns 0 at
 * quit, 1 if the FIFO cannot be opened. */
static inline int serve_fifo(const char *fifo, void (*handle)(const char *line))
{
	char line[64];
	FILE *f;

	for (;;) {				/* bound: until quit */
		f = fopen(fifo, "r");
		if (!f) {
			perror(fifo);
			return 1;
		}
		while (fgets(line, sizeof(line), f)) {	/* bound: its lines */
			if (strcmp(line, "quit\n") == 0)
				return 0;
			handle(line);
			printf("done\n");
			fflush(stdout);
		}
		fclose(f);
	}
}

#endif /* KERNEL_USTACK_CHAIN_H */
