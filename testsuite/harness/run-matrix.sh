#!/bin/sh
# The big comparison run of runtime/unwind against elfutils libdwfl:
# at least N snapshots over the whole test program matrix.
#   1. step mode: every scenario on its own and all together, on every
#      program (every instruction, shadow-stack truth at each stop);
#   2. random stops on every program, as many as needed to reach N.
# Prints the totals, every kind of disagreement with its verdict, and the
# places where our frames contradict the shadow stack.
#
# usage: run-matrix.sh [-b BUILDDIR] [-j JOBS] [-o OUTDIR] N
#   BUILDDIR  top build directory (default: .); uses
#             BUILDDIR/testsuite/harness/uw-trace and builds the programs into
#             BUILDDIR/testsuite/harness/progs-build
#   OUTDIR    per-run logs (default BUILDDIR/testsuite/harness/matrix-run)
set -eu
builddir=.
jobs=$(nproc 2>/dev/null || echo 2)
outdir=
while getopts b:j:o: opt; do
	case $opt in
	b) builddir=$OPTARG ;;
	j) jobs=$OPTARG ;;
	o) outdir=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
target=${1:?usage: run-matrix.sh [-b BUILDDIR] [-j JOBS] [-o OUTDIR] N}
here=$(cd "$(dirname "$0")" && pwd)
builddir=$(cd "$builddir" && pwd)
tracer=${UW_TRACE:-$builddir/testsuite/harness/uw-trace}
progs=$builddir/testsuite/harness/progs-build
outdir=${outdir:-$builddir/testsuite/harness/matrix-run}
[ -x "$tracer" ] || { echo "run-matrix: no tracer at $tracer (make check first)" >&2; exit 2; }
sh "$here/build-progs.sh" "$here/progs" "$progs" 2>/dev/null
rm -rf "$outdir"
mkdir -p "$outdir"
programs=$(cd "$progs" && ls uwt-* | grep -v '\.')

# One job per line: LOGNAME TRACER-ARGS...; run JOBS at a time.
run_jobs() {
	xargs -P "$jobs" -L 1 sh -c 'log=$1; shift; "$@" >"$log" 2>&1 || true' sh
}

start=$(date +%s)
for p in $programs; do
	for s in all chain recurse signal altstack plt vfork vdso; do
		echo "$outdir/step-$s-$p.log $tracer --label step-$s:$p --step top --max-visits 16 --gdb-views 20 --max-reports 5 -- $progs/$p $s 1 2"
	done
done | run_jobs

sum() { # sum FIELD FILES...: total of FIELD=NUMBER over summary lines
	field=$1; shift
	cat "$@" | sed -n "s/^uw-trace: .* $field=\([0-9]*\).*/\1/p" | awk '{s += $1} END {print s + 0}'
}
stepped=$(sum stops "$outdir"/step-*.log)
nprogs=$(echo "$programs" | wc -w)
per_prog=$(( (target - stepped + nprogs - 1) / nprogs ))
[ "$per_prog" -lt 200 ] && per_prog=200
seed=1
for p in $programs; do
	# Split each program's stops over two seeds so both cores stay busy.
	for half in 1 2; do
		echo "$outdir/random$half-$p.log $tracer --label random$half:$p --random $(( (per_prog + 1) / 2 )) --random-after top --seed $seed --gdb-views 20 --max-reports 5 -- $progs/$p all 0 50"
		seed=$((seed + 1))
	done
done | run_jobs
end=$(date +%s)

logs="$outdir"/*.log
stops=$(sum stops $logs)
agree=$(sum agree $logs)
ours_right=$(sum ours_right $logs)
oracle_right=$(sum oracle_right $logs)
both_wrong=$(sum both_wrong $logs)
unresolved=$(sum unresolved $logs)
oracle_invalid=$(sum oracle_invalid $logs)
checks=$(cat $logs | sed -n 's/.*shadow-stack checks=\([0-9]*\).*/\1/p' | awk '{s+=$1} END {print s+0}')
t_wrong=$(cat $logs | sed -n 's/.*shadow-stack .* ours_wrong=\([0-9]*\) .*/\1/p' | awk '{s+=$1} END {print s+0}')
t_nocfi=$(cat $logs | sed -n 's/.*shadow-stack .* ours_wrong_nocfi=\([0-9]*\) .*/\1/p' | awk '{s+=$1} END {print s+0}')
harness_errors=$(grep -L '^uw-trace: .* stops=' $logs | wc -l)

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.3f%%", 100 * a / b }'; }
echo "run-matrix: $nprogs programs, $(ls $logs | wc -l) tracer runs, $((end - start)) s, logs in $outdir"
echo "snapshots compared with libdwfl:   $stops (step mode $stepped, random $((stops - stepped)))"
echo "  identical frames:                $agree ($(pct "$agree" "$stops"))"
echo "  differ, ours right:              $ours_right (settled by the shadow stack or gdb)"
echo "  => same as libdwfl or settled in our favour: $((agree + ours_right)) ($(pct $((agree + ours_right)) "$stops"))"
echo "  differ, libdwfl right:           $oracle_right"
echo "  differ, both wrong:              $both_wrong"
echo "  differ, unresolved:              $unresolved"
echo "  differ, libdwfl's frame not an address of the ABI (neither settled): $oracle_invalid"
echo "shadow stack checks (step mode):   $checks; ours wrong: $t_wrong, + $t_nocfi in code without CFI (frame-pointer fallback)"
# Our frames are right unless the truth (shadow stack) says otherwise, gdb
# sided with libdwfl, or nobody could tell; the shadow-stack failures
# include stops where libdwfl made the same mistake (counted as identical).
wrong_or_unknown=$((t_wrong + t_nocfi + oracle_right + unresolved + oracle_invalid))
echo "our frames right (all evidence):   $((stops - wrong_or_unknown)) of $stops ($(pct $((stops - wrong_or_unknown)) "$stops")); wrong $((t_wrong + t_nocfi + oracle_right)), unknown $((unresolved + oracle_invalid))"
[ "$harness_errors" -eq 0 ] || echo "tracer runs without a summary (harness errors): $harness_errors"
echo
echo "kinds of disagreement (stops; gdb verdict), over all runs:"
cat $logs | sed -n 's/^DIFFKIND \(.*\): \([0-9]*\) stops; gdb: \([a-z]*\).*/\1|\3|\2/p' |
	awk -F'|' '{n[$1 " (gdb: " $2 ")"] += $3} END {for (k in n) printf "  %8d  %s\n", n[k], k}' | sort -rn
echo
echo "where our frames contradict the shadow stack (stops, by function stopped in):"
cat $logs | sed -n 's/^TRUTHKEY [^ ]* arch=\([0-9]*\) at=\(.*\) ours wrong at frame [0-9]*\(.*\)/arch=\1 \2\3/p' |
	sed 's/+0x[0-9a-f]*//; s/+0 / /; s/\[vdso: [0-9]*\]/[vdso]/' |
	sort | uniq -c | sort -rn | sed 's/^/  /'
