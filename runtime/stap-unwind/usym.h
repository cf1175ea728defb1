/* stap-unwind: the names of user addresses, as the rest of the runtime
 * and the tapsets use them.  The implementation is usym.c (its parts:
 * usym_*.c), included by the overlay's sym.c (runtime/stock/sym.c),
 * which then renames stock's _stp_snprint_addr, _stp_print_addr and
 * _stp_umod_lookup to the functions below (stap-unwind/overrides.h,
 * USYM).
 */
#ifndef STP_UW_USYM_H
#define STP_UW_USYM_H

/* Not a SystemTap flag: the address is a return address, named after the
 * call before it (usym.c's top comment: "Caller frames"). */
#define STP_UW_SYM_CALLER	(1 << 24)

/* The flags that name frame n (0: the innermost) of a user backtrace. */
static inline int stp_uw_frame_sym_flags(int flags, unsigned n)
{
	return n ? flags | STP_UW_SYM_CALLER : flags;
}

/* _stp_snprint_addr() and _stp_print_addr(): a user address (task not
 * NULL) in SystemTap's forms, a kernel one by stock's tables or the
 * running kernel (ksym.c).  Probe context, or the CPU's SystemTap
 * context held. */
static int stp_uw_snprint_addr(char *str, size_t len, unsigned long address,
			       int flags, struct task_struct *task,
			       struct context *c);
static void stp_uw_print_addr(unsigned long address, int flags,
			      struct task_struct *task, struct context *c);

/* _stp_umod_lookup() for every object of the process, also those stock's
 * map does not know. */
static struct _stp_module *stp_uw_umod_lookup(unsigned long addr,
					      struct task_struct *task,
					      const char **name,
					      unsigned long *offset,
					      unsigned long *vm_start,
					      unsigned long *vm_end);

/* The tapset's ubuildid() and umodfileoffset() (tapset/ubuildid.stp). */
static void stp_uw_ubuildid(char *buf, size_t len, unsigned long addr);
static long long stp_uw_umodoffset(unsigned long addr);

/* A build-id's hash, never 0: the name cache's key, and the build-id
 * part of unwind.c's row-cache identity of tables read from process
 * memory (stp_uw_tables_ident). */
static u64 stp_uw_bid_hash(const unsigned char *bid, unsigned len);

/* Module init and exit (process context, stap-unwind/init_exit.c): the
 * -d symbol sizes, the cache of names from .dynsym, the working memory. */
static int stp_uw_usym_init(void);
static void stp_uw_usym_exit(void);

#endif /* STP_UW_USYM_H */
