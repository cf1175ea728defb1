/* What the core's test programs share: one "PASS: name" or "FAIL: name"
 * line per check (testsuite/unit.core/core.exp makes each a result), and
 * the count of failures for the exit status.
 */
#ifndef UW_TEST_CHECK_H
#define UW_TEST_CHECK_H

#include <stdio.h>

static int failures;

/* what: the condition's text, printed with a failure (NULL: none). */
static __attribute__((unused)) void check_what(const char *name, int ok,
					       const char *what)
{
	if (ok)
		printf("PASS: %s\n", name);
	else if (what)
		printf("FAIL: %s (%s)\n", name, what);
	else
		printf("FAIL: %s\n", name);
	failures += !ok;
}

#define CHECK(name, cond) check_what((name), (cond), #cond)

static __attribute__((unused)) void check(int ok, const char *name)
{
	check_what(name, ok, NULL);
}

#endif /* UW_TEST_CHECK_H */
