#!/bin/sh
# bench/ubacktrace.sh [N]: time per ubacktrace() in the stapvm guest, the
# stap-unwind runtime overlay against stock SystemTap 5.6, on the same
# stacks in the same boot (ASLR off: identical addresses).  Each call
# unwinds the whole stack from a cold cache (bench/ubacktrace.stp).
# Stacks: ustack-m64-O2-nofp at getdents (9 frames) and in a 20-deep
# recursion (30 frames).  Prints ns per call, ours/stock.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-200}
vm=$top/vm/stapvm
b=/src/testsuite/kernel.ustack/build
[ -f "$top/runtime-overlay/.stap-unwind-overlay" ] || { echo "no runtime-overlay: run make" >&2; exit 1; }
"$vm" tree sh /src/testsuite/kernel.ustack/progs/build.sh $b >/dev/null
run() { # run MODE ARGS... -> "ns cycles frames"
	"$vm" "$1" -g -DMAXACTION=1000000 -DSTP_NO_OVERLOAD -d $b/ustack-m64-O2-nofp --ldd \
		bench/ubacktrace.stp "$n" -c "setarch -R $b/ustack-m64-O2-nofp $2" 2>/dev/null |
		sed -n 's/^frames \([0-9]*\) calls [0-9]* ns_per_call \([0-9]*\) cycles_per_call \([0-9]*\)$/\2 \3 \1/p'
}
printf '%-12s %7s %10s %10s %12s %12s %7s\n' stack frames ours_ns stock_ns ours_cycles stock_cycles ratio
for stack in getdents "recurse 20"; do
	set -- $(run stap "$stack"); o_ns=${1:-0} o_cy=${2:-0} fr=${3:-0}
	set -- $(run stock "$stack"); s_ns=${1:-0} s_cy=${2:-0} sfr=${3:-0}
	[ "$fr" = "$sfr" ] || echo "note: ours unwound $fr frames, stock $sfr" >&2
	ratio=$(awk -v a="$o_cy" -v b="$s_cy" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
	printf '%-12s %7s %10s %10s %12s %12s %7s\n' "$(echo $stack | tr ' ' '-')" "$fr" "$o_ns" "$s_ns" "$o_cy" "$s_cy" "$ratio"
done
echo "ratio = ours/stock cycles per ubacktrace(); target <= 0.33"
