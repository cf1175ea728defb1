#!/bin/sh
# Every stop-test mode of both ustop binaries (for stop.stp); each
# program's EXPECT line goes to /tmp/ustop-expect.txt.
# The test programs: the build directory's (PROGS, as the caller sees it).
b=${PROGS:-/src/testsuite/kernel.ustack/build}
out=/tmp/ustop-expect.txt
: >$out
for abi in m64 m32; do
	for mode in eos nodata nocfi unreadable regundef rcx badcfi noprogress badra \
		    "depth 0" "depth 54" "depth 55" "depth 56" "depth 57" \
		    "depth 58" "depth 59" "depth 60" "depth 61" "depth 62"; do
		if [ $abi = m32 ] && [ "$mode" = rcx ]; then continue; fi
		$b/ustop-$abi $mode >>$out
	done
done
# For the uprobe in stop.stp: copies outside /src.
for abi in m64 m32; do
	/var/tmp/stap-unwind-ustop/ustop-$abi eos >/dev/null
done
