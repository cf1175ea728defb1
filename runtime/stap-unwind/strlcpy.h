/* stap-unwind: a strlcpy() that cannot panic the kernel, for stock's
 * runtime and tapsets (overrides.h, section STRINGS).
 *
 * Stock copies a task's name with strlcpy(dest, task->comm, size)
 * (execname(), pexecname(), task_execname()), which a kernel built with
 * FORTIFY_SOURCE checks against comm's 16 bytes: strlen() of the source,
 * or, from Linux 6.8 where stock's runtime.h makes strlcpy() a strscpy(),
 * strnlen() (include/linux/fortify-string.h).  exec() rewrites comm in
 * place (__set_task_comm(): strscpy_pad()), so for a moment it holds no
 * NUL, and a sample taken then (timer.profile in an exec'ing task, or any
 * probe reading another task's name) ends in fortify_panic(): seen on
 * Debian 13's 6.12 with execname() in a timer.profile probe.  This copy
 * reads at most the source's known size (its array, when the compiler
 * knows it) and size - 1 bytes, and always ends dest with a NUL: a name
 * read mid-exec may be torn, never a crash.  Returns the source's length,
 * or size if it is size or longer (truncated), as stock's callers test
 * strlcpy()'s result.
 */
#ifndef STP_UW_STRLCPY_H
#define STP_UW_STRLCPY_H

static inline size_t stp_uw_strlcpy(char *dest, const char *src, size_t size,
				    size_t src_size)
{
	const size_t max = src_size < size ? src_size : size;
	size_t n = 0, i;

	/* bound: size and the source's array */
	while (n < max && src[n] != '\0')
		n++;
	if (size == 0)
		return n;
	/* bound: size - 1 */
	for (i = 0; i < n && i < size - 1; i++)
		dest[i] = src[i];
	dest[i] = '\0';
	return n;
}

#endif /* STP_UW_STRLCPY_H */
