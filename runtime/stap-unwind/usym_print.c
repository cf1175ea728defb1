/* stap-unwind: user addresses printed in SystemTap's forms (usym.c's top
 * comment: "Printed forms"), and the tapset's build-id and file offset of
 * an address; kernel addresses go to ksym.c.
 */
#ifndef STP_UW_USYM_PRINT_C
#define STP_UW_USYM_PRINT_C

#include "stap-unwind/usym.h"
#include "stap-unwind/usym_lookup.h"

/* The form of an address that no symbol contains (usym_explicit() in
 * tapset/usym_explicit.stp, or stap -DSTP_USYM_EXPLICIT):
 *   0 (default): SystemTap's grammar, named after the nearest symbol before
 *     it with that symbol's st_size, "name+0xoff/0xsize [path]", where
 *     off >= size tells that the address lies beyond the symbol;
 *   1: the object and file offset, "[path+0xfoff]". */
#ifdef STP_USYM_EXPLICIT
static int stp_uw_usym_explicit = 1;
#else
static int stp_uw_usym_explicit;
#endif

/* Stock's own symbol functions, which take the probe context last where
 * this SystemTap's do (STP_UW_STOCK_SYM_CONTEXT, stock_runtime.h). */
static int stp_uw_stock_snprint_addr(char *str, size_t len,
				     unsigned long address, int flags,
				     struct task_struct *task, struct context *c)
{
#if STP_UW_STOCK_SYM_CONTEXT
	return _stp_snprint_addr(str, len, address, flags, task, c);
#else
	return _stp_snprint_addr(str, len, address, flags, task);
#endif
}

static unsigned long stp_uw_stock_linenumber(unsigned long address,
					     struct task_struct *task,
					     char **filename, int need_filename,
					     struct context *c)
{
#if STP_UW_STOCK_SYM_CONTEXT
	return _stp_linenumber_lookup(address, task, filename, need_filename, c);
#else
	return _stp_linenumber_lookup(address, task, filename, need_filename);
#endif
}

/* A named address in SystemTap's forms (flags without _STP_SYM_INEXACT,
 * which gives ex): name alone, "name+0xoff", with " [mod]", "/0xsize",
 * and "0xaddr : " before it in the full forms; at is " at file:line" or
 * "". */
static int stp_uw_sym_format(char *str, size_t len, unsigned long address,
			     int flags, const char *name, unsigned long off,
			     unsigned long size, const char *mod, const char *at)
{
	const char *pre = (flags & _STP_SYM_PRE_SPACE) ? " " : "";
	const char *ex = ((flags & _STP_SYM_INEXACT) && (flags & _STP_SYM_SYMBOL))
		? " (inexact)" : "";
	const char *post = (flags & _STP_SYM_POST_SPACE) ? " "
		: (flags & _STP_SYM_NEWLINE) ? "\n" : "";
	int f = flags & ~_STP_SYM_INEXACT;

	if (f == _STP_SYM_SYMBOL)
		return _stp_snprintf(str, len, "%s%s%s%s", pre, name, ex, post);
	if (f == _STP_SYM_FULL || f == _STP_SYM_FULLER || (f & _STP_SYM_HEX_SYMBOL))
		return _stp_snprintf(str, len, "%s%p : %s+%#lx/%#lx%s [%s]%s%s",
				     pre, (int64_t)address, name, off, size,
				     at, mod, ex, post);
	if (f & _STP_SYM_SIZE)
		return _stp_snprintf(str, len, "%s%s+%#lx/%#lx [%s]%s%s",
				     pre, name, off, size, mod, ex, post);
	if (f & _STP_SYM_MODULE)
		return _stp_snprintf(str, len, "%s%s+%#lx [%s]%s%s", pre,
				     name, off, mod, ex, post);
	return _stp_snprintf(str, len, "%s%s+%#lx%s%s", pre, name, off, ex, post);
}

#include "stap-unwind/ksym.c"

static int stp_uw_snprint_addr(char *str, size_t len, unsigned long address,
			       int flags, struct task_struct *task,
			       struct context *c)
{
	struct stp_uw_usym *u;
	const char *pre, *post, *ex, *mod, *name;
	char *filename = NULL;
	unsigned long linenumber = 0, off = 0;
	/* What is named: the call before a return address (usym.c's top
	 * comment). */
	unsigned long lookup = (flags & STP_UW_SYM_CALLER) && address
		? address - 1 : address;
	int f;

