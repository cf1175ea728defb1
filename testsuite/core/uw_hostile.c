/* uw_hostile: whole backtraces over hostile unwind tables.
 *
 * Each case is a module whose tables a process could carry to make every
 * step as dear as the core's per-step bounds allow (hostile_cfi.h, which
 * kernel.ustack's hostile process maps too), and a stack of 256
 * frames that all return into that module's hostile function again (the
 * CFA grows by 16 a frame, so no progress check stops it).  The tables are
 * read from "target memory" through read_mem, with no ident (so the row
 * cache cannot help), as a process's own in-memory tables are.
 *
 *   scan   .eh_frame of 65,000 FDEs behind an .eh_frame_hdr that cannot
 *          be searched, then a .debug_frame of 65,000 FDEs: the pc is
 *          covered only by the very last one
 *   insns  one FDE of 4,000 call frame instructions before the pc
 *   exprs  a CFA expression and 15 register expressions of 255
 *          operations each
 * and three controls, which the budget must not cut: ordinary frames of a
 * module with 65,000 FDEs behind a searchable header,
 *   cold20   20 frames (SystemTap's MAXBACKTRACE) of 20 functions,
 *            nothing cached
 *   deep256  256 frames of a recursion through 8 functions, with a row
 *            cache (as the kernel module keeps one per CPU)
 * and the hostile function again, but found through an index:
 *   indexed  scan's tables in local memory with the index uw_index_build
 *            makes of them (in process context, before any probe): 20
 *            frames, each found in log2(130,000) probes
 *
 * usage: uw_hostile            checks: each hostile backtrace stops with
 *                              the work limit, within cursor.max_work,
 *                              and the control is not limited.  Prints
 *                              PASS:/FAIL: lines (testsuite/unit.core)
 *        uw_hostile --time N   the cost of each case's whole backtrace:
 *                              median, p99 and max over N runs after one
 *                              to warm up, in µs (the controls' warm:
 *                              the row cache holds deep256's rows)
 *                              (bench/run.sh; a benchmark, not a test)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../runtime/unwind/unwind_core.h"
#include "../../runtime/unwind/dwarf.h"
#include "../../runtime/unwind/x86_64.h"

#include "check.h"
#include "hostile_cfi.h"

#define NFDE		HOSTILE_NFDE
#define DEPTH		256
#define STACK_ADDR	0x70000000ull
#define CODE_ADDR	0x00400000ull	/* the module's text, link = runtime */
#define HOSTILE_PC	(CODE_ADDR + 0x200000)	/* beyond the filler FDEs */
#define HDR_ADDR	0x10000000ull	/* where the tables are "mapped" */
#define EH_ADDR		0x11000000ull
#define DF_ADDR		0x12000000ull

static uint8_t stack_mem[DEPTH * 16 + 64];
static struct uw_tables mod;

/* Target memory: the stack and the three sections. */
static int region_read(uint64_t addr, void *out, uint32_t len,
		       uint64_t base, const uint8_t *bytes, size_t size)
{
	if (addr < base || addr - base > size || len > size - (addr - base))
		return 1;
	memcpy(out, bytes + (addr - base), len);
	return 0;
}

static int target_read(void *host, uint64_t addr, void *out, uint32_t len)
{
	(void)host;
	if (!region_read(addr, out, len, STACK_ADDR, stack_mem, sizeof(stack_mem)) ||
	    !region_read(addr, out, len, HDR_ADDR, hostile.hdr.b, hostile.hdr.n) ||
	    !region_read(addr, out, len, EH_ADDR, hostile.eh.b, hostile.eh.n) ||
	    !region_read(addr, out, len, DF_ADDR, hostile.df.b, hostile.df.n))
		return 0;
	return -1;
}

static int target_find(void *host, uint64_t pc, struct uw_tables *out)
{
	(void)host;
	if (pc < CODE_ADDR || pc >= CODE_ADDR + 0x400000)
		return -1;
	*out = mod;
	return 0;
}

static const struct uw_host_ops ops = { target_read, target_find, NULL, NULL };

