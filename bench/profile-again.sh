#!/bin/sh
# bench/profile-again.sh [SECONDS]: bench/profile-cost.sh's sampler, each
# sample's ubacktrace() timed twice at once (bench/profile-again.stp): the
# walk as a sampler pays it, and the same walk again with everything the
# first touched at hand.  Their difference is what a sample pays for
# coming first: under TCG, each page it touches after another process ran
# (a soft TLB refill), and the host's caches.  stap-unwind against stock
# SystemTap 5.6 in the same boot.  Prints per kind: samples, mean and
# median cycles of the first walk and of the second, ours and stock, and
# ours/stock of the medians.
set -eu
secs=${1:-8}
. "$(dirname "$0")/guest-common.sh"
for mode in stap stock; do
	mix_session "$mode" bench/profile-again.stp "$secs" -g |
		sed -n -e "s/^kind \([^ ]*\) calls \([0-9]*\) first \([0-9]*\) again \([0-9]*\) median_first \([0-9]*\) median_again \([0-9]*\)$/$mode \1 \2 \3 \4 \5 \6/p" \
			-e "s/^all calls \([0-9]*\) median_first \([0-9]*\) median_again \([0-9]*\)$/$mode all \1 - - \2 \3/p" \
			-e "s/^differ \(.*\)$/$mode differ \1/p"
done | awk '
$2 == "differ" { differ[$1]++; next }
{ m = $1; k = $2; calls[m, k] = $3; f[m, k] = $4; a[m, k] = $5; mf[m, k] = $6; ma[m, k] = $7; kinds[k] = 1 }
function r(x, y) { return y > 0 ? sprintf("%.2f", x / y) : "n/a" }
END {
	printf "%-8s %12s %21s %21s %21s %21s %11s %11s\n", "kind", "samples o/s", "ours first mean/med", "ours again mean/med", "stock first mean/med", "stock again mean/med", "ratio first", "ratio again"
	for (k in kinds)
		printf "%-8s %5s/%-6s %10s/%-10s %10s/%-10s %10s/%-10s %10s/%-10s %11s %11s\n", k, calls["stap", k], calls["stock", k],
			f["stap", k], mf["stap", k], a["stap", k], ma["stap", k], f["stock", k], mf["stock", k], a["stock", k], ma["stock", k],
			r(mf["stap", k], mf["stock", k]), r(ma["stap", k], ma["stock", k])
	for (m in differ)
		printf "%s: %d samples whose second walk gave another string\n", m, differ[m]
	print "ratio first / again: ours/stock of the median walk, the first of each sample and the same again at once (cycles)"
}'
