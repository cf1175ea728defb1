#!/bin/sh
# Build the kernel.ustack test programs (run in the stapvm tree or guest,
# where gcc and gcc-multilib are):  build.sh OUTDIR
# One binary per ABI x optimisation x frame-pointer choice:
#   OUTDIR/ustack-m64-O0-fp, ustack-m64-O2-nofp, ..., ustack-m32-O2-nofp
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build.sh OUTDIR}
. "$here/variants.sh"
mkdir -p "$out"
build() {
	gcc $1 -g -Wall -o "$out/ustack-$2" "$here/ustack.c"
}
for_each_variant build
echo "built: $(ls "$out" | tr '\n' ' ')"
