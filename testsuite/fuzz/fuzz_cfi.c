/* libFuzzer target for the unwinder core: arbitrary CFI sections,
 * registers and target memory, full unwind with a fake host.
 *
 * Input layout (little endian):
 *   [0]      flags: bit0 i386, bit1 .eh_frame_hdr present, bit2
 *            .debug_frame present, bit3 .eh_frame in target memory (read
 *            through the host) instead of local, bit4 frame-pointer
 *            fallback policy, bit5 non-zero load bias, bit6 .eh_frame
 *            size unknown (only the header locates it)
 *   [1]      max depth
 *   [2..25]  three (u32 length, u32 link-time address): eh_frame_hdr,
 *            eh_frame, debug_frame
 *   [26..29] pc (link-time), [30..31] sp offset into the stack,
 *   [32..33] bp offset, [34..37] mask of defined registers
 *   then the three sections' bytes, then the stack bytes (target memory at
 *   STACK; the same bytes are also readable at the module's text, so
 *   trampoline byte checks can match).
 *
 * Checked: no crash/UB (sanitizers), work per step <= UW_MAX_WORK_PER_STEP,
 * host reads per step bounded, steps <= max depth, a stopped cursor stays
 * stopped, every stop has a reason; the row cache changes no frame, and
 * neither does a compiled table of the same tables (fuzz_compiled).
 */
#include "fuzz_common.h"

#define STACK 0x7fff0000ull
#define BIAS  0x10000000ull

struct fuzz_host {
	const uint8_t *sec_bytes[3];
	uint64_t sec_addr[3], sec_len[3];
	int sec_in_target[3];
	const uint8_t *stack;
	size_t stack_len;
	uint64_t bias;
	struct uw_tables tables;
	unsigned reads;
};

static int fz_read(void *hp, uint64_t addr, void *buf, uint32_t len)
{
	struct fuzz_host *h = hp;

	h->reads++;
	if (fuzz_in(addr, len, STACK, h->stack_len)) {
		memcpy(buf, h->stack + (addr - STACK), len);
		return 0;
	}
	for (int i = 0; i < 3; i++) {	/* bound: 3 sections */
		if (h->sec_in_target[i] &&
		    fuzz_in(addr, len, h->sec_addr[i] + h->bias, h->sec_len[i])) {
			memcpy(buf, h->sec_bytes[i] + (addr - h->sec_addr[i] - h->bias), len);
			return 0;
		}
	}
	/* "text": the stack bytes again, at the module's base */
	if (fuzz_in(addr, len, h->bias, h->stack_len)) {
		memcpy(buf, h->stack + (addr - h->bias), len);
		return 0;
	}
	return -1;
}

static int fz_find(void *hp, uint64_t pc, struct uw_tables *out)
{
	struct fuzz_host *h = hp;

	if (pc >= 0xfff00000u && pc < 0x100000000ull)	/* a hole: no module */
		return -1;
	*out = h->tables;
	return 0;
}

static const struct uw_host_ops fz_ops = { fz_read, fz_find, NULL, NULL };

/* The same tables compiled (runtime/unwind/compile.c), where the core
 * compiles them: local sections, searched by their header's table or, if
 * it has none the search can use, by an index made for them.  Then the
 * walk with the compiled table and the walk by the parse of the same
 * tables must agree (fuzz_logs_agree: frames, registers, stop).  The
 * compile runs in chunks of 3 FDEs, counting first, as the kernel's does;
 * too large for the buffers here: not compared.  Every input. */
