/* stap-unwind: the runtime's sym.c, which every module compiles (stock's
 * linux/runtime.h includes it), so the overlay's parts that every module
 * has come in here:
 *   - the unwinder core, compiled once (stap-unwind/core.c), and the one
 *     reader of user memory (stap-unwind/uread.c);
 *   - SystemTap's own sym.c, unchanged (linked by the overlay as
 *     stap-unwind-stock/sym_c/sym.c), which includes the overlay's vma.c
 *     (VMA tracking) and unwind/unwind.h;
 *   - stap-unwind's names for user addresses (stap-unwind/usym.c, with the
 *     ELF reader's sources in the kernel: usym_elf.c), which
 *     _stp_snprint_addr and _stp_print_addr then route user addresses
 *     through.  This is done here rather than in stack.c because stack.c
 *     comes in only with pragma:unwind: a script whose only user-symbol
 *     calls are usymname() or usymdata() must get the same names as
 *     print_ubacktrace();
 *   - read_pointer(), for stock's line tables;
 *   - the overlay's start-up and shutdown, _stp_vma_init() and
 *     _stp_vma_done() (stap-unwind/init_exit.c).
 */
#ifndef STP_UW_SYM_C
#define STP_UW_SYM_C

#include "stap-unwind/core.c"
#include "stap-unwind/uread.c"
#include "stap-unwind-stock/sym_c/sym.c"
#include "stap-unwind/usym_elf.c"
#include "stap-unwind/usym.c"
/* From here on, every caller of stock's symbol functions gets usym.c's
 * (stap-unwind/overrides.h). */
#define STP_UW_OVERRIDE STP_UW_OVERRIDE_USYM
#include "stap-unwind/overrides.h"
#if defined(STP_USE_DWARF_UNWINDER) || defined(STP_NEED_LINE_DATA)
#include "stap-unwind/read_pointer.c"
#endif
#include "stap-unwind/init_exit.c"

#endif /* STP_UW_SYM_C */
