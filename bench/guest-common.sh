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

# mix_session MODE SCRIPT SECS [STAP OPTION...]: one session of MODE (stap
# or stock, as vm/stapvm takes it) running SCRIPT over the sampler
# benchmarks' mix (kernel.ustack/profile.exp's: our test program built
# -m64 and -m32, sort, gzip, python3; each named with -d, plus --ldd) for
# SECS seconds; its output, without stap's messages.
mix_session() {
	mode=$1 script=$2 secs=$3
	shift 3
	"$vm" tree sh /src/testsuite/kernel.ustack/progs/build.sh $b profile >/dev/null
	"$vm" "$mode" -DMAXACTION=100000 -DSTP_NO_OVERLOAD "$@" \
		-d $b/mix-m64 -d $b/mix-m32 -d /usr/bin/sort -d /usr/bin/gzip -d /usr/bin/python3 --ldd \
		"$script" -c "env PROGS=$b sh /src/testsuite/kernel.ustack/scripts/run-mix.sh /tmp/mix-$mode $secs" 2>/dev/null
}
