/* stap-unwind: the reader of the current process's memory (uread.h).
 *
 * Why not copy_from_user_nofault() alone: on x86 it copies with rep movsb,
 * which QEMU's TCG (the guest every kernel test and benchmark runs in)
 * emulates one byte per iteration, so there it costs several times the
 * 8-byte loads, and makes every walk (which reads a 512-byte stack window
 * at a time) dearer: bench/ubacktrace-parts.stp (cfu512, uread512) times
 * both, and bench/README.md keeps the figures.  On hardware both take a
 * few dozen cycles.  The loads use the kernel's own unsafe_get_user()
 * between user_read_access_begin() and its end, with page faults
 * disabled, after the check copy_from_user_nofault() makes first: the
 * range is user space (__access_ok).  In an NMI the current mm may not be the task's
 * (nmi_uaccess_okay(), which modules cannot call since 5.18), so there
 * copy_from_user_nofault() reads, as it does on kernels without that
 * interface in this form (before 5.18, whose access_ok() may warn in
 * interrupts).
 */
#ifndef STP_UW_UREAD_C
#define STP_UW_UREAD_C

#include <linux/uaccess.h>
#include <linux/preempt.h>	/* in_nmi */
#include "stap-unwind/features.h"	/* put_unaligned, STP_UW_HAVE_ACCESS_OK */
#include "stap-unwind/uread.h"

#if defined(STP_UW_HAVE_ACCESS_OK) && defined(unsafe_get_user) \
	&& defined(user_read_access_begin)
#define STP_UW_UREAD_WORDS 1
#endif

#ifdef STP_UW_UREAD_WORDS
/* The loads; no call may sit between begin and end (objtool checks). */
static __always_inline int stp_uw_uread_words(u8 *dst, const u8 __user *src,
					      size_t len)
{
	size_t i = 0;
	u64 w;
	u32 w4;
	u8 w1;

	if (!user_read_access_begin(src, len))
		return -EFAULT;
	for (; len - i >= 8; i += 8) {	/* bound: len / 8, len <= the caller's buffer */
		unsafe_get_user(w, (const u64 __user *)(src + i), fault);
		put_unaligned(w, (u64 *)(dst + i));
	}
	if (len - i >= 4) {
		unsafe_get_user(w4, (const u32 __user *)(src + i), fault);
		put_unaligned(w4, (u32 *)(dst + i));
		i += 4;
	}
	for (; i < len; i++) {		/* bound: 3 */
		unsafe_get_user(w1, src + i, fault);
		dst[i] = w1;
	}
	user_read_access_end();
	return 0;
fault:
	user_read_access_end();
	return -EFAULT;
}
#endif

static int stp_uw_uread(void *dst, unsigned long addr, size_t len, int compat)
{
	unsigned long limit = compat ? 0x100000000UL : TASK_SIZE_MAX;
#ifdef STP_UW_UREAD_WORDS
	int rc;
#endif

	if (len == 0 || addr >= limit || len > limit - addr)
		return -EFAULT;
#ifdef STP_UW_UREAD_WORDS
	if (in_nmi())
		return copy_from_user_nofault(dst, (const void __user *)addr,
					      len) ? -EFAULT : 0;
	if (!__access_ok((const void __user *)addr, len))
		return -EFAULT;
	pagefault_disable();
	rc = stp_uw_uread_words(dst, (const u8 __user *)addr, len);
	pagefault_enable();
	return rc;
#else
	return copy_from_user_nofault(dst, (const void __user *)addr, len)
		? -EFAULT : 0;
#endif
}

#endif /* STP_UW_UREAD_C */
