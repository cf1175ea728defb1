#!/bin/sh
# Build the stop-reason test programs (stop.exp) in the stapvm tree:
#   build-stop.sh OUTDIR   ->  OUTDIR/ustop-m64, OUTDIR/ustop-m32
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-stop.sh OUTDIR}
mkdir -p "$out"
for abi in m64 m32; do
	gcc -$abi -O2 -g -Wall -o "$out/ustop-$abi" "$src/ustop.c" "$src/ustop_asm.S"
done
echo "built: ustop-m64 ustop-m32"
