/* stap-unwind: the runtime's sym.c, with stap-unwind's names for user addresses.
 *
 * SystemTap's own sym.c (linked by the overlay as stap-unwind-stock/sym_c/sym.c)
 * is included unchanged; stap-unwind/usym.c then routes _stp_snprint_addr
 * and _stp_print_addr for user addresses through its own lookup.  This is
 * done here rather than in stack.c because the runtime includes sym.c in
 * every module (linux/runtime.h), while stack.c comes in only with
 * pragma:unwind: a script whose only user-symbol calls are usymname() or
 * usymdata() must get the same names as print_ubacktrace().
 */
#ifndef STP_UW_SYM_C
#define STP_UW_SYM_C

#include "stap-unwind-stock/sym_c/sym.c"
#include "stap-unwind/usym.c"

#endif /* STP_UW_SYM_C */
