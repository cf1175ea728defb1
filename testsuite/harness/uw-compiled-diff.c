/* uw-compiled-diff: a compiled table (runtime/unwind/compile.c) against
   the parse it stands for, on real objects.

   For each ELF file named, its tables are compiled as the harness's host
   compiles them (testsuite/harness/ours.c, as the kernel's tracker
   does), and for every link-time pc from the first FDE's start to the
   last one's end (or every --every'th), one step is made from a frame
   at that pc twice, with the compiled table and without it (the parse),
   on the same registers and stack, the compiled table's step with a row
   cache as the harness's and the kernel's steps have one (so the frames
   of a pc after its first take the row kept by the pc, and a row kept
   for the same pc of another object must not serve): the step's result
   (stepped or the stop
   and its detail) and the caller's registers (which are defined, and
   their values), CFA and pc must be the same.  Four frames a pc: every
   register defined over a stack of distinct words; the callee-saved
   registers and the bp undefined; a stack that ends a few words above
   the sp; a caller's frame, whose pc is a return address one above.
   Prints per file the pcs, the steps that differ (the first few
   in full), and the compile's figures: rows, rows left to the parse (by
   reason), bytes a row and per object against .eh_frame, build time.

   usage: uw-compiled-diff [--every N] FILE...
   Exit: 0 = every step the same, 1 = a difference, 2 = usage or a file
   that cannot be compiled.  */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ours.h"
#include "../../runtime/unwind/x86_64.h"
#include "../../runtime/unwind/i386.h"

/* The stack the steps read: [STACK_LO, STACK_LO + STACK_SIZE), each
   8-byte word holding a value its address gives, so that every slot reads
   as something else. */
#define STACK_LO	0x7ffe00000000ull
#define STACK_SIZE	0x20000u
#define STACK_SP	(STACK_LO + STACK_SIZE / 2)

struct host {
	uint64_t lo, hi;		/* the readable stack */
	struct uw_tables tables;	/* what find_tables gives */
};

static uint64_t word_at(uint64_t addr)
{
	return (addr * 0x9e3779b97f4a7c15ull) ^ 0x5a5a5a5a00000000ull;
}

static int host_read(void *arg, uint64_t addr, void *buf, uint32_t len)
{
	const struct host *h = arg;
	uint8_t *out = buf;

	if (addr < h->lo || addr > h->hi || len > h->hi - addr)
		return -1;
	for (uint32_t i = 0; i < len; i++) {
		uint64_t a = addr + i;
		out[i] = (uint8_t)(word_at(a & ~7ull) >> (8 * (a & 7)));
	}
	return 0;
}

static int host_find(void *arg, uint64_t pc, struct uw_tables *out)
{
	const struct host *h = arg;

	if (pc < h->tables.pc_lo || pc >= h->tables.pc_hi)
		return -1;
	*out = h->tables;
	return 0;
}

static const struct uw_host_ops ops = { host_read, host_find, NULL, NULL };

/* One step's outcome, all a caller can see of it. */
struct outcome {
	int rc;
	uint32_t work;			/* units the step spent */
	enum uw_stop_reason reason;
	uint64_t addr, frame_cfa;
	uint64_t pc, cfa;
	int exact;
	enum uw_how how;
	uint32_t defined;
	uint64_t val[UW_NREGS];
};

static struct uw_cursor cursor;
/* The compiled table's steps' row cache, over every file. */
static struct uw_cache row_cache;
static struct uw_cache_entry row_entries[1024];

static void step(struct host *h, enum uw_arch arch, const struct uw_regs *regs,
		 bool caller, struct uw_cache *cache, struct outcome *o)
{
	memset(o, 0, sizeof *o);
	if (uw_init(&cursor, arch, &ops, h, regs) != 0) {
		o->rc = -1;
		o->reason = cursor.stop.reason;
		return;
	}
	/* A caller's frame: its pc a return address, its row that of the
	   pc below it. */
	if (caller)
		cursor.pc_is_exact = 0;
	cursor.cache = cache;
	/* The rows compared, not the walk's work budget: a pc deep in a
	   large FDE costs its parse more than UW_DEFAULT_MAX_WORK, where the
	   compiled table's step costs a few units (counted apart). */
	cursor.max_work = ~(uint32_t)0;
	o->rc = uw_step(&cursor);
	o->work = cursor.work;
	o->reason = cursor.stop.reason;
	o->addr = cursor.stop.addr;
	o->frame_cfa = cursor.frame_cfa;
	if (o->rc != 1)
		return;
	o->pc = uw_pc(&cursor);
	o->cfa = uw_cfa(&cursor);
	o->exact = cursor.pc_is_exact;
	o->how = cursor.how;
	o->defined = cursor.regs->defined;
	for (unsigned r = 0; r < UW_NREGS; r++)
		if (o->defined & UW_REG_BIT(r))
			o->val[r] = cursor.regs->val[r];
}

