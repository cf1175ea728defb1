#!/bin/sh
# Every test binary in every mode, one after another (for syscall.stp).
# ASLR off, so that ours and stock see the same addresses.
# The test programs: the build directory's (PROGS, as the caller sees it).
b=${PROGS:-/src/testsuite/kernel.ustack/build}
for abi in m64 m32; do
	for v in O0-fp O0-nofp O2-fp O2-nofp; do
		for mode in getdents direct signal "recurse 40"; do
			setarch -R $b/ustack-$abi-$v $mode
		done
	done
done
