#!/bin/sh
# bench/stackcount-cost.sh [ROUNDS]: what counting a stack costs per event,
# in the stapvm guest, in one boot: SystemTap users' hand-written
# stacks[sprint_ubacktrace()]++ (bench/stackcount-idiom.stp) on stock
# SystemTap 5.6 and on the stap-unwind runtime, against
# tools/stap-unwind-stackcount.  The events: kernel.ustack's countchains
# (-m64, -O2) calling getppid through its 6 chains, 81 calls a round,
# ROUNDS rounds (default 100: with 40, runs of the same code differed by
# a third), as stap's -c command (so that stock knows its mappings).  The
# cost: what each call costs the calling thread in CPU time (the probe
# runs in it), as the program measures it, less the same with no stap
# session; and an empty probe's, for the floor of any probe,
# and ubacktrace_id()'s alone (the walk and the stack table), the floor of
# counting stacks by number.
# Every session runs with -DSTP_NO_OVERLOAD, so that none is stopped for
# its overhead.
set -eu
rounds=${1:-100}
. "$(dirname "$0")/guest-common.sh"
"$vm" tree sh /src/testsuite/kernel.ustack/progs/build.sh $b tools >/dev/null
prog="$b/countchains-m64 --rounds $rounds"
opts="-DSTP_NO_OVERLOAD -d $b/countchains-m64 --ldd"
ns() { sed -n 's/^calls [0-9]* ns_per_call \([0-9]*\)$/\1/p' | tail -n 1; }

# shellcheck disable=SC2086
none=$("$vm" guest $prog | ns)
# shellcheck disable=SC2086
empty=$("$vm" stap $opts -e 'global n; probe syscall.getppid { if (pid() == target()) n++ }' -c "$prog" 2>/dev/null | ns)
# The walk and the stack table alone: the floor of counting by number.
# shellcheck disable=SC2086
walk=$("$vm" stap $opts -e 'global n; probe syscall.getppid { if (pid() == target()) n += ubacktrace_id() }' -c "$prog" 2>/dev/null | ns)
# shellcheck disable=SC2086
stock=$("$vm" stock $opts bench/stackcount-idiom.stp -c "$prog" 2>/dev/null | ns)
# shellcheck disable=SC2086
idiom=$("$vm" stap $opts bench/stackcount-idiom.stp -c "$prog" 2>/dev/null | ns)
# shellcheck disable=SC2086
tool=$(STAP_UNWIND="$vm stap" sh "$top/tools/stap-unwind-stackcount" -U syscall.getppid -- \
	$opts -c "$prog" 2>/dev/null | ns)

echo "getppid through 6 chains, $((rounds * 81)) calls; ns of the calling thread's CPU time per call"
printf '%-38s %8s %8s %8s\n' "counter" "ns/call" "ns/event" "/stock"
s=$(( ${stock:-0} - ${none:-0} ))
for row in "no stap session|$none" \
	"empty probe (ours)|$empty" \
	"ours: ubacktrace_id() alone|$walk" \
	"stock: stacks[sprint_ubacktrace()]++|$stock" \
	"ours: stacks[sprint_ubacktrace()]++|$idiom" \
	"ours: stap-unwind-stackcount|$tool"; do
	awk -v n="${row%|*}" -v c="${row#*|}" -v base="${none:-0}" -v s="$s" 'BEGIN {
		e = c - base
		printf "%-38s %8s %8s %8s\n", n, (c == "" ? "failed" : c), (c == "" ? "" : e),
		       ((s > 0 && c != "" && e > 0) ? sprintf("%.3f", e / s) : "")
	}'
done
echo "ns/event: ns/call less the call's cost with no stap session; /stock: against the stock idiom's"