static void show(const char *what, const struct outcome *o)
{
	printf("    %s: rc %d stop %s addr %#" PRIx64 " frame_cfa %#" PRIx64
	       " pc %#" PRIx64 " cfa %#" PRIx64 " defined %#x", what, o->rc,
	       uw_stop_reason_name(o->reason), o->addr, o->frame_cfa, o->pc, o->cfa,
	       o->defined);
	for (unsigned r = 0; r < UW_NREGS; r++)
		if (o->defined & UW_REG_BIT(r))
			printf(" r%u=%#" PRIx64, r, o->val[r]);
	printf("\n");
}

/* The frames of one pc: 0 every register, 1 callee-saved and bp
   undefined, 2 a stack ending 3 words above the sp, 3 a caller's frame
   whose return address is the pc + 1 (its lookup pc the pc: a row that
   reads the pc itself, as a PLT's CFA does, must see the return
   address). */
#define VARIANTS 4
#define VARIANT_CALLER 3

static void frame_regs(enum uw_arch arch, int variant, uint64_t pc, struct uw_regs *r,
		       struct host *h)
{
	const bool i386 = arch == UW_ARCH_I386;
	const unsigned sp = i386 ? UW_I386_ESP : UW_X86_64_RSP;
	const unsigned bp = i386 ? UW_I386_EBP : UW_X86_64_RBP;
	const unsigned ra = i386 ? UW_I386_EIP : UW_X86_64_RIP;
	const uint64_t mask = i386 ? 0xffffffffu : ~0ull;
	const uint64_t stack = i386 ? 0xff800000ull : STACK_LO;
	const uint64_t spv = stack + STACK_SIZE / 2 + (pc & 0x38);

	memset(r, 0, sizeof *r);
	for (unsigned i = 0; i < UW_NREGS; i++)
		r->val[i] = word_at(0x1000 + i) & mask;
	r->val[sp] = spv;
	r->val[bp] = spv + 0x40;
	r->val[ra] = pc;
	r->defined = i386 ? UW_I386_ALL : UW_X86_64_ALL;
	h->lo = stack;
	h->hi = stack + STACK_SIZE;
	if (variant == 1)
		r->defined &= ~(i386 ? UW_I386_CALLEE_SAVED : UW_X86_64_CALLEE_SAVED);
	if (variant == 2)
		h->hi = spv + 3 * (i386 ? 4 : 8);
	if (variant == VARIANT_CALLER)
		r->val[ra] = (pc + 1) & mask;
}

static bool same(const struct outcome *a, const struct outcome *b)
{
	if (a->rc != b->rc || a->reason != b->reason || a->addr != b->addr ||
	    a->frame_cfa != b->frame_cfa)
		return false;
	if (a->rc != 1)
		return true;
	return a->pc == b->pc && a->cfa == b->cfa && a->exact == b->exact && a->how == b->how &&
	       a->defined == b->defined && memcmp(a->val, b->val, sizeof a->val) == 0;
}

static const char *const why_names[UW_COMPILE_WHYS] = {
	[UW_COMPILE_WHY_EXPRESSION] = "expression",
	[UW_COMPILE_WHY_CFA] = "cfa",
	[UW_COMPILE_WHY_RETURN] = "return",
	[UW_COMPILE_WHY_SAVED] = "saved",
	[UW_COMPILE_WHY_OTHER] = "other",
	[UW_COMPILE_WHY_SIGNAL] = "signal",
	[UW_COMPILE_WHY_STOPS] = "stops",
	[UW_COMPILE_WHY_PLT] = "plt",
};

