/* Per-architecture parts of the unwinder core: register set description,
 * import of a pt_regs-shaped register set, and signal trampolines that no
 * CFI describes (recognised by their instruction bytes).  The numbers come
 * from x86_64.h and i386.h, which say where each one is from.
 */
#include "uw_internal.h"

#define UW_SAME		{ .kind = UW_RULE_SAME_VALUE }
#define UW_IS_CFA	{ .kind = UW_RULE_VAL_OFFSET, .offset = 0 }
#define UW_AT_CFA(off)	{ .kind = UW_RULE_OFFSET, .offset = (off) }

/* x86_64: psABI 3.2.1 (rbx, rbp, r12-r15 callee-saved), as elfutils'
 * backends/x86_64_initreg / x86_64_abi_cfi say it. */
#define UW_X86_64_ABI_RULES_BUT_BP					\
	[UW_X86_64_RBX] = UW_SAME,					\
	[UW_X86_64_R12] = UW_SAME, [UW_X86_64_R13] = UW_SAME,		\
	[UW_X86_64_R14] = UW_SAME, [UW_X86_64_R15] = UW_SAME,		\
	[UW_X86_64_RSP] = UW_IS_CFA

static const struct uw_arch_desc uw_arch_x86_64 = {
	.arch = UW_ARCH_X86_64,
	.nregs = UW_X86_64_NREGS,
	.addr_size = UW_X86_64_ADDR_SIZE,
	.ra_reg = UW_X86_64_RIP,
	.sp_reg = UW_X86_64_RSP,
	.fp_reg = UW_X86_64_RBP,
	.callee_saved = UW_X86_64_CALLEE_SAVED,
	.saved = UW_X86_64_SAVED_SLOTS,
	.nsaved = UW_X86_64_NSAVED,
	.addr_mask = ~(uint64_t)0,
	.abi_row = { .rule = { UW_X86_64_ABI_RULES_BUT_BP,
			       [UW_X86_64_RBP] = UW_SAME } },
	.abi_compact_row = { .keep = UW_X86_64_CALLEE_SAVED,
		      .is_cfa = UW_REG_BIT(UW_X86_64_RSP) },
	.fp_row = {
		.cfa_kind = UW_CFA_REG_OFFSET,
		.cfa_reg = UW_X86_64_RBP,
		.cfa_offset = 16,
		.rule = { UW_X86_64_ABI_RULES_BUT_BP,
			  [UW_X86_64_RBP] = UW_AT_CFA(-16),
			  [UW_X86_64_RIP] = UW_AT_CFA(-8) },
	},
};

/* i386: SysV i386 psABI (ebx, esi, edi, ebp callee-saved). */
#define UW_I386_ABI_RULES_BUT_BP					\
	[UW_I386_EBX] = UW_SAME, [UW_I386_ESI] = UW_SAME,		\
	[UW_I386_EDI] = UW_SAME, [UW_I386_ESP] = UW_IS_CFA

static const struct uw_arch_desc uw_arch_i386 = {
	.arch = UW_ARCH_I386,
	.nregs = UW_I386_NREGS,
	.addr_size = UW_I386_ADDR_SIZE,
	.ra_reg = UW_I386_EIP,
	.sp_reg = UW_I386_ESP,
	.fp_reg = UW_I386_EBP,
	.callee_saved = UW_I386_CALLEE_SAVED,
	.saved = UW_I386_SAVED_SLOTS,
	.nsaved = UW_I386_NSAVED,
	.addr_mask = 0xffffffffu,
	.abi_row = { .rule = { UW_I386_ABI_RULES_BUT_BP,
			       [UW_I386_EBP] = UW_SAME } },
	.abi_compact_row = { .keep = UW_I386_CALLEE_SAVED,
		      .is_cfa = UW_REG_BIT(UW_I386_ESP) },
	.fp_row = {
		.cfa_kind = UW_CFA_REG_OFFSET,
		.cfa_reg = UW_I386_EBP,
		.cfa_offset = 8,
		.rule = { UW_I386_ABI_RULES_BUT_BP,
			  [UW_I386_EBP] = UW_AT_CFA(-8),
			  [UW_I386_EIP] = UW_AT_CFA(-4) },
	},
};

