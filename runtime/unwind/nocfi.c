/* Code without CFI (x86_64 and i386): find the caller by reading the
 * instructions at pc, the way gdb's prologue analysis does (step.c,
 * UW_POLICY_NOCFI), before the frame-pointer chain (UW_POLICY_FP_FALLBACK).
 *
 * From pc, straight-line code is simulated forward on the concrete stack
 * pointer (no branches are followed) until one of:
 *   - ret / ret $n: the return address is at [sp] (covers a pc at a ret,
 *     the "mov (%esp),%reg; ret" get_pc_thunk, and epilogues: pops,
 *     add $n,%esp, leave, mov %ebp,%esp before the ret)
 *     -> UW_HOW_NOCFI_RET;
 *   - mov %esp,%ebp right after a push %ebp (simulated, or the byte
 *     before pc when pc is at the mov): the frame is being set up, the
 *     return address is just above the saved %ebp -> UW_HOW_NOCFI_ENTRY.
 *     A call to a get_pc_thunk (its 4 bytes checked at the target) on the
 *     way, as at the entry of i386 PIC code, is stepped over, and so is
 *     the endbr64/endbr32 that begins a function built for indirect
 *     branch tracking.
 * Anything else (an unknown instruction, a branch, a pop of a slot below
 * the frame's sp, an unreadable byte) means "not recognised": the caller
 * then tries the frame-pointer chain, if its policy asks for it.
 *
 * Bounds: at most UW_NOCFI_MAX_INSNS instructions, decoded from one read
 * of at most UW_NOCFI_WINDOW bytes at pc; plus at most one 4-byte read per
 * call (thunk check), one byte at pc - 1, and one address-sized read per
 * simulated pop and for the return address.
 */
#include "uw_internal.h"

#define UW_NOCFI_MAX_INSNS	16
#define UW_NOCFI_WINDOW		64

/* Hardware register number (ModRM / opcode low bits, REX-extended) to
 * DWARF number. */
static const uint8_t uw_nocfi_dwarf64[16] = {
	UW_X86_64_RAX, UW_X86_64_RCX, UW_X86_64_RDX, UW_X86_64_RBX,
	UW_X86_64_RSP, UW_X86_64_RBP, UW_X86_64_RSI, UW_X86_64_RDI,
	8, 9, 10, 11, 12, 13, 14, 15,
};

#define UW_NOCFI_HW_SP 4
#define UW_NOCFI_HW_BP 5

struct uw_nocfi {
	struct uw_cursor *c;
	uint8_t code[UW_NOCFI_WINDOW];
	uint32_t len;		/* bytes of code read at pc */
	uint64_t sp0, sp, bp;
	int bp_known;
	uint32_t written;	/* DWARF registers the code changes */
	struct uw_regs popped;	/* values popped before the ret */
};

static unsigned uw_nocfi_reg(const struct uw_nocfi *n, unsigned hw)
{
	if (n->c->state.arch_desc->arch == UW_ARCH_X86_64)
		return uw_nocfi_dwarf64[hw & 15];
	return hw & 7;		/* i386: DWARF numbers are the hw numbers */
}

/* Speculative: a word that cannot be read means "not recognised", never
 * a stop (the frame-pointer chain may still work).  0 = read, -1 = not. */
static int uw_nocfi_read(struct uw_nocfi *n, uint64_t addr, uint64_t *v)
{
	return uw_peek_word(n->c, addr, v) ? 0 : -1;
}

/* A write to hw register r by a simulated instruction: 0 = ok, -1 = the
 * instruction changes sp or bp in a way not modelled. */
static int uw_nocfi_write(struct uw_nocfi *n, unsigned hw)
{
	if ((hw & 7) == UW_NOCFI_HW_SP && hw < 8)
		return -1;
	if ((hw & 7) == UW_NOCFI_HW_BP && hw < 8)
		n->bp_known = 0;
	n->written |= UW_REG_BIT(uw_nocfi_reg(n, hw));
	n->popped.defined &= ~UW_REG_BIT(uw_nocfi_reg(n, hw));
	return 0;
}

