/* stap-unwind: unwind tables compiled in process context (compiled.h).
 */
#ifndef STP_UW_COMPILED_C
#define STP_UW_COMPILED_C

#include <linux/mutex.h>
#include <linux/sched.h>
#include "stap-unwind/compiled.h"

/* The compiler's working memory, one compile at a time: the VMA
 * tracking's rescans and module init's compile of the -d modules may
 * overlap. */
static DEFINE_MUTEX(stp_uw_compile_mutex);
static struct uw_compiler stp_uw_compiler;
static struct uw_cursor stp_uw_compile_scratch;

/* One pass of the compiler over t: out NULL only counts the rows.
 * Returns the compiler's last status (0: done). */
static int stp_uw_compile_pass(enum uw_arch arch, const struct uw_tables *t,
			       struct uw_compiled_row *out, uint32_t max,
			       struct uw_compact_row *full, uint32_t max_full,
			       struct uw_compiled_unpacked *unpacked,
			       uint32_t max_unpacked)
{
	struct uw_compiler *comp = &stp_uw_compiler;
	int rc = uw_compile_begin(comp, arch, t, out, max, full, max_full,
				  unpacked, max_unpacked);

	/* bound: the object's FDEs, STP_UW_COMPILE_CHUNK at a time */
	while (rc == 0
	       && (rc = uw_compile_run(comp, &stp_uw_compile_scratch,
				       STP_UW_COMPILE_CHUNK)) == 1) {
		rc = 0;
		cond_resched();
	}
	return rc;
}

static struct stp_uw_compiled *stp_uw_compile_locked(enum uw_arch arch,
						     const struct uw_tables *t,
						     size_t max_bytes,
						     const struct stp_uw_compile_mem *mem,
						     int *too_big)
{
	struct uw_compiler *comp = &stp_uw_compiler;
	struct stp_uw_compiled *c;
	struct uw_compiled_row *rows;
	struct uw_compact_row *full;
	struct uw_compiled_unpacked *unpacked;
	uint32_t *index;
	uint32_t nrows, nfull, nunpacked, nindex;
	size_t bytes;

	/* Count first, so that one allocation of the right size holds it
	 * all. */
	if (stp_uw_compile_pass(arch, t, NULL, 0, NULL, 0, NULL, 0) != 0)
		return NULL;
	nrows = comp->count;
	nfull = comp->full_count;
	nunpacked = comp->unpacked_count;
	nindex = uw_compile_index_size(comp);
	bytes = sizeof(*c) + (size_t)nfull * sizeof(*full)
		+ (size_t)nunpacked * sizeof(*unpacked)
		+ (size_t)nrows * sizeof(*rows) + (size_t)nindex * sizeof(*index);
	if (bytes > max_bytes) {
		*too_big = 1;
		return NULL;
	}
	c = mem->alloc(bytes);
	if (!c)
		return NULL;
	/* The largest alignment first. */
	full = (struct uw_compact_row *)(c + 1);
	unpacked = (struct uw_compiled_unpacked *)(full + nfull);
	rows = (struct uw_compiled_row *)(unpacked + nunpacked);
	index = (uint32_t *)(rows + nrows);
	c->bytes = bytes;
	if (stp_uw_compile_pass(arch, t, rows, nrows, full, nfull, unpacked,
				nunpacked) != 0
	    || uw_compile_end(comp, index, nindex, &c->table) != 0) {
		mem->free(c, bytes);
		return NULL;
	}
	c->parse_rows = comp->stats.parse_rows;
	return c;
}

static struct stp_uw_compiled *stp_uw_compile(enum uw_arch arch,
					      const struct uw_tables *t,
					      size_t max_bytes,
					      const struct stp_uw_compile_mem *mem,
					      int *too_big)
{
	struct stp_uw_compiled *c;

	*too_big = 0;
	if (!STP_UW_COMPILED)
		return NULL;
	mutex_lock(&stp_uw_compile_mutex);
	c = stp_uw_compile_locked(arch, t, max_bytes, mem, too_big);
	mutex_unlock(&stp_uw_compile_mutex);
	return c;
}

#endif /* STP_UW_COMPILED_C */
