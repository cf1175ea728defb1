/* Unit test of runtime/stap-unwind/strlcpy.h, the module's strlcpy() for
 * stock's runtime and tapsets (overrides.h, STRINGS), as the override
 * calls it: with the source array's size from __builtin_object_size().
 * Prints PASS:/FAIL: lines; built with AddressSanitizer, so a read past
 * the source's array (what the kernel's FORTIFY_SOURCE turns into a
 * panic) aborts the test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/stap-unwind/strlcpy.h"
#include "check.h"

#define COPY(dest, src, size) \
	stp_uw_strlcpy((dest), (src), (size), __builtin_object_size((src), 1))

struct task {
	char comm[16];		/* as the kernel's TASK_COMM_LEN */
};

int main(void)
{
	/* The task on the heap, alone, so that ASan sees comm's end. */
	struct task *t = malloc(sizeof *t);
	char out[512];
	size_t n;

	memcpy(t->comm, "setarch", 8);
	n = COPY(out, t->comm, sizeof out);
	check(n == 7 && strcmp(out, "setarch") == 0, "a whole comm: copied, its length returned");

	/* exec() mid-way through rewriting comm: no NUL in its 16 bytes. */
	memcpy(t->comm, "ustack-m64-O2-no", 16);
	n = COPY(out, t->comm, sizeof out);
	check(n == 16 && strcmp(out, "ustack-m64-O2-no") == 0,
	      "a comm without a NUL: its 16 bytes, ended, nothing past them read");

	n = COPY(out, "hello world", 6);
	check(n == 6 && strcmp(out, "hello") == 0, "truncated: size - 1 bytes and a NUL, size returned");

	out[0] = 'x';
	n = COPY(out, "hi", 0);
	check(out[0] == 'x', "size 0: nothing written");

	const char *p = "abc";
	n = COPY(out, p, 10);
	check(n == 3 && strcmp(out, "abc") == 0, "a pointer to a string: copied to its NUL");

	free(t);
	return failures ? 1 : 0;
}
