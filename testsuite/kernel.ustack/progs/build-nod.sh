#!/bin/sh
# Build the kernel.ustack/nod.exp test programs (in the stapvm tree):
#   build-nod.sh OUTDIR
# OUTDIR/nod-VARIANT and OUTDIR/libnod-VARIANT.so for VARIANT in
# m64|m32 x O0|O2 x fp|nofp.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-nod.sh OUTDIR}
. "$here/variants.sh"
mkdir -p "$out"
build() {
	gcc $1 -g -Wall -o "$out/nod-$2" "$here/nod.c"
	gcc $1 -g -Wall -shared -fPIC -o "$out/libnod-$2.so" "$here/nodlib.c"
}
for_each_variant build
echo "built: nod-* libnod-*.so in $out"
