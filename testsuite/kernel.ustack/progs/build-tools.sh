#!/bin/sh
# Build the programs of the tools' tests (stackcount.exp, ustackusage.exp,
# callers.exp) in the stapvm tree:
#   build-tools.sh OUTDIR  ->  OUTDIR/PROG-m64 and OUTDIR/PROG-m32 for
#                              countchains, burn and stackusage;
#                              OUTDIR/lastcall-m64
set -eu
src=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-tools.sh OUTDIR}
mkdir -p "$out"
# A process of an older build must not be running in the guest: over 9p
# the new binary can then read as the old one's pages (seen: segfaults),
# even when it is a new file.  The tests quit their programs.
for prog in countchains burn stackusage; do	# bound: 3 programs
	for abi in m64 m32; do			# bound: 2 ABIs
		gcc -$abi -O2 -g -Wall -Werror -fno-optimize-sibling-calls \
			-o "$out/$prog-$abi" "$src/$prog.c"
	done
done
# lastcall's functions in source order without padding (see its head), at
# link-time addresses (-no-pie), which addr2line reads as they run.
gcc -m64 -O2 -g -Wall -Werror -fno-optimize-sibling-calls -no-pie \
	-falign-functions=1 -fno-toplevel-reorder \
	-o "$out/lastcall-m64" "$src/lastcall.c"
echo "built: countchains burn stackusage, -m64 and -m32; lastcall -m64"