	if (!task)
		return stp_uw_ksym_snprint(str, len, address, flags, c);
	flags &= ~STP_UW_SYM_CALLER;
	/* Forms that name no symbol: SystemTap's. */
	if (!(flags & (_STP_SYM_SYMBOL | _STP_SYM_MODULE)) || !stp_uw_usym_scratch)
		return stp_uw_stock_snprint_addr(str, len, address, flags, task, c);

	u = &this_cpu_ptr(stp_uw_usym_scratch)->u;
	stp_uw_usym_lookup(task, address, lookup, STP_UW_USYM_NAME, u);
	if (_stp_is_compat_task2(task))
		address &= 0xffffffffUL;
	pre = (flags & _STP_SYM_PRE_SPACE) ? " " : "";
	ex = ((flags & _STP_SYM_INEXACT) && (flags & _STP_SYM_SYMBOL))
		? " (inexact)" : "";
	post = (flags & _STP_SYM_POST_SPACE) ? " "
		: (flags & _STP_SYM_NEWLINE) ? "\n" : "";
	name = u->contains || !stp_uw_usym_explicit ? u->name : NULL;
	if (name && name[0] == '.')
		name++;
	if (name)
		off = address - u->sym_start;
	mod = u->path;
	if (mod && (flags & _STP_SYM_MODULE_BASENAME) && strrchr(mod, '/'))
		mod = strrchr(mod, '/') + 1;
	if (name && (flags & (_STP_SYM_LINENUMBER | _STP_SYM_FILENAME)))
		linenumber = stp_uw_stock_linenumber(lookup, task, &filename,
						     !!(flags & _STP_SYM_FILENAME), c);

	f = flags & ~_STP_SYM_INEXACT;
	if (!name && f == _STP_SYM_SYMBOL)
		return _stp_snprintf(str, len, "%s%p%s%s", pre, (int64_t)address,
				     ex, post);
	if (name) {
		char *at = this_cpu_ptr(stp_uw_usym_scratch)->at;

		at[0] = '\0';
		if (filename && linenumber)
			snprintf(at, STP_UW_USYM_AT_MAX, " at %.128s:%lu", filename, linenumber);
		else if (filename)
			snprintf(at, STP_UW_USYM_AT_MAX, " at %.128s", filename);
		return stp_uw_sym_format(str, len, address, flags, name, off,
					 u->sym_size, mod, at);
	}

	/* No symbol contains the address: object and file offset. */
	if (mod && u->have_foff && (f & _STP_SYM_HEX_SYMBOL))
		return _stp_snprintf(str, len, "%s%p : [%s+%#lx]%s%s", pre,
				     (int64_t)address, mod, u->foff, ex, post);
	if (mod && u->have_foff)
		return _stp_snprintf(str, len, "%s[%s+%#lx]%s%s", pre, mod, u->foff,
				     ex, post);
	if (mod && (f & _STP_SYM_HEX_SYMBOL))
		return _stp_snprintf(str, len, "%s%p : [%s]%s%s", pre,
				     (int64_t)address, mod, ex, post);
	if (mod)
		return _stp_snprintf(str, len, "%s[%s]%s%s", pre, mod, ex, post);
	return _stp_snprintf(str, len, "%s%p%s%s", pre, (int64_t)address, ex, post);
}

static void stp_uw_print_addr(unsigned long address, int flags,
			      struct task_struct *task, struct context *c)
{
	stp_uw_snprint_addr(NULL, 0, address, flags, task, c);
}

/* The build-id of the object containing user address addr of the current
 * task, as lowercase hex, into buf (at least 2 * STP_UW_BUILD_ID_MAX + 1
 * bytes); "" if not known. */
static void stp_uw_ubuildid(char *buf, size_t len, unsigned long addr)
{
	struct stp_uw_usym *u;
	unsigned i;

	buf[0] = '\0';
	if (!current->mm || !stp_uw_usym_scratch)
		return;
	u = &this_cpu_ptr(stp_uw_usym_scratch)->u;
	stp_uw_usym_lookup(current, addr, addr, STP_UW_USYM_BUILDID, u);
	for (i = 0; i < u->build_id_len && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", u->build_id[i]);
}

/* File offset of user address addr in its object, or -1. */
static long long stp_uw_umodoffset(unsigned long addr)
{
	struct stp_uw_usym *u;

	if (!current->mm || !stp_uw_usym_scratch)
		return -1;
	u = &this_cpu_ptr(stp_uw_usym_scratch)->u;
	stp_uw_usym_lookup(current, addr, addr, STP_UW_USYM_FOFF, u);
	return u->path && u->have_foff ? (long long)u->foff : -1;
}

#endif /* STP_UW_USYM_PRINT_C */
