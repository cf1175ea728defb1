/* The DWARF numbers the core decodes, under their standard names, in one
 * place: call frame instructions and expression operations (DWARF 5,
 * sections 6.4.2 and 2.5, figures 7.29 / 7.9) and the pointer encodings
 * of .eh_frame and .eh_frame_hdr (LSB Core, "DWARF Extensions").
 * Only numbers: no declarations, so the runtime's unwind.h includes it too.
 */
#ifndef UW_DWARF_H
#define UW_DWARF_H

/* Call frame instructions.  The first three carry an operand in their
 * low six bits (DW_CFA_OPERAND_MASK) and are told apart by the top two. */
#define DW_CFA_advance_loc		0x40
#define DW_CFA_offset			0x80
#define DW_CFA_restore			0xc0
#define DW_CFA_HIGH_MASK		0xc0
#define DW_CFA_OPERAND_MASK		0x3f
#define DW_CFA_nop			0x00
#define DW_CFA_set_loc			0x01
#define DW_CFA_advance_loc1		0x02
#define DW_CFA_advance_loc2		0x03
#define DW_CFA_advance_loc4		0x04
#define DW_CFA_offset_extended		0x05
#define DW_CFA_restore_extended		0x06
#define DW_CFA_undefined		0x07
#define DW_CFA_same_value		0x08
#define DW_CFA_register			0x09
#define DW_CFA_remember_state		0x0a
#define DW_CFA_restore_state		0x0b
#define DW_CFA_def_cfa			0x0c
#define DW_CFA_def_cfa_register		0x0d
#define DW_CFA_def_cfa_offset		0x0e
#define DW_CFA_def_cfa_expression	0x0f
#define DW_CFA_expression		0x10
#define DW_CFA_offset_extended_sf	0x11
#define DW_CFA_def_cfa_sf		0x12
#define DW_CFA_def_cfa_offset_sf	0x13
#define DW_CFA_val_offset		0x14
#define DW_CFA_val_offset_sf		0x15
#define DW_CFA_val_expression		0x16
#define DW_CFA_MIPS_advance_loc8	0x1d
#define DW_CFA_GNU_window_save		0x2d
#define DW_CFA_GNU_args_size		0x2e
#define DW_CFA_GNU_negative_offset_extended 0x2f

/* Expression operations (those the core evaluates). */
#define DW_OP_addr		0x03
#define DW_OP_deref		0x06
#define DW_OP_const1u		0x08
#define DW_OP_const1s		0x09
#define DW_OP_const2u		0x0a
#define DW_OP_const2s		0x0b
#define DW_OP_const4u		0x0c
#define DW_OP_const4s		0x0d
#define DW_OP_const8u		0x0e
#define DW_OP_const8s		0x0f
#define DW_OP_constu		0x10
#define DW_OP_consts		0x11
#define DW_OP_dup		0x12
#define DW_OP_drop		0x13
#define DW_OP_over		0x14
#define DW_OP_pick		0x15
#define DW_OP_swap		0x16
#define DW_OP_rot		0x17
#define DW_OP_abs		0x19
#define DW_OP_and		0x1a
#define DW_OP_div		0x1b
#define DW_OP_minus		0x1c
#define DW_OP_mod		0x1d
#define DW_OP_mul		0x1e
#define DW_OP_neg		0x1f
#define DW_OP_not		0x20
#define DW_OP_or		0x21
#define DW_OP_plus		0x22
#define DW_OP_plus_uconst	0x23
#define DW_OP_shl		0x24
#define DW_OP_shr		0x25
#define DW_OP_shra		0x26
#define DW_OP_xor		0x27
#define DW_OP_bra		0x28
#define DW_OP_eq		0x29
#define DW_OP_ge		0x2a
#define DW_OP_gt		0x2b
#define DW_OP_le		0x2c
#define DW_OP_lt		0x2d
#define DW_OP_ne		0x2e
#define DW_OP_skip		0x2f
#define DW_OP_lit0		0x30	/* .. lit31 0x4f */
#define DW_OP_reg0		0x50	/* .. reg31 0x6f */
#define DW_OP_breg0		0x70	/* .. breg31 0x8f */
#define DW_OP_regx		0x90
#define DW_OP_bregx		0x92
#define DW_OP_deref_size	0x94
#define DW_OP_nop		0x96
#define DW_OP_call_frame_cfa	0x9c

/* Pointer encodings: a format in the low four bits, an application (what
 * the value is relative to) in the next three, and the indirect bit. */
#define DW_EH_PE_absptr		0x00
#define DW_EH_PE_uleb128	0x01
#define DW_EH_PE_udata2		0x02
#define DW_EH_PE_udata4		0x03
#define DW_EH_PE_udata8		0x04
#define DW_EH_PE_signed		0x08
#define DW_EH_PE_sleb128	0x09
#define DW_EH_PE_sdata2		0x0a
#define DW_EH_PE_sdata4		0x0b
#define DW_EH_PE_sdata8		0x0c
#define DW_EH_PE_FORMAT_MASK	0x0f
#define DW_EH_PE_pcrel		0x10
#define DW_EH_PE_textrel	0x20
#define DW_EH_PE_datarel	0x30
#define DW_EH_PE_funcrel	0x40
#define DW_EH_PE_aligned	0x50
#define DW_EH_PE_APPL_MASK	0x70
#define DW_EH_PE_indirect	0x80
#define DW_EH_PE_omit		0xff

#endif /* UW_DWARF_H */
