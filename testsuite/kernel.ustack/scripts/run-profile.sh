#!/bin/sh
b=/src/testsuite/kernel.ustack/build
for p in m64-O2-nofp m64-O0-fp m32-O2-nofp m32-O0-fp; do
	setarch -R $b/ustack-$p spin
done