static void fuzz_compiled(struct fuzz_host *h, enum uw_arch arch,
			  const struct uw_regs *regs, uint32_t max_depth,
			  uint32_t policy)
{
	static struct uw_cursor cur, scratch;
	static struct uw_compiler comp;
	static struct uw_compiled_row rows[4096];
	static struct uw_compact_row full[64];
	static struct uw_compiled_unpacked unpacked[UW_COMPILE_UNPACKED_MAX];
	static uint32_t index[4096];
	static struct uw_index_entry fdes[1024];
	struct uw_compiled_table table;
	struct uw_tables saved = h->tables, t = h->tables;
	struct fuzz_frame_log parsed, compiled;
	uint64_t eh_frame_addr;
	int n, rc, pass;

	if ((t.eh_frame.size && !t.eh_frame.data) ||
	    (t.eh_frame_hdr.size && !t.eh_frame.size))
		return;
	if (!uw_hdr_searchable(&scratch, arch, &t.eh_frame_hdr, &eh_frame_addr) ||
	    t.debug_frame.size) {
		n = uw_index_build(&scratch, arch, &t, fdes, 1024);
		if (n < 0)
			return;
		t.index = fdes;
		t.index_count = (uint32_t)n;
	}
	for (pass = 0; pass < 2; pass++) {	/* bound: count, then write */
		rc = uw_compile_begin(&comp, arch, &t, pass ? rows : NULL,
				      4096, pass ? full : NULL, 64,
				      pass ? unpacked : NULL,
				      UW_COMPILE_UNPACKED_MAX);
		/* bound: the search's entries, 3 a call */
		while (rc == 0 && (rc = uw_compile_run(&comp, &scratch, 3)) == 1)
			rc = 0;
		if (rc != 0 || comp.count > 4096 || comp.full_count > 64)
			return;
	}
	if (uw_compile_index_size(&comp) > 4096 ||
	    uw_compile_end(&comp, index, 4096, &table) != 0)
		abort();	/* sized as it said */
	h->tables = t;
	if (!fuzz_unwind(&cur, arch, &fz_ops, h, &h->reads, regs, max_depth,
			 policy, NULL, &parsed))
		abort();	/* uw_init took the same input before */
	h->tables.compiled = &table;
	(void)fuzz_unwind(&cur, arch, &fz_ops, h, &h->reads, regs, max_depth,
			  policy, NULL, &compiled);
	h->tables = saved;
	if (!fuzz_logs_agree(&parsed, &compiled)) {
		fuzz_log_print("parsed", &parsed);
		fuzz_log_print("compiled", &compiled);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct uw_cursor cur;
	struct fuzz_host h;
	struct uw_regs regs;
	const uint8_t *p;
	size_t left;
	uint8_t flags;
	int arch32;

	if (size < 38)
		return 0;
	memset(&h, 0, sizeof(h));
	flags = data[0];
	arch32 = flags & 1;
	p = data + 38;
	left = size - 38;
	for (int i = 0; i < 3; i++) {	/* bound: 3 sections */
		uint64_t len = fuzz_le32(data + 2 + 8 * i);

		if (len > left)
			len = left;
		h.sec_bytes[i] = p;
		h.sec_len[i] = len;
		h.sec_addr[i] = fuzz_le32(data + 6 + 8 * i);
		p += len;
		left -= len;
	}
	h.stack = p;
	h.stack_len = left;
	h.bias = (flags & 0x20) ? BIAS : 0;

	h.tables.bias = h.bias;
	h.tables.module = "fuzz";
	h.tables.text_base = 0x1000;
	h.tables.data_base = h.sec_addr[0];
	struct uw_section *secs[3] = { &h.tables.eh_frame_hdr, &h.tables.eh_frame,
				       &h.tables.debug_frame };
	int present[3] = { flags & 2, 1, flags & 4 };
	for (int i = 0; i < 3; i++) {	/* bound: 3 sections */
		if (!present[i])
			continue;
		secs[i]->addr = h.sec_addr[i];
		secs[i]->size = h.sec_len[i];
		secs[i]->data = h.sec_bytes[i];
	}
	if (flags & 8) {
		h.tables.eh_frame.data = NULL;
		h.sec_in_target[1] = 1;
	}
	if ((flags & 0x40) && (flags & 8))
		h.tables.eh_frame.size = 0;

	memset(&regs, 0, sizeof(regs));
	/* arbitrary but recognisable; bound: UW_NREGS */
	for (int i = 0; i < UW_NREGS; i++)
		regs.val[i] = 0x1111111111111111ull * (uint64_t)(i + 1);
	if (arch32) {
		regs.val[8] = fuzz_le32(data + 26) + h.bias;
		regs.val[4] = STACK + (data[30] | data[31] << 8);
		regs.val[5] = STACK + (data[32] | data[33] << 8);
	} else {
		regs.val[16] = fuzz_le32(data + 26) + h.bias;
		regs.val[7] = STACK + (data[30] | data[31] << 8);
		regs.val[6] = STACK + (data[32] | data[33] << 8);
	}
	regs.defined = fuzz_le32(data + 34);

	/* Four unwinds of the same input: without the row cache, with a
	 * cold one, with the same one warm, and with its rows forgotten but
	 * the CIEs it parsed kept (every row parsed again over them).  The
	 * cache must never change a frame or a stop, but for where the work
	 * budget runs out (fuzz_logs_agree), and every step of every run
	 * must stay within the documented bounds. */
	static const char *const run_name[] = {
		"without the cache", "cold cache", "warm cache",
		"new rows, CIEs kept"
	};
	static struct uw_cache_entry entries[16];
	static struct uw_cache cache;
	struct fuzz_frame_log logs[4];
	uw_cache_init(&cache, entries, 16);
	for (int run = 0; run < 4; run++) {	/* bound: 4 runs */
		if (run == 3)
			uw_cache_forget_rows(&cache);
		if (!fuzz_unwind(&cur, arch32 ? UW_ARCH_I386 : UW_ARCH_X86_64,
				 &fz_ops, &h, &h.reads, &regs, data[1] & 0x3f,
				 (flags & 0x10) ? UW_POLICY_ALL : 0,
				 run ? &cache : NULL, &logs[run]))
			return 0;
		if (!(flags & 0x80))	/* the cache runs on half of the inputs */
			break;
		if (run && !fuzz_logs_agree(&logs[run], &logs[0])) {
			fuzz_log_print(run_name[0], &logs[0]);
			fuzz_log_print(run_name[run], &logs[run]);
			abort();
		}
	}
	fuzz_compiled(&h, arch32 ? UW_ARCH_I386 : UW_ARCH_X86_64, &regs,
		      data[1] & 0x3f, (flags & 0x10) ? UW_POLICY_ALL : 0);
	return 0;
}
