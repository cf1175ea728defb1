#!/bin/sh
# symbolize-debuginfod.sh DIR BUILDID RAW SYMBOLIZE: in the guest, what a user
# does who has no debuginfo installed but a debuginfod server: serve DIR
# (a -dbgsym tree: .build-id/NN/REST.debug) with a local debuginfod, wait
# until it has indexed BUILDID, then name RAW's frames with
# SYMBOLIZE (the build's stap-unwind-symbolize), DEBUGINFOD_URLS naming
# that server alone and an
# empty client cache.  No --debug-dir: the debuginfo can only come from
# the server.
set -eu
dir=$1 id=$2 raw=$3 symbolize=$4
# The guest's init leaves the loopback down; the server listens there.
if ! grep -q '^ *lo:' /proc/net/dev || [ "$(cat /sys/class/net/lo/operstate 2>/dev/null)" = down ]; then
	busybox ip link set lo up
fi
port=$((18000 + $$ % 1000))
work=$(mktemp -d)
debuginfod -F "$dir" -p $port -d "$work/db.sqlite" >"$work/log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
export DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$work/cache
i=0
# The client caches a miss: each poll starts from an empty cache.
until rm -rf "$work/cache" && debuginfod-find debuginfo "$id" >/dev/null 2>&1; do	# bound: 300 polls
	i=$((i + 1))
	if [ $i -gt 300 ] || ! kill -0 $server 2>/dev/null; then
		echo "symbolize-debuginfod: debuginfod never served $id:" >&2
		tail -5 "$work/log" >&2
		exit 1
	fi
	sleep 0.1
done
rm -rf "$work/cache"
"$symbolize" "$raw"
