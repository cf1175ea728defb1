#!/bin/sh
# bench/snapshot.sh [N ...]: every thread's user stack at one instant,
# stap-unwind's snapshot (ustack_snapshot_grouped, one request) against
# eu-stack -p (elfutils: ptrace stops every thread, libdwfl unwinds), on
# the same process of N threads (default: 1000 10000) in the same guest
# boot.  Stock SystemTap has no way to read another thread's stack, so it
# is not in the table.  The process is kernel.ustack's snapthreads
# (-m64, every thread blocked in one of its chains).
# Prints per N: threads read, ours (the read: first to last thread, from
# the snapshot's summary; the whole: request to printed, as the shell sees
# it), eu-stack's wall time, per-thread costs (ours: of the read) and the
# ratio eu-stack / ours (whole).
# Times are guest wall time under QEMU TCG: ratios are what carries over.
# Needs the runtime overlay (`make`); STAPVM_MEM (MiB) for more threads.
set -eu
[ $# -gt 0 ] || set -- 1000 10000
. "$(dirname "$0")/guest-common.sh"
"$vm" tree sh /src/testsuite/kernel.ustack/progs/build.sh $b snapthreads >/dev/null
max=0
for n in "$@"; do [ "$n" -le "$max" ] || max=$n; done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$vm" guest sh -c "echo $((max * 4 + 4096)) >/proc/sys/kernel/threads-max"
"$vm" stap -s 64 -DSTP_UW_TSNAP_THREADS=$((max + 64)) \
	-d $b/snapthreads-m64 bench/snapshot.stp \
	-c "env PROGS=$b sh /src/bench/snapshot-guest.sh $*" >"$out"
awk '
/^<snapshot #[0-9]+ of pid/ {
	# <snapshot #K of pid P: T threads in ... read in U us (...)>
	k++; for (i = 1; i <= NF; i++) {
		if ($(i + 1) == "threads" && $i ~ /^[0-9]+$/) thr[k] = $i
		if ($i == "read" && $(i + 1) == "in") rd[k] = $(i + 2)
	}
}
$1 == "ours" { j++; n[j] = $2; ours[j] = ($4 - $3) / 1e6 }
$1 == "eu-stack" { eu[$2] = ($4 - $3) / 1e6; eut[$2] = $5 }
END {
	printf "%7s %11s %10s %10s %11s %11s %10s %8s\n", "threads", "read o/eu", "ours read", "ours whole", "eu-stack", "us/thr read", "us/thr eu", "ratio"
	for (i = 1; i <= j; i++) {
		m = n[i]
		ratio = ours[i] > 0 ? eu[m] / ours[i] : 0
		printf "%7d %5d/%-5d %8.1fms %8.1fms %9.1fms %11.1f %10.1f %7.1fx\n", m, thr[i], eut[m], rd[i] / 1000, ours[i], eu[m], rd[i] / thr[i], eu[m] * 1000 / m, ratio
	}
	print "ratio: eu-stack wall time / ours (request to printed), same process, same boot"
}' "$out"
