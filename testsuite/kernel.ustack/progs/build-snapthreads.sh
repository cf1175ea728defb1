#!/bin/sh
# Build the every-thread snapshot test program in the stapvm tree:
#   build-snapthreads.sh OUTDIR  ->  OUTDIR/snapthreads-m64, snapthreads-m32,
#     and snapthreads-stripped: snapthreads-m64 with no symbols or DWARF,
#     whose debuginfo is OUTDIR/debug/.build-id/NN/REST.debug (what a
#     distribution ships in its -dbgsym package, found by build-id)
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-snapthreads.sh OUTDIR}
mkdir -p "$out"
for abi in m64 m32; do
	gcc -$abi -O2 -g -Wall -Werror -pthread -fno-optimize-sibling-calls \
		-o "$out/snapthreads-$abi" "$src/snapthreads.c"
done
rm -rf "$out/debug"
objcopy --only-keep-debug "$out/snapthreads-m64" "$out/snapthreads.debug"
id=$(readelf -n "$out/snapthreads-m64" | sed -n 's/^ *Build ID: *//p')
[ ${#id} -ge 4 ] || { echo "build-snapthreads.sh: no build-id in snapthreads-m64" >&2; exit 1; }
mkdir -p "$out/debug/.build-id/$(echo "$id" | cut -c1-2)"
mv "$out/snapthreads.debug" "$out/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
strip --strip-all -o "$out/snapthreads-stripped" "$out/snapthreads-m64"
echo "built: snapthreads-m64 snapthreads-m32 snapthreads-stripped (build-id $id)"