/* Is the code at target "mov (%esp),%reg; ret" (an i386 get_pc_thunk)?
 * Returns the hw register, or -1. */
static int uw_nocfi_thunk(struct uw_nocfi *n, uint64_t target)
{
	uint8_t b[4];
	unsigned r;

	if (!uw_peek(n->c, target & n->c->state.arch_desc->addr_mask, b, 4))
		return -1;
	if (b[0] != 0x8b || (b[1] & 0xc7) != 0x04 || b[2] != 0x24 ||
	    b[3] != 0xc3)
		return -1;
	r = (b[1] >> 3) & 7;
	return r == UW_NOCFI_HW_SP ? -1 : (int)r;
}

/* The caller's registers from the simulated state; ra_at = where the
 * return address is, caller_sp = the caller's sp (= CFA). */
static int uw_nocfi_done(struct uw_nocfi *n, uint64_t ra_at,
			 uint64_t caller_sp, int bp_from_stack,
			 uint64_t bp_slot, struct uw_regs *next,
			 uint64_t *cfa)
{
	struct uw_cursor *c = n->c;
	const struct uw_arch_desc *ad = c->state.arch_desc;
	uint64_t ra, bp = n->bp;
	unsigned i;

	if (uw_nocfi_read(n, ra_at, &ra) < 0)
		return 0;
	if (bp_from_stack && uw_nocfi_read(n, bp_slot, &bp) < 0)
		return 0;
	*next = *c->regs;
	next->defined &= ad->callee_saved & ~n->written;
	for (i = 0; i < ad->nregs; i++) {	/* bound: < UW_NREGS */
		if (n->popped.defined & UW_REG_BIT(i)) {
			next->val[i] = n->popped.val[i];
			next->defined |= UW_REG_BIT(i);
		}
	}
	next->defined &= ~UW_REG_BIT(ad->fp_reg);
	if (bp_from_stack || n->bp_known) {
		next->val[ad->fp_reg] = bp & ad->addr_mask;
		next->defined |= UW_REG_BIT(ad->fp_reg);
	}
	*cfa = caller_sp & ad->addr_mask;
	next->val[ad->sp_reg] = *cfa;
	next->val[ad->ra_reg] = ra & ad->addr_mask;
	next->defined |= UW_REG_BIT(ad->sp_reg) | UW_REG_BIT(ad->ra_reg);
	return 1;
}

