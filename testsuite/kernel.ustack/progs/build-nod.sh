#!/bin/sh
# Build the kernel.ustack/nod.exp test programs (in the stapvm tree):
#   build-nod.sh OUTDIR
# OUTDIR/nod-VARIANT and OUTDIR/libnod-VARIANT.so for VARIANT in
# m64|m32 x O0|O2 x fp|nofp.
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-nod.sh OUTDIR}
mkdir -p "$out"
for abi in m64 m32; do
	for opt in O0 O2; do
		for fp in fp nofp; do
			case $fp in
			fp) fpf=-fno-omit-frame-pointer ;;
			nofp) fpf=-fomit-frame-pointer ;;
			esac
			v=$abi-$opt-$fp
			gcc -$abi -$opt $fpf -g -Wall -o "$out/nod-$v" "$src/nod.c"
			gcc -$abi -$opt $fpf -g -Wall -shared -fPIC -o "$out/libnod-$v.so" "$src/nodlib.c"
		done
	done
done
echo "built: nod-* libnod-*.so in $out"
