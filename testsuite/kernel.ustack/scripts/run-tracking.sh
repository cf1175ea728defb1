#!/bin/sh
# kernel.ustack/tracking.exp: every tracking variant in every mode (for
# tracking.stp).
# ASLR off, so that sessions with and without -d see the same addresses.
# The test programs: the build directory's (PROGS, as the caller sees it).
b=${PROGS:-/src/testsuite/kernel.ustack/build}
for abi in m64 m32; do
	for v in O0-fp O0-nofp O2-fp O2-nofp; do
		p=$b/tracking-$abi-$v
		setarch -R $p getdents
		setarch -R $p dl $b/libtracking-$abi-$v.so
		setarch -R $p fork
		setarch -R $p exec
		setarch -R $p loop 1
	done
done
