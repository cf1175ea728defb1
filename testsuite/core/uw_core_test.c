/* Unit tests of the unwinder core with hand-built CFI bytes and a fake
 * host (memory regions + one module).  One line per check:
 * "PASS: name" / "FAIL: name (details)".  Exit status 1 if any failed.
 * Built -m64 and -m32 (the core itself handles both target arches either
 * way), with ASan+UBSan.
 */
#include <stdio.h>
#include <string.h>

#include "../../runtime/unwind/unwind_core.h"
#include "../../runtime/unwind/uw_internal.h"	/* the parsed row: uw_row_rule */
#include "../../runtime/unwind/x86_64.h"
#include "../../runtime/unwind/i386.h"

#include "check.h"
#include "cfi_build.h"

/* ---- fake host ---------------------------------------------------- */

#define STACK_ADDR 0x70000000ull
#define CODE_ADDR  0x00400000ull	/* module [CODE_ADDR, +0x10000) */
#define TRAMP_ADDR 0x00500000ull	/* no tables here */

static uint8_t stack_mem[4096];
static uint8_t tramp_mem[64];
static uint8_t target_sec[4096];	/* a CFI section living in "target" memory */
static uint64_t target_sec_addr;
static struct uw_tables mod;
static int have_mod;
static uint64_t trace_lookup, trace_fde_begin;
static int trace_fde_seen, trace_fp_seen;

/* Reads of the stack (STACK_ADDR's page and the page above it), counted
 * for the stack window's tests: how many, and how many failed. */
static int stack_reads, stack_reads_failed;
/* Reads asked below UW_DEFAULT_MIN_CODE, where nothing is mapped. */
static int low_reads;

static int fake_read(void *host, uint64_t addr, void *buf, uint32_t len)
{
	(void)host;
	if (addr < UW_DEFAULT_MIN_CODE)
		low_reads++;
	if (addr >= STACK_ADDR && addr < STACK_ADDR + 2 * sizeof(stack_mem)) {
		stack_reads++;
		if (addr + len > STACK_ADDR + sizeof(stack_mem))
			stack_reads_failed++;
	}
	if (addr >= STACK_ADDR && addr + len <= STACK_ADDR + sizeof(stack_mem) && addr + len >= addr) {
		memcpy(buf, stack_mem + (addr - STACK_ADDR), len);
		return 0;
	}
	if (addr >= TRAMP_ADDR && addr + len <= TRAMP_ADDR + sizeof(tramp_mem)) {
		memcpy(buf, tramp_mem + (addr - TRAMP_ADDR), len);
		return 0;
	}
	if (target_sec_addr && addr >= target_sec_addr &&
	    addr + len <= target_sec_addr + sizeof(target_sec)) {
		memcpy(buf, target_sec + (addr - target_sec_addr), len);
		return 0;
	}
	return -1;
}

/* A second module (the tables' test): mod's tables mapped again at
 * CODE_ADDR + MOD2_BIAS, when have_mod2.  finds counts find_tables. */
#define MOD2_BIAS 0x100000ull
static int have_mod2, finds;

static int fake_find(void *host, uint64_t pc, struct uw_tables *out)
{
	(void)host;
	finds++;
	if (have_mod2 && pc - (CODE_ADDR + MOD2_BIAS) < 0x10000) {
		*out = mod;
		out->bias = MOD2_BIAS;
		if (mod.pc_hi) {
			out->pc_lo = mod.pc_lo + MOD2_BIAS;
			out->pc_hi = mod.pc_hi + MOD2_BIAS;
		}
		return 0;
	}
	if (!have_mod || pc < CODE_ADDR || pc >= CODE_ADDR + 0x10000)
		return -1;
	*out = mod;
	return 0;
}

static void fake_trace(void *host, enum uw_trace_event ev, uint64_t a, uint64_t b)
{
	(void)host;
	if (ev == UW_TR_TABLES)
		trace_lookup = b;
	if (ev == UW_TR_FDE) {
		trace_fde_begin = a;
		trace_fde_seen = 1;
	}
	if (ev == UW_TR_FP_FALLBACK)
		trace_fp_seen = 1;
}

static const struct uw_host_ops ops = { fake_read, fake_find, fake_trace, NULL };

/* A host that knows one trampoline (a uretprobe's, say) at TRAMP_ADDR +
 * 0x30, standing for ret_real when read from the slot ret_slot: what the
 * core passes it, and what it answers. */
static uint64_t ret_slot, ret_real, ret_asked_slot;
static int ret_asked;

static int fake_return_address(void *host, uint64_t ra, uint64_t slot, uint64_t *real)
{
	(void)host;
	ret_asked++;
	ret_asked_slot = slot;
	if (ra != TRAMP_ADDR + 0x30)
		return 0;
	if (slot != ret_slot)
		return -1;
	*real = ret_real;
	return 1;
}

static const struct uw_host_ops ret_ops = { fake_read, fake_find, fake_trace, fake_return_address };

static void st_put(uint64_t addr, uint64_t v, int size)
{
	for (int i = 0; i < size; i++)
		stack_mem[addr - STACK_ADDR + i] = (uint8_t)(v >> (8 * i));
}

/* ---- scenario helpers ------------------------------------------------- */

static struct uw_cursor cur;
static struct buf eh;
/* cursor.max_work for step64: the per-step bounds' tests lift the
 * unwind's budget to what one step may cost. */
static uint32_t g_max_work;

static const uint8_t cie64_ins[] = { 0x0c, 7, 8, 0x90, 1 };	/* cfa=rsp+8, rip@cfa-8 */
static const uint8_t cie32_ins[] = { 0x0c, 4, 4, 0x88, 1 };	/* cfa=esp+4, eip@cfa-4 */

static void reset(void)
{
	memset(stack_mem, 0, sizeof(stack_mem));
	memset(&mod, 0, sizeof(mod));
	memset(&eh, 0, sizeof(eh));
	memset(tramp_mem, 0, sizeof(tramp_mem));
	target_sec_addr = 0;
	have_mod = have_mod2 = 0;
	trace_fde_seen = trace_fp_seen = 0;
	trace_lookup = trace_fde_begin = 0;
	g_datarel = g_textrel = 0;
	g_asize = 8;
	g_max_work = UW_DEFAULT_MAX_WORK;
	eh.addr = CODE_ADDR + 0x8000;
}

static void use_eh(void)
{
	mod.eh_frame.data = eh.b;
	mod.eh_frame.addr = eh.addr;
	mod.eh_frame.size = eh.n;
	mod.module = "test";
	have_mod = 1;
}

/* Standard x86_64 module: FDE [CODE+0x100, +0x100) with given insns. */
static void mod64(const uint8_t *ins, size_t n)
{
	size_t c = cie(&eh, 1, "zR", -8, 16, 0x1b, cie64_ins, sizeof(cie64_ins));
	fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100, 0x100, ins, n);
	use_eh();
}

static void regs64(struct uw_regs *r, uint64_t pc, uint64_t sp)
{
	memset(r, 0, sizeof(*r));
	r->val[UW_X86_64_RIP] = pc;
	r->val[UW_X86_64_RSP] = sp;
	r->defined = UW_REG_BIT(UW_X86_64_RIP) | UW_REG_BIT(UW_X86_64_RSP);
}

/* One step of a 64-bit frame at pc with rsp = STACK+0x100, [rsp] = RA. */
static int step64(uint64_t pc, struct uw_regs *r)
{
	uint64_t sp = STACK_ADDR + 0x100;
	struct uw_regs local;

	if (!r) {
		r = &local;
		regs64(r, pc, sp);
	}
	st_put(sp, 0x123456, 8);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, r);
	cur.max_work = g_max_work;
	return uw_step(&cur);
}

/* ---- tests -------------------------------------------------------------- */

static void test_basic_x86_64(void)
{
	/* push %rbp; mov %rsp,%rbp */
	static const uint8_t ins[] = {
		0x41, 0x0e, 16, 0x86, 2,	/* adv 1; cfa_off 16; rbp@cfa-16 */
		0x43, 0x0d, 6,			/* adv 3; cfa_reg rbp */
	};
	struct uw_regs r;
	uint64_t sp = STACK_ADDR + 0x200, v;

	reset();
	mod64(ins, sizeof(ins));
	tramp_mem[0x2b] = 0xe8;		/* a call returns to TRAMP_ADDR + 0x30 */
	/* pc at +0x105, after the frame setup: CFA = rbp + 16 */
	regs64(&r, CODE_ADDR + 0x105, sp);
	r.val[UW_X86_64_RBP] = sp;
	r.val[UW_X86_64_RBX] = 0xb0b;
	r.val[UW_X86_64_RAX] = 0xa;
	r.defined |= UW_REG_BIT(UW_X86_64_RBP) | UW_REG_BIT(UW_X86_64_RBX) | UW_REG_BIT(UW_X86_64_RAX);
	st_put(sp, 0x5a7ed, 8);
	st_put(sp + 8, TRAMP_ADDR + 0x30, 8);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	CHECK("x86_64 basic: step ok", uw_step(&cur) == 1);
	CHECK("x86_64 basic: caller pc", uw_pc(&cur) == TRAMP_ADDR + 0x30);
	CHECK("x86_64 basic: caller sp = cfa", uw_sp(&cur) == sp + 16 && uw_cfa(&cur) == sp + 16);
	CHECK("x86_64 basic: rbp restored", uw_get_reg(&cur, 6, &v) == 0 && v == 0x5a7ed);
	CHECK("x86_64 basic: rbx same value", uw_get_reg(&cur, 3, &v) == 0 && v == 0xb0b);
	CHECK("x86_64 basic: rax undefined", uw_get_reg(&cur, 0, &v) < 0);
	CHECK("x86_64 basic: first frame looked up at pc", trace_lookup == CODE_ADDR + 0x105);
	CHECK("x86_64 basic: row kinds", uw_row_rule(&cur, 6)->kind == UW_RULE_OFFSET &&
	      uw_row_rule(&cur, 6)->offset == -16 && cur.state.row.cfa_reg == 6 && cur.state.row.cfa_offset == 16);
	CHECK("x86_64 basic: how = CFI, pc not exact", cur.how == UW_HOW_CFI && !cur.pc_is_exact);
	/* next: no tables at TRAMP_ADDR (a call and zero bytes there) */
	CHECK("x86_64 basic: stops", uw_step(&cur) == 0);
	CHECK("x86_64 basic: NO_UNWIND_DATA, lookup pc-1",
	      cur.stop.reason == UW_STOP_NO_UNWIND_DATA && cur.stop.pc == TRAMP_ADDR + 0x30 &&
	      cur.stop.addr == TRAMP_ADDR + 0x2f);
	CHECK("x86_64 basic: stays stopped", uw_step(&cur) == 0);

	/* At pc +0x101 (after push, before mov): CFA = rsp + 16 */
	regs64(&r, CODE_ADDR + 0x101, sp);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	CHECK("x86_64 basic: mid-prologue row", uw_step(&cur) == 1 && uw_cfa(&cur) == sp + 16 &&
	      uw_pc(&cur) == TRAMP_ADDR + 0x30);
	/* Same module, pc outside any FDE */
	regs64(&r, CODE_ADDR + 0x300, sp);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	CHECK("x86_64 basic: pc outside FDEs", uw_step(&cur) == 0 &&
	      cur.stop.reason == UW_STOP_NO_UNWIND_DATA && cur.stop.module && !strcmp(cur.stop.module, "test"));
}

/* The host's return_address: a trampoline in place of the return address
 * is replaced by the address the host keeps for its slot (the word below
 * the CFA); one it cannot resolve stops the walk with UW_STOP_TRAMPOLINE,
 * the trampoline not reported as a frame. */
static void test_return_trampoline(void)
{
	static const uint8_t ins[] = {
		0x41, 0x0e, 16, 0x86, 2,	/* adv 1; cfa_off 16; rbp@cfa-16 */
		0x43, 0x0d, 6,			/* adv 3; cfa_reg rbp */
	};
	struct uw_regs r;
	uint64_t sp = STACK_ADDR + 0x200;

	reset();
	mod64(ins, sizeof(ins));
	tramp_mem[0x2b] = 0xe8;
	regs64(&r, CODE_ADDR + 0x105, sp);
	r.val[UW_X86_64_RBP] = sp;
	r.defined |= UW_REG_BIT(UW_X86_64_RBP);
	st_put(sp, 0x5a7ed, 8);
	st_put(sp + 8, TRAMP_ADDR + 0x30, 8);
	ret_slot = sp + 8;
	ret_real = CODE_ADDR + 0x208;
	ret_asked = 0;
	uw_init(&cur, UW_ARCH_X86_64, &ret_ops, NULL, &r);
	CHECK("trampoline: step ok", uw_step(&cur) == 1);
	CHECK("trampoline: asked with the slot below the CFA", ret_asked == 1 && ret_asked_slot == sp + 8);
	CHECK("trampoline: caller pc is the real return address", uw_pc(&cur) == CODE_ADDR + 0x208);
	CHECK("trampoline: caller sp = cfa", uw_sp(&cur) == sp + 16);

	/* Another slot: the host cannot resolve it. */
	ret_slot = sp + 0x40;
	regs64(&r, CODE_ADDR + 0x105, sp);
	r.val[UW_X86_64_RBP] = sp;
	r.defined |= UW_REG_BIT(UW_X86_64_RBP);
	uw_init(&cur, UW_ARCH_X86_64, &ret_ops, NULL, &r);
	CHECK("trampoline unresolved: stops", uw_step(&cur) == 0);
	CHECK("trampoline unresolved: TRAMPOLINE at the frame, addr = the trampoline",
	      cur.stop.reason == UW_STOP_TRAMPOLINE && cur.stop.pc == CODE_ADDR + 0x105 &&
	      cur.stop.addr == TRAMP_ADDR + 0x30 && cur.depth == 0);
	CHECK("trampoline unresolved: named", !strcmp(uw_stop_reason_id(cur.stop.reason), "return_trampoline"));

	/* Without the hook, the trampoline is a frame as before. */
	regs64(&r, CODE_ADDR + 0x105, sp);
	r.val[UW_X86_64_RBP] = sp;
	r.defined |= UW_REG_BIT(UW_X86_64_RBP);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	CHECK("trampoline without the hook: a frame", uw_step(&cur) == 1 && uw_pc(&cur) == TRAMP_ADDR + 0x30);
}

