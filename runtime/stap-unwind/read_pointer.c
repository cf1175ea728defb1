/* stap-unwind: read_pointer(), what stock's line-table code (sym.c,
 * sym2.c) decodes its numbers with (declared by the overlay's
 * unwind/unwind.h), on the core's reader of DW_EH_PE pointers.  Included
 * by the overlay's sym.c where stock's would define it: with the DWARF
 * unwinder or line data.
 */
#ifndef STP_UW_READ_POINTER_C
#define STP_UW_READ_POINTER_C

#include "unwind/unwind.h"
#include "stap-unwind/core.h"
#include "stap-unwind/core/uw_internal.h"	/* the reader: struct uw_reader */

/* Decode one number of the given encoding from the table bytes at *pLoc
 * (module-local memory: line tables copied into the module by the
 * translator), not reading at or past end, with the core's reader of
 * DW_EH_PE pointers.  On success *pLoc moves past the number and its value
 * is returned; on failure (bad encoding, truncated data, unreadable
 * indirection) 0 is returned and *pLoc is unchanged.
 * compat_task: DW_EH_PE_absptr is 4 bytes (32-bit process).  user: an
 * indirect pointer is read from the current process, else from the kernel.
 * pc-relative values are relative to the byte's address in this copy. */
static unsigned long read_pointer(const u8 **pLoc, const void *end,
				  signed ptrType, int user, int compat_task)
{
	const u8 *p = *pLoc;
	unsigned len = compat_task ? 4 : sizeof(unsigned long);
	struct uw_section bytes;
	struct uw_reader r;
	struct uw_stop stop;
	uint64_t v;

	if (ptrType < 0 || p >= (const u8 *)end)
		return 0;
	/* The bytes as a section whose link-time address is their address
	 * here: pcrel is then relative to the byte itself. */
	bytes = (struct uw_section){ .data = p, .addr = (unsigned long)p,
				     .size = (const u8 *)end - p };
	uw_reader_init_local(&r, &bytes, 0, bytes.size, len, &stop);
	r.addr_mask = ~0UL;	/* kernel addresses, whatever absptr's size */
	if (uw_rd_encoded(&r, ptrType & ~DW_EH_PE_indirect, &v) < 0)
		return 0;
	if (ptrType & DW_EH_PE_indirect) {
		unsigned long ind = 0;

		if (user ? copy_from_user_nofault(&ind, (const void __user *)(unsigned long)v, len)
			 : copy_from_kernel_nofault(&ind, (const void *)(unsigned long)v, len))
			return 0;
		v = ind;
	}
	*pLoc = p + r.pos;
	return (unsigned long)v;
}

#endif /* STP_UW_READ_POINTER_C */
