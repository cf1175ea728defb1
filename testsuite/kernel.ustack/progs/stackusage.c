/* kernel.ustack/ustackusage.exp: user stack frames of sizes the program
 * knows, for the ustack_frame_size() tapset functions and
 * stap-unwind-ustackusage.
 *
 *   stackusage FIFO
 *
 * prints `ready PID`, then reads lines from FIFO: `go` runs three call
 * chains, each ending in a getppid system call made by inline assembly in
 * the innermost function (so that the frame the kernel entered from is the
 * program's own), and prints for each chain its truth:
 *
 *   chain K BYTES NAME=SIZE ... run_chains=SIZE
 *
 * the frames innermost first, each with its size in bytes, and BYTES, the
 * stack from the stack pointer at the system call up to run_chains' CFA;
 * then `deepest K` (the chain of the most BYTES) and `done`.  `spin N`
 * runs only the deepest chain, whose innermost function makes the system
 * call N times (a target for samples: the time is spent at one stack
 * depth), and prints its line and `done`.  `quit` exits.  main is left out: on i386 gcc realigns main's stack, and there
 * __builtin_dwarf_cfa() gives the realigned frame's base, not the CFA.
 *
 * The sizes come from the program's own stack addresses: a function's CFA
 * is __builtin_dwarf_cfa() (the stack pointer before the call to it), so
 * a caller's frame size is its CFA minus its callee's, and the innermost
 * frame's is its CFA minus the stack pointer that the system call
 * instruction saw.  The frames hold fixed arrays and alloca() blocks, of
 * sizes that differ per frame.
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "chain.h"

#define MAX_FRAMES 16

struct frame {
	const char *name;
	unsigned long cfa;
};

/* The chain being run: its frames outermost first (run_chain and on), and
 * the stack pointer at its system call. */
static struct frame frames[MAX_FRAMES];
static int nframes;
static unsigned long syscall_sp;
static unsigned long run_chains_cfa;
static volatile long sink;
static long spins = 1;		/* system calls of leaf_big */

#define ENTER(fname)							\
	do {								\
		if (nframes < MAX_FRAMES) {				\
			frames[nframes].name = (fname);			\
			frames[nframes].cfa =				\
				(unsigned long)__builtin_dwarf_cfa();	\
			nframes++;					\
		}							\
	} while (0)

/* Keeps a buffer on the stack, whole, until here. */
#define USE(buf, n)							\
	do {								\
		(buf)[0] = 1;						\
		(buf)[(n) - 1] = 2;					\
		__asm__ volatile("" : : "r"(buf) : "memory");		\
		sink += (buf)[0] + (buf)[(n) - 1];			\
	} while (0)

/* getppid, with the stack pointer the system call instruction sees. */
#if defined(__x86_64__)
#define RAW_GETPPID(ret, sp)						\
	__asm__ volatile("mov %%rsp, %1\n\tsyscall"			\
			 : "=a"(ret), "=&r"(sp)				\
			 : "0"((long)SYS_getppid)			\
			 : "rcx", "r11", "memory")
#elif defined(__i386__)
#define RAW_GETPPID(ret, sp)						\
	__asm__ volatile("mov %%esp, %1\n\tint $0x80"			\
			 : "=a"(ret), "=&r"(sp)				\
			 : "0"((long)SYS_getppid)			\
			 : "memory")
#else
#error "x86_64 or i386 only"
#endif

/* The innermost frames: a fixed array each, of different sizes. */
static NOINLINE void leaf_small(void)
{
	volatile char buf[200];
	long ret;
	unsigned long sp;

	ENTER("leaf_small");
	USE(buf, sizeof(buf));
	RAW_GETPPID(ret, sp);
	syscall_sp = sp;
	sink += ret;
}

static NOINLINE void leaf_big(void)
{
	volatile char buf[1500];
	long ret;
	unsigned long sp;

	ENTER("leaf_big");
	USE(buf, sizeof(buf));
	for (long i = 0; i < spins; i++) {		/* bound: spins */
		RAW_GETPPID(ret, sp);
		syscall_sp = sp;
		sink += ret;
	}
}

/* alloca of a size known only at run time, once per level: the frames of
 * one function differ in size. */
static NOINLINE void grow(int level, int bytes)
{
	char *p = alloca(bytes);

	ENTER("grow");
	USE(p, bytes);
	if (level > 1)
		grow(level - 1, bytes + 320);
	else
		leaf_big();
	NO_TAIL();
}

static NOINLINE void fixed_array(int bytes)
{
	volatile char buf[4000];

	ENTER("fixed_array");
	USE(buf, sizeof(buf));
	grow(3, bytes);
	NO_TAIL();
}

static NOINLINE void only_alloca(int bytes)
{
	char *p = alloca(bytes);

	ENTER("only_alloca");
	USE(p, bytes);
	leaf_small();
	NO_TAIL();
}

static NOINLINE void run_chain(int k, int bytes)
{
	ENTER("run_chain");
	switch (k) {
	case 0:
		leaf_small();
		break;
	case 1:
		fixed_array(bytes);
		break;
	default:
		only_alloca(bytes * 2);
		break;
	}
	NO_TAIL();
}

/* Print the truth of the chain just run; returns its bytes. */
static unsigned long print_chain(int k)
{
	unsigned long below = syscall_sp, bytes = run_chains_cfa - syscall_sp;

	printf("chain %d %lu", k, bytes);
	for (int i = nframes - 1; i >= 0; i--) {	/* bound: nframes */
		printf(" %s=%lu", frames[i].name, frames[i].cfa - below);
		below = frames[i].cfa;
	}
	printf(" run_chains=%lu\n", run_chains_cfa - below);
	return bytes;
}

/* Run chain `only`, or every chain (-1), and print their truth. */
static NOINLINE void run_chains(int bytes, int only)
{
	unsigned long most = 0;
	int deepest = 0;

	run_chains_cfa = (unsigned long)__builtin_dwarf_cfa();
	for (int k = 0; k < 3; k++) {			/* bound: 3 chains */
		if (only >= 0 && k != only)
			continue;
		nframes = 0;
		run_chain(k, bytes);
		unsigned long b = print_chain(k);
		if (b > most) {
			most = b;
			deepest = k;
		}
	}
	if (only < 0)
		printf("deepest %d\n", deepest);
}

/* `go`: every chain; `spin N`: the deepest, N system calls at its depth.
 * The alloca sizes come from the line's length: not constants the
 * compiler sees. */
static void handle(const char *line)
{
	if (sscanf(line, "spin %ld", &spins) == 1) {
		run_chains(500 + 100 * (int)strlen(line), 1);
		spins = 1;
	} else if (strcmp(line, "go\n") == 0) {
		run_chains(500 + 100 * (int)strlen(line), -1);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: stackusage FIFO\n");
		return 2;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	return serve_fifo(argv[1], handle);
}
