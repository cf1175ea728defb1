/* What the fuzz targets share: little-endian input fields, range tests,
 * and one full unwind with the core's documented per-step bounds checked
 * at every step.  Included by fuzz_cfi.c and fuzz_elf.c (static functions:
 * each target is one translation unit plus the core's sources). */
#ifndef UW_FUZZ_COMMON_H
#define UW_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/unwind/unwind_core.h"

/* [addr, addr + len) lies within [base, base + size), without wrapping. */
static inline int fuzz_in(uint64_t addr, uint64_t len, uint64_t base,
			  uint64_t size)
{
	return addr >= base && addr - base <= size && len <= size - (addr - base);
}

static inline uint32_t fuzz_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* What an unwind produced, frame by frame, for differential checks. */
#define FUZZ_MAX_FRAMES 64
struct fuzz_frame_log {
	uint32_t n;
	uint64_t pc[FUZZ_MAX_FRAMES + 1], cfa[FUZZ_MAX_FRAMES + 1];
	uint64_t regs[FUZZ_MAX_FRAMES + 1];	/* fuzz_regs_hash of each */
	uint32_t reason;
	uint64_t stop_pc, stop_addr;
};

/* A frame's registers, those defined and their values, as one number:
 * two unwinds that agree on it agree on the registers. */
static inline uint64_t fuzz_regs_hash(const struct uw_cursor *cur)
{
	uint64_t h = cur->regs->defined, v;

	for (unsigned r = 0; r < UW_NREGS; r++) {	/* bound: UW_NREGS */
		v = uw_get_reg(cur, r, &v) == 0 ? v : 0;
		h = (h ^ v) * 0x100000001b3ull;
	}
	return h;
}

/* One full unwind with the bounds checked at every step; *reads is the
 * host's read counter (reset here before each step).  Returns 0 when
 * uw_init refused the registers (checked here; nothing more to do). */
static int fuzz_unwind(struct uw_cursor *cur, enum uw_arch arch,
		       const struct uw_host_ops *ops, void *host,
		       unsigned *reads, const struct uw_regs *regs,
		       uint32_t max_depth, uint32_t policy,
		       struct uw_cache *cache, struct fuzz_frame_log *log)
{
	int steps = 0;

	memset(log, 0, sizeof(*log));
	if (uw_init(cur, arch, ops, host, regs) < 0) {
		if (cur->stop.reason != UW_STOP_BAD_ARGUMENT || uw_step(cur) != 0)
			abort();
		return 0;
	}
	cur->max_depth = max_depth;
	cur->policy = policy;
	cur->cache = cache;
	for (;;) {	/* bound: max_depth (<= FUZZ_MAX_FRAMES, checked) */
		int rc;

		*reads = 0;
		rc = uw_step(cur);
		/* The documented per-step bound. */
		if (cur->work > UW_MAX_WORK_PER_STEP)
			abort();
		/* The unwind's budget: never overspent, a stop once spent. */
		if (cur->work_total > cur->max_work ||
		    (cur->stop.reason == UW_STOP_WORK_LIMIT &&
		     cur->stop.addr != cur->work_total))
			abort();
		/* Reads: at most one cache refill (<= 2 reads) per section
		 * byte-run of a work unit, plus register slots; generously:
		 * 64 per unit. */
		if (*reads > 64u * (cur->work + 1))
			abort();
		if (rc != 1)
			break;
		if (++steps > (int)cur->max_depth || steps > FUZZ_MAX_FRAMES)
			abort();
		log->pc[log->n] = uw_pc(cur);
		log->cfa[log->n] = uw_cfa(cur);
		log->regs[log->n] = fuzz_regs_hash(cur);
		log->n++;
	}
	/* Every stop has a reason, and a stopped cursor stays stopped. */
	if (cur->stop.reason == UW_STOP_NONE || uw_step(cur) != 0)
		abort();
	(void)uw_stop_reason_name(cur->stop.reason);
	log->reason = cur->stop.reason;
	log->stop_pc = cur->stop.pc;
	log->stop_addr = cur->stop.addr;
	return 1;
}

/* Whether two unwinds of one input, with and without the row cache (or
 * with a cold and a warm one), agree.  Every frame both produced must be
 * the same, and so must the stop, with one exception: the cache spends
 * less of the unwind's work budget (cursor->max_work), so the run that
 * spent more may stop with UW_STOP_WORK_LIMIT before the other does.
 * Found by this target: the uncached run stopped at its budget after 27
 * frames of a cycle, the cached one went on to the depth limit. */
/* A log on stderr, for the report of a disagreement. */
static inline void fuzz_log_print(const char *what,
				  const struct fuzz_frame_log *l)
{
	fprintf(stderr, "%s: %u frames, stop %u at pc %#llx (%#llx)\n", what,
		l->n, l->reason, (unsigned long long)l->stop_pc,
		(unsigned long long)l->stop_addr);
	for (uint32_t i = 0; i < l->n; i++)	/* bound: FUZZ_MAX_FRAMES */
		fprintf(stderr, "  pc %#llx cfa %#llx\n",
			(unsigned long long)l->pc[i],
			(unsigned long long)l->cfa[i]);
}

static inline int fuzz_logs_agree(const struct fuzz_frame_log *a,
				  const struct fuzz_frame_log *b)
{
	const struct fuzz_frame_log *shorter = a->n <= b->n ? a : b;

	for (uint32_t i = 0; i < shorter->n; i++)	/* bound: FUZZ_MAX_FRAMES */
		if (a->pc[i] != b->pc[i] || a->cfa[i] != b->cfa[i] ||
		    a->regs[i] != b->regs[i])
			return 0;
	/* The same stop, but that a work limit's address is the work spent
	 * when a spend failed: with rows from the cache there is less of it
	 * before, and the spend that fails may be one of several units. */
	if (a->n == b->n && a->reason == b->reason)
		return a->stop_pc == b->stop_pc &&
		       (a->stop_addr == b->stop_addr ||
			a->reason == UW_STOP_WORK_LIMIT);
	if (a->reason == UW_STOP_WORK_LIMIT && a->n <= b->n)
		return 1;
	return b->reason == UW_STOP_WORK_LIMIT && b->n <= a->n;
}

#endif /* UW_FUZZ_COMMON_H */