/* 1 = caller found (*how says how), 0 = not recognised. */
UW_INTERNAL int uw_nocfi_step(struct uw_cursor *c, struct uw_regs *next,
			      uint64_t *cfa, enum uw_how *how)
{
	const struct uw_arch_desc *ad = c->state.arch_desc;
	struct uw_nocfi n;
	uint32_t off = 0, insns, size = ad->addr_size;
	int is64 = ad->arch == UW_ARCH_X86_64;
	int pushed_bp = 0;	/* the last instruction was push %bp */

	if (!(c->regs->defined & UW_REG_BIT(ad->sp_reg)))
		return 0;
	n.c = c;
	n.len = UW_NOCFI_WINDOW;
	if (!uw_peek(c, c->pc, n.code, n.len)) {
		n.len = 16;	/* the window may cross into an unmapped page */
		if (!uw_peek(c, c->pc, n.code, n.len))
			return 0;
	}
	n.sp0 = n.sp = c->regs->val[ad->sp_reg];
	n.bp = c->regs->val[ad->fp_reg];
	n.bp_known = (c->regs->defined & UW_REG_BIT(ad->fp_reg)) != 0;
	n.written = 0;
	n.popped.defined = 0;

	/* bound: UW_NOCFI_MAX_INSNS instructions, each at least one byte */
	for (insns = 0; insns < UW_NOCFI_MAX_INSNS; insns++) {
		const uint8_t *p;
		uint32_t avail, rex = 0;
		unsigned op, modrm, r, rm;
		int was_push_bp = pushed_bp;
		uint64_t v;

		pushed_bp = 0;
		if (off >= n.len)
			return 0;
		p = n.code + off;
		avail = n.len - off;
		if (is64 && (p[0] & 0xf0) == 0x40) {
			if (avail < 2)
				return 0;
			rex = p[0];
			p++;
			avail--;
			off++;
		}
		op = p[0];
#define NEED(k) do { if (avail < (k)) return 0; } while (0)
		if (op >= 0x50 && op <= 0x57) {		/* push r */
			r = (op & 7) | ((rex & 1) << 3);
			n.sp -= size;
			pushed_bp = r == UW_NOCFI_HW_BP;
			if (pushed_bp && !n.bp_known)
				return 0;
			off += 1;
			continue;
		}
		if (op >= 0x58 && op <= 0x5f) {		/* pop r */
			r = (op & 7) | ((rex & 1) << 3);
			if (n.sp < n.sp0 || r == UW_NOCFI_HW_SP)
				return 0;	/* a slot the code wrote */
			if (uw_nocfi_read(&n, n.sp, &v) < 0)
				return 0;
			if (uw_nocfi_write(&n, r) < 0)
				return 0;
			n.popped.val[uw_nocfi_reg(&n, r)] = v & ad->addr_mask;
			n.popped.defined |= UW_REG_BIT(uw_nocfi_reg(&n, r));
			if (r == UW_NOCFI_HW_BP) {
				n.bp = v & ad->addr_mask;
				n.bp_known = 1;
			}
			n.sp += size;
			off += 1;
			continue;
		}
		if (op == 0xf3 && avail >= 2 && p[1] == 0xc3) {	/* rep ret */
			op = 0xc3;
		}
		if (op == 0xc3 || op == 0xc2) {		/* ret, ret $imm16 */
			uint64_t extra = 0;

			if (op == 0xc2) {
				NEED(3);
				extra = (uint64_t)p[1] | (uint64_t)p[2] << 8;
			}
			if (n.sp < n.sp0)
				return 0;
			*how = UW_HOW_NOCFI_RET;
			return uw_nocfi_done(&n, n.sp, n.sp + size + extra, 0,
					     0, next, cfa);
		}
		if (op == 0xc9) {			/* leave */
			if (!n.bp_known || n.bp < n.sp)
				return 0;
			n.sp = n.bp;
			if (n.sp < n.sp0 || uw_nocfi_read(&n, n.sp, &v) < 0)
				return 0;
			n.bp = v & ad->addr_mask;
			n.popped.val[ad->fp_reg] = n.bp;
			n.popped.defined |= UW_REG_BIT(ad->fp_reg);
			n.written |= UW_REG_BIT(ad->fp_reg);
			n.sp += size;
			off += 1;
			continue;
		}
		if (op == 0x90) {			/* nop */
			off += 1;
			continue;
		}
		/* endbr64 / endbr32: the first instruction of a function
		 * built for indirect branch tracking (-fcf-protection):
		 * Debian 13's 6.12 kernel begins its 32-bit vDSO's
		 * __vdso_clock_gettime64, which has no CFI, with one. */
		if (op == 0xf3 && !rex && avail >= 4 && p[1] == 0x0f &&
		    p[2] == 0x1e && (p[3] == 0xfa || p[3] == 0xfb)) {
			off += 4;
			continue;
		}
		if (op == 0x89 || op == 0x8b) {		/* mov */
			NEED(2);
			modrm = p[1];
			r = ((modrm >> 3) & 7) | ((rex & 4) << 1);
			rm = (modrm & 7) | ((rex & 1) << 3);
			if ((modrm & 0xc0) == 0xc0) {
				unsigned dst = op == 0x89 ? rm : r;
				unsigned src = op == 0x89 ? r : rm;

				if (is64 && !(rex & 8) &&
				    ((src & 7) == UW_NOCFI_HW_SP ||
				     (src & 7) == UW_NOCFI_HW_BP ||
				     (dst & 7) == UW_NOCFI_HW_SP ||
				     (dst & 7) == UW_NOCFI_HW_BP))
					return 0;	/* 32-bit sp/bp move */
				if (src == UW_NOCFI_HW_SP &&
				    dst == UW_NOCFI_HW_BP) {
					/* mov %sp,%bp: the frame is being set
					 * up right after push %bp. */
					uint8_t before;

					*how = UW_HOW_NOCFI_ENTRY;
					if (was_push_bp && n.sp + size == n.sp0)
						return uw_nocfi_done(&n, n.sp0,
							n.sp0 + size, 0, 0,
							next, cfa);
					if (off != (rex ? 1u : 0u) ||
					    n.sp != n.sp0)
						return 0;
					if (!uw_peek(c,
						(c->pc - 1) & ad->addr_mask,
						&before, 1) || before != 0x55)
						return 0;
					return uw_nocfi_done(&n, n.sp + size,
						n.sp + 2 * size, 1, n.sp,
						next, cfa);
				}
				if (src == UW_NOCFI_HW_BP &&
				    dst == UW_NOCFI_HW_SP) {
					/* mov %bp,%sp (epilogue) */
					if (!n.bp_known || n.bp < n.sp0)
						return 0;
					n.sp = n.bp;
					off += 2;
					continue;
				}
				if (uw_nocfi_write(&n, dst) < 0)
					return 0;
				off += 2;
				continue;
			}
			/* mov (%sp),%reg: the get_pc_thunk body */
			if (op == 0x8b && (modrm & 0xc7) == 0x04 && avail >= 3 &&
			    p[2] == 0x24 && !(rex & 3)) {
				if (uw_nocfi_write(&n, r) < 0)
					return 0;
				off += 3;
				continue;
			}
			return 0;
		}
		if (op == 0x31 || op == 0x33 || op == 0x85) {	/* xor, test */
			NEED(2);
			modrm = p[1];
			if ((modrm & 0xc0) != 0xc0)
				return 0;
			if (op != 0x85) {
				r = op == 0x31 ? (modrm & 7) | ((rex & 1) << 3) :
				    ((modrm >> 3) & 7) | ((rex & 4) << 1);
				if (uw_nocfi_write(&n, r) < 0)
					return 0;
			}
			off += 2;
			continue;
		}
		if (op == 0x81 || op == 0x83) {		/* add/sub/cmp $imm */
			uint32_t ilen = op == 0x81 ? 4 : 1;
			int64_t imm;
			unsigned sub;

			NEED(2 + ilen);
			modrm = p[1];
			sub = (modrm >> 3) & 7;
			rm = (modrm & 7) | ((rex & 1) << 3);
			if ((modrm & 0xc0) != 0xc0 ||
			    (sub != 0 && sub != 5 && sub != 7))
				return 0;
			imm = op == 0x81 ? uw_le_s32(p + 2) : (int8_t)p[2];
			if (sub != 7) {
				if (rm == UW_NOCFI_HW_SP) {
					if (is64 && !(rex & 8))
						return 0;
					n.sp = (n.sp + (uint64_t)(sub == 0 ?
						imm : -imm)) & ad->addr_mask;
				} else if (uw_nocfi_write(&n, rm) < 0) {
					return 0;
				}
			}
			off += 2 + ilen;
			continue;
		}
		if (op == 0x05) {			/* add $imm32,%eax */
			NEED(5);
			if (uw_nocfi_write(&n, 0) < 0)
				return 0;
			off += 5;
			continue;
		}
		if (op >= 0xb8 && op <= 0xbf) {		/* mov $imm,%reg */
			uint32_t ilen = (rex & 8) ? 8 : 4;

			NEED(1 + ilen);
			if (uw_nocfi_write(&n, (op & 7) | ((rex & 1) << 3)) < 0)
				return 0;
			off += 1 + ilen;
			continue;
		}
		if (op == 0xe8 && !is64) {		/* call get_pc_thunk */
			int t;

			NEED(5);
			t = uw_nocfi_thunk(&n, c->pc + off + 5 +
					   (uint64_t)(int64_t)uw_le_s32(p + 1));
			if (t < 0 || uw_nocfi_write(&n, (unsigned)t) < 0)
				return 0;
			off += 5;
			continue;
		}
#undef NEED
		return 0;
	}
	return 0;
}
