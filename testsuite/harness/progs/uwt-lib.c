/* Shared library for the unwind test programs: main calls into it through
   the PLT, and it calls back into the program, so a stop inside the callback
   has frames on both sides of a PLT call (and, on first use, of the dynamic
   linker's lazy binding).  */
#include "uwt.h"

UWT_NOINLINE int lib_inner(int (*callback)(int), int x)
{
	int r = callback(x + 1);
	UWT_BARRIER(r);
	return r + 1;
}

UWT_NOINLINE int lib_entry(int (*callback)(int), int x)
{
	int r = lib_inner(callback, x * 2);
	UWT_BARRIER(r);
	return r + 2;
}