UW_INTERNAL const struct uw_arch_desc *uw_arch_get(enum uw_arch arch)
{
	switch (arch) {
	case UW_ARCH_X86_64:
		return &uw_arch_x86_64;
	case UW_ARCH_I386:
		return &uw_arch_i386;
	default:
		return NULL;
	}
}

UW_API void uw_regs_from_pt_regs(struct uw_regs *out, enum uw_arch arch,
				 const uw_pt_regs *pt, uint32_t trusted_mask)
{
	uint64_t *v = out->val;
	int i;

	for (i = 0; i < UW_NREGS; i++)
		v[i] = 0;
	if (arch == UW_ARCH_X86_64) {
		v[UW_X86_64_RAX] = pt->ax;
		v[UW_X86_64_RDX] = pt->dx;
		v[UW_X86_64_RCX] = pt->cx;
		v[UW_X86_64_RBX] = pt->bx;
		v[UW_X86_64_RSI] = pt->si;
		v[UW_X86_64_RDI] = pt->di;
		v[UW_X86_64_RBP] = pt->bp;
		v[UW_X86_64_RSP] = pt->sp;
		v[UW_X86_64_R8 + 0] = pt->r8;
		v[UW_X86_64_R8 + 1] = pt->r9;
		v[UW_X86_64_R8 + 2] = pt->r10;
		v[UW_X86_64_R8 + 3] = pt->r11;
		v[UW_X86_64_R12] = pt->r12;
		v[UW_X86_64_R13] = pt->r13;
		v[UW_X86_64_R14] = pt->r14;
		v[UW_X86_64_R15] = pt->r15;
		v[UW_X86_64_RIP] = pt->ip;
		out->defined = trusted_mask & UW_X86_64_ALL;
	} else {
		/* Compat task on a 64-bit kernel: 64-bit pt_regs layout. */
		v[UW_I386_EAX] = (uint32_t)pt->ax;
		v[UW_I386_ECX] = (uint32_t)pt->cx;
		v[UW_I386_EDX] = (uint32_t)pt->dx;
		v[UW_I386_EBX] = (uint32_t)pt->bx;
		v[UW_I386_ESP] = (uint32_t)pt->sp;
		v[UW_I386_EBP] = (uint32_t)pt->bp;
		v[UW_I386_ESI] = (uint32_t)pt->si;
		v[UW_I386_EDI] = (uint32_t)pt->di;
		v[UW_I386_EIP] = (uint32_t)pt->ip;
		out->defined = trusted_mask & UW_I386_ALL;
	}
}

/* Where each register is saved in a struct sigcontext, by DWARF number. */
struct uw_arch_sc_slot {
	uint8_t reg;
	uint8_t offset;
};

static const struct uw_arch_sc_slot uw_arch_sc_x86_64[] = {
	{ UW_X86_64_RAX, UW_X86_64_SC_RAX }, { UW_X86_64_RDX, UW_X86_64_SC_RDX },
	{ UW_X86_64_RCX, UW_X86_64_SC_RCX }, { UW_X86_64_RBX, UW_X86_64_SC_RBX },
	{ UW_X86_64_RSI, UW_X86_64_SC_RSI }, { UW_X86_64_RDI, UW_X86_64_SC_RDI },
	{ UW_X86_64_RBP, UW_X86_64_SC_RBP }, { UW_X86_64_RSP, UW_X86_64_SC_RSP },
	{ 8, UW_X86_64_SC_R8 + 0 },  { 9, UW_X86_64_SC_R8 + 8 },
	{ 10, UW_X86_64_SC_R8 + 16 }, { 11, UW_X86_64_SC_R8 + 24 },
	{ 12, UW_X86_64_SC_R8 + 32 }, { 13, UW_X86_64_SC_R8 + 40 },
	{ 14, UW_X86_64_SC_R8 + 48 }, { 15, UW_X86_64_SC_R8 + 56 },
	{ UW_X86_64_RIP, UW_X86_64_SC_RIP },
};

