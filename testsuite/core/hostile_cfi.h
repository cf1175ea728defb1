/* Hostile unwind tables, built where a process could carry them: the
 * builders of testsuite/core/uw_hostile.c (the core over them, in memory)
 * and of testsuite/kernel.ustack/progs/hostile.c (a real process that
 * maps them, sampled in the guest).  Each makes one step as dear as the
 * core's per-step bounds allow:
 *   scan   .eh_frame of HOSTILE_NFDE FDEs behind an .eh_frame_hdr without
 *          a search table, and (with a .debug_frame) as many more there:
 *          the hostile pc is covered only by the very last one
 *   insns  one FDE of 4,000 call frame instructions before the pc
 *   exprs  a CFA expression and a value expression for every other
 *          register, of 255 operations each
 * The hostile function's frame is frame_size bytes (the CFA grows by that
 * much a frame), its return address at cfa - address size.  Set the
 * buffers' link-time addresses (hostile.hdr.addr, ...) and the layout
 * (hostile_begin) first.
 */
#ifndef UW_TEST_HOSTILE_CFI_H
#define UW_TEST_HOSTILE_CFI_H

#include "../../runtime/unwind/dwarf.h"

#define CFI_BUF_BYTES (4u << 20)
#include "cfi_build.h"

#define HOSTILE_NFDE 65000

static struct {
	struct buf hdr, eh, df;
	uint64_t filler;	/* the filler FDEs cover [filler, +16 * NFDE) */
	uint64_t pc;		/* the hostile function's [pc, pc + 16) */
	int is_i386;
	unsigned frame_size;	/* 16, or 8 for i386 */
	uint8_t sp, ra;		/* DWARF numbers */
} hostile;

static CFI_UNUSED void hostile_begin(int is_i386, uint64_t filler, uint64_t pc)
{
	hostile.hdr.n = hostile.eh.n = hostile.df.n = 0;
	hostile.is_i386 = is_i386;
	hostile.filler = filler;
	hostile.pc = pc;
	hostile.frame_size = is_i386 ? 8 : 16;
	hostile.sp = is_i386 ? 4 : 7;
	hostile.ra = is_i386 ? 8 : 16;
	g_asize = is_i386 ? 4 : 8;
}

/* cfa = sp + address size, the return address just below it: the state
 * at a function's entry. */
static CFI_UNUSED size_t hostile_cie(struct buf *b)
{
	uint8_t ins[] = { DW_CFA_def_cfa, hostile.sp, (uint8_t)g_asize,
			  (uint8_t)(DW_CFA_offset | hostile.ra), 1 };

	return cie(b, 1, "zR", -g_asize, hostile.ra,
		   DW_EH_PE_pcrel | DW_EH_PE_sdata4, ins, sizeof(ins));
}

/* The hostile function's own frame: cfa = sp + frame_size. */
static CFI_UNUSED size_t hostile_frame_ins(uint8_t *ins)
{
	ins[0] = DW_CFA_def_cfa_offset;
	ins[1] = (uint8_t)hostile.frame_size;
	return 2;
}

/* .eh_frame_hdr with a sorted table of the FDEs at fde_at[0..n) covering
 * begin[i] (searchable), or, when n = 0, one without a table (valid, but
 * the core must scan). */
static CFI_UNUSED void hostile_put_hdr(const size_t *fde_at, const uint64_t *begin,
				       size_t n)
{
	struct buf *h = &hostile.hdr;

	u8(h, 1);
	u8(h, DW_EH_PE_pcrel | DW_EH_PE_sdata4);
	u8(h, n ? DW_EH_PE_udata4 : DW_EH_PE_omit);
	u8(h, n ? DW_EH_PE_datarel | DW_EH_PE_sdata4 : DW_EH_PE_omit);
	put_enc(h, DW_EH_PE_pcrel | DW_EH_PE_sdata4, hostile.eh.addr);
	if (!n)
		return;
	un(h, n, 4);
	g_datarel = h->addr;
	for (size_t i = 0; i < n; i++) {	/* bound: n entries */
		put_enc(h, DW_EH_PE_datarel | DW_EH_PE_sdata4, begin[i]);
		put_enc(h, DW_EH_PE_datarel | DW_EH_PE_sdata4,
			hostile.eh.addr + fde_at[i]);
	}
}

