#!/bin/sh
# vdso-cfi.sh PROG ARGS...: the vDSO that the running kernel maps into PROG
# (a program of the ABI in question that lives for a few seconds at least
# with ARGS; stopped once it runs, and killed once read), read from PROG's
# memory, as lines
#   fde LO HI            each FDE's address range (hex, vDSO-relative)
#   func START SIZE NAME each function symbol (hex start, decimal size)
# for vdso_cfi in lib/kernel.exp.  Run in the guest.
set -u
prog=$(readlink -f "$1")
tmp=$(mktemp)
"$@" >/dev/null 2>&1 </dev/null &
pid=$!
# Until the child has become PROG (before its exec, its vDSO is the
# shell's, of the shell's ABI); bound: 100 tries, 10 s.
tries=0
while [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" != "$prog" ]; do
	tries=$((tries + 1))
	if [ $tries -gt 100 ] || ! kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
		echo "vdso-cfi: $prog: did not start (or ended at once)" >&2
		exit 1
	fi
	sleep 0.1
done
# Stopped, it cannot end while its memory is read, however slow the guest.
kill -STOP "$pid"
range=$(sed -n '/\[vdso\]$/s/ .*//p' "/proc/$pid/maps")
if [ -z "$range" ]; then
	kill -KILL "$pid"
	echo "vdso-cfi: $prog: no [vdso] in its mappings" >&2
	exit 1
fi
start=$((0x${range%-*}))
end=$((0x${range#*-}))
dd if="/proc/$pid/mem" of="$tmp" bs=4096 skip=$((start / 4096)) \
	count=$(((end - start) / 4096)) 2>/dev/null
kill -KILL "$pid"
readelf -W --debug-dump=frames "$tmp" |
	sed -n 's/.* FDE .*pc=\([0-9a-f]*\)\.\.\([0-9a-f]*\).*/fde \1 \2/p'
readelf -Ws "$tmp" | awk '$4 == "FUNC" { print "func", $2, $3, $8 }'
rm -f "$tmp"
