/* kernel.ustack/upstream.exp, after systemtap.base/ustack: a three-deep
 * chain (main > outer > inner) for the ustack/print_ustack functions at a
 * uprobe on inner, and a 200-deep recursion ending in a call of marker,
 * for sprint_ubacktrace() of a stack deeper than a string holds. */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE int inner(void) { return sink + 3; }
NOINLINE int outer(void) { return inner() + 1; }
NOINLINE void marker(void) { sink++; }

NOINLINE int a_function_with_a_name_of_more_than_sixty_three_characters_in_all(int depth)
{
	if (depth == 0) {
		marker();
		return 0;
	}
	return a_function_with_a_name_of_more_than_sixty_three_characters_in_all(depth - 1) + 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && argv[1][0] == 'r')
		return a_function_with_a_name_of_more_than_sixty_three_characters_in_all(200) != 200;
	return outer() != 4;
}
