#!/bin/sh
# Where this machine runs i386 test programs, decided by trying, never by
# reading kernel configuration: some hosts of our kind cannot execute them
# at all ("Exec format error"), the stapvm guest's kernel always can.
#
# usage: i386-place.sh BUILDDIR
# Prints one line:
#   host                      the host runs them
#   guest DIR TREE WHY        the guest runs them; their programs are built
#                             (make unit-guest) into DIR, a directory of the
#                             target tree TREE (so TREE/DIR on the host)
#   none REASON               nowhere
# UW_HOST_I386=no: treat the host as unable (to exercise the guest path).
# UW_HOST_I386=skip: run them nowhere (a quick x86_64-only run while the
# guest is busy; each i386 case is then UNSUPPORTED, with this reason).
# UW_HOST_I386=host-only: on the host if it can, else nowhere (./quickstart
# test: in the guest they take half an hour, which CI's time lacks).
# Used by the unit tool (testsuite/lib/unit.exp) and bench/run.sh.
set -u
builddir=$(cd "${1:?usage: i386-place.sh BUILDDIR}" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)

why=
if [ "${UW_HOST_I386:-}" = skip ]; then
	echo "none UW_HOST_I386=skip"
	exit 0
elif [ "${UW_HOST_I386:-}" = no ]; then
	why="UW_HOST_I386=no"
else
	probe=$builddir/testsuite/harness/i386-probe
	mkdir -p "$(dirname "$probe")"
	if ! printf 'int main(void) { return sizeof(void *) == 4 ? 0 : 1; }\n' |
		${CC:-gcc} -m32 -x c - -o "$probe" 2>/dev/null; then
		why="gcc -m32 cannot link"
	else
		out=$("$probe" 2>&1)
		rc=$?
		if [ $rc = 0 ]; then
			echo host
			exit 0
		fi
		why="an i386 program exits $rc here: $(echo "$out" | sed 's/.*: //' | head -n1)"
	fi
fi

if [ "${UW_HOST_I386:-}" = host-only ]; then
	echo "none the host cannot run i386 programs ($why); in the stapvm guest they take about half an hour, which ./quickstart test leaves to make check DEJATOOL=unit"
	exit 0
fi
stapvm=$top/vm/stapvm
tree=$("$stapvm" status 2>/dev/null | sed -n 's/^tree: \(\/[^ ]*\) .*/\1/p')
if [ -z "$tree" ]; then
	echo "none the host cannot run i386 programs ($why) and there is no stapvm target tree (vm/stapvm image builds it)"
	exit 0
fi
# One directory of the shared tree per build directory.
dir=/var/lib/stapvm/unit-$(printf %s "$builddir" | cksum | cut -d' ' -f1)
if ! make -s -C "$builddir" unit-guest UNIT_GUEST_DIR="$dir" >&2; then
	echo "none the host cannot run i386 programs ($why) and building them in the stapvm tree failed"
	exit 0
fi
echo "guest $dir $tree $why"