static void test_cfa_insns(void)
{
	struct { const char *name; uint8_t ins[24]; size_t n; int reg; int kind; int64_t off; int rreg; } t[] = {
		{ "DW_CFA_offset", { 0x83, 2 }, 2, 3, UW_RULE_OFFSET, -16, 0 },
		{ "DW_CFA_offset_extended", { 0x05, 3, 2 }, 3, 3, UW_RULE_OFFSET, -16, 0 },
		{ "DW_CFA_offset_extended_sf", { 0x11, 3, 0x7e }, 3, 3, UW_RULE_OFFSET, 16, 0 },
		{ "DW_CFA_val_offset", { 0x14, 3, 1 }, 3, 3, UW_RULE_VAL_OFFSET, -8, 0 },
		{ "DW_CFA_val_offset_sf", { 0x15, 3, 0x7f }, 3, 3, UW_RULE_VAL_OFFSET, 8, 0 },
		{ "DW_CFA_GNU_negative_offset_extended", { 0x2f, 3, 2 }, 3, 3, UW_RULE_OFFSET, 16, 0 },
		{ "DW_CFA_undefined", { 0x07, 3 }, 2, 3, UW_RULE_UNDEFINED, 0, 0 },
		{ "DW_CFA_same_value", { 0x08, 3 }, 2, 3, UW_RULE_SAME_VALUE, 0, 0 },
		{ "DW_CFA_register", { 0x09, 3, 12 }, 3, 3, UW_RULE_REGISTER, 0, 12 },
		{ "DW_CFA_restore", { 0x83, 2, 0xc3 }, 3, 3, UW_RULE_SAME_VALUE, 0, 0 },
		{ "DW_CFA_restore_extended", { 0x83, 2, 0x06, 3 }, 4, 3, UW_RULE_SAME_VALUE, 0, 0 },
		{ "DW_CFA_remember/restore_state", { 0x83, 2, 0x0a, 0x07, 3, 0x0b }, 6, 3, UW_RULE_OFFSET, -16, 0 },
		/* a rule first set after remember_state goes back to the CIE's */
		{ "DW_CFA_restore_state to the CIE's rule", { 0x0a, 0x83, 2, 0x0b }, 4, 3, UW_RULE_SAME_VALUE, 0, 0 },
		{ "DW_CFA_restore_state nested", { 0x0a, 0x83, 2, 0x0a, 0x83, 3, 0x0b, 0x0b }, 8, 3, UW_RULE_SAME_VALUE, 0, 0 },
		{ "DW_CFA_expression", { 0x10, 3, 2, 0x77, 0 }, 5, 3, UW_RULE_EXPRESSION, 0, 0 },
		{ "DW_CFA_val_expression", { 0x16, 3, 2, 0x77, 0 }, 5, 3, UW_RULE_VAL_EXPRESSION, 0, 0 },
		{ "DW_CFA_nop/args_size/window_save", { 0x00, 0x2e, 8, 0x2d, 0x83, 1 }, 6, 3, UW_RULE_OFFSET, -8, 0 },
		{ "advance_loc1 past pc", { 0x02, 0x40, 0x83, 1 }, 4, 3, UW_RULE_SAME_VALUE, 0, 0 },
		{ "advance_loc2 past pc", { 0x03, 0x40, 0, 0x83, 1 }, 5, 3, UW_RULE_SAME_VALUE, 0, 0 },
		{ "advance_loc4 past pc", { 0x04, 0x40, 0, 0, 0, 0x83, 1 }, 7, 3, UW_RULE_SAME_VALUE, 0, 0 },
		{ "MIPS_advance_loc8 past pc", { 0x1d, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x83, 1 }, 11, 3, UW_RULE_SAME_VALUE, 0, 0 },
		{ "advance_loc1 before pc", { 0x02, 0x10, 0x83, 1 }, 4, 3, UW_RULE_OFFSET, -8, 0 },
		{ "DW_CFA_set_loc past pc", { 0x01, 0, 0, 0, 0, 0x83, 1 }, 7, 3, UW_RULE_SAME_VALUE, 0, 0 },
	};
	char name[128];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		reset();
		if (!strcmp(t[i].name, "DW_CFA_set_loc past pc")) {
			/* set_loc uses the FDE encoding (pcrel sdata4): target 0x140 */
			size_t c = cie(&eh, 1, "zR", -8, 16, 0x1b, cie64_ins, sizeof(cie64_ins));
			uint8_t ins[8] = { 0x01 };
			size_t f = eh.n;
			fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100, 0x100, ins, 7);
			/* patch operand: field at f + 4 + 4 + 4 + 4 + 1 + 1 */
			size_t field = f + 18;
			uint32_t rel = (uint32_t)(CODE_ADDR + 0x140 - (eh.addr + field));
			patch32(&eh, field, rel);
			eh.b[field + 4] = 0x83;
			eh.b[field + 5] = 1;
			use_eh();
		} else {
			mod64(t[i].ins, t[i].n);
		}
		step64(CODE_ADDR + 0x120, NULL);
		const struct uw_reg_rule *rr = uw_row_rule(&cur, (unsigned)t[i].reg);
		snprintf(name, sizeof(name), "cfa insn %s", t[i].name);
		CHECK(name, trace_fde_seen && rr->kind == t[i].kind &&
		      (t[i].kind != UW_RULE_OFFSET && t[i].kind != UW_RULE_VAL_OFFSET ? 1 : rr->offset == t[i].off) &&
		      (t[i].kind != UW_RULE_REGISTER || rr->reg == t[i].rreg));
	}

	/* DW_CFA_restore in an FDE goes back to the CIE's own rule for the
	 * register (rbx at cfa-24 here), not the ABI's: once from the CIE's
	 * row as the CIE cache keeps it, once from a CIE whose row it cannot
	 * keep (an advance in the CIE). */
	{
		static const uint8_t cie_kept[] = { 0x0c, 7, 8, 0x90, 1, 0x83, 3 };
		static const uint8_t cie_advancing[] = { 0x0c, 7, 8, 0x90, 1, 0x83, 3, 0x41 };
		static const uint8_t fde_ins[] = { 0x83, 2, 0xc3 };	/* rbx@cfa-16; restore rbx */
		const struct { const char *n; const uint8_t *p; size_t len; } cc[] = {
			{ "its row kept", cie_kept, sizeof(cie_kept) },
			{ "its row not kept", cie_advancing, sizeof(cie_advancing) },
		};
		for (size_t i = 0; i < 2; i++) {
			size_t c;

			reset();
			c = cie(&eh, 1, "zR", -8, 16, 0x1b, cc[i].p, cc[i].len);
			fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100, 0x100, fde_ins, sizeof(fde_ins));
			use_eh();
			step64(CODE_ADDR + 0x120, NULL);
			const struct uw_reg_rule *rr = uw_row_rule(&cur, 3);
			snprintf(name, sizeof(name), "cfa insn DW_CFA_restore to the CIE's rule, %s", cc[i].n);
			CHECK(name, trace_fde_seen && rr->kind == UW_RULE_OFFSET && rr->offset == -24);
		}
	}

	/* CFA rules */
	{
		static const uint8_t a[] = { 0x0c, 6, 32 };		/* def_cfa rbp+32 */
		static const uint8_t b[] = { 0x12, 6, 0x7c };		/* def_cfa_sf rbp, -4*-8=32 */
		static const uint8_t c[] = { 0x13, 0x7e };		/* def_cfa_offset_sf -2*-8=16 */
		static const uint8_t d[] = { 0x0f, 2, 0x77, 24 };	/* def_cfa_expression rsp+24 */
		const struct { const char *n; const uint8_t *p; size_t len; uint64_t cfa; int kind; } cc[] = {
			{ "DW_CFA_def_cfa", a, sizeof(a), STACK_ADDR + 0x80 + 32, UW_CFA_REG_OFFSET },
			{ "DW_CFA_def_cfa_sf", b, sizeof(b), STACK_ADDR + 0x80 + 32, UW_CFA_REG_OFFSET },
			{ "DW_CFA_def_cfa_offset_sf", c, sizeof(c), STACK_ADDR + 0x100 + 16, UW_CFA_REG_OFFSET },
			{ "DW_CFA_def_cfa_expression", d, sizeof(d), STACK_ADDR + 0x100 + 24, UW_CFA_EXPRESSION },
		};
		for (size_t i = 0; i < 4; i++) {
			struct uw_regs r;
			reset();
			mod64(cc[i].p, cc[i].len);
			regs64(&r, CODE_ADDR + 0x120, STACK_ADDR + 0x100);
			r.val[6] = STACK_ADDR + 0x80;
			r.defined |= UW_REG_BIT(6);
			st_put(cc[i].cfa - 8, 0x777777, 8);
			uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
			snprintf(name, sizeof(name), "cfa rule %s", cc[i].n);
			CHECK(name, uw_step(&cur) == 1 && uw_cfa(&cur) == cc[i].cfa &&
			      uw_pc(&cur) == 0x777777 && cur.state.row.cfa_kind == cc[i].kind);
		}
	}
}

/* Evaluate expression e as a val_expression for rbx (CFA pushed first,
 * CFA = STACK+0x108) and return the stop reason (0 = ok, *out set). */
static int eval64(const uint8_t *e, size_t n, uint64_t *out, enum uw_arch arch)
{
	uint8_t ins[600];
	size_t k = 0;
	struct uw_regs r;

	reset();
	ins[k++] = 0x16;
	ins[k++] = 3;
	ins[k++] = (uint8_t)(n & 0x7f) | (n > 127 ? 0x80 : 0);
	if (n > 127)
		ins[k++] = (uint8_t)(n >> 7);
	memcpy(ins + k, e, n);
	k += n;
	if (arch == UW_ARCH_X86_64) {
		mod64(ins, k);
		regs64(&r, CODE_ADDR + 0x120, STACK_ADDR + 0x100);
		r.val[UW_X86_64_RBP] = 0x1000;
		r.defined |= UW_REG_BIT(UW_X86_64_RBP);
		st_put(STACK_ADDR + 0x100, 0x9999, 8);
	} else {
		g_asize = 4;
		size_t c = cie(&eh, 1, "zR", -4, 8, 0x1b, cie32_ins, sizeof(cie32_ins));
		fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100, 0x100, ins, k);
		use_eh();
		memset(&r, 0, sizeof(r));
		r.val[UW_I386_EIP] = CODE_ADDR + 0x120;
		r.val[UW_I386_ESP] = STACK_ADDR + 0x100;
		r.val[UW_I386_EBP] = 0x1000;
		r.defined = UW_REG_BIT(UW_I386_EIP) | UW_REG_BIT(UW_I386_ESP) | UW_REG_BIT(UW_I386_EBP);
		st_put(STACK_ADDR + 0x100, 0x9999, 4);
	}
	uw_init(&cur, arch, &ops, NULL, &r);
	if (uw_step(&cur) != 1)
		return cur.stop.reason;
	if (uw_get_reg(&cur, 3, out) < 0)
		return -1;		/* lost (unreadable/undefined) */
	return 0;
}