/* A .debug_frame CIE (32-bit DWARF, version 1), then FDEs. */
static CFI_UNUSED size_t hostile_df_cie(void)
{
	struct buf *df = &hostile.df;
	uint8_t ins[] = { DW_CFA_def_cfa, hostile.sp, (uint8_t)g_asize,
			  (uint8_t)(DW_CFA_offset | hostile.ra), 1 };
	size_t at = df->n;

	un(df, 0, 4);
	un(df, 0xffffffff, 4);
	u8(df, 1);
	u8(df, 0);
	uleb(df, 1);
	sleb(df, -g_asize);
	u8(df, hostile.ra);
	bytes(df, ins, sizeof(ins));
	patch32(df, at, (uint32_t)(df->n - at - 4));
	return at;
}

static CFI_UNUSED void hostile_df_fde(size_t cie_at, uint64_t begin, uint64_t len,
				      const uint8_t *ins, size_t n)
{
	struct buf *df = &hostile.df;
	size_t at = df->n;

	un(df, 0, 4);
	un(df, cie_at, 4);
	un(df, begin, g_asize);
	un(df, len, g_asize);
	bytes(df, ins, n);
	patch32(df, at, (uint32_t)(df->n - at - 4));
}

/* One FDE for the hostile pc with the given instructions, behind a
 * searchable header. */
static CFI_UNUSED void hostile_fde(const uint8_t *ins, size_t n)
{
	size_t c = hostile_cie(&hostile.eh);
	size_t f = fde(&hostile.eh, c, 1, DW_EH_PE_pcrel | DW_EH_PE_sdata4,
		       hostile.pc, 16, ins, n);
	uint64_t begin = hostile.pc;

	hostile_put_hdr(&f, &begin, 1);
}

static CFI_UNUSED void hostile_scan(int with_debug_frame)
{
	uint8_t frame[2];
	size_t c = hostile_cie(&hostile.eh), dc, fn = hostile_frame_ins(frame);
	uint32_t i;

	for (i = 0; i < HOSTILE_NFDE; i++)	/* bound: HOSTILE_NFDE */
		fde(&hostile.eh, c, 1, DW_EH_PE_pcrel | DW_EH_PE_sdata4,
		    hostile.filler + 16 * i, 16, frame, fn);
	if (!with_debug_frame) {
		/* the hostile function last of all */
		fde(&hostile.eh, c, 1, DW_EH_PE_pcrel | DW_EH_PE_sdata4,
		    hostile.pc, 16, frame, fn);
		hostile_put_hdr(NULL, NULL, 0);
		return;
	}
	hostile_put_hdr(NULL, NULL, 0);
	dc = hostile_df_cie();
	for (i = 0; i + 1 < HOSTILE_NFDE; i++)	/* bound: HOSTILE_NFDE */
		hostile_df_fde(dc, hostile.filler + 16 * i, 16, frame, fn);
	hostile_df_fde(dc, hostile.pc, 16, frame, fn);
}

static CFI_UNUSED void hostile_insns(void)
{
	static uint8_t ins[2 * 4000];

	for (size_t i = 0; i < sizeof(ins); i += 2)	/* bound: 4000 */
		hostile_frame_ins(ins + i);
	hostile_fde(ins, sizeof(ins));
}

/* An expression of 255 operations: a base, then (lit0, plus) pairs. */
static CFI_UNUSED size_t hostile_long_expr(uint8_t *e, int with_sp)
{
	size_t n = 0;

	if (with_sp) {
		e[n++] = DW_OP_breg0 + hostile.sp;	/* sp + frame_size */
		e[n++] = (uint8_t)hostile.frame_size;
	} else {
		e[n++] = DW_OP_lit0 + 1;
	}
	for (int i = 0; i < 127; i++) {	/* bound: 127 */
		e[n++] = DW_OP_lit0;
		e[n++] = DW_OP_plus;
	}
	return n;
}

static CFI_UNUSED void hostile_exprs(void)
{
	static uint8_t ins[16 * 300];
	uint8_t e[300];
	size_t n = 0, len;

	len = hostile_long_expr(e, 1);
	ins[n++] = DW_CFA_def_cfa_expression;
	ins[n++] = 0x80 | (len & 0x7f);		/* uleb length, 2 bytes */
	ins[n++] = (uint8_t)(len >> 7);
	memcpy(ins + n, e, len);
	n += len;
	len = hostile_long_expr(e, 0);
	/* Every register but the sp (the CFA) and the return address. */
	for (uint8_t reg = 0; reg < hostile.ra; reg++) {	/* bound: 16 */
		if (reg == hostile.sp)
			continue;
		ins[n++] = DW_CFA_val_expression;
		ins[n++] = reg;
		ins[n++] = 0x80 | (len & 0x7f);
		ins[n++] = (uint8_t)(len >> 7);
		memcpy(ins + n, e, len);
		n += len;
	}
	hostile_fde(ins, n);
}

#endif /* UW_TEST_HOSTILE_CFI_H */
