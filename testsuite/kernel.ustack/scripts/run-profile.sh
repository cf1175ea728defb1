#!/bin/sh
# The test programs: the build directory's (PROGS, as the caller sees it).
b=${PROGS:-/src/testsuite/kernel.ustack/build}
for p in m64-O2-nofp m64-O0-fp m32-O2-nofp m32-O0-fp; do
	setarch -R $b/ustack-$p spin
done
