#!/bin/sh
# Build the hostile-tables process (hostile.exp) in the stapvm tree:
#   build-hostile.sh OUTDIR   ->  OUTDIR/hostile-m64, OUTDIR/hostile-m32
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-hostile.sh OUTDIR}
mkdir -p "$out"
for abi in m64 m32; do
	gcc -$abi -O2 -g -Wall -Wextra -o "$out/hostile-$abi" "$src/hostile.c"
done
echo "built: hostile-m64 hostile-m32"
