/* What the kernel.ustack test programs share: their call chains must keep
 * one frame per function, whatever the optimisation level, and end in a
 * getdents system call that the scripts probe.
 */
#ifndef KERNEL_USTACK_CHAIN_H
#define KERNEL_USTACK_CHAIN_H

#include <dirent.h>

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

#endif /* KERNEL_USTACK_CHAIN_H */