static void test_expressions(void)
{
	const struct { const char *n; uint8_t e[40]; size_t len; uint64_t want; int arch32; } t[] = {
		{ "push cfa", { 0x96 }, 1, STACK_ADDR + 0x108, 0 },
		{ "lit5 plus", { 0x35, 0x22 }, 2, STACK_ADDR + 0x10d, 0 },
		{ "const1u/1s", { 0x13, 0x08, 0xff, 0x09, 0xff, 0x22 }, 6, 0xfe, 0 },
		{ "const2u/2s", { 0x13, 0x0a, 0x34, 0x12, 0x0b, 0xfe, 0xff, 0x22 }, 8, 0x1232, 0 },
		{ "const4u/4s", { 0x13, 0x0c, 1, 0, 0, 0x80, 0x0d, 0xff, 0xff, 0xff, 0xff, 0x22 }, 12, 0x80000000ull, 0 },
		{ "const8u", { 0x13, 0x0e, 1, 2, 3, 4, 5, 6, 7, 8 }, 10, 0x0807060504030201ull, 0 },
		{ "const8s", { 0x13, 0x0f, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 10, (uint64_t)-2, 0 },
		{ "constu/consts", { 0x13, 0x10, 0x80, 0x01, 0x11, 0x7f, 0x22 }, 7, 127, 0 },
		{ "dup/drop", { 0x13, 0x33, 0x12, 0x22, 0x34, 0x13 }, 6, 6, 0 },
		{ "over", { 0x13, 0x33, 0x34, 0x14, 0x1e, 0x22 }, 6, 3 * 4 + 3, 0 },
		{ "pick", { 0x13, 0x31, 0x32, 0x33, 0x15, 2 }, 6, 1, 0 },
		{ "swap", { 0x13, 0x39, 0x33, 0x16, 0x1c }, 5, (uint64_t)-6, 0 },
		{ "rot", { 0x13, 0x31, 0x32, 0x33, 0x17, 0x13, 0x13 }, 7, 3, 0 },
		{ "abs", { 0x13, 0x11, 0x7b, 0x19 }, 4, 5, 0 },
		{ "and/or/xor", { 0x13, 0x3c, 0x3a, 0x1a, 0x31, 0x21, 0x3f, 0x27 }, 8, (8 | 1) ^ 15, 0 },
		{ "div signed", { 0x13, 0x11, 0x79, 0x32, 0x1b }, 5, (uint64_t)-3, 0 },
		{ "div by -1", { 0x13, 0x37, 0x11, 0x7f, 0x1b }, 5, (uint64_t)-7, 0 },
		{ "mod", { 0x13, 0x3b, 0x34, 0x1d }, 4, 3, 0 },
		{ "mul/minus", { 0x13, 0x36, 0x37, 0x1e, 0x32, 0x1c }, 6, 40, 0 },
		{ "neg/not", { 0x13, 0x35, 0x1f, 0x20 }, 4, 4, 0 },
		{ "plus_uconst", { 0x23, 0x10 }, 2, STACK_ADDR + 0x118, 0 },
		{ "shl/shr", { 0x13, 0x31, 0x3f, 0x24, 0x3c, 0x25 }, 6, 8, 0 },
		{ "shra", { 0x13, 0x11, 0x70, 0x32, 0x26 }, 5, (uint64_t)-4, 0 },
		{ "shl by 64 = 0", { 0x13, 0x31, 0x08, 64, 0x24 }, 5, 0, 0 },
		{ "eq/ne/lt/gt/le/ge", { 0x13, 0x33, 0x33, 0x29, 0x33, 0x34, 0x2e, 0x22, 0x11, 0x7f, 0x30, 0x2d, 0x22,
					 0x30, 0x11, 0x7f, 0x2b, 0x22, 0x33, 0x33, 0x2c, 0x22, 0x32, 0x33, 0x2a, 0x22 }, 26, 5, 0 },
		{ "bra taken", { 0x13, 0x31, 0x28, 1, 0, 0x35, 0x36 }, 7, 6, 0 },
		{ "bra not taken", { 0x13, 0x30, 0x28, 1, 0, 0x35 }, 6, 5, 0 },
		{ "skip", { 0x13, 0x2f, 1, 0, 0x35, 0x36 }, 6, 6, 0 },
		{ "bounded loop with bra", { 0x13, 0x35, 0x31, 0x1c, 0x12, 0x28, 0xfa, 0xff }, 8, 0, 0 },
		{ "breg6 / bregx", { 0x13, 0x76, 0x10, 0x92, 6, 0x70, 0x22 }, 7, 0x2000, 0 },
		{ "reg6 / regx", { 0x13, 0x56, 0x90, 6, 0x22 }, 5, 0x2000, 0 },
		{ "deref", { 0x13, 0x77, 0, 0x06 }, 4, 0x9999, 0 },
		{ "deref_size 1", { 0x13, 0x77, 0, 0x94, 1 }, 5, 0x99, 0 },
		{ "call_frame_cfa", { 0x13, 0x9c }, 2, STACK_ADDR + 0x108, 0 },
		{ "addr (plus bias 0)", { 0x13, 0x03, 0x10, 0, 0, 0, 0, 0, 0, 0 }, 10, 0x10, 0 },
		{ "i386: wraps at 32 bits", { 0x13, 0x0c, 0xff, 0xff, 0xff, 0xff, 0x32, 0x22 }, 8, 1, 1 },
		{ "i386: signed 32-bit compare", { 0x13, 0x0c, 0xff, 0xff, 0xff, 0xff, 0x30, 0x2d }, 8, 1, 1 },
		{ "i386: shra 32-bit", { 0x13, 0x0c, 0, 0, 0, 0x80, 0x3f, 0x26 }, 8, 0xffff0000, 1 },
		{ "i386: deref is 4 bytes", { 0x13, 0x74, 0, 0x06 }, 4, 0x9999, 1 },
		{ "i386: neg", { 0x13, 0x31, 0x1f }, 3, 0xffffffff, 1 },
	};
	char name[128];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = 0;
		int rc = eval64(t[i].e, t[i].len, &v, t[i].arch32 ? UW_ARCH_I386 : UW_ARCH_X86_64);
		snprintf(name, sizeof(name), "expr %s", t[i].n);
		if (rc == 0 && v == t[i].want)
			CHECK(name, 1);
		else {
			printf("FAIL: %s (rc %d value 0x%llx want 0x%llx)\n", name, rc,
			       (unsigned long long)v, (unsigned long long)t[i].want);
			failures++;
		}
	}

	/* Failures. */
	{
		uint8_t loop[] = { 0x2f, 0xfd, 0xff };			/* skip -3: itself */
		uint8_t ovf[70];
		uint8_t under[] = { 0x13, 0x13 };
		uint8_t div0[] = { 0x13, 0x31, 0x30, 0x1b };
		uint8_t badjump[] = { 0x2f, 0x40, 0 };
		uint8_t xderef[] = { 0x18 };
		uint8_t fbreg[] = { 0x91, 0 };
		uint8_t unread[] = { 0x13, 0x30, 0x06 };
		uint8_t trunc[] = { 0x13, 0x0e, 1, 2 };
		uint8_t undefreg[] = { 0x13, 0x70, 0 };		/* rax undefined */
		uint64_t v;
		int i;

		ovf[0] = 0x13;
		for (i = 1; i < 70; i++)
			ovf[i] = 0x12;		/* dup x69: 70 > 64 entries */
		CHECK("expr infinite skip loop stops (BAD_CFI)", eval64(loop, sizeof(loop), &v, UW_ARCH_X86_64) == UW_STOP_BAD_CFI);
		CHECK("expr op count is bounded", cur.work <= UW_MAX_WORK_PER_STEP && cur.work >= UW_MAX_EXPR_OPS);
		CHECK("expr stack overflow (BAD_CFI)", eval64(ovf, sizeof(ovf), &v, UW_ARCH_X86_64) == UW_STOP_BAD_CFI);
		CHECK("expr stack underflow (BAD_CFI)", eval64(under, sizeof(under), &v, UW_ARCH_X86_64) == UW_STOP_BAD_CFI);
		CHECK("expr division by zero (BAD_CFI)", eval64(div0, sizeof(div0), &v, UW_ARCH_X86_64) == UW_STOP_BAD_CFI);
		CHECK("expr jump out of block (BAD_CFI)", eval64(badjump, sizeof(badjump), &v, UW_ARCH_X86_64) == UW_STOP_BAD_CFI);
		CHECK("expr xderef fails cleanly", eval64(xderef, sizeof(xderef), &v, UW_ARCH_X86_64) == UW_STOP_BAD_CFI);
		CHECK("expr fbreg fails cleanly", eval64(fbreg, sizeof(fbreg), &v, UW_ARCH_X86_64) == UW_STOP_BAD_CFI);
		CHECK("expr truncated operand (BAD_CFI)", eval64(trunc, sizeof(trunc), &v, UW_ARCH_X86_64) == UW_STOP_BAD_CFI);
		CHECK("expr unreadable deref: register lost, walk goes on",
		      eval64(unread, sizeof(unread), &v, UW_ARCH_X86_64) == -1 && uw_pc(&cur) == 0x9999);
		CHECK("expr undefined register: register lost",
		      eval64(undefreg, sizeof(undefreg), &v, UW_ARCH_X86_64) == -1);
	}
}

static void test_encodings(void)
{
	const struct { const char *n; uint8_t enc; } t[] = {
		{ "absptr", 0x00 }, { "uleb128", 0x01 }, { "udata2", 0x02 }, { "udata4", 0x03 },
		{ "udata8", 0x04 }, { "signed", 0x08 }, { "sleb128", 0x09 }, { "sdata2", 0x0a },
		{ "sdata4", 0x0b }, { "sdata8", 0x0c }, { "pcrel|sdata4", 0x1b }, { "pcrel|sdata8", 0x1c },
		{ "textrel|udata4", 0x23 }, { "datarel|sdata4", 0x3b }, { "aligned", 0x50 },
		{ "pcrel|sleb128", 0x19 }, { "datarel|uleb128", 0x31 },
	};
	char name[128];

	for (int arch32 = 0; arch32 < 2; arch32++)
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t begin = 0x1100;	/* fits udata2 */
		reset();
		g_asize = arch32 ? 4 : 8;
		g_textrel = 0x1000;
		g_datarel = 0x800;
		mod.text_base = g_textrel;
		mod.data_base = g_datarel;
		mod.bias = CODE_ADDR - 0x1000;	/* link-time 0x1000.. maps to CODE_ADDR.. */
		eh.addr = 0x9000;
		if (arch32) {
			size_t c = cie(&eh, 3, "zR", -4, 8, t[i].enc, cie32_ins, sizeof(cie32_ins));
			fde(&eh, c, 1, t[i].enc, begin, 0x40, NULL, 0);
		} else {
			size_t c = cie(&eh, 3, "zR", -8, 16, t[i].enc, cie64_ins, sizeof(cie64_ins));
			fde(&eh, c, 1, t[i].enc, begin, 0x40, NULL, 0);
		}
		use_eh();
		struct uw_regs r;
		memset(&r, 0, sizeof(r));
		if (arch32) {
			r.val[8] = mod.bias + begin + 0x10;
			r.val[4] = STACK_ADDR + 0x100;
			r.defined = UW_REG_BIT(8) | UW_REG_BIT(4);
			st_put(STACK_ADDR + 0x100, 0x4242, 4);
		} else {
			regs64(&r, mod.bias + begin + 0x10, STACK_ADDR + 0x100);
			st_put(STACK_ADDR + 0x100, 0x4242, 8);
		}
		uw_init(&cur, arch32 ? UW_ARCH_I386 : UW_ARCH_X86_64, &ops, NULL, &r);
		int ok = uw_step(&cur) == 1 && trace_fde_begin == begin && uw_pc(&cur) == 0x4242;
		snprintf(name, sizeof(name), "encoding %s (%s)", t[i].n, arch32 ? "i386" : "x86_64");
		CHECK(name, ok);
	}

	/* indirect: the FDE's pc_begin is read through a pointer in target
	 * memory (stack region used as "data"). */
	{
		struct uw_regs r;
		reset();
		mod.bias = 0;
		eh.addr = 0x9000;
		/* pointer at STACK+0x800 holds CODE+0x100 (runtime = link-time) */
		st_put(STACK_ADDR + 0x800, CODE_ADDR + 0x100, 8);
		size_t c = cie(&eh, 1, "zR", -8, 16, 0x80 | 0x04, cie64_ins, sizeof(cie64_ins));
		size_t at = eh.n;
		un(&eh, 0, 4);
		un(&eh, eh.n - c, 4);
		un(&eh, STACK_ADDR + 0x800, 8);	/* indirect udata8 */
		un(&eh, 0x100, 8);
		uleb(&eh, 0);
		patch32(&eh, at, (uint32_t)(eh.n - at - 4));
		use_eh();
		regs64(&r, CODE_ADDR + 0x120, STACK_ADDR + 0x100);
		st_put(STACK_ADDR + 0x100, 0x4343, 8);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		CHECK("encoding indirect|udata8", uw_step(&cur) == 1 && trace_fde_begin == CODE_ADDR + 0x100 &&
		      uw_pc(&cur) == 0x4343);
	}
	/* textrel without a text base is malformed for us */
	{
		reset();
		g_textrel = 0x1000;
		size_t c = cie(&eh, 1, "zR", -8, 16, 0x23, cie64_ins, sizeof(cie64_ins));
		fde(&eh, c, 1, 0x23, CODE_ADDR + 0x100, 0x40, NULL, 0);
		use_eh();
		step64(CODE_ADDR + 0x110, NULL);
		CHECK("encoding textrel without text_base: BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);
	}
}

/* .eh_frame_hdr with n FDEs, binary search; also eh_frame in target memory
 * with unknown size (found through eh_frame_ptr). */
static void test_hdr(void)
{
	static struct buf hdr;
	size_t fdes[40];
	int n = 40;
	char name[128];

	for (int target = 0; target < 2; target++) {
		reset();
		memset(&hdr, 0, sizeof(hdr));
		size_t c = cie(&eh, 1, "zR", -8, 16, 0x1b, cie64_ins, sizeof(cie64_ins));
		for (int i = 0; i < n; i++) {
			uint8_t ins[] = { 0x0e, (uint8_t)(8 + 8 * (i % 4)) };	/* cfa offset varies */
			fdes[i] = fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100 + 0x20 * i, 0x20, ins, 2);
		}
		un(&eh, 0, 4);		/* terminator */
		hdr.addr = CODE_ADDR + 0x7000;
		u8(&hdr, 1); u8(&hdr, 0x1b); u8(&hdr, 0x03); u8(&hdr, 0x3b);
		put_enc(&hdr, 0x1b, eh.addr);
		un(&hdr, n, 4);
		g_datarel = hdr.addr;
		for (int i = 0; i < n; i++) {
			put_enc(&hdr, 0x3b, CODE_ADDR + 0x100 + 0x20 * i);
			put_enc(&hdr, 0x3b, eh.addr + fdes[i]);
		}
		mod.eh_frame_hdr.data = hdr.b;
		mod.eh_frame_hdr.addr = hdr.addr;
		mod.eh_frame_hdr.size = hdr.n;
		mod.module = "hdr";
		if (target) {
			/* eh_frame only in target memory, size unknown */
			memcpy(target_sec, eh.b, eh.n);
			target_sec_addr = eh.addr;
		} else {
			mod.eh_frame.data = eh.b;
			mod.eh_frame.addr = eh.addr;
			mod.eh_frame.size = eh.n;
		}
		have_mod = 1;
		int all = 1;
		for (int i = 0; i < n; i++) {
			uint64_t off = 8 + 8 * (i % 4);
			uint64_t sp = STACK_ADDR + 0x100;
			struct uw_regs r;
			regs64(&r, CODE_ADDR + 0x100 + 0x20 * i + 0x1f, sp);
			st_put(sp + off - 8, 0x1000 + i, 8);
			uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
			if (uw_step(&cur) != 1 || uw_pc(&cur) != 0x1000u + i ||
			    trace_fde_begin != CODE_ADDR + 0x100 + 0x20 * i ||
			    cur.work > 6 * UW_WORK_HDR_PROBE + 8)	/* log2(40) probes */
				all = 0;
		}
		snprintf(name, sizeof(name), "eh_frame_hdr binary search, %d FDEs%s", n,
			 target ? ", eh_frame in target memory" : "");
		CHECK(name, all);
		struct uw_regs r;
		regs64(&r, CODE_ADDR + 0x50, STACK_ADDR + 0x100);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		snprintf(name, sizeof(name), "eh_frame_hdr: pc below the table%s", target ? " (target)" : "");
		CHECK(name, uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_NO_UNWIND_DATA);
		/* hostile count */
		hdr.b[4 + 4] = 0xff; hdr.b[4 + 5] = 0xff;
		regs64(&r, CODE_ADDR + 0x110, STACK_ADDR + 0x100);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		snprintf(name, sizeof(name), "eh_frame_hdr: fde_count beyond section is BAD_CFI%s", target ? " (target)" : "");
		CHECK(name, uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_BAD_CFI);
	}
}

