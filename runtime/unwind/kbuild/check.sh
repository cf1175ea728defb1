#!/bin/sh
# Build the unwinder core as a kernel module with -Werror (and W=1, which
# adds -Wmissing-prototypes and friends) against a kernel build directory.
#
#   check.sh [KDIR]     default: /lib/modules/<first release>/build
#
# Meant to run inside the stapvm target tree, where the checkout is /src:
#   vm/stapvm tree sh /src/runtime/unwind/kbuild/check.sh
# The sources are copied to a scratch directory, so the checkout stays clean.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
kdir=${1:-}
if [ -z "$kdir" ]; then
	rel=$(ls /lib/modules | head -n 1)
	kdir=/lib/modules/$rel/build
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/Kbuild" "$here/uw_kcheck.c" "$here"/../*.c "$here"/../*.h "$work/"
make -C "$kdir" M="$work" W=1 modules
echo "kbuild check: OK ($(ls "$work"/*.ko))"
