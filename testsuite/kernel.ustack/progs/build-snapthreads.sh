#!/bin/sh
# Build the every-thread snapshot test program in the stapvm tree:
#   build-snapthreads.sh OUTDIR  ->  OUTDIR/snapthreads-m64, snapthreads-m32
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-snapthreads.sh OUTDIR}
mkdir -p "$out"
for abi in m64 m32; do
	gcc -$abi -O2 -g -Wall -Werror -pthread -fno-optimize-sibling-calls \
		-o "$out/snapthreads-$abi" "$src/snapthreads.c"
done
echo "built: snapthreads-m64 snapthreads-m32"