static const struct uw_arch_sc_slot uw_arch_sc_i386[] = {
	{ UW_I386_EAX, UW_I386_SC_EAX }, { UW_I386_ECX, UW_I386_SC_ECX },
	{ UW_I386_EDX, UW_I386_SC_EDX }, { UW_I386_EBX, UW_I386_SC_EBX },
	{ UW_I386_ESP, UW_I386_SC_ESP }, { UW_I386_EBP, UW_I386_SC_EBP },
	{ UW_I386_ESI, UW_I386_SC_ESI }, { UW_I386_EDI, UW_I386_SC_EDI },
	{ UW_I386_EIP, UW_I386_SC_EIP },
};

static int uw_arch_match(const uint8_t *code, const uint8_t *pattern,
			 uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)	/* bound: len <= 9 */
		if (code[i] != pattern[i])
			return 0;
	return 1;
}

enum uw_arch_tramp {
	UW_TRAMP_NONE = 0,
	UW_TRAMP_X86_64_RT,		/* at __restore_rt */
	UW_TRAMP_I386_SIGRETURN,	/* at __kernel_sigreturn */
	UW_TRAMP_I386_SIGRETURN_POPPED,	/* just after its "pop %eax" */
	UW_TRAMP_I386_RT,		/* at __kernel_rt_sigreturn */
};

/* Which known signal trampoline, if any, the code at pc is. */
static enum uw_arch_tramp uw_arch_trampoline(struct uw_cursor *c, uint64_t pc)
{
	static const uint8_t restore_rt[] = UW_X86_64_RESTORE_RT_BYTES;
	static const uint8_t sigreturn[] = UW_I386_SIGRETURN_BYTES;
	static const uint8_t rt_sigreturn[] = UW_I386_RT_SIGRETURN_BYTES;
	uint8_t code[UW_X86_64_RESTORE_RT_LEN];

	if (c->state.arch_desc->arch == UW_ARCH_X86_64) {
		if (uw_peek(c, pc, code, sizeof(restore_rt)) &&
		    uw_arch_match(code, restore_rt, sizeof(restore_rt)))
			return UW_TRAMP_X86_64_RT;
		return UW_TRAMP_NONE;
	}
	if (uw_peek(c, pc, code, sizeof(sigreturn)) &&
	    uw_arch_match(code, sigreturn, sizeof(sigreturn)))
		return UW_TRAMP_I386_SIGRETURN;
	if (uw_peek(c, (pc - 1) & c->state.arch_desc->addr_mask, code,
			     sizeof(sigreturn)) &&
	    uw_arch_match(code, sigreturn, sizeof(sigreturn)))
		return UW_TRAMP_I386_SIGRETURN_POPPED;
	if (uw_peek(c, pc, code, sizeof(rt_sigreturn)) &&
	    uw_arch_match(code, rt_sigreturn, sizeof(rt_sigreturn)))
		return UW_TRAMP_I386_RT;
	return UW_TRAMP_NONE;
}

/* Address of the sigcontext if the code at pc is a known trampoline, with
 * sp the trampoline frame's stack pointer; 0 if it is not one. */
static uint64_t uw_arch_sigcontext(struct uw_cursor *c, uint64_t sp)
{
	switch (uw_arch_trampoline(c, c->pc)) {
	case UW_TRAMP_X86_64_RT:
		return sp + UW_X86_64_UC_MCONTEXT;
	case UW_TRAMP_I386_SIGRETURN:
		return (sp + UW_I386_SIGFRAME_SC) & c->state.arch_desc->addr_mask;
	case UW_TRAMP_I386_SIGRETURN_POPPED:
		return sp;
	case UW_TRAMP_I386_RT:
		return (sp + UW_I386_RT_SIGFRAME_SC) & c->state.arch_desc->addr_mask;
	case UW_TRAMP_NONE:
		break;
	}
	return 0;
}

