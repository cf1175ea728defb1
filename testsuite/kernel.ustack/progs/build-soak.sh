#!/bin/sh
# Build the soak's churn (soak.exp) in the stapvm tree:
#   build-soak.sh OUTDIR  ->  OUTDIR/soak-m64, soak-m32, libsoak-m64.so, libsoak-m32.so
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-soak.sh OUTDIR}
mkdir -p "$out"
for abi in m64 m32; do
	gcc -$abi -O2 -g -Wall -Wextra -fPIC -shared -o "$out/libsoak-$abi.so" "$src/soaklib.c"
	gcc -$abi -O2 -g -Wall -Wextra -pthread -o "$out/soak-$abi" "$src/soak.c" -ldl
done
echo "built: soak-m64 soak-m32 libsoak-m64.so libsoak-m32.so"
