#!/bin/sh
# For stackcount.exp and ustackusage.exp: the stap -c command of a tool's
# run.
#   count-go.sh FIFO OUT [LINGER [LINE]]
# Tells a waiting test program (progs/countchains.c, progs/stackusage.c)
# to run its chains, with LINE (default `go`), and waits (at most 60 s)
# until its output OUT says they are done, then LINGER seconds more
# (default 0); the stap session then ends and prints what it found while
# the program still lives.
usage='usage: count-go.sh FIFO OUT [LINGER [LINE]]'
fifo=${1:?$usage}
out=${2:?$usage}
linger=${3:-0}
line=${4:-go}
n=$(grep -c '^done' "$out")
echo "$line" >"$fifo"
i=0
until [ "$(grep -c '^done' "$out")" -gt "$n" ]; do	# bound: 600 polls
	i=$((i + 1))
	[ $i -le 600 ] || { echo "count-go: no done in $out" >&2; exit 1; }
	sleep 0.1
done
sleep "$linger"