UW_INTERNAL int uw_arch_sigframe(struct uw_cursor *c, struct uw_regs *out,
				 uint64_t *cfa)
{
	const struct uw_arch_desc *ad = c->state.arch_desc;
	const struct uw_arch_sc_slot *slots;
	uint32_t nslots, len, i;
	uint64_t sp, sc, v;

	if (!(c->regs->defined & UW_REG_BIT(ad->sp_reg)))
		return 0;
	sp = c->regs->val[ad->sp_reg];
	sc = uw_arch_sigcontext(c, sp);
	if (sc == 0)
		return 0;
	if (c->state.trace)
		c->state.trace(c->state.host, UW_TR_SIGFRAME, c->pc, sc);
	if (ad->arch == UW_ARCH_X86_64) {
		slots = uw_arch_sc_x86_64;
		nslots = sizeof(uw_arch_sc_x86_64) / sizeof(slots[0]);
		len = UW_X86_64_SC_RIP + UW_X86_64_ADDR_SIZE;
	} else {
		slots = uw_arch_sc_i386;
		nslots = sizeof(uw_arch_sc_i386) / sizeof(slots[0]);
		len = UW_I386_SC_EIP + UW_I386_ADDR_SIZE;
	}
	/* The slots in one read of the stack window, as a row's (they lie
	 * in [sc, sc + len): the ip's is the last); where that read fails,
	 * each slot is read alone, so that a stop names the first slot that
	 * cannot be read. */
	(void)uw_stack_slots(c, sc, len);
	out->defined = 0;
	for (i = 0; i < nslots; i++) {		/* bound: <= 17 slots */
		if (uw_stack_read_word(c, (sc + slots[i].offset) & ad->addr_mask,
				       ad->addr_size, &v) < 0)
			return -1;
		out->val[slots[i].reg] = v & ad->addr_mask;
		out->defined |= UW_REG_BIT(slots[i].reg);
	}
	*cfa = out->val[ad->sp_reg];
	return 1;
}

/* Could ra be a return address?  Yes if a call instruction ends right
 * before it, or if a signal trampoline starts there (a handler returns
 * into it; nothing calls it).  x86_64 and i386 encode calls alike: e8
 * rel32 (5 bytes), or ff /2 with a ModRM operand (2 to 7 bytes: register,
 * memory through a base, SIB and 8- or 32-bit displacement, or
 * rip-relative / absolute disp32).  Prefixes (REX, notrack, segment) come
 * before the ff and need no decoding.  1 = plausible, 0 = the bytes were
 * read and it is not, -1 = unreadable.  The caller acts only on positive
 * evidence against ra, so a false "call" only keeps a frame that was kept
 * before. */
UW_INTERNAL int uw_arch_ra_plausible(struct uw_cursor *c, uint64_t ra)
{
	uint8_t b[8];		/* b[8 - k] is the byte at ra - k */
	unsigned k;

	if (ra < sizeof(b) ||
	    !uw_peek(c, (ra - sizeof(b)) & c->state.arch_desc->addr_mask, b, sizeof(b)))
		return -1;
	if (b[8 - 5] == 0xe8)
		return 1;
	for (k = 2; k <= 7; k++) {	/* bound: 6 candidate ff bytes */
		const uint8_t *insn = &b[8 - k];
		unsigned modrm = insn[1], mod = modrm >> 6, rm = modrm & 7;
		unsigned len = 2;

		if (insn[0] != 0xff || ((modrm >> 3) & 7) != 2)
			continue;
		if (mod != 3 && rm == 4) {	/* SIB byte */
			if (k < 3)
				continue;
			len++;
			if (mod == 0 && (insn[2] & 7) == 5)
				len += 4;	/* no base: disp32 */
		}
		if (mod == 0 && rm == 5)
			len += 4;		/* rip-relative / absolute */
		else if (mod == 1)
			len += 1;
		else if (mod == 2)
			len += 4;
		if (len == k)
			return 1;
	}
	return uw_arch_trampoline(c, ra) != UW_TRAMP_NONE;
}
