#!/bin/sh
# Build the unwinder core as a kernel module with -Werror (and W=1, which
# adds -Wmissing-prototypes and friends) against a kernel build directory,
# then sum its kernel stack along the deepest call chain (stack_budget.py).
#
#   check.sh [KDIR]     default: /lib/modules/<first release>/build
#
# Meant to run inside the stapvm target tree, where the checkout is /src:
#   vm/stapvm tree sh /src/runtime/unwind/kbuild/check.sh
# The sources are copied to a scratch directory, so the checkout stays clean.
#
# The budget: the unwinder runs in probe context, on whatever kernel stack
# the probed code left (an interrupt, a syscall deep in a filesystem), so
# the deepest chain below uw_step, through the host's find_tables and its
# ELF scan as uw_kcheck.c's host makes them, gets 1 KiB, and no single frame
# more than 512 bytes.  Output: "kbuild check: OK" once the module builds,
# then the chains, then "stack budget: OK" or "stack budget: FAILED".
# Exit: 0, or 1 (the build failed), or 3 (over the budget).
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
make -C "$kdir" M="$work" W=1 modules || exit 1
echo "kbuild check: OK ($(ls "$work"/*.ko))"

# The entry points and what uw_kcheck.c's indirect calls reach (the host's
# callbacks; the ELF reader's read source; no return-address hook).
if python3 "$here/stack_budget.py" --frame-limit 512 --chain-limit 1024 \
	--entry uw_step --entry uw_step_many --entry uw_init --src "$work" \
	--indirect find_tables=uw_kcheck_find \
	--indirect read_mem=uw_kcheck_read \
	--indirect read=uw_elfmem_read_host \
	--indirect trace= \
	--indirect return_address= \
	"$work/uw_kcheck.ci"; then
	echo "stack budget: OK"
else
	echo "stack budget: FAILED (over a limit, or the graph could not be summed: see above)"
	exit 3
fi
