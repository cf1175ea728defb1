#!/bin/sh
# bench/profile-cost.sh [SECONDS]: cost of ubacktrace() in a real sampler,
# stap-unwind against stock SystemTap 5.6 in the same guest boot.
# timer.profile samples the mix of kernel.ustack/profile.exp (our test
# program built -m64 and -m32, sort, gzip, python3; each named with -d,
# plus --ldd) for SECONDS (default 8) and times every user-mode sample's
# ubacktrace() (bench/profile-cost.stp).  Unlike bench/ubacktrace.sh, which
# times one stack over and over (row cache warm, or cleared every call),
# this is the mixed case: many distinct pcs, caches as sampling leaves them.
# Prints, per process kind: samples, frames per sample and cycles per
# sample, ours and stock, and ours/stock cycles per frame (stock stops
# early in 32-bit processes, so per-sample cost there is not comparable),
# and of the median samples, which a few outlying samples do not move.
set -eu
secs=${1:-8}
. "$(dirname "$0")/guest-common.sh"
for mode in stap stock; do
	# shellcheck disable=SC2086
	mix_session "$mode" bench/profile-cost.stp "$secs" ${BENCH_STAP_OPTS:-} |
		sed -n -e "s/^kind \([^ ]*\) calls \([0-9]*\) frames \([0-9]*\) cycles \([0-9]*\) median \([0-9]*\)$/$mode \1 \2 \3 \4 \5/p" \
			-e "s/^median of all \([0-9]*\)$/$mode all \1/p"
done | awk '
NF == 3 { med_all[$1] = $3; next }
{ m = $1; k = $2; calls[m, k] = $3; fr[m, k] = $4; cy[m, k] = $5; med[m, k] = $6; kinds[k] = 1 }
END {
	printf "%-8s %14s %14s %16s %16s %9s %9s %9s\n", "kind", "samples o/s", "frames/smp o/s", "cycles/smp ours", "cycles/smp stock", "ratio/smp", "ratio/frm", "ratio/med"
	for (k in kinds) {
		if (!calls["stap", k] || !calls["stock", k]) continue
		if (calls["stap", k] < 500 || calls["stock", k] < 500)
			printf "%s: only %d/%d samples (did its program run?)\n", k, calls["stap", k], calls["stock", k] > "/dev/stderr"
		fo = fr["stap", k] / calls["stap", k]; fs = fr["stock", k] / calls["stock", k]
		co = cy["stap", k] / calls["stap", k]; cs = cy["stock", k] / calls["stock", k]
		printf "%-8s %6d/%-7d %6.1f/%-7.1f %16.0f %16.0f %9.2f %9.2f %9.2f\n", k, calls["stap", k], calls["stock", k], fo, fs, co, cs, co / cs, (fs > 0 && fo > 0) ? (co / fo) / (cs / fs) : 0, med["stock", k] ? med["stap", k] / med["stock", k] : 0
		to += cy["stap", k]; ts += cy["stock", k]; no += calls["stap", k]; ns += calls["stock", k]
	}
	if (no && ns) printf "all      cycles per sample: ours %.0f stock %.0f ratio %.2f; medians: ours %d stock %d ratio %.2f\n", to / no, ts / ns, (to / no) / (ts / ns), med_all["stap"], med_all["stock"], med_all["stock"] ? med_all["stap"] / med_all["stock"] : 0
	print "ratio/smp: ours/stock mean cycles a sample; ratio/frm: a frame unwound; ratio/med: of the median samples (to 1,000 cycles)"
}'
