/* kernel.ustack stop test program: one getppid system call, made so that
 * a user backtrace taken at it stops for a known reason (stop.exp).
 *   ustop MODE [N]
 * Before the system call it prints one line to stdout,
 *   EXPECT PID MODE key=value ...
 * with what it knows: the pc the stop must be reported at, the address
 * or register involved.  Modes:
 *   eos         main -> eos_leaf -> libc getppid: end_of_stack at _start
 *   depth N     recurse N+1 deep, then libc getppid (depth_limit when the
 *               stack is deeper than MAXBACKTRACE, else end_of_stack)
 *   nodata      getppid made by code copied into an anonymous executable
 *               mapping (no module, no CFI), which returns by pop and an
 *               indirect jmp (a branch: reading the code cannot tell the
 *               caller): no_unwind_data there
 *   nocfi       the same code returning by ret: read from the code, the
 *               caller is main, and the backtrace ends at _start
 *   unreadable  stop_unreadable: CFA on an unmapped page: memory_unreadable
 *   regundef    ru_outer/ru_inner: the caller's bx undefined: reg_undefined
 *   rcx         (x86_64) CFA from rcx at `syscall`: reg_undefined, reg 2
 *   badcfi      stop_badcfi: DW_CFA_restore_state underflow: bad_cfi
 *   noprogress  np_outer: CFA equal to its callee's: no_progress
 *   badra       stop_badra: its CFI gives as return address a pointer into
 *               an anonymous page of zeros: bad_return_address
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

extern long raw_getppid(void);
extern void stop_unreadable(void *bad);
extern void ru_outer(void);
extern void stop_badcfi(void);
extern void np_outer(unsigned long *sp);
extern void stop_badra(void *bogus);
extern char unreadable_pc[], regundef_pc[], badcfi_pc[], np_pc[], badra_pc[];
#ifdef __x86_64__
extern void stop_rcx(void);
extern char rcx_pc[];
#endif

#define WORD ((unsigned long)sizeof(void *))

static void expect(const char *mode, const char *fmt, unsigned long a,
		   unsigned long b)
{
	printf("EXPECT %d %s ", (int)getpid(), mode);
	printf(fmt, a, b);
	printf("\n");
	fflush(stdout);
}

__attribute__((noinline)) static void eos_leaf(void)
{
	getppid();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static int recurse(int n)
{
	int r;

	if (n == 0) {
		getppid();
		return 0;
	}
	r = recurse(n - 1);
	__asm__ volatile("" : "+r"(r) :: "memory");	/* no tail call */
	return r + 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "eos";

	if (strcmp(mode, "eos") == 0) {
		expect(mode, "", 0, 0);
		eos_leaf();
	} else if (strcmp(mode, "depth") == 0) {
		int n = argc > 2 ? atoi(argv[2]) : 10;

		expect(mode, "n=%lu", n, 0);
		recurse(n);
	} else if (strcmp(mode, "nodata") == 0 || strcmp(mode, "nocfi") == 0) {
		/* mov $NR_getppid,%eax; syscall (int $0x80); then ret, or
		 * for nodata pop %cx; jmp *%cx */
#ifdef __x86_64__
		static const unsigned char code[] = { 0xb8, 110, 0, 0, 0, 0x0f, 0x05,
						      0xc3 };
#else
		static const unsigned char code[] = { 0xb8, 64, 0, 0, 0, 0xcd, 0x80,
						      0xc3 };
#endif
		static const unsigned char pop_jmp[] = { 0x59, 0xff, 0xe1 };
		unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long (*fn)(void);

		if (p == MAP_FAILED)
			return 1;
		memcpy(p, code, sizeof(code));
		if (strcmp(mode, "nodata") == 0)
			memcpy(p + 7, pop_jmp, sizeof(pop_jmp));
		fn = (long (*)(void))(void *)p;
		expect(mode, "pc=0x%lx", (unsigned long)p + 7, 0);
		fn();
	} else if (strcmp(mode, "unreadable") == 0) {
		char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || munmap(p, 4096))
			return 1;
		expect(mode, "pc=0x%lx addr=0x%lx", (unsigned long)unreadable_pc,
		       (unsigned long)p + WORD);
		stop_unreadable(p);
	} else if (strcmp(mode, "regundef") == 0) {
		expect(mode, "pc=0x%lx reg=%lu", (unsigned long)regundef_pc, 3);
		ru_outer();
#ifdef __x86_64__
	} else if (strcmp(mode, "rcx") == 0) {
		expect(mode, "pc=0x%lx reg=%lu", (unsigned long)rcx_pc, 2);
		stop_rcx();
#endif
	} else if (strcmp(mode, "badcfi") == 0) {
		expect(mode, "pc=0x%lx", (unsigned long)badcfi_pc, 0);
		stop_badcfi();
	} else if (strcmp(mode, "noprogress") == 0) {
		static unsigned long sp;

		/* The sp is known only during the call: print after it. */
		np_outer(&sp);
		expect(mode, "pc=0x%lx cfa=0x%lx", (unsigned long)np_pc, sp);
	} else if (strcmp(mode, "badra") == 0) {
		char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		/* Resident, so that the zeros can be read without a fault. */
		memset(p, 0, 128);
		expect(mode, "pc=0x%lx ra=0x%lx", (unsigned long)badra_pc,
		       (unsigned long)p + 64);
		stop_badra(p + 64);
	} else {
		fprintf(stderr, "ustop: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
