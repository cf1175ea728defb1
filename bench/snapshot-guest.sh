#!/bin/sh
# For bench/snapshot.sh, in the guest: for each N given, a snapthreads
# process of N threads (none spinning), then
#   kill -0 PID     one grouped snapshot by bench/snapshot.stp, bracketed
#                   by the monotonic clock (request to printed);
#   eu-stack -p PID the same process's every thread, stopped by ptrace,
#                   bracketed the same way;
# and prints per N: "ours N T0 T1" and "eu-stack N T0 T1 THREADS", THREADS
# being the thread records eu-stack printed.
# The test programs: the build directory's (PROGS, as the caller sees it).
b=${PROGS:-/src/testsuite/kernel.ustack/build}
seq=0
rm -f /tmp/snapbench-*
die() { echo "snapshot-guest: $*" >&2; exit 1; }
. /src/testsuite/kernel.ustack/scripts/snapthreads-start.sh

for n in "$@"; do
	fifo=/tmp/snapbench.fifo
	snapthreads_start $b/snapthreads-m64 "$n" 0 $fifo /tmp/snapbench-$n.out 600
	t0=$($b/snapthreads-m64 now)
	snapthreads_snap $pid /tmp/snapbench 0.01 60000
	t1=$($b/snapthreads-m64 now)
	echo "ours $n $t0 $t1"
	t0=$($b/snapthreads-m64 now)
	eu-stack -p $pid >/tmp/snapbench-$n.eu 2>&1
	t1=$($b/snapthreads-m64 now)
	echo "eu-stack $n $t0 $t1 $(grep -c '^TID ' /tmp/snapbench-$n.eu)"
	echo quit >&3
	exec 3>&-
	wait $pid || die "snapthreads ($n threads) exited with $?"
done
