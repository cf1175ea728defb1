# Sourced by the guest benchmarks (bench/ubacktrace.sh, bench/profile-cost.sh):
# the checkout, the stapvm tool and the guest's build directory of the
# kernel.ustack test programs, which it (re)builds in the target tree.
# Needs the runtime overlay (`make`).
top=$(cd "$(dirname "$0")/.." && pwd)
vm=$top/vm/stapvm
b=/src/testsuite/kernel.ustack/build
[ -f "$top/runtime-overlay/.stap-unwind-overlay" ] || { echo "no runtime-overlay: run make" >&2; exit 1; }
"$vm" tree sh /src/testsuite/kernel.ustack/progs/build.sh $b ustack >/dev/null
