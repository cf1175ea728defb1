/* Test program of unit.symbolize: local functions that only .symtab and
 * the DWARF of this file name (no -d, no .dynsym), calling into a shared
 * library's local function. */
#include <stdio.h>

int lib_entry(int x);

static volatile int sink;

__attribute__((noinline)) static int leaf(int x)
{
	sink += x;
	return lib_entry(x) + sink;
}

__attribute__((noinline)) static int mid(int x)
{
	int r = leaf(x + 1);

	sink -= r;
	return r * 3;
}

__attribute__((noinline)) static int top(int x)
{
	int r = mid(x * 2);

	return r + 7;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", top(argc));
	return 0;
}

/* A signal trampoline as glibc's __restore_rt is: a local function symbol
 * of size 0, after padding that no symbol holds, to whose first byte a
 * signal handler returns (the return address was not pushed by a call). */
__asm__(".text\n"
	".p2align 6\n"
	".type sym_tramp, @function\n"
	"sym_tramp:\n"
	"\tnop\n"
	"\tret\n");
