/* stap-unwind: unwind tables compiled once, in process context, into the
 * core's sorted table of rows (unwind_core.h, "Compiled tables"), for the
 * objects the VMA tracking records (vma_compiled.c) and the modules named
 * with -d (dmod_index.c).  A step at a pc of such an object finds its row
 * by a binary search and parses only the rows the table marks; a step is
 * the same with the table as without it, as long as the table was
 * compiled from the same tables the step is given.
 */
#ifndef STP_UW_COMPILED_H
#define STP_UW_COMPILED_H

#include "stap-unwind/core.h"

/* -DSTP_UW_COMPILED=0 compiles nothing: every step parses, as before. */
#ifndef STP_UW_COMPILED
#define STP_UW_COMPILED		1
#endif
/* The compiler reschedules every STP_UW_COMPILE_CHUNK FDEs. */
#define STP_UW_COMPILE_CHUNK	256

/* One allocation of bytes: the table, then its full rows, rows and
 * lookup index. */
struct stp_uw_compiled {
	struct uw_compiled_table table;
	size_t bytes;
	uint32_t parse_rows;		/* rows the table leaves to the parse */
};

/* The allocator of a compiled table: alloc(bytes) (NULL: refused) and its
 * free. */
struct stp_uw_compile_mem {
	void *(*alloc)(size_t bytes);
	void (*free)(void *m, size_t bytes);
};

/* t (local sections, searched: uw_compile_begin) compiled for arch into
 * one allocation from mem, or NULL: the compiler failed, mem refused, or
 * the table would take more than max_bytes (then *too_big = 1).  Process
 * context; sleeps (a mutex, cond_resched between chunks). */
static struct stp_uw_compiled *stp_uw_compile(enum uw_arch arch,
					      const struct uw_tables *t,
					      size_t max_bytes,
					      const struct stp_uw_compile_mem *mem,
					      int *too_big);

#endif /* STP_UW_COMPILED_H */
