#!/bin/sh
# Build stackcount.exp's programs in the stapvm tree:
#   build-countchains.sh OUTDIR  ->  OUTDIR/countchains-m64, countchains-m32,
#                                    burn-m64, burn-m32
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-countchains.sh OUTDIR}
mkdir -p "$out"
for abi in m64 m32; do
	gcc -$abi -O2 -g -Wall -Werror -fno-optimize-sibling-calls \
		-o "$out/countchains-$abi" "$src/countchains.c"
	gcc -$abi -O2 -g -Wall -Werror -fno-optimize-sibling-calls \
		-o "$out/burn-$abi" "$src/burn.c"
done
echo "built: countchains-m64 countchains-m32 burn-m64 burn-m32"
