#!/bin/sh
# For stackcount.exp: the stap -c command of a stap-unwind-stackcount run.
#   count-go.sh FIFO OUT [LINGER]
# Tells a waiting countchains (progs/countchains.c) to run its chains, and
# waits (at most 60 s) until its output OUT says they are done, then LINGER
# seconds more (default 0); the stap session then ends and prints its
# counts while countchains still lives.
fifo=${1:?usage: count-go.sh FIFO OUT [LINGER]}
out=${2:?usage: count-go.sh FIFO OUT [LINGER]}
linger=${3:-0}
n=$(grep -c '^done' "$out")
echo go >"$fifo"
i=0
until [ "$(grep -c '^done' "$out")" -gt "$n" ]; do	# bound: 600 polls
	i=$((i + 1))
	[ $i -le 600 ] || { echo "count-go: no done in $out" >&2; exit 1; }
	sleep 0.1
done
sleep "$linger"
