/* kernel.ustack/upstream.exp, after systemtap.base/vma_vdso: a system call
 * made from inside the vdso (clock_gettime of a clock id no vdso serves,
 * so the vdso falls back to the system call), then getuid twice, through
 * syscall() and through the libc wrapper. */
#define _GNU_SOURCE
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(void)
{
	struct timespec ts;
	int bad = clock_gettime((clockid_t)4242, &ts);	/* fails: EINVAL */
	long a = syscall(SYS_getuid);
	long b = getuid();

	return bad == -1 && a == b ? 0 : 1;
}