/* The pcs the table covers: from its base to its last row's start. */
static int check_file(struct uw_elf_cache *cache, const char *path, uint64_t every,
		      long *total_pcs, long *total_diff)
{
	struct host h = { 0 };
	enum uw_arch arch;
	const struct uw_compile_stats *st;
	double ns;
	struct outcome a, b;
	struct uw_regs regs;
	long pcs = 0, diff = 0, shown = 0, over = 0;

	if (!uw_elf_file_tables(cache, path, &h.tables, &arch, &st, &ns)) {
		printf("%s: no unwind tables\n", path);
		return 0;
	}
	const struct uw_compiled_table *ct = h.tables.compiled;
	if (!ct || !st) {
		printf("%s: not compiled (tables no search serves)\n", path);
		return 2;
	}
	const uint64_t lo = ct->base, hi = ct->base + ct->rows[ct->count - 1].start;
	const uint64_t mask = arch == UW_ARCH_I386 ? 0xffffffffu : ~0ull;
	const size_t bytes = ct->count * sizeof *ct->rows + ct->index_count * sizeof *ct->index +
			     ct->full_count * sizeof *ct->full +
			     ct->unpacked_count * sizeof *ct->unpacked;
	struct uw_tables compiled = h.tables, parsed = h.tables;

	parsed.compiled = NULL;
	/* pcs are link-time: bias 0; the range find_tables answers for. */
	compiled.pc_lo = parsed.pc_lo = lo;
	compiled.pc_hi = parsed.pc_hi = hi + 1;
	for (uint64_t pc = lo; pc < hi; pc += every) {
		for (int v = 0; v < VARIANTS; v++) {
			frame_regs(arch, v, pc & mask, &regs, &h);
			h.tables = compiled;
			step(&h, arch, &regs, v == VARIANT_CALLER, &row_cache, &a);
			h.tables = parsed;
			step(&h, arch, &regs, v == VARIANT_CALLER, NULL, &b);
			if (v == 0 && b.work > UW_DEFAULT_MAX_WORK)
				over++;
			if (!same(&a, &b)) {
				diff++;
				if (shown++ < 5) {
					printf("  DIFF %s pc %#" PRIx64 " frame %d\n", path, pc, v);
					show("compiled", &a);
					show("parsed  ", &b);
				}
			}
		}
		pcs++;
	}
	printf("%s: %s, %ld pcs x %d frames, %ld differ; %u FDEs, %u rows, not compact %u (",
	       path, arch == UW_ARCH_I386 ? "i386" : "x86_64", pcs, VARIANTS, diff, st->fdes,
	       st->rows, st->full_rows + st->parse_rows);
	for (int w = 0; w < UW_COMPILE_WHYS; w++)
		if (st->why[w])
			printf(" %s %u", why_names[w], st->why[w]);
	printf(" ): full %u (%.2f%% of rows, %.2f%% of code), parsed %u (%.2f%%, %.2f%%);"
	       " table %u entries + %u index words + %u full rows + %u unpacked rules"
	       " = %zu bytes (%.1f a row),"
	       " .eh_frame %" PRIu64 " + .eh_frame_hdr %" PRIu64 " bytes; compiled in %.2f ms\n",
	       st->full_rows, st->rows ? 100.0 * st->full_rows / st->rows : 0.0,
	       st->bytes ? 100.0 * st->full_bytes / st->bytes : 0.0,
	       st->parse_rows, st->rows ? 100.0 * st->parse_rows / st->rows : 0.0,
	       st->bytes ? 100.0 * st->parse_bytes / st->bytes : 0.0, ct->count, ct->index_count,
	       ct->full_count, ct->unpacked_count, bytes,
	       st->rows ? (double)bytes / st->rows : 0.0,
	       h.tables.eh_frame.size, h.tables.eh_frame_hdr.size, ns / 1e6);
	if (over)
		printf("%s: at %ld pcs the parse spends more than a walk's budget (%d units)\n", path,
		       over, UW_DEFAULT_MAX_WORK);
	*total_pcs += pcs;
	*total_diff += diff;
	return diff ? 1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t every = 1;
	int i = 1, worst = 0;
	long pcs = 0, diff = 0;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--every") == 0 && i + 1 < argc)
			every = strtoull(argv[++i], NULL, 0);
		else
			break;
	}
	if (i == argc || every == 0) {
		fprintf(stderr, "usage: uw-compiled-diff [--every N] FILE...\n");
		return 2;
	}
	struct uw_elf_cache *cache = uw_elf_cache_new();
	uw_cache_init(&row_cache, row_entries, sizeof row_entries / sizeof row_entries[0]);
	for (; i < argc; i++) {
		int rc = check_file(cache, argv[i], every, &pcs, &diff);
		if (rc > worst)
			worst = rc;
	}
	printf("uw-compiled-diff: %ld pcs, %ld steps differ\n", pcs, diff);
	uw_elf_cache_free(cache);
	return diff ? 1 : worst;
}
