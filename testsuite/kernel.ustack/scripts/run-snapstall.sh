#!/bin/sh
# For snapshot.stp (kernel.ustack/snapstall.exp), in a guest with one host
# thread per vCPU: does a snapshot stall a thread that spins on another CPU?
#   run-snapstall.sh NTHREADS NSNAP
# This shell runs on CPU 0, so snapshot.stp's kill probe, and so the
# snapshot's worker, run there.  A snapthreads-m64 process of NTHREADS
# threads, one of them spinning, is pinned to CPU 1.  Then, each bracketed
# by the monotonic clock in /tmp/stall-times:
#   baseline   3 s with no snapshot: how often the guest itself stalls the
#              spinner (timer ticks, the host's scheduling of the vCPU);
#   NSNAP snapshots, one after another (threads, grouped, folded forms);
#   eu-stack -p PID, which stops the process;
# and quit: the program's stalls go to /tmp/stall.out with its truth.
# The test programs: the build directory's (PROGS, as the caller sees it).
b=${PROGS:-/src/testsuite/kernel.ustack/build}
nthreads=${1:-200}
nsnap=${2:-9}
seq=0
rm -f /tmp/snapdone-* /tmp/stall-times

die() { echo "run-snapstall: $*" >&2; exit 1; }
. "$(dirname "$0")/snapthreads-start.sh"
now() { $b/snapthreads-m64 now; }

[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs, the guest has $(nproc)"
taskset -p -c 0 $$ >/dev/null || die "taskset -p -c 0 $$ failed"
snapthreads_start $b/snapthreads-m64 "$nthreads" 1 /tmp/stall.fifo /tmp/stall.out 120
taskset -a -p -c 1 $pid >/dev/null || die "taskset -a -p -c 1 $pid failed"
sleep 1
t0=$(now); sleep 3; t1=$(now)
echo "baseline $t0 $t1" >>/tmp/stall-times
i=0
while [ $i -lt "$nsnap" ]; do	# bound: NSNAP
	snapthreads_snap $pid /tmp/snapdone 0.1 3000
	i=$((i + 1))
done
t0=$(now)
eu-stack -p $pid >/dev/null 2>&1
t1=$(now)
echo "eu-stack $t0 $t1" >>/tmp/stall-times
echo quit >&3
exec 3>&-
wait $pid || die "snapthreads-m64 exited with $?"
