#!/bin/sh
# The oracle for the C library's and the vdso's frames where stock
# SystemTap is not exact (i386: it stops in the vdso): gdb, in the guest,
# stopped at the first entry of the same system call by the same program,
# with ASLR off as in the stap sessions (so the pcs are the same), prints
# every frame's pc to _start.
#
# usage: gdb-stacks.sh 'SYSCALL PROG ARGS...' ...   (one case an argument)
# Output per case: "== PROG ARGS...", one pc a line, "== end".
for c in "$@"; do
	set -- $c
	sc=$1
	shift
	echo "== $*"
	gdb -nx -q -batch -ex 'set disable-randomization on' \
		-ex 'handle SIGUSR1 nostop noprint pass' -ex "catch syscall $sc" -ex run \
		-ex 'set backtrace past-main on' -ex 'frame apply all -q p/x $pc' \
		--args "$@" </dev/null 2>/dev/null | sed -n 's/^\$[0-9]* = \(0x[0-9a-f]*\)$/\1/p'
	echo "== end"
done
