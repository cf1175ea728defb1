#!/bin/sh
# Build the programs of the tools' tests (stackcount.exp, ustackusage.exp)
# in the stapvm tree, in both ABIs:
#   build-tools.sh OUTDIR  ->  OUTDIR/PROG-m64 and OUTDIR/PROG-m32 for
#                              countchains, burn and stackusage
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-tools.sh OUTDIR}
mkdir -p "$out"
# Each is built under another name and renamed into place: a new file, not
# the old one rewritten, which the guest (over 9p) may still have cached
# for a process that maps it.
for prog in countchains burn stackusage; do	# bound: 3 programs
	for abi in m64 m32; do			# bound: 2 ABIs
		gcc -$abi -O2 -g -Wall -Werror -fno-optimize-sibling-calls \
			-o "$out/$prog-$abi.new" "$src/$prog.c"
		mv -f "$out/$prog-$abi.new" "$out/$prog-$abi"
	done
done
echo "built: countchains burn stackusage, -m64 and -m32"
