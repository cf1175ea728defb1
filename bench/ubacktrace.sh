#!/bin/sh
# bench/ubacktrace.sh [N]: time per ubacktrace() in the stapvm guest, the
# stap-unwind runtime overlay against stock SystemTap 5.6, on the same
# stacks in the same boot (ASLR off: identical addresses).  Each call
# unwinds the whole stack from a cold per-probe pc cache
# (bench/ubacktrace.stp), twice: "warm", with stap-unwind's row cache (kept
# per probe context across probe hits) warm, as in a script after its
# first hits; and "cold", with that cache cleared before every call, so
# every call parses all its CFI again.  Stock has no such cache (its warm
# and cold are the same run).  Ours runs twice: with each object's tables
# compiled (the default) and interpreted (-DSTP_UW_COMPILED=0).  Stacks:
# ustack-m64-O2-nofp at getdents (9 frames), in a 20-deep recursion (20
# frames: stock's MAXBACKTRACE) and in an 80-deep one (88 frames), built
# with -DMAXBACKTRACE=127 (the tools' default depth) and
# -DMAXSTRINGLEN=1800, the string's room for 94 pcs (stock's error handler
# keeps a MAXSTRINGLEN buffer on the stack, which kbuild refuses over 2
# KiB): the cost of a deep walk, per frame.  Prints ns and cycles per call
# and ours/stock cycles, warm and cold, compiled and interpreted: as
# timed ("ratio"), and with the timing's own cycles (the same loop timing
# nothing, measured in each session) taken off both sides ("net").
# Figures, dated, with the commit that recorded them: bench/README.md.
# Where the cycles go: bench/ubacktrace-parts.stp.
set -eu
n=${1:-200}
. "$(dirname "$0")/guest-common.sh"
run() { # run MODE STACK [FLAG...] -> "ns cycles frames cold_ns cold_cycles timing_cycles"
	local mode=$1 stack=$2
	shift 2
	"$vm" "$mode" -g -DMAXACTION=1000000 -DSTP_NO_OVERLOAD "$@" -d $b/ustack-m64-O2-nofp --ldd \
		bench/ubacktrace.stp "$n" -c "setarch -R $b/ustack-m64-O2-nofp $stack" 2>/dev/null |
		sed -n 's/^frames \([0-9]*\) calls [0-9]* ns_per_call \([0-9]*\) cycles_per_call \([0-9]*\) cold_ns_per_call \([0-9]*\) cold_cycles_per_call \([0-9]*\) timing_cycles \([0-9]*\)$/\2 \3 \1 \4 \5 \6/p'
}
# ratio A B [TA TB]: A/B, or (A-TA)/(B-TB).
ratio() { awk -v a="$1" -v b="$2" -v ta="${3:-0}" -v tb="${4:-0}" 'BEGIN { if (b - tb > 0) printf "%.2f", (a - ta) / (b - tb); else print "n/a" }'; }
line() { # STACK FRAMES CACHE OURS OURS_NS OURS_CY OURS_TIMING
	printf '%-12s %6s %5s %-11s %9s %9s %11s %11s %6s %5s\n' "$1" "$2" "$3" "$4" "$5" "$s_ns" "$6" "$s_cy" \
		"$(ratio "$6" "$s_cy")" "$(ratio "$6" "$s_cy" "$7" "$s_t")"
}
printf '%-12s %6s %5s %-11s %9s %9s %11s %11s %6s %5s\n' stack frames cache ours ours_ns stock_ns ours_cycles stock_cycles ratio net
for stack in getdents "recurse 20" "recurse 80"; do
	depth=
	# (MAXSTRINGLEN: room in ubacktrace()'s string for 94 pcs.)
	[ "$stack" != "recurse 80" ] || depth="-DMAXBACKTRACE=127 -DMAXSTRINGLEN=1800"
	# shellcheck disable=SC2086	# depth: an option or none
	set -- $(run stock "$stack" $depth); s_ns=${1:-0} s_cy=${2:-0} sfr=${3:-0} s_t=${6:-0}
	name=$(echo $stack | tr ' ' '-')
	for ours in compiled interpreted; do
		flag=
		[ $ours = compiled ] || flag=-DSTP_UW_COMPILED=0
		# shellcheck disable=SC2086	# depth, flag: an option or none
		set -- $(run stap "$stack" $depth $flag); o_ns=${1:-0} o_cy=${2:-0} fr=${3:-0} oc_ns=${4:-0} oc_cy=${5:-0} o_t=${6:-0}
		[ "$fr" = "$sfr" ] || echo "note: ours ($ours) unwound $fr frames, stock $sfr" >&2
		line "$name" "$fr" warm $ours "$o_ns" "$o_cy" "$o_t"
		line "$name" "$fr" cold $ours "$oc_ns" "$oc_cy" "$o_t"
	done
done
echo "ratio = ours/stock cycles per ubacktrace(); net: each less its session's timing (ours $o_t, stock $s_t cycles in the last)"
echo "warm: stap-unwind's per-context row cache holds the rows of earlier calls; cold: cleared before every call"
