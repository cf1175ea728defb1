/* kernel.ustack/uread.exp: user memory for the runtime's reader
 * (runtime/stap-unwind/uread.h) to read, with its edges where the test
 * knows them.
 *
 *   ureadbuf
 *
 * Maps four anonymous pages: the first two filled with byte
 * i = (i * 7 + 3) & 0xff, the third PROT_NONE, the fourth readable but
 * never touched (no page behind it: a read that must not fault fails).
 * Prints "base 0xADDR page N", then calls
 * write(-1, base, 4 * page), which fails with EBADF and leaves the probe on
 * syscall.write the base and length.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *base;
	long i;

	base = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < 2 * page; i++)	/* bound: 2 pages */
		base[i] = (unsigned char)(i * 7 + 3);
	if (mprotect(base + 2 * page, page, PROT_NONE) != 0) {
		perror("mprotect");
		return 1;
	}
	printf("base %p page %ld\n", (void *)base, page);
	fflush(stdout);
	if (write(-1, base, 4 * page) != -1)
		return 1;
	return 0;
}