static void test_debug_frame(void)
{
	char name[128];
	for (int variant = 0; variant < 4; variant++) {
		/* 0: 32-bit DWARF v1, 1: v3, 2: v4 with address/segment size, 3: 64-bit DWARF v4 */
		static struct buf df;
		int dw64 = variant == 3, version = variant == 0 ? 1 : variant == 1 ? 3 : 4;
		memset(&df, 0, sizeof(df));
		reset();
		df.addr = 0;
		/* CIE */
		size_t c = df.n;
		if (dw64) { un(&df, 0xffffffff, 4); un(&df, 0, 8); un(&df, ~0ull, 8); }
		else { un(&df, 0, 4); un(&df, 0xffffffff, 4); }
		u8(&df, version);
		u8(&df, 0);
		if (version == 4) { u8(&df, 8); u8(&df, 0); }
		uleb(&df, 1); sleb(&df, -8);
		if (version == 1) u8(&df, 16); else uleb(&df, 16);
		bytes(&df, cie64_ins, sizeof(cie64_ins));
		if (dw64) { uint64_t l = df.n - c - 12; for (int i = 0; i < 8; i++) df.b[c + 4 + i] = (uint8_t)(l >> (8 * i)); }
		else patch32(&df, c, (uint32_t)(df.n - c - 4));
		/* FDE */
		size_t f = df.n;
		if (dw64) { un(&df, 0xffffffff, 4); un(&df, 0, 8); un(&df, c, 8); }
		else { un(&df, 0, 4); un(&df, c, 4); }
		un(&df, CODE_ADDR + 0x200, 8);
		un(&df, 0x80, 8);
		u8(&df, 0x0e); u8(&df, 24);
		if (dw64) { uint64_t l = df.n - f - 12; for (int i = 0; i < 8; i++) df.b[f + 4 + i] = (uint8_t)(l >> (8 * i)); }
		else patch32(&df, f, (uint32_t)(df.n - f - 4));
		mod.debug_frame.data = df.b;
		mod.debug_frame.addr = 0;
		mod.debug_frame.size = df.n;
		have_mod = 1;
		struct uw_regs r;
		regs64(&r, CODE_ADDR + 0x210, STACK_ADDR + 0x100);
		st_put(STACK_ADDR + 0x100 + 16, 0xdf0000, 8);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		snprintf(name, sizeof(name), "debug_frame %s-bit DWARF, CIE version %d",
			 dw64 ? "64" : "32", version);
		CHECK(name, uw_step(&cur) == 1 && uw_pc(&cur) == 0xdf0000 && uw_cfa(&cur) == STACK_ADDR + 0x118);
	}
}

