/* stap-unwind: kernel addresses named by the running kernel.
 *
 * SystemTap names kernel addresses from the symbol tables it made at
 * translation time, from the kernel's debuginfo (Debian's
 * linux-image-*-dbg, about 1 GB, which most machines lack) or -d.
 * Without them it prints a bare address.  The running kernel can always
 * name its own addresses, as printk's %pS does (sprint_symbol(): kallsyms
 * and the loaded modules' symbol tables, BPF and ftrace trampolines
 * included); it takes no lock that sleeps and allocates nothing, so it
 * is safe in every probe context (printk runs it in NMI).  Its buffer is
 * on the kernel's own stack, in vsnprintf(), as for every %pS; ours holds
 * STP_UW_KSYM_MAX bytes of the result (kernel names are far shorter; one
 * that does not fit is named as stock names it), on the stack too, in a
 * function of its own: a module that names kernel frames alone has no
 * per-CPU scratch (usym.c's is started with the VMA tracking), and stock's
 * printing, the fallback, is called from outside that function, so that
 * the buffer is never on the stack below it (the kernel stack budget:
 * 1,072 bytes on Debian 12's 6.1 with both).
 *
 * What stock's tables name stays as stock prints it; everything else is
 * named here, in the forms of user frames (stp_uw_sym_format, usym_print.c)
 * with "kernel" for the core image's module name.  A kernel stack's pcs,
 * and so its stack id, do not depend on how it is named.
 *
 * Kernel frames found by the kernel's own unwinder are exact with ORC
 * and frame pointers; CONFIG_UNWINDER_GUESS reads every stack word that
 * looks like a text address, and its frames are marked "(inexact)", as
 * stock marks them (arch/x86/kernel/unwind_guess.c).
 */
#ifndef STP_UW_KSYM_C
#define STP_UW_KSYM_C

#include <linux/kernel.h>
#include <linux/string.h>

#define STP_UW_KSYM_MAX	128	/* bytes of "name+0xoff/0xsize [module]" */

/* The flags that name a frame of a kernel stack: ret says its pc is a
 * return address (every frame the kernel's unwinder finds above the
 * probed pc), named as a caller frame is (usym.c's top). */
static inline int stp_uw_kframe_sym_flags(int flags, int ret)
{
	if (!ret)
		return flags;
#ifdef CONFIG_UNWINDER_GUESS
	flags |= _STP_SYM_INEXACT;
#endif
	return flags | STP_UW_SYM_CALLER;
}

/* One kernel symbol, its strings inside the buffer it was read into. */
struct stp_uw_ksym {
	const char *name;
	const char *mod;		/* "kernel" for the core image */
	unsigned long off, size;
};

/* Name addr from kallsyms into buf (STP_UW_KSYM_MAX bytes).  0, or
 * -ENOENT where no symbol contains it. */
static int stp_uw_ksym_lookup(unsigned long addr, char *buf,
			      struct stp_uw_ksym *k)
{
	char *mod, *plus, *slash, *end;

	/* "name+0xoff/0xsize", then " [module]" for a module's symbol;
	 * "0xADDR" where none contains addr (kernel/kallsyms.c). */
	snprintf(buf, STP_UW_KSYM_MAX, "%pS", (void *)addr);
	k->mod = "kernel";
	mod = strstr(buf, " [");
	if (mod) {
		*mod = '\0';
		mod += 2;
		end = strpbrk(mod, " ]");	/* " buildid]" is not ours */
		if (end)
			*end = '\0';
		k->mod = mod;
	}
	slash = strrchr(buf, '/');
	plus = strrchr(buf, '+');
	if (!slash || !plus || plus > slash || plus == buf)
		return -ENOENT;
	*plus = '\0';
	*slash = '\0';
	k->name = buf;
	k->off = simple_strtoul(plus + 1, NULL, 16);
	k->size = simple_strtoul(slash + 1, NULL, 16);
	return 0;
}

/* address, looked up at lookup, named by kallsyms into str (len bytes)
 * in flags' form; -ENOENT where no symbol contains it.  Not inlined: the
 * buffer's frame (above). */
static noinline int stp_uw_ksym_snprint_kallsyms(char *str, size_t len,
						 unsigned long address,
						 unsigned long lookup, int flags)
{
	struct stp_uw_ksym k;
	char buf[STP_UW_KSYM_MAX];

	if (stp_uw_ksym_lookup(lookup, buf, &k) != 0)
		return -ENOENT;
	/* The offset printed is address's, wherever the lookup was. */
	return stp_uw_sym_format(str, len, address, flags, k.name,
				 k.off + (address - lookup), k.size, k.mod, "");
}

/* _stp_snprint_addr for a kernel address (usym_print.c routes them here). */
static int stp_uw_ksym_snprint(char *str, size_t len, unsigned long address,
			       int flags, struct context *c)
{
	unsigned long lookup = (flags & STP_UW_SYM_CALLER) && address
		? address - 1 : address;
	unsigned long size, off;
	const char *mod;
	int r = -ENOENT;

	flags &= ~STP_UW_SYM_CALLER;
	if ((flags & (_STP_SYM_SYMBOL | _STP_SYM_MODULE)) &&
	    !_stp_kallsyms_lookup(address, &size, &off, &mod, NULL))
		r = stp_uw_ksym_snprint_kallsyms(str, len, address, lookup, flags);
	if (r == -ENOENT)
		r = stp_uw_stock_snprint_addr(str, len, address, flags, NULL, c);
	return r;
}

#endif /* STP_UW_KSYM_C */
