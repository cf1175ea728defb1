#!/bin/sh
# The oracle for the C library's and the vdso's frames where stock
# SystemTap is not exact (i386: it stops in the vdso) or does not run:
# gdb, in the guest, stopped at the first entry of the same system call by
# the same program, with ASLR off as in the stap sessions (so the pcs are
# the same), prints every frame's pc to _start.
#
# usage: gdb-stacks.sh 'SYSCALL PROG ARGS...' ...   (one case an argument)
# Output per case: "== PROG ARGS...", one pc a line, "== end"; the cases
# of 32-bit programs first, then the others.
#
# One gdb runs the cases of each ELF class: under TCG gdb's own start is
# most of a case (Debian 12's guest, 2026-11-30: 3.5 s of 4.9; four cases
# 17.6 s with a gdb each, 6.0 s in one), but a gdb that ran a program of
# one class refuses a file of the other.  Its commands are -ex options,
# not a command file, because gdb goes on after an -ex that fails: a case
# whose program never makes the call has no pcs between its two lines,
# and the next case runs.
# The cases a line each, after their program's ELF class (EI_CLASS, its
# 5th byte: 1 32-bit, 2 64-bit; "-" where it cannot be read).
cases=$(mktemp)
trap 'rm -f "$cases"' EXIT
for c in "$@"; do	# bound: the cases given
	# shellcheck disable=SC2086	# the case's words
	set -- $c
	class=$(od -An -tu1 -j4 -N1 "$2" 2>/dev/null | tr -d ' ')
	printf '%s %s\n' "${class:--}" "$c"
done >"$cases"

# stacks CLASS: the cases of programs of ELF class CLASS, in one gdb.
stacks() {
	want=$1
	set -- -nx -q -batch -ex 'set disable-randomization on' \
		-ex 'handle SIGUSR1 nostop noprint pass' -ex 'set backtrace past-main on'
	n=0
	# bound: the lines of $cases, one a case
	while read -r class sc prog args; do
		[ "$class" = "$want" ] || continue
		n=$((n + 1))
		set -- "$@" -ex "echo == $prog${args:+ $args}\\n" -ex "file $prog" \
			-ex "catch syscall $sc" -ex "run $args" \
			-ex 'frame apply all -q p/x $pc' -ex kill -ex delete \
			-ex 'echo == end\n'
	done <"$cases"
	[ $n -gt 0 ] || return 0
	gdb "$@" </dev/null 2>/dev/null |
		sed -n -e 's/^\$[0-9]* = \(0x[0-9a-f]*\)$/\1/p' -e '/^== /p'
}

for class in 1 2 -; do	# bound: three classes
	stacks "$class"
done
