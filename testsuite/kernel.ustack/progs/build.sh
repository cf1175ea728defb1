#!/bin/sh
# Build the kernel.ustack test programs (run in the stapvm tree or guest,
# where gcc and gcc-multilib are):  build.sh OUTDIR
# One binary per ABI x optimisation x frame-pointer choice:
#   OUTDIR/ustack-m64-O0-fp, ustack-m64-O2-nofp, ..., ustack-m32-O2-nofp
set -eu
src=$(cd "$(dirname "$0")" && pwd)/ustack.c
out=${1:?usage: build.sh OUTDIR}
mkdir -p "$out"
for abi in m64 m32; do
	for opt in O0 O2; do
		for fp in fp nofp; do
			case $fp in
			fp) fpf=-fno-omit-frame-pointer ;;
			nofp) fpf=-fomit-frame-pointer ;;
			esac
			gcc -$abi -$opt $fpf -g -Wall -o "$out/ustack-$abi-$opt-$fp" "$src"
		done
	done
done
echo "built: $(ls "$out" | tr '\n' ' ')"