static void test_malformed(void)
{
	struct uw_regs r;

	/* truncated CIE (length runs past the section) */
	reset();
	mod64(NULL, 0);
	mod.eh_frame.size = 10;
	step64(CODE_ADDR + 0x110, NULL);
	CHECK("malformed: truncated entry is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);

	/* huge length */
	reset();
	mod64(NULL, 0);
	patch32(&eh, 0, 0xfffffff0);
	step64(CODE_ADDR + 0x110, NULL);
	CHECK("malformed: reserved length is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);
	reset();
	mod64(NULL, 0);
	patch32(&eh, 0, 0xffffffff);	/* 64-bit length follows: garbage, huge */
	step64(CODE_ADDR + 0x110, NULL);
	CHECK("malformed: huge 64-bit length is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);

	/* FDE whose CIE pointer points at itself */
	reset();
	mod64(NULL, 0);
	{
		size_t f = 0;
		f = 4 + (eh.b[0] | eh.b[1] << 8);	/* FDE offset */
		patch32(&eh, f + 4, 4);		/* id_pos - 4 = the FDE itself */
	}
	step64(CODE_ADDR + 0x110, NULL);
	CHECK("malformed: CIE pointer to itself is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);

	/* CIE pointer before the section */
	reset();
	mod64(NULL, 0);
	{
		size_t f = 4 + (eh.b[0] | eh.b[1] << 8);
		patch32(&eh, f + 4, 0x100000);
	}
	step64(CODE_ADDR + 0x110, NULL);
	CHECK("malformed: CIE pointer outside section is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);

	/* unknown augmentation without z */
	reset();
	{
		size_t c = cie(&eh, 1, "xy", -8, 16, 0, cie64_ins, sizeof(cie64_ins));
		fde(&eh, c, 0, 0, CODE_ADDR + 0x100, 0x100, NULL, 0);
		use_eh();
	}
	step64(CODE_ADDR + 0x110, NULL);
	CHECK("malformed: unknown augmentation without z is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);

	/* unknown augmentation after z is skipped */
	reset();
	{
		size_t c = cie(&eh, 1, "zRB", -8, 16, 0x1b, cie64_ins, sizeof(cie64_ins));
		fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100, 0x100, NULL, 0);
		use_eh();
	}
	CHECK("augmentation zRB: unknown letter after z tolerated", step64(CODE_ADDR + 0x110, NULL) == 1);

	/* "eh" augmentation (old GCC) */
	reset();
	{
		size_t at = eh.n;
		un(&eh, 0, 4); un(&eh, 0, 4); u8(&eh, 1);
		bytes(&eh, (const uint8_t *)"eh", 3);
		un(&eh, 0, 8);		/* eh_ptr */
		uleb(&eh, 1); sleb(&eh, -8); u8(&eh, 16);
		bytes(&eh, cie64_ins, sizeof(cie64_ins));
		patch32(&eh, at, (uint32_t)(eh.n - at - 4));
		fde(&eh, at, 0, 0, CODE_ADDR + 0x100, 0x100, NULL, 0);
		use_eh();
	}
	CHECK("augmentation eh (old GCC)", step64(CODE_ADDR + 0x110, NULL) == 1 && uw_pc(&cur) == 0x123456);

	/* too long augmentation string */
	reset();
	{
		size_t c = cie(&eh, 1, "zRRRRRRRRRRRR", -8, 16, 0x1b, cie64_ins, sizeof(cie64_ins));
		fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100, 0x100, NULL, 0);
		use_eh();
	}
	step64(CODE_ADDR + 0x110, NULL);
	CHECK("malformed: augmentation longer than the bound is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);

	/* bad CIE version */
	reset();
	mod64(NULL, 0);
	eh.b[8] = 2;
	step64(CODE_ADDR + 0x110, NULL);
	CHECK("malformed: CIE version 2 is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);

	/* remember_state overflow */
	{
		uint8_t ins[UW_MAX_REMEMBER + 1];
		memset(ins, 0x0a, sizeof(ins));
		reset();
		mod64(ins, sizeof(ins));
		step64(CODE_ADDR + 0x110, NULL);
		CHECK("malformed: remember_state deeper than the bound is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);
		reset();
		mod64(ins, UW_MAX_REMEMBER);
		CHECK("remember_state up to the bound is fine", step64(CODE_ADDR + 0x110, NULL) == 1);
	}
	/* restore_state without remember */
	{
		uint8_t ins[] = { 0x0b };
		reset();
		mod64(ins, sizeof(ins));
		step64(CODE_ADDR + 0x110, NULL);
		CHECK("malformed: restore_state on empty stack is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);
	}
	/* remember/restore "loop": many pairs, bounded by the instruction limit */
	{
		static uint8_t ins[2 * UW_MAX_CFA_INSNS + 2];
		for (size_t i = 0; i < sizeof(ins); i += 2) { ins[i] = 0x0a; ins[i + 1] = 0x0b; }
		reset();
		g_max_work = UW_MAX_WORK_PER_STEP;
		mod64(ins, sizeof(ins));
		step64(CODE_ADDR + 0x110, NULL);
		CHECK("malformed: more than UW_MAX_CFA_INSNS instructions is BAD_CFI",
		      cur.stop.reason == UW_STOP_BAD_CFI && cur.work <= UW_MAX_WORK_PER_STEP);
	}
	/* unknown CFA opcode */
	{
		uint8_t ins[] = { 0x3f };
		reset();
		mod64(ins, sizeof(ins));
		step64(CODE_ADDR + 0x110, NULL);
		CHECK("malformed: unknown CFA opcode is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);
	}
	/* a malformed instruction is reported where it begins: after two
	 * nops and an advance with an operand, at the unknown opcode */
	{
		uint8_t ins[] = { 0x00, 0x00, 0x02, 0x01, 0x3f, 0x00 };
		uint64_t at;

		reset();
		mod64(ins, sizeof(ins));
		step64(CODE_ADDR + 0x110, NULL);
		at = cur.stop.addr - eh.addr;
		CHECK("malformed: the stop gives the address of the instruction",
		      cur.stop.reason == UW_STOP_BAD_CFI && at >= 4 && at < eh.n &&
		      memcmp(eh.b + at - 4, ins, sizeof(ins)) == 0);
	}
	/* LEB128 longer than 10 bytes */
	{
		uint8_t ins[] = { 0x0e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
		reset();
		mod64(ins, sizeof(ins));
		step64(CODE_ADDR + 0x110, NULL);
		CHECK("malformed: 12-byte LEB128 is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);
	}
	/* truncated instruction operand at the end of the FDE */
	{
		uint8_t ins[] = { 0x0c, 7 };
		reset();
		mod64(ins, sizeof(ins));
		step64(CODE_ADDR + 0x110, NULL);
		CHECK("malformed: truncated operand is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);
	}
	/* expression block longer than the FDE */
	{
		uint8_t ins[] = { 0x0f, 0x7f, 0x77 };
		reset();
		mod64(ins, sizeof(ins));
		step64(CODE_ADDR + 0x110, NULL);
		CHECK("malformed: expression block past the entry is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);
	}
	/* def_cfa_offset after def_cfa_expression */
	{
		uint8_t ins[] = { 0x0f, 2, 0x77, 8, 0x0e, 16 };
		reset();
		mod64(ins, sizeof(ins));
		step64(CODE_ADDR + 0x110, NULL);
		CHECK("malformed: def_cfa_offset with expression CFA is BAD_CFI", cur.stop.reason == UW_STOP_BAD_CFI);
	}
	/* CFA register undefined */
	{
		uint8_t ins[] = { 0x0d, 6 };
		reset();
		mod64(ins, sizeof(ins));
		step64(CODE_ADDR + 0x110, NULL);
		CHECK("CFA from undefined rbp is REG_UNDEFINED (addr = 6)",
		      cur.stop.reason == UW_STOP_REG_UNDEFINED && cur.stop.addr == 6);
	}
	/* RA slot unreadable */
	{
		reset();
		mod64(NULL, 0);
		regs64(&r, CODE_ADDR + 0x110, 0x10);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		CHECK("unreadable return address is MEMORY_UNREADABLE at its address",
		      uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_MEMORY_UNREADABLE && cur.stop.addr == 0x10);
	}
	/* huge scan: many tiny CIEs, no FDE: bounded */
	{
		static uint8_t big[8 * (UW_MAX_SCAN_ENTRIES + 16)];
		reset();
		for (size_t i = 0; i + 8 <= sizeof(big); i += 8) {
			/* length 4, CIE id 0 ... not a valid CIE but never parsed */
			big[i] = 4; big[i + 1] = 0; big[i + 2] = 0; big[i + 3] = 0;
			big[i + 4] = 0; big[i + 5] = 0; big[i + 6] = 0; big[i + 7] = 0;
		}
		mod.eh_frame.data = big;
		mod.eh_frame.addr = CODE_ADDR + 0x8000;
		mod.eh_frame.size = sizeof(big);
		have_mod = 1;
		g_max_work = UW_MAX_WORK_PER_STEP;
		step64(CODE_ADDR + 0x110, NULL);
		CHECK("linear scan stops after UW_MAX_SCAN_ENTRIES",
		      cur.stop.reason == UW_STOP_NO_UNWIND_DATA && cur.work <= UW_MAX_WORK_PER_STEP &&
		      cur.work >= UW_MAX_SCAN_ENTRIES);
		g_max_work = UW_DEFAULT_MAX_WORK;
		step64(CODE_ADDR + 0x110, NULL);
		CHECK("linear scan: the unwind's budget stops it first",
		      cur.stop.reason == UW_STOP_WORK_LIMIT &&
		      cur.work_total <= UW_DEFAULT_MAX_WORK &&
		      cur.stop.addr == cur.work_total);
	}
}

static void test_walk_stops(void)
{
	struct uw_regs r;

	/* RA undefined: outermost frame */
	{
		uint8_t ins[] = { 0x07, 16 };
		reset();
		mod64(ins, sizeof(ins));
		CHECK("RA undefined is END_OF_STACK", step64(CODE_ADDR + 0x110, NULL) == 0 &&
		      cur.stop.reason == UW_STOP_END_OF_STACK && cur.stop.pc == CODE_ADDR + 0x110);
		CHECK("RA undefined: the outermost frame keeps its CFA",
		      uw_frame_cfa(&cur) == STACK_ADDR + 0x108);
	}
	/* CFA does not grow: CFA = rsp, RA at cfa, so the caller's sp = rsp */
	{
		uint8_t ins[] = { 0x0e, 0, 0x14, 7, 0, 0x05, 16, 0 };
		reset();
		mod64(ins, sizeof(ins));
		regs64(&r, CODE_ADDR + 0x110, STACK_ADDR + 0x100);
		st_put(STACK_ADDR + 0x100, CODE_ADDR + 0x111, 8);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		int first = uw_step(&cur);
		CHECK("CFA not growing is NO_PROGRESS", first == 1 && uw_step(&cur) == 0 &&
		      cur.stop.reason == UW_STOP_NO_PROGRESS && cur.stop.addr == STACK_ADDR + 0x100);
		CHECK("NO_PROGRESS: no CFA for the frame", uw_frame_cfa(&cur) == 0);
		CHECK("second frame looked up at pc - 1", trace_lookup == CODE_ADDR + 0x110);
	}
	/* depth limit */
	{
		reset();
		mod64(NULL, 0);
		regs64(&r, CODE_ADDR + 0x110, STACK_ADDR + 0x100);
		for (int i = 0; i < 8; i++)
			st_put(STACK_ADDR + 0x100 + 8 * i, CODE_ADDR + 0x111, 8);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		cur.max_depth = 3;
		int n = 0;
		while (uw_step(&cur) == 1)
			n++;
		CHECK("depth limit", n == 3 && cur.stop.reason == UW_STOP_DEPTH_LIMIT);
	}
	/* caller pc 0 ends the walk */
	{
		reset();
		mod64(NULL, 0);
		regs64(&r, CODE_ADDR + 0x110, STACK_ADDR + 0x100);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		CHECK("return address 0 is END_OF_STACK", uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_END_OF_STACK);
		CHECK("return address 0: the outermost frame keeps its CFA",
		      uw_frame_cfa(&cur) == STACK_ADDR + 0x108);
	}
	/* no pc */
	memset(&r, 0, sizeof(r));
	CHECK("uw_init without pc is BAD_ARGUMENT",
	      uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r) < 0 && cur.stop.reason == UW_STOP_BAD_ARGUMENT &&
	      uw_step(&cur) == 0);
	CHECK("uw_stop_reason_name", !strcmp(uw_stop_reason_name(UW_STOP_NO_PROGRESS), "no progress") &&
	      !strcmp(uw_stop_reason_name(UW_STOP_END_OF_STACK), "end of stack"));
}

/* The stack window (mem.c: uw_stack_slots): one read of the stack serves
 * the save slots of the frames above, never past the page of the slots
 * asked for (stack_mem is one page, and nothing is mapped above it), and
 * a new unwind reads the stack anew. */
static uint32_t g_window = UW_DEFAULT_STACK_WINDOW;	/* cursor.stack_window */
static struct uw_cache *g_cache;			/* cursor.cache */

static void walk_chain(uint64_t sp, int frames, uint64_t *last_pc)
{
	struct uw_regs r;

	regs64(&r, CODE_ADDR + 0x110, sp);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	cur.max_depth = (uint32_t)frames;
	cur.stack_window = g_window;
	cur.cache = g_cache;
	stack_reads = stack_reads_failed = 0;
	while (uw_step(&cur) == 1)
		*last_pc = uw_pc(&cur);
}

static void test_stack_window(void)
{
	uint64_t sp = STACK_ADDR + 0x100, end = STACK_ADDR + sizeof(stack_mem);
	uint64_t pc = 0;
	int i;

	reset();
	mod64(NULL, 0);		/* every frame: cfa = sp + 8, ra at sp */
	for (i = 0; i < 8; i++)
		st_put(sp + 8 * i, CODE_ADDR + 0x111 + i, 8);
	walk_chain(sp, 8, &pc);
	CHECK("stack window: 8 frames of one page, in one read",
	      cur.depth == 8 && pc == CODE_ADDR + 0x118 && stack_reads == 1);
	g_window = 0;
	walk_chain(sp, 8, &pc);
	CHECK("stack window 0: a read a frame, of its slots alone",
	      cur.depth == 8 && pc == CODE_ADDR + 0x118 && stack_reads == 8);
	g_window = 16;
	walk_chain(sp, 8, &pc);
	CHECK("stack window 16: a read for every second frame",
	      cur.depth == 8 && pc == CODE_ADDR + 0x118 && stack_reads == 4);
	g_window = UW_DEFAULT_STACK_WINDOW;
	st_put(sp + 8 * 7, CODE_ADDR + 0x1f0, 8);
	walk_chain(sp, 8, &pc);
	CHECK("stack window: a new unwind reads the stack anew",
	      cur.depth == 8 && pc == CODE_ADDR + 0x1f0 && stack_reads == 1);

	/* Slots at the page's end: the window stops there. */
	sp = end - 8 * 8;
	for (i = 0; i < 8; i++)
		st_put(sp + 8 * i, CODE_ADDR + 0x121 + i, 8);
	walk_chain(sp, 8, &pc);
	CHECK("stack window: no read past the slots' page",
	      cur.depth == 8 && pc == CODE_ADDR + 0x128 && stack_reads == 1 &&
	      stack_reads_failed == 0);
	/* The slots of the 9th frame lie above the page: its read fails. */
	walk_chain(sp, 9, &pc);
	CHECK("stack window: a frame past the page is unreadable",
	      cur.depth == 8 && cur.stop.reason == UW_STOP_MEMORY_UNREADABLE &&
	      cur.stop.addr == end);
}

/* Frames alternating between two modules (a program and libc): with pc
 * ranges, find_tables is asked once per module, not at every change. */
static void test_tables_kept(void)
{
	uint64_t sp = STACK_ADDR + 0x100, pc = 0, want;
	int i, ranges;

	for (ranges = 1; ranges >= 0; ranges--) {
		reset();
		mod64(NULL, 0);		/* cfa = sp + 8, ra at sp */
		have_mod2 = 1;
		if (ranges) {
			mod.pc_lo = CODE_ADDR;
			mod.pc_hi = CODE_ADDR + 0x10000;
		}
		for (i = 0; i < 8; i++)
			st_put(sp + 8 * i, CODE_ADDR + 0x111 + i +
			       (i % 2 ? 0 : MOD2_BIAS), 8);
		finds = 0;
		walk_chain(sp, 8, &pc);
		want = CODE_ADDR + 0x118;
		if (ranges)
			CHECK("tables kept: 8 frames in two modules, two lookups",
			      cur.depth == 8 && pc == want && finds == 2);
		else
			/* Two a frame: for its pc, and for its return
			 * address (uw_step_ra_is_bogus). */
			CHECK("tables kept: without pc ranges, asked every time",
			      cur.depth == 8 && pc == want && finds == 16);
	}
}

/* Tables across unwinds (uw_cache.space): an unwind of the space the
 * host vouches for asks find_tables nothing more; another space, none,
 * or a cleared cache asks again, and so sees tables that changed. */
static struct uw_cache space_cache;
static struct uw_cache_entry space_entries[16];

static void test_tables_across_unwinds(void)
{
	const uint64_t sp = STACK_ADDR + 0x100, want = CODE_ADDR + 0x118;
	uint64_t pc;
	int i;

	reset();
	mod64(NULL, 0);		/* cfa = sp + 8, ra at sp */
	have_mod2 = 1;
	mod.pc_lo = CODE_ADDR;
	mod.pc_hi = CODE_ADDR + 0x10000;
	for (i = 0; i < 8; i++)
		st_put(sp + 8 * i, CODE_ADDR + 0x111 + i +
		       (i % 2 ? 0 : MOD2_BIAS), 8);
	uw_cache_init(&space_cache, space_entries, 16);
	g_cache = &space_cache;
#define WALK_FINDS(space_) \
	(space_cache.space = (space_), finds = 0, pc = 0, \
	 walk_chain(sp, 8, &pc), finds)
	CHECK("tables across unwinds: the first unwind of a space looks up both",
	      WALK_FINDS(7) == 2 && cur.depth == 8 && pc == want);
	CHECK("tables across unwinds: the same space again looks up nothing",
	      WALK_FINDS(7) == 0 && cur.depth == 8 && pc == want);
	CHECK("tables across unwinds: another space looks up again",
	      WALK_FINDS(8) == 2 && cur.depth == 8 && pc == want);
	CHECK("tables across unwinds: two spaces in turn each find their own kept",
	      WALK_FINDS(7) == 0 && WALK_FINDS(8) == 0 && WALK_FINDS(7) == 0 &&
	      cur.depth == 8 && pc == want);
	/* Eight more spaces of two tables each: the kept ones are replaced
	 * oldest first. */
	for (i = 0; i < UW_CACHE_KEPT_TABLES / 2; i++)
		(void)WALK_FINDS(100 + (uint64_t)i);
	CHECK("tables across unwinds: a space's kept tables replaced by newer ones",
	      WALK_FINDS(7) == 2 && WALK_FINDS(7) == 0 && pc == want);
	CHECK("tables across unwinds: space 0 vouches for nothing",
	      WALK_FINDS(0) == 2 && WALK_FINDS(0) == 2 && pc == want);
	uw_cache_clear(&space_cache);
	CHECK("tables across unwinds: a cleared cache looks up again",
	      WALK_FINDS(8) == 2 && cur.depth == 8 && pc == want);
	uw_cache_forget_rows(&space_cache);
	CHECK("tables across unwinds: forgotten rows, tables looked up again",
	      WALK_FINDS(8) == 2 && cur.depth == 8 && pc == want);
	/* The second module goes away: a new space must not find it. */
	have_mod2 = 0;
	CHECK("tables across unwinds: a new space sees a module gone",
	      WALK_FINDS(9) > 0 && cur.depth == 1 &&
	      cur.stop.reason == UW_STOP_NO_UNWIND_DATA);
#undef WALK_FINDS
	g_cache = NULL;
}

/* The row cache's ranges: a row parsed for one pc serves every pc of
 * its row (from the advance that began it to the one that ended it), in
 * the same tables, and no other pc.  One step at pc, with a cache;
 * returns the CFA the step found, or 0. */
static struct uw_cache range_cache;
static struct uw_cache_entry range_entries[64];

static uint64_t range_step(uint64_t pc)
{
	uint64_t sp = STACK_ADDR + 0x100;
	struct uw_regs r;

	regs64(&r, pc, sp);
	st_put(sp, 0x123456, 8);
	st_put(sp + 8, 0x123456, 8);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	cur.cache = &range_cache;
	return uw_step(&cur) == 1 ? uw_cfa(&cur) : 0;
}

/* The module of the ranges' test: FDE A [0x100, 0x200) with rows
 * [0x100, 0x110) cfa = rsp + 8, [0x110, 0x140) rsp + 16, [0x140, 0x200)
 * rsp + 8; FDE B [0x180, 0x1a0) inside it, cfa = rsp + 32 (overlapping
 * FDEs: the search decides); FDE C [0x200, 0x280) rsp + 24.  With an
 * .eh_frame_hdr table, or without (then .eh_frame is scanned). */
static void ranges_module(int with_hdr)
{
	static const uint8_t a[] = { 0x40 | 0x10, 0x0e, 16, 0x40 | 0x30, 0x0e, 8 };
	static const uint8_t b[] = { 0x0e, 32 }, cc[] = { 0x0e, 24 };
	static struct buf hdr;
	const struct { uint64_t begin, len; const uint8_t *ins; size_t n; } f[] = {
		{ 0x100, 0x100, a, sizeof(a) }, { 0x180, 0x20, b, sizeof(b) },
		{ 0x200, 0x80, cc, sizeof(cc) },
	};
	size_t at[3], c;
	int i;

	reset();
	c = cie(&eh, 1, "zR", -8, 16, 0x1b, cie64_ins, sizeof(cie64_ins));
	for (i = 0; i < 3; i++)
		at[i] = fde(&eh, c, 1, 0x1b, CODE_ADDR + f[i].begin, f[i].len,
			    f[i].ins, f[i].n);
	un(&eh, 0, 4);
	use_eh();
	if (!with_hdr)
		return;
	memset(&hdr, 0, sizeof(hdr));
	hdr.addr = CODE_ADDR + 0x7000;
	u8(&hdr, 1); u8(&hdr, 0x1b); u8(&hdr, 0x03); u8(&hdr, 0x3b);
	put_enc(&hdr, 0x1b, eh.addr);
	un(&hdr, 3, 4);
	g_datarel = hdr.addr;
	for (i = 0; i < 3; i++) {
		put_enc(&hdr, 0x3b, CODE_ADDR + f[i].begin);
		put_enc(&hdr, 0x3b, eh.addr + at[i]);
	}
	mod.eh_frame_hdr.data = hdr.b;
	mod.eh_frame_hdr.addr = hdr.addr;
	mod.eh_frame_hdr.size = hdr.n;
}

static void test_row_ranges(void)
{
	const uint64_t sp = STACK_ADDR + 0x100, f = CODE_ADDR;
	uint64_t misses, cfa;

	ranges_module(1);
	have_mod2 = 1;
	st_put(sp + 24, 0x123456, 8);
	st_put(sp + 16, 0x123456, 8);
	uw_cache_init(&range_cache, range_entries, 64);
	/* In order, each with the cache's counts after it: rows parsed
	 * (misses) and rows found in a kept range. */
	{
		static const struct {
			const char *name;
			uint64_t pc, cfa_off, misses, range_hits;
		} t[] = {
			{ "row ranges: the first pc of a row is parsed",
			  0x120, 16, 1, 0 },
			{ "row ranges: another pc of the row, from its range",
			  0x110, 16, 1, 1 },
			{ "row ranges: the row's last pc, from its range",
			  0x13f, 16, 1, 2 },
			{ "row ranges: the next row's first pc is parsed",
			  0x140, 8, 2, 2 },
			{ "row ranges: the row before is parsed",
			  0x10f, 8, 3, 2 },
			/* A's row [0x140, 0x200) holds only where the search
			 * finds A: from 0x180 it finds B. */
			{ "row ranges: up to where the search finds another FDE",
			  0x17f, 8, 3, 3 },
			{ "row ranges: not past it (an FDE inside the FDE)",
			  0x190, 32, 4, 3 },
		};
		size_t i;

		for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			cfa = range_step(f + t[i].pc);
			CHECK(t[i].name, cfa == sp + t[i].cfa_off &&
			      range_cache.misses == t[i].misses &&
			      range_cache.range_hits == t[i].range_hits);
		}
	}
	misses = range_cache.misses;
	cfa = range_step(f + 0x130 + MOD2_BIAS);
	CHECK("row ranges: the same rows in other tables are parsed",
	      cfa == sp + 16 && range_cache.misses == misses + 1);
	/* Other CFI at the same pcs (another process, the same layout):
	 * cfa = rsp + 24 throughout. */
	{
		static const uint8_t ins24[] = { 0x0e, 24 };
		static struct buf eh2;
		const struct uw_tables saved = mod;
		size_t c;

		memset(&eh2, 0, sizeof(eh2));
		eh2.addr = eh.addr;
		c = cie(&eh2, 1, "zR", -8, 16, 0x1b, cie64_ins, sizeof(cie64_ins));
		fde(&eh2, c, 1, 0x1b, CODE_ADDR + 0x100, 0x100, ins24, sizeof(ins24));
		mod.eh_frame.data = eh2.b;
		mod.eh_frame.size = eh2.n;
		mod.eh_frame_hdr.size = 0;
		misses = range_cache.misses;
		cfa = range_step(f + 0x118);
		CHECK("row ranges: other tables at the same pcs are parsed",
		      cfa == sp + 24 && range_cache.misses == misses + 1);
		/* Many more tables than the cache has tags for: those of
		 * the first rows lose theirs, and no other tables may find
		 * the rows kept under it (a tag given twice would). */
		{
			const struct uw_tables other = mod;
			uint64_t i, wrong = 0;

			mod = saved;
			range_step(f + 0x118);
			for (i = 1; i <= 8 * UW_CACHE_TABLES; i++) {	/* bound: 8 * UW_CACHE_TABLES */
				mod = other;
				mod.ident = i;
				if (range_step(f + 0x118) != sp + 24)
					wrong++;
			}
			CHECK("row ranges: tables past the cache's tags get their own rows",
			      wrong == 0);
			mod = saved;
			misses = range_cache.misses;
			cfa = range_step(f + 0x118);
			CHECK("row ranges: ... and the first tables' rows are parsed again",
			      cfa == sp + 16 && range_cache.misses == misses + 1);
		}
		mod = saved;
	}
	uw_cache_clear(&range_cache);
	misses = range_cache.misses;
	cfa = range_step(f + 0x131);
	CHECK("row ranges: forgotten by uw_cache_clear",
	      cfa == sp + 16 && range_cache.misses == misses + 1);
	/* The last row of C runs to its FDE's end; 0x280 is in no FDE. */
	cfa = range_step(f + 0x27f);
	misses = range_cache.misses;
	cfa = range_step(f + 0x200);
	CHECK("row ranges: the last row runs to the FDE's end",
	      cfa == sp + 24 && range_cache.misses == misses);
	CHECK("row ranges: no row past the FDE's end",
	      range_step(f + 0x280) == 0 &&
	      cur.stop.reason == UW_STOP_NO_UNWIND_DATA);

	/* A return address in a kept range gets its own entry: frame 0 at
	 * 0x210 (C: cfa = rsp + 24) returns to 0x121, looked up at 0x120,
	 * in A's row [0x110, 0x140), kept by the step at 0x131 above.
	 * Frame 0, a pc of C's range [0x200, 0x280), is found there every
	 * time: range_hits counts it too. */
	{
		struct uw_regs r;
		uint64_t hits, want_cfa = sp + 24 + 16;
		int k, ok[2];

		st_put(sp + 16, CODE_ADDR + 0x121, 8);
		st_put(sp + 24 + 8, 0x123456, 8);
		for (k = 0; k < 2; k++) {
			hits = range_cache.range_hits;
			misses = range_cache.misses;
			regs64(&r, f + 0x210, sp);
			uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
			cur.cache = &range_cache;
			ok[k] = uw_step(&cur) == 1 && uw_step(&cur) == 1 &&
				uw_cfa(&cur) == want_cfa &&
				range_cache.misses == misses &&
				range_cache.range_hits == hits + 1 + (k == 0);
		}
		CHECK("row ranges: a return address found in a range",
		      ok[0]);
		CHECK("row ranges: ... then has its own entry", ok[1]);
		st_put(sp + 16, 0x123456, 8);
	}

	/* Found by a scan, the first FDE that covers pc: no range. */
	ranges_module(0);
	uw_cache_clear(&range_cache);
	misses = range_cache.misses;
	cfa = range_step(f + 0x120);
	cfa = range_step(f + 0x121);
	CHECK("row ranges: a row a scan found is kept for its pc alone",
	      cfa == sp + 16 && range_cache.misses == misses + 2);
}

/* Parsed CIEs kept in the row cache, under their tables' tag: a row
 * parsed in a later unwind does not parse its CIE again, unless the
 * cache forgot it (uw_cache_clear) or the tables are others (another
 * ident: another tag), even at the same place with the same bytes'
 * address.  FDE [0x100, 0x200): cfa = rsp + 8 (the CIE's), from 0x110
 * rsp + 16. */
static void test_cies_kept(void)
{
	static const uint8_t adv16[] = { 0x40 | 0x10, 0x0e, 16 };
	const uint64_t sp = STACK_ADDR + 0x100, f = CODE_ADDR;
	uint64_t misses, cies, cfa;
	size_t c, cie_offset;

	reset();
	c = cie(&eh, 1, "zR", -8, 16, 0x1b, cie64_ins, sizeof(cie64_ins));
	cie_offset = eh.n - sizeof(cie64_ins) + 2;	/* def_cfa's offset */
	fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100, 0x100, adv16, sizeof(adv16));
	use_eh();
	mod.ident = 1;
	st_put(sp + 16, 0x123456, 8);
	uw_cache_init(&range_cache, range_entries, 64);

	cfa = range_step(f + 0x105);
	CHECK("CIEs kept: the first row parsed parses its CIE",
	      cfa == sp + 8 && range_cache.misses == 1 &&
	      range_cache.cie_misses == 1);
	cfa = range_step(f + 0x120);
	CHECK("CIEs kept: a later unwind's row does not",
	      cfa == sp + 16 && range_cache.misses == 2 &&
	      range_cache.cie_misses == 1);
	uw_cache_forget_rows(&range_cache);
	cfa = range_step(f + 0x105);
	CHECK("CIEs kept: uw_cache_forget_rows forgets rows, not CIEs",
	      cfa == sp + 8 && range_cache.misses == 3 &&
	      range_cache.cie_misses == 1);

	/* Other tables at the same place (another process's mapping of
	 * other bytes): their CIE says cfa = rsp + 24. */
	eh.b[cie_offset] = 24;
	mod.ident = 2;
	misses = range_cache.misses;
	cies = range_cache.cie_misses;
	cfa = range_step(f + 0x105);
	CHECK("CIEs kept: other tables at the same place parse their own",
	      cfa == sp + 24 && range_cache.misses == misses + 1 &&
	      range_cache.cie_misses == cies + 1);
	/* The same tables' bytes changed, and the host cleared the cache,
	 * as it must. */
	eh.b[cie_offset] = 8;
	uw_cache_clear(&range_cache);
	cfa = range_step(f + 0x105);
	CHECK("CIEs kept: forgotten by uw_cache_clear",
	      cfa == sp + 8 && range_cache.cie_misses == cies + 2);
}

static void test_signal_frames(void)
{
	struct uw_regs r;
	uint64_t v;

	/* x86_64 __restore_rt by bytes */
	{
		static const uint8_t code[] = UW_X86_64_RESTORE_RT_BYTES;
		uint64_t sp = STACK_ADDR + 0x100, sc = sp + UW_X86_64_UC_MCONTEXT;
		reset();
		memcpy(tramp_mem + 0x10, code, sizeof(code));
		st_put(sc + UW_X86_64_SC_RIP, CODE_ADDR + 0x110, 8);
		st_put(sc + UW_X86_64_SC_RSP, STACK_ADDR + 0x800, 8);
		st_put(sc + UW_X86_64_SC_RAX, 0xaaa, 8);
		st_put(sc + UW_X86_64_SC_R8 + 8 * 7, 0xf15, 8);
		regs64(&r, TRAMP_ADDR + 0x10, sp);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		cur.pc_is_exact = 0;	/* as if reached as a return address */
		CHECK("x86_64 rt_sigreturn bytes: step", uw_step(&cur) == 1 && cur.how == UW_HOW_SIGFRAME);
		CHECK("x86_64 rt_sigreturn bytes: registers restored", uw_pc(&cur) == CODE_ADDR + 0x110 &&
		      uw_sp(&cur) == STACK_ADDR + 0x800 && uw_get_reg(&cur, 0, &v) == 0 && v == 0xaaa &&
		      uw_get_reg(&cur, 15, &v) == 0 && v == 0xf15);
		CHECK("x86_64 rt_sigreturn bytes: interrupted pc is exact", cur.pc_is_exact);
		/* the interrupted frame is looked up at its pc, not pc - 1 */
		mod64(NULL, 0);
		st_put(STACK_ADDR + 0x800, 0x4444, 8);
		CHECK("after a signal frame: lookup at pc itself", uw_step(&cur) == 1 &&
		      trace_lookup == CODE_ADDR + 0x110 && uw_pc(&cur) == 0x4444);
	}
	/* i386 sigreturn / rt_sigreturn by bytes */
	{
		static const uint8_t sr[] = UW_I386_SIGRETURN_BYTES;
		static const uint8_t rt[] = UW_I386_RT_SIGRETURN_BYTES;
		const struct { const char *n; uint64_t pc; uint64_t sc_off; } t[] = {
			{ "i386 sigreturn bytes (at pop)", TRAMP_ADDR + 0x10, UW_I386_SIGFRAME_SC },
			{ "i386 sigreturn bytes (after pop)", TRAMP_ADDR + 0x11, 0 },
			{ "i386 rt_sigreturn bytes", TRAMP_ADDR + 0x20, UW_I386_RT_SIGFRAME_SC },
		};
		for (int i = 0; i < 3; i++) {
			uint64_t sp = STACK_ADDR + 0x100, sc = sp + t[i].sc_off;
			reset();
			memcpy(tramp_mem + 0x10, sr, sizeof(sr));
			memcpy(tramp_mem + 0x20, rt, sizeof(rt));
			st_put(sc + UW_I386_SC_EIP, 0x08048123, 4);
			st_put(sc + UW_I386_SC_ESP, STACK_ADDR + 0x900, 4);
			st_put(sc + UW_I386_SC_EBX, 0xb, 4);
			memset(&r, 0, sizeof(r));
			r.val[UW_I386_EIP] = t[i].pc;
			r.val[UW_I386_ESP] = sp;
			r.defined = UW_REG_BIT(UW_I386_EIP) | UW_REG_BIT(UW_I386_ESP);
			uw_init(&cur, UW_ARCH_I386, &ops, NULL, &r);
			CHECK(t[i].n, uw_step(&cur) == 1 && cur.how == UW_HOW_SIGFRAME && uw_pc(&cur) == 0x08048123 &&
			      uw_sp(&cur) == STACK_ADDR + 0x900 && uw_get_reg(&cur, UW_I386_EBX, &v) == 0 && v == 0xb &&
			      cur.pc_is_exact);
		}
	}
	/* glibc's x86_64 __restore_rt, by its CFI: the CFA and every
	 * register in the sigcontext at rsp + n.  The CFA's slot lies in
	 * the registers' span, which one read fetches. */
	{
		static const uint8_t ins[] = {
			0x0f, 4, 0x77, 0xa0, 0x01, 0x06,	/* cfa = *(rsp + 160) */
			0x10, 16, 3, 0x77, 0xa8, 0x01,		/* rip at rsp + 168 */
			0x10, 3, 3, 0x77, 0x80, 0x01,		/* rbx at rsp + 128 */
			0x10, 6, 3, 0x77, 0xf8, 0x00,		/* rbp at rsp + 120 */
			0x10, 7, 3, 0x77, 0xa0, 0x01,		/* rsp at rsp + 160 */
		};
		const uint64_t sp = STACK_ADDR + 0x100;

		reset();
		size_t c = cie(&eh, 1, "zRS", -8, 16, 0x1b, cie64_ins, sizeof(cie64_ins));
		fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100, 0x10, ins, sizeof(ins));
		use_eh();
		st_put(sp + 168, CODE_ADDR + 0x2222, 8);
		st_put(sp + 160, STACK_ADDR + 0x900, 8);
		st_put(sp + 128, 0xb0b, 8);
		st_put(sp + 120, 0xbeb, 8);
		regs64(&r, CODE_ADDR + 0x104, sp);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		stack_reads = 0;
		CHECK("__restore_rt's CFI: registers from the sigcontext",
		      uw_step(&cur) == 1 && uw_pc(&cur) == CODE_ADDR + 0x2222 &&
		      uw_cfa(&cur) == STACK_ADDR + 0x900 &&
		      uw_sp(&cur) == STACK_ADDR + 0x900 &&
		      uw_get_reg(&cur, 3, &v) == 0 && v == 0xb0b &&
		      uw_get_reg(&cur, 6, &v) == 0 && v == 0xbeb &&
		      cur.pc_is_exact);
		CHECK("__restore_rt's CFI: the CFA and the registers in one read",
		      stack_reads == 1);
	}
	/* CIE 'S' augmentation: the caller's pc is exact */
	{
		reset();
		size_t c = cie(&eh, 1, "zRS", -8, 16, 0x1b, cie64_ins, sizeof(cie64_ins));
		fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100, 0x100, NULL, 0);
		c = cie(&eh, 1, "zR", -8, 16, 0x1b, cie64_ins, sizeof(cie64_ins));
		fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x200, 0x100, NULL, 0);
		use_eh();
		regs64(&r, CODE_ADDR + 0x110, STACK_ADDR + 0x100);
		st_put(STACK_ADDR + 0x100, CODE_ADDR + 0x200, 8);	/* start of next FDE */
		st_put(STACK_ADDR + 0x108, 0x5555, 8);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		CHECK("CIE S: step marks caller pc exact", uw_step(&cur) == 1 && cur.pc_is_exact);
		CHECK("CIE S: caller looked up at pc (finds the FDE starting there)",
		      uw_step(&cur) == 1 && trace_lookup == CODE_ADDR + 0x200 && uw_pc(&cur) == 0x5555);
	}
}

static void test_fp_fallback(void)
{
	struct uw_regs r;
	uint64_t bp = STACK_ADDR + 0x200, v;

	reset();
	regs64(&r, TRAMP_ADDR + 0x30, STACK_ADDR + 0x100);
	r.val[6] = bp;
	r.defined |= UW_REG_BIT(6);
	st_put(bp, 0xbbbb, 8);
	st_put(bp + 8, 0x6666, 8);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	CHECK("fp fallback off by default", uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_NO_UNWIND_DATA &&
	      !trace_fp_seen);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	cur.policy = UW_POLICY_FP_FALLBACK;
	CHECK("fp fallback when enabled", uw_step(&cur) == 1 && cur.how == UW_HOW_FRAME_POINTER && trace_fp_seen &&
	      uw_pc(&cur) == 0x6666 && uw_sp(&cur) == bp + 16 && uw_get_reg(&cur, 6, &v) == 0 && v == 0xbbbb);
	/* A thread's outermost frame, whose bp is 0, names slots at 0 and
	 * 8: below min_code nothing is mapped, so the host is not asked
	 * (a kernel host would take a fault for each). */
	r.val[6] = 0;
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	cur.policy = UW_POLICY_FP_FALLBACK;
	low_reads = 0;
	CHECK("fp fallback, bp 0: unreadable, no read asked below min_code",
	      uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_MEMORY_UNREADABLE &&
	      cur.stop.addr == 8 && low_reads == 0);
}

/* The two fallbacks are asked for apart: the runtime reads the code
 * (UW_POLICY_NOCFI), which answers only from instructions that fix the
 * caller, and never guesses with the bp chain. */
static void test_nocfi_policy(void)
{
	uint64_t sp = STACK_ADDR + 0x100, bp = STACK_ADDR + 0x200, pc = TRAMP_ADDR + 0x28, v;
	struct uw_regs r;

	reset();
	tramp_mem[0x28] = 0x5b;		/* pop %rbx */
	tramp_mem[0x29] = 0xc3;		/* ret */
	regs64(&r, pc, sp);
	r.val[6] = bp;
	r.defined |= UW_REG_BIT(6);
	st_put(sp, 0xb0b0, 8);		/* the caller's rbx */
	st_put(sp + 8, 0x7777, 8);	/* the return address */
	st_put(bp, 0xbbbb, 8);
	st_put(bp + 8, 0x6666, 8);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	cur.policy = UW_POLICY_NOCFI;
	CHECK("nocfi policy: pop; ret read from the code", uw_step(&cur) == 1 &&
	      cur.how == UW_HOW_NOCFI_RET && !trace_fp_seen && uw_pc(&cur) == 0x7777 &&
	      uw_sp(&cur) == sp + 16 && uw_get_reg(&cur, 3, &v) == 0 && v == 0xb0b0);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	cur.policy = UW_POLICY_FP_FALLBACK;
	CHECK("fp fallback policy alone does not read the code",
	      uw_step(&cur) == 1 && cur.how == UW_HOW_FRAME_POINTER && uw_pc(&cur) == 0x6666);
	regs64(&r, TRAMP_ADDR + 0x30, sp);	/* zero bytes: not recognised */
	r.val[6] = bp;
	r.defined |= UW_REG_BIT(6);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	cur.policy = UW_POLICY_NOCFI;
	trace_fp_seen = 0;
	CHECK("nocfi policy: unrecognised code stops, no bp chain",
	      uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_NO_UNWIND_DATA && !trace_fp_seen);
}

/* A function's entry without CFI, as Debian 13's 6.12 kernel builds its
 * 32-bit vDSO's clock functions: endbr32, the call to a get_pc_thunk and
 * its add, push %ebp; mov %esp,%ebp (__vdso_clock_gettime64's first
 * 12 bytes, from that kernel's image); and the x86_64 form, endbr64;
 * push %rbp; mov %rsp,%rbp.  A pc at the endbr goes on from the code. */
static void test_nocfi_endbr_entry(void)
{
	static const uint8_t entry32[] = {
		0xf3, 0x0f, 0x1e, 0xfb,		/* endbr32 */
		0xe8, 0x17, 0x00, 0x00, 0x00,	/* call 0x20: the thunk */
		0x05, 0x4b, 0xf1, 0xff, 0xff,	/* add $imm,%eax */
		0x55, 0x89, 0xe5, 0x57,		/* push %ebp; mov %esp,%ebp; push %edi */
	};
	static const uint8_t thunk[] = { 0x8b, 0x04, 0x24, 0xc3 };	/* mov (%esp),%eax; ret */
	static const uint8_t entry64[] = {
		0xf3, 0x0f, 0x1e, 0xfa,		/* endbr64 */
		0x55, 0x48, 0x89, 0xe5,		/* push %rbp; mov %rsp,%rbp */
	};
	uint64_t sp = STACK_ADDR + 0x100, bp = STACK_ADDR + 0x200, v;
	struct uw_regs r;

	reset();
	memcpy(tramp_mem, entry32, sizeof(entry32));
	memcpy(tramp_mem + 0x20, thunk, sizeof(thunk));
	memset(&r, 0, sizeof(r));
	r.val[UW_I386_EIP] = TRAMP_ADDR;
	r.val[UW_I386_ESP] = sp;
	r.val[UW_I386_EBP] = bp;
	r.defined = UW_REG_BIT(UW_I386_EIP) | UW_REG_BIT(UW_I386_ESP) | UW_REG_BIT(UW_I386_EBP);
	st_put(sp, 0x7777, 4);
	uw_init(&cur, UW_ARCH_I386, &ops, NULL, &r);
	cur.policy = UW_POLICY_NOCFI;
	CHECK("nocfi: i386 entry at endbr32, thunk call, push %ebp; mov %esp,%ebp",
	      uw_step(&cur) == 1 && cur.how == UW_HOW_NOCFI_ENTRY && uw_pc(&cur) == 0x7777 &&
	      uw_sp(&cur) == sp + 4 && uw_get_reg(&cur, UW_I386_EBP, &v) == 0 && v == bp);

	reset();
	memcpy(tramp_mem, entry64, sizeof(entry64));
	regs64(&r, TRAMP_ADDR, sp);
	r.val[6] = bp;
	r.defined |= UW_REG_BIT(6);
	st_put(sp, 0x7777, 8);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	cur.policy = UW_POLICY_NOCFI;
	CHECK("nocfi: x86_64 entry at endbr64, push %rbp; mov %rsp,%rbp",
	      uw_step(&cur) == 1 && cur.how == UW_HOW_NOCFI_ENTRY && uw_pc(&cur) == 0x7777 &&
	      uw_sp(&cur) == sp + 8 && uw_get_reg(&cur, 6, &v) == 0 && v == bp);
}

/* An object whose functions without CFI keep the frame pointer (the
 * kernel's vDSO, uw_tables.keeps_frame_pointer): a pc there that the
 * code does not explain takes the bp chain under the runtime's policy
 * (UW_POLICY_NOCFI alone); in any other object it stops. */
static void test_tables_keep_frame_pointer(void)
{
	uint64_t sp = STACK_ADDR + 0x100, bp = STACK_ADDR + 0x180, v;
	struct uw_regs r;
	size_t c;

	reset();
	g_asize = 4;
	c = cie(&eh, 1, "zR", -4, 8, 0x1b, cie32_ins, sizeof(cie32_ins));
	fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100, 0x100, NULL, 0);
	use_eh();
	memset(&r, 0, sizeof(r));
	r.val[UW_I386_EIP] = CODE_ADDR + 0x300;	/* no FDE, no code to read */
	r.val[UW_I386_ESP] = sp;
	r.val[UW_I386_EBP] = bp;
	r.defined = UW_REG_BIT(UW_I386_EIP) | UW_REG_BIT(UW_I386_ESP) | UW_REG_BIT(UW_I386_EBP);
	st_put(bp, bp + 0x40, 4);		/* the caller's ebp */
	st_put(bp + 4, 0x7777, 4);		/* the return address */
	mod.keeps_frame_pointer = 1;
	uw_init(&cur, UW_ARCH_I386, &ops, NULL, &r);
	cur.policy = UW_POLICY_NOCFI;
	CHECK("tables that keep the frame pointer: a pc without CFI takes the bp chain",
	      uw_step(&cur) == 1 && cur.how == UW_HOW_FRAME_POINTER && uw_pc(&cur) == 0x7777 &&
	      uw_sp(&cur) == bp + 8 && uw_get_reg(&cur, UW_I386_EBP, &v) == 0 && v == bp + 0x40);
	mod.keeps_frame_pointer = 0;
	uw_init(&cur, UW_ARCH_I386, &ops, NULL, &r);
	cur.policy = UW_POLICY_NOCFI;
	CHECK("other tables: a pc without CFI stops, no bp chain",
	      uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_NO_UNWIND_DATA);
}

static void test_pt_regs(void)
{
	uw_pt_regs pt;
	struct uw_regs r;

	memset(&pt, 0, sizeof(pt));
	pt.ip = 0x1122334455667788ull; pt.sp = 0x7ffd00001000ull; pt.bp = 0xb9; pt.bx = 0xb; pt.r12 = 12;
	pt.ax = 0x1ffffffffull; pt.di = 0xd1; pt.r15 = 15;
	uw_regs_from_pt_regs(&r, UW_ARCH_X86_64, &pt, UW_X86_64_ALL);
	CHECK("pt_regs x86_64 mapping", r.val[16] == pt.ip && r.val[7] == pt.sp && r.val[6] == 0xb9 &&
	      r.val[3] == 0xb && r.val[12] == 12 && r.val[15] == 15 && r.val[5] == 0xd1 &&
	      r.defined == 0x1ffff);
	uw_regs_from_pt_regs(&r, UW_ARCH_X86_64, &pt, UW_REG_BIT(16) | UW_REG_BIT(7));
	CHECK("pt_regs trusted mask", r.defined == (UW_REG_BIT(16) | UW_REG_BIT(7)));
	uw_regs_from_pt_regs(&r, UW_ARCH_I386, &pt, UW_I386_ALL);
	CHECK("pt_regs i386 mapping truncates", r.val[UW_I386_EIP] == 0x55667788 && r.val[UW_I386_ESP] == 0x1000 &&
	      r.val[UW_I386_EAX] == 0xffffffff && r.val[UW_I386_EBP] == 0xb9 && r.val[UW_I386_EDI] == 0xd1 &&
	      r.defined == 0x1ff);
}

static void test_i386_walk(void)
{
	/* push %ebp; mov %esp,%ebp; two frames */
	static const uint8_t ins[] = { 0x41, 0x0e, 8, 0x85, 2, 0x42, 0x0d, 5 };
	struct uw_regs r;
	uint64_t v, sp = STACK_ADDR + 0x100;

	reset();
	g_asize = 4;
	size_t c = cie(&eh, 1, "zR", -4, 8, 0x1b, cie32_ins, sizeof(cie32_ins));
	fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100, 0x100, ins, sizeof(ins));
	use_eh();
	memset(&r, 0, sizeof(r));
	r.val[UW_I386_EIP] = CODE_ADDR + 0x110;
	r.val[UW_I386_ESP] = sp - 0x20;
	r.val[UW_I386_EBP] = sp;
	r.val[UW_I386_ESI] = 0x51;
	r.defined = UW_REG_BIT(UW_I386_EIP) | UW_REG_BIT(UW_I386_ESP) | UW_REG_BIT(UW_I386_EBP) |
		    UW_REG_BIT(UW_I386_ESI);
	st_put(sp, sp + 0x40, 4);			/* saved ebp */
	st_put(sp + 4, CODE_ADDR + 0x120, 4);	/* RA, same function again */
	st_put(sp + 0x40, 0, 4);
	st_put(sp + 0x44, 0, 4);			/* RA 0: end */
	uw_init(&cur, UW_ARCH_I386, &ops, NULL, &r);
	CHECK("i386 walk: frame 1", uw_step(&cur) == 1 && uw_pc(&cur) == CODE_ADDR + 0x120 &&
	      uw_sp(&cur) == sp + 8 && uw_get_reg(&cur, UW_I386_EBP, &v) == 0 && v == sp + 0x40 &&
	      uw_get_reg(&cur, UW_I386_ESI, &v) == 0 && v == 0x51);
	CHECK("i386 walk: ends at RA 0", uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_END_OF_STACK);
	/* 32-bit address wrap: CFA = esp + 4 with esp = 0xfffffffc wraps to 0 */
	memset(&r, 0, sizeof(r));
	r.val[UW_I386_EIP] = CODE_ADDR + 0x100;
	r.val[UW_I386_ESP] = 0xfffffffc;
	r.defined = UW_REG_BIT(UW_I386_EIP) | UW_REG_BIT(UW_I386_ESP);
	uw_init(&cur, UW_ARCH_I386, &ops, NULL, &r);
	CHECK("i386: CFA wraps at 32 bits (RA read at 0xfffffffc fails there)",
	      uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_MEMORY_UNREADABLE && cur.stop.addr == 0xfffffffc);
}

/* A caller's pc that no tables cover must be a return address: a call
 * ends right before it, or a signal trampoline starts there.  Else the
 * step stops with BAD_RETURN_ADDRESS and reports no such frame. */
static void test_return_addresses(void)
{
	static const struct {
		const char *name;
		uint8_t code[8];	/* the 8 bytes before the return address */
		int kept;
	} cases[] = {
		{ "zeros", { 0 }, 0 },
		{ "call rel32", { 0, 0, 0, 0xe8, 1, 2, 3, 4 }, 1 },
		{ "call *%rax", { 0, 0, 0, 0, 0, 0, 0xff, 0xd0 }, 1 },
		{ "call *%r11 (REX)", { 0, 0, 0, 0, 0, 0x41, 0xff, 0xd3 }, 1 },
		{ "call *(%rax)", { 0, 0, 0, 0, 0, 0, 0xff, 0x10 }, 1 },
		{ "call *8(%rbx)", { 0, 0, 0, 0, 0, 0xff, 0x53, 0x08 }, 1 },
		{ "call *8(%rsp) (SIB)", { 0, 0, 0, 0, 0xff, 0x54, 0x24, 0x08 }, 1 },
		{ "call *disp32(%rip)", { 0, 0, 0xff, 0x15, 1, 2, 3, 4 }, 1 },
		{ "call *disp32(%rsp) (SIB)", { 0, 0xff, 0x94, 0x24, 1, 2, 3, 4 }, 1 },
		{ "call *%rax, then a nop", { 0, 0, 0, 0, 0, 0xff, 0xd0, 0x90 }, 0 },
		{ "jmp *%rax (ff /4)", { 0, 0, 0, 0, 0, 0, 0xff, 0xe0 }, 0 },
	};
	static const uint8_t restore_rt[] = UW_X86_64_RESTORE_RT_BYTES;
	uint64_t ra = TRAMP_ADDR + 0x20, sp = STACK_ADDR + 0x100;
	struct uw_regs r;
	char name[96];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reset();
		mod64(NULL, 0);
		memcpy(tramp_mem + 0x18, cases[i].code, 8);
		regs64(&r, CODE_ADDR + 0x110, sp);
		st_put(sp, ra, 8);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		int rc = uw_step(&cur);
		snprintf(name, sizeof(name), "return address after %s: %s", cases[i].name,
			 cases[i].kept ? "kept" : "BAD_RETURN_ADDRESS");
		if (cases[i].kept)
			CHECK(name, rc == 1 && uw_pc(&cur) == ra);
		else
			CHECK(name, rc == 0 && cur.stop.reason == UW_STOP_BAD_RETURN_ADDRESS &&
			      cur.stop.addr == ra && cur.stop.pc == CODE_ADDR + 0x110 && cur.depth == 0 &&
			      cur.stop.module && !strcmp(cur.stop.module, "test") &&
			      uw_pc(&cur) == CODE_ADDR + 0x110);
	}
	/* a signal trampoline is returned into, never called */
	reset();
	mod64(NULL, 0);
	memcpy(tramp_mem + 0x20, restore_rt, sizeof(restore_rt));
	regs64(&r, CODE_ADDR + 0x110, sp);
	st_put(sp, ra, 8);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	CHECK("return address at __restore_rt's bytes: kept", uw_step(&cur) == 1 && uw_pc(&cur) == ra);
	/* unreadable code is not judged */
	reset();
	mod64(NULL, 0);
	regs64(&r, CODE_ADDR + 0x110, sp);
	st_put(sp, 0x4444, 8);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	CHECK("return address in unreadable memory: kept", uw_step(&cur) == 1 && uw_pc(&cur) == 0x4444);
	/* below min_code: not code, whatever its bytes */
	for (uint64_t low = 6; low < 0x10000; low += 0xfff0) {	/* bound: 2 */
		reset();
		mod64(NULL, 0);
		regs64(&r, CODE_ADDR + 0x110, sp);
		st_put(sp, low, 8);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		cur.min_code = 0x10000;
		snprintf(name, sizeof(name), "return address %#llx below min_code: BAD_RETURN_ADDRESS",
			 (unsigned long long)low);
		CHECK(name, uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_BAD_RETURN_ADDRESS &&
		      cur.stop.addr == low && cur.depth == 0);
	}
	reset();
	mod64(NULL, 0);
	regs64(&r, CODE_ADDR + 0x110, sp);
	st_put(sp, 6, 8);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	CHECK("return address 0x6, default min_code: BAD_RETURN_ADDRESS",
	      uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_BAD_RETURN_ADDRESS && cur.stop.addr == 6);
	/* covered by tables: not read at all (zeros before it here) */
	reset();
	mod64(NULL, 0);
	regs64(&r, CODE_ADDR + 0x110, sp);
	st_put(sp, CODE_ADDR + 0x130, 8);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	CHECK("return address in a module: kept", uw_step(&cur) == 1 && uw_pc(&cur) == CODE_ADDR + 0x130);
	/* i386: 4-byte return address after zeros */
	reset();
	g_asize = 4;
	size_t c = cie(&eh, 1, "zR", -4, 8, 0x1b, cie32_ins, sizeof(cie32_ins));
	fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100, 0x100, NULL, 0);
	use_eh();
	memset(&r, 0, sizeof(r));
	r.val[UW_I386_EIP] = CODE_ADDR + 0x110;
	r.val[UW_I386_ESP] = sp;
	r.defined = UW_REG_BIT(UW_I386_EIP) | UW_REG_BIT(UW_I386_ESP);
	st_put(sp, ra, 4);
	uw_init(&cur, UW_ARCH_I386, &ops, NULL, &r);
	CHECK("i386 return address after zeros: BAD_RETURN_ADDRESS",
	      uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_BAD_RETURN_ADDRESS && cur.stop.addr == ra);
	tramp_mem[0x1b] = 0xe8;
	uw_init(&cur, UW_ARCH_I386, &ops, NULL, &r);
	CHECK("i386 return address after call rel32: kept", uw_step(&cur) == 1 && uw_pc(&cur) == ra);
	CHECK("uw_stop_reason_name(BAD_RETURN_ADDRESS)",
	      !strcmp(uw_stop_reason_name(UW_STOP_BAD_RETURN_ADDRESS), "bad return address"));
}

/* uw_hdr_searchable: which headers the lookup can search, and the
 * .eh_frame address each gives (the VMA tracker indexes the objects whose
 * header it cannot search). */
static void test_hdr_searchable(void)
{
	static struct buf hdr;
	static struct uw_cursor scratch;
	const uint64_t eh_at = CODE_ADDR + 0x4000;
	struct uw_section sec;
	uint64_t at;
	/* count (entries), count_enc, table_enc, version */
	static const struct {
		const char *what;
		uint32_t count, entries;
		uint8_t count_enc, table_enc, version;
		int want;
	} cases[] = {
		{ "a sorted table of 3", 3, 3, 0x03, 0x3b, 1, 1 },
		{ "no table (fde_count omitted)", 0, 0, 0xff, 0xff, 1, 0 },
		{ "a table of absolute pointers", 3, 3, 0x03, 0x04, 1, 1 },
		{ "a count past the header's end", 1000, 3, 0x03, 0x3b, 1, 0 },
		{ "version 2", 3, 3, 0x03, 0x3b, 2, 0 },
		{ "LEB128 entries", 3, 3, 0x03, 0x01, 1, 0 },
	};
	char name[160];

	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {	/* bound: 6 */
		memset(&hdr, 0, sizeof(hdr));
		hdr.addr = CODE_ADDR + 0x7000;
		u8(&hdr, cases[k].version); u8(&hdr, 0x1b);
		u8(&hdr, cases[k].count_enc); u8(&hdr, cases[k].table_enc);
		put_enc(&hdr, 0x1b, eh_at);
		if (cases[k].count_enc != 0xff)
			un(&hdr, cases[k].count, 4);
		g_datarel = hdr.addr;
		for (uint32_t i = 0; i < cases[k].entries; i++) {	/* bound: 3 */
			uint8_t enc = cases[k].table_enc == 0x01 ? 0x03 : cases[k].table_enc;
			put_enc(&hdr, enc, CODE_ADDR + 0x100 + 0x20 * i);
			put_enc(&hdr, enc, eh_at + 0x20 * i);
		}
		sec = (struct uw_section){ hdr.b, hdr.addr, hdr.n };
		int got = uw_hdr_searchable(&scratch, UW_ARCH_X86_64, &sec, &at);
		snprintf(name, sizeof(name), "uw_hdr_searchable: %s: %s", cases[k].what,
			 cases[k].want ? "searchable" : "not searchable");
		CHECK(name, got == cases[k].want);
		snprintf(name, sizeof(name), "uw_hdr_searchable: %s: .eh_frame at %s", cases[k].what,
			 cases[k].version == 1 ? "the header's eh_frame_ptr" : "0 (unknown)");
		CHECK(name, at == (cases[k].version == 1 ? eh_at : 0));
	}
	sec = (struct uw_section){ NULL, hdr.addr, hdr.n };
	CHECK("uw_hdr_searchable: a header in target memory: no",
	      uw_hdr_searchable(&scratch, UW_ARCH_X86_64, &sec, &at) == 0 && at == 0);
}

/* uw_index_build: every FDE of an .eh_frame without a header (in
 * reverse address order) and of a .debug_frame, one function in both
 * sections with different lengths; the lookups through the index then
 * find each function's FDE without a scan. */
static void test_index(void)
{
	static struct buf df;
	static struct uw_index_entry idx[64];
	static struct uw_cursor scratch;
	const int n = 20;
	char name[128];
	int all = 1, sorted = 1;

	reset();
	memset(&df, 0, sizeof(df));
	size_t c = cie(&eh, 1, "zR", -8, 16, 0x1b, cie64_ins, sizeof(cie64_ins));
	for (int i = n - 1; i >= 0; i--) {	/* bound: n */
		uint8_t ins[] = { 0x0e, (uint8_t)(8 + 8 * (i % 4)) };
		fde(&eh, c, 1, 0x1b, CODE_ADDR + 0x100 + 0x20 * i, i == 3 ? 0x10 : 0x20, ins, 2);
	}
	use_eh();
	/* .debug_frame: function 3 again, whole (0x20), and one of its own */
	size_t dc = df.n;
	un(&df, 0, 4); un(&df, 0xffffffff, 4); u8(&df, 1); u8(&df, 0);
	uleb(&df, 1); sleb(&df, -8); u8(&df, 16);
	bytes(&df, cie64_ins, sizeof(cie64_ins));
	patch32(&df, dc, (uint32_t)(df.n - dc - 4));
	for (int k = 0; k < 2; k++) {	/* bound: 2 */
		size_t f = df.n;
		uint64_t fn = k == 0 ? 3 : n;
		un(&df, 0, 4); un(&df, dc, 4);
		un(&df, CODE_ADDR + 0x100 + 0x20 * fn, 8); un(&df, 0x20, 8);
		u8(&df, 0x0e); u8(&df, (uint8_t)(8 + 8 * (fn % 4)));
		patch32(&df, f, (uint32_t)(df.n - f - 4));
	}
	mod.debug_frame.data = df.b;
	mod.debug_frame.size = df.n;
	int count = uw_index_build(&scratch, UW_ARCH_X86_64, &mod, idx, 64);
	CHECK("index: every FDE of both sections", count == n + 2);
	for (int i = 1; i < count; i++)	/* bound: count */
		sorted &= idx[i - 1].pc_begin <= idx[i].pc_begin;
	CHECK("index: sorted by pc_begin", count > 0 && sorted);
	static struct uw_index_entry small[20];
	CHECK("index: too small an array is refused",
	      uw_index_build(&scratch, UW_ARCH_X86_64, &mod, small, n) == -1);
	mod.index = idx;
	mod.index_count = count > 0 ? (uint32_t)count : 0;
	for (int i = 0; i <= n; i++) {	/* bound: n + 1 */
		/* function 3's second half: only .debug_frame covers it */
		uint64_t pc = CODE_ADDR + 0x100 + 0x20 * i + (i == 3 ? 0x18 : 0x1f);
		uint64_t off = 8 + 8 * (i % 4), sp = STACK_ADDR + 0x100;
		struct uw_regs r;

		regs64(&r, pc, sp);
		st_put(sp + off - 8, 0x100000 + i, 8);
		uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
		/* the method, 5 probes, 3 instructions */
		if (uw_step(&cur) != 1 || uw_pc(&cur) != 0x100000u + i || cur.work > 1 + 5 + 3) {
			printf("index: function %d: pc %#llx, work %u, stop %s\n", i,
			       (unsigned long long)uw_pc(&cur), cur.work,
			       uw_stop_reason_id(cur.stop.reason));
			all = 0;
		}
	}
	snprintf(name, sizeof(name), "index: %d functions found, log2(n) probes each", n + 1);
	CHECK(name, all);
	struct uw_regs r;
	regs64(&r, CODE_ADDR + 0x50, STACK_ADDR + 0x100);
	uw_init(&cur, UW_ARCH_X86_64, &ops, NULL, &r);
	CHECK("index: pc below every FDE: NO_UNWIND_DATA",
	      uw_step(&cur) == 0 && cur.stop.reason == UW_STOP_NO_UNWIND_DATA);
	mod.index = NULL;
	mod.index_count = 0;
	mod.eh_frame.data = NULL;
	target_sec_addr = 0;
	CHECK("index: a section in target memory is refused",
	      uw_index_build(&scratch, UW_ARCH_X86_64, &mod, idx, 64) == -1);
}

int main(void)
{
	test_basic_x86_64();
	test_return_trampoline();
	test_cfa_insns();
	test_expressions();
	test_encodings();
	test_hdr();
	test_hdr_searchable();
	test_debug_frame();
	test_malformed();
	test_walk_stops();
	test_stack_window();
	test_tables_kept();
	test_tables_across_unwinds();
	test_row_ranges();
	test_cies_kept();
	test_signal_frames();
	test_fp_fallback();
	test_nocfi_policy();
	test_nocfi_endbr_entry();
	test_tables_keep_frame_pointer();
	test_pt_regs();
	test_i386_walk();
	test_return_addresses();
	test_index();
	return failures ? 1 : 0;
}
