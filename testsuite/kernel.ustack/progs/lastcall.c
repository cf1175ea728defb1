/* kernel.ustack/callers.exp: caller frames whose return address is not
 * where their call is.  A caller frame must be named by its call (the byte
 * before its return address), not by the return address, which may lie in
 * the next statement or in the next function.
 *
 *   lastcall
 *
 * makes two getppid system calls and exits:
 *
 *   main > run_calls > two_lines > call_getppid > getppid
 *          two_lines' call is followed by a statement of the next line, so
 *          that the return address's line is not the call's;
 *   main > run_calls > ends_in_call > stop_here > getppid
 *          stop_here does not return, so the call to it is ends_in_call's
 *          last instruction, and its return address is the first byte of
 *          the function after it, after_last_call (built with
 *          -falign-functions=1 -fno-toplevel-reorder: no padding between
 *          them, in this order).
 *
 * Before its system call stop_here prints the layout the test relies on:
 *
 *   lastcall ret ADDR next ADDR   its return address and after_last_call's
 *                                 address: equal when the layout is as meant
 *
 * stop_here keeps a large frame, so that its stack is the deepest of the
 * process (the one stap-unwind-ustackusage reports).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "chain.h"

static volatile long sink;

static void after_last_call(void);

static NOINLINE void call_getppid(void)
{
	sink += getppid();
	NO_TAIL();
}

static NOINLINE void two_lines(void)
{
	call_getppid();
	sink += 2;
	NO_TAIL();
}

static NOINLINE __attribute__((noreturn)) void stop_here(void)
{
	volatile char deep[16384];

	deep[0] = 1;
	printf("lastcall ret %p next %p\n", __builtin_return_address(0),
	       (void *)after_last_call);
	fflush(stdout);
	sink += getppid() + deep[0];
	_exit(0);
}

static NOINLINE void ends_in_call(void)
{
	sink += 3;
	stop_here();
}

/* Right after ends_in_call: where its return address points. */
static NOINLINE void after_last_call(void)
{
	sink += 4;
	NO_TAIL();
}

static NOINLINE void run_calls(void)
{
	two_lines();
	ends_in_call();
	NO_TAIL();
}

int main(void)
{
	run_calls();
	return 0;
}
