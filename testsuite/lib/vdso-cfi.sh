#!/bin/sh
# vdso-cfi.sh PROG ARGS...: the vDSO that the running kernel maps into PROG
# (a program of the ABI in question that runs for a second at least with
# ARGS; killed once read), read from PROG's memory, as lines
#   fde LO HI            each FDE's address range (hex, vDSO-relative)
#   func START SIZE NAME each function symbol (hex start, decimal size)
# for vdso_functions_without_cfi in lib/kernel.exp.  Run in the guest.
set -u
prog=$1
tmp=$(mktemp)
"$@" >/dev/null 2>&1 </dev/null &
pid=$!
sleep 0.5
range=$(sed -n '/\[vdso\]$/s/ .*//p' "/proc/$pid/maps")
if [ -z "$range" ]; then
	kill "$pid"
	echo "vdso-cfi: $prog: no [vdso] in its mappings" >&2
	exit 1
fi
start=$((0x${range%-*}))
end=$((0x${range#*-}))
dd if="/proc/$pid/mem" of="$tmp" bs=4096 skip=$((start / 4096)) \
	count=$(((end - start) / 4096)) 2>/dev/null
kill "$pid"
readelf -W --debug-dump=frames "$tmp" |
	sed -n 's/.* FDE .*pc=\([0-9a-f]*\)\.\.\([0-9a-f]*\).*/fde \1 \2/p'
readelf -Ws "$tmp" | awk '$4 == "FUNC" { print "func", $2, $3, $8 }'
rm -f "$tmp"
