#!/bin/sh
# For snapshot.stp (kernel.ustack/snapshot.exp), in the guest: for each ABI
# in turn, a snapthreads process of NTHREADS threads (NSPIN spinning), then
#   kill -0 PID   three times: snapshots in the threads, grouped and folded
#                 forms (snapshot.stp takes each kill -0 of this shell as
#                 a request, and touches /tmp/snapdone-N when #N is printed);
#   eu-stack -p PID, which stops the process, bracketed by the monotonic
#                 clock, and its exit status;
#   quit          the program's stall and spin report.
# Then kill -0 of a pid that does not exist.  Everything the test reads
# goes to /tmp/snap-ABI.out, /tmp/snap-ABI.eu and /tmp/snap-times.
# The test programs: the build directory's (PROGS, as the caller sees it).
b=${PROGS:-/src/testsuite/kernel.ustack/build}
nthreads=${1:-1000}
nspin=${2:-1}
seq=0
rm -f /tmp/snapdone-* /tmp/snap-times

die() { echo "run-snap: $*" >&2; exit 1; }
. "$(dirname "$0")/snapthreads-start.sh"

# Ask for a snapshot of $1 and wait (at most 300 s) until it is printed.
snap() { snapthreads_snap "$1" /tmp/snapdone 0.1 3000; }

for abi in m64 m32; do
	fifo=/tmp/snap-$abi.fifo
	snapthreads_start $b/snapthreads-$abi $nthreads $nspin $fifo /tmp/snap-$abi.out 120
	snap $pid
	snap $pid
	snap $pid
	t0=$($b/snapthreads-$abi now)
	eu-stack -p $pid >/tmp/snap-$abi.eu 2>&1
	eus=$?
	t1=$($b/snapthreads-$abi now)
	echo "eu-stack $abi $t0 $t1 $eus" >>/tmp/snap-times
	echo quit >&3
	exec 3>&-
	wait $pid || die "snapthreads-$abi exited with $?: $(grep -v "^\(chain\|thread\|ready\|stall\|spins\) " /tmp/snap-$abi.out | tail -2 | tr "\n" " ")"
done
# A pid that names no process (the kill fails; the probe sees it).
nopid=999999
while [ -d /proc/$nopid ]; do nopid=$((nopid - 1)); done	# bound: pids
snap $nopid
echo "nopid $nopid" >>/tmp/snap-times