static void reset(void)
{
	memset(&mod, 0, sizeof(mod));
	hostile.hdr.addr = HDR_ADDR;
	hostile.eh.addr = EH_ADDR;
	hostile.df.addr = DF_ADDR;
	hostile_begin(0, CODE_ADDR, HOSTILE_PC);
	mod.module = "hostile";
}

/* The tables, in target memory. */
static void use_sections(void)
{
	mod.eh_frame_hdr.addr = HDR_ADDR;
	mod.eh_frame_hdr.size = hostile.hdr.n;
	mod.eh_frame.addr = EH_ADDR;
	mod.eh_frame.size = hostile.eh.n;
	mod.debug_frame.addr = DF_ADDR;
	mod.debug_frame.size = hostile.df.n;
}

static void build_scan(void)
{
	hostile_scan(1);
	use_sections();
}

static void build_insns(void)
{
	hostile_insns();
	use_sections();
}

static void build_exprs(void)
{
	hostile_exprs();
	use_sections();
}

static void build_indexed(void)
{
	static struct uw_index_entry index[2 * NFDE + 2];
	static struct uw_cursor scratch;
	int n;

	build_scan();
	mod.eh_frame_hdr.data = hostile.hdr.b;
	mod.eh_frame.data = hostile.eh.b;
	mod.debug_frame.data = hostile.df.b;
	n = uw_index_build(&scratch, UW_ARCH_X86_64, &mod, index, 2 * NFDE + 2);
	if (n < 0) {
		fprintf(stderr, "uw_hostile: uw_index_build: %s\n",
			uw_stop_reason_id(scratch.stop.reason));
		exit(1);
	}
	mod.index = index;
	mod.index_count = (uint32_t)n;
}

/* The controls: NFDE ordinary functions of 16 bytes behind a searchable
 * header; the stack's frames return into them in turn. */
static void build_legit(void)
{
	static size_t at[NFDE];
	static uint64_t begin[NFDE];
	static const uint8_t prologue[] = {
		DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16,
		DW_CFA_offset | 6, 2,
		DW_CFA_advance_loc | 3, DW_CFA_def_cfa_register, 6,
		DW_CFA_advance_loc | 8, DW_CFA_def_cfa, 7, 16,
	};
	size_t c = hostile_cie(&hostile.eh);

	for (uint32_t i = 0; i < NFDE; i++) {	/* bound: NFDE */
		begin[i] = CODE_ADDR + 16 * i;
		at[i] = fde(&hostile.eh, c, 1, DW_EH_PE_pcrel | DW_EH_PE_sdata4,
			    begin[i], 16, prologue, sizeof(prologue));
	}
	hostile_put_hdr(at, begin, NFDE);
	use_sections();
}

/* 256 frames of 16 bytes: the return address at cfa - 8 is ret(k). */
static void fill_stack(uint64_t (*ret)(unsigned k))
{
	for (unsigned k = 0; k < DEPTH + 2; k++) {	/* bound: DEPTH + 2 */
		uint64_t ra = ret(k), slot = 16 * k + 8;
		for (int i = 0; i < 8; i++)
			stack_mem[slot + i] = (uint8_t)(ra >> (8 * i));
	}
}

static uint64_t ret_hostile(unsigned k) { (void)k; return HOSTILE_PC + 1; }
/* The controls' pcs: functions far apart in the table, after each
 * prologue (cfa = rsp + 16 from offset 12). */
static uint64_t legit_pc(unsigned fn) { return CODE_ADDR + 16 * ((fn * 7919u) % NFDE) + 13; }
static uint64_t ret_distinct(unsigned k) { return legit_pc(k + 1); }
static uint64_t ret_recursion(unsigned k) { return legit_pc(k % 8); }

struct hostile_case {
	const char *name;
	void (*build)(void);
	uint64_t (*ret)(unsigned k);
	uint64_t pc;
	unsigned depth;	/* cursor.max_depth */
	int cached;	/* a row cache (and tables with an ident) */
	int hostile;	/* 1: must stop at the work limit */
};

