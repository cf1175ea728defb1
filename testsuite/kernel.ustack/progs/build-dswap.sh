#!/bin/sh
# Build the kernel.ustack/dswap.exp test programs (in the stapvm tree):
#   build-dswap.sh OUTDIR
# OUTDIR/dswap-ABI, OUTDIR/libdswapa-ABI.so and OUTDIR/libdswapb-ABI.so
# for ABI in m64, m32 (-O2, no frame pointers: only CFI describes them).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-dswap.sh OUTDIR}
mkdir -p "$out"
for abi in m64 m32; do
	gcc -$abi -O2 -g -Wall -o "$out/dswap-$abi" "$here/dswap.c" -ldl
	for side in a b; do
		gcc -$abi -O2 -fomit-frame-pointer -g -Wall -shared -fPIC \
			-DSIDE_$(echo $side | tr ab AB) \
			-o "$out/libdswap$side-$abi.so" "$here/dswaplib.c"
	done
done
echo "built: dswap-* libdswap[ab]-*.so in $out"
