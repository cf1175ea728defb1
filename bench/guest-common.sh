# Sourced by the guest benchmarks (bench/ubacktrace.sh, bench/profile-cost.sh):
# the checkout, the stapvm tool and the guest's build directory of the
# kernel.ustack test programs, which it (re)builds in the target tree.
# Needs the runtime overlay (`make`).
top=$(cd "$(dirname "$0")/.." && pwd)
vm=$top/vm/stapvm
# The build directory (STAPVM_BUILD, as vm/stapvm takes it; default: the
# checkout), under the checkout, which the guest sees as /src.
build=${STAPVM_BUILD:-$top}
[ -n "${STAPVM_BUILD:-}" ] || [ -f "$top/runtime-overlay/.stap-unwind-overlay" ] ||
	[ ! -f "$top/build/runtime-overlay/.stap-unwind-overlay" ] || build=$top/build
build=$(cd "$build" && pwd)
b=/src${build#"$top"}/testsuite/kernel.ustack/build
[ -f "$build/runtime-overlay/.stap-unwind-overlay" ] || { echo "no runtime-overlay in $build: run make" >&2; exit 1; }
"$vm" tree sh /src/testsuite/kernel.ustack/progs/build.sh $b ustack >/dev/null