static const struct hostile_case cases[] = {
	{ "scan", build_scan, ret_hostile, HOSTILE_PC, DEPTH, 0, 1 },
	{ "insns", build_insns, ret_hostile, HOSTILE_PC, DEPTH, 0, 1 },
	{ "exprs", build_exprs, ret_hostile, HOSTILE_PC, DEPTH, 0, 1 },
	{ "cold20", build_legit, ret_distinct, CODE_ADDR + 13, 20, 0, 0 },
	{ "deep256", build_legit, ret_recursion, CODE_ADDR + 13, DEPTH, 1, 0 },
	{ "indexed", build_indexed, ret_hostile, HOSTILE_PC, 20, 0, 0 },
};

struct outcome {
	unsigned frames;
	uint64_t work;
	struct uw_stop stop;
};

static struct uw_cursor cur;
static struct uw_cache_entry cache_entries[1024];
static struct uw_cache cache;

static struct outcome backtrace(const struct hostile_case *hc)
{
	struct outcome o = { 0 };
	struct uw_regs r;

	memset(&r, 0, sizeof(r));
	r.val[UW_X86_64_RIP] = hc->pc;
	r.val[UW_X86_64_RSP] = STACK_ADDR;
	r.val[UW_X86_64_RBP] = STACK_ADDR;
	r.defined = UW_REG_BIT(UW_X86_64_RIP) | UW_REG_BIT(UW_X86_64_RSP) |
		    UW_REG_BIT(UW_X86_64_RBP);
	if (uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r) < 0)
		return o;
	cur.max_depth = hc->depth;
	if (hc->cached) {
		mod.ident = 1;
		cur.cache = &cache;
	}
	while (uw_step(&cur) == 1)	/* bound: cur.max_depth */
		o.frames++;
	o.work = cur.work_total;
	o.stop = cur.stop;
	return o;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void time_case(const struct hostile_case *hc, int reps)
{
	double *t = calloc(reps, sizeof(*t));
	struct outcome o = { 0 };

	o = backtrace(hc);	/* warm the CPU's caches (and the row cache) */
	for (int i = 0; i < reps; i++) {	/* bound: reps */
		double t0 = now_us();
		o = backtrace(hc);
		t[i] = now_us() - t0;
	}
	qsort(t, reps, sizeof(*t), cmp_double);
	printf("%-8s %4u frames %5llu units  %-12s median %6.1f us  p99 %6.1f us  max %6.1f us\n",
	       hc->name, o.frames, (unsigned long long)o.work,
	       uw_stop_reason_id(o.stop.reason), t[reps / 2],
	       t[(reps * 99) / 100], t[reps - 1]);
	free(t);
}

static void check_case(const struct hostile_case *hc)
{
	struct outcome o = backtrace(hc);
	char name[96];

	if (hc->hostile) {
		snprintf(name, sizeof(name), "hostile %s: stops at the work limit", hc->name);
		CHECK(name, o.stop.reason == UW_STOP_WORK_LIMIT && o.frames < DEPTH);
		snprintf(name, sizeof(name), "hostile %s: work within max_work", hc->name);
		CHECK(name, o.work <= UW_DEFAULT_MAX_WORK && o.stop.addr == o.work);
	} else {
		snprintf(name, sizeof(name), "control %s: %u frames, not limited",
			 hc->name, hc->depth);
		CHECK(name, o.stop.reason == UW_STOP_DEPTH_LIMIT && o.frames == hc->depth);
	}
}

int main(int argc, char **argv)
{
	int reps = argc == 3 && !strcmp(argv[1], "--time") ? atoi(argv[2]) : 0;

	if (argc != 1 && reps <= 0) {
		fprintf(stderr, "usage: uw_hostile [--time N]\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {	/* bound: 6 cases */
		reset();
		uw_cache_init(&cache, cache_entries, 1024);
		cases[i].build();
		fill_stack(cases[i].ret);
		if (reps)
			time_case(&cases[i], reps);
		else
			check_case(&cases[i]);
	}
	return failures != 0;
}
