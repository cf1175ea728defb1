#!/bin/sh
# Build the unit tool's i386 cases for the stapvm guest, inside the target
# tree with its own toolchain and elfutils (run by `make unit-guest`, which
# passes the source lists of Makefile.inc so that they stay in one place):
#   OUTDIR/uw-trace, uw-memcheck       the 64-bit tracers (they trace i386 tracees)
#   OUTDIR/core/*32                    the core's 32-bit unit test programs
#   OUTDIR/progs/uwt-32-*              the i386 half of the test program matrix
# The guest sees the tree as its root, so OUTDIR (a directory of the tree)
# has the same path in the tree, in the guest, and under the tree on the host.
#
# usage (inside the tree, in the checkout): build-guest.sh OUTDIR
# environment: UW_CORE_SRCS UW_CORE_CFLAGS UW_SAN_CFLAGS TRACE_SRCS
#              MEMCHECK_SRCS CORE_TESTS ("NAME=SOURCE:LIBRARY ...", LIBRARY
#              plain or asan)
set -eu
out=${1:?usage: build-guest.sh OUTDIR}
: "${UW_CORE_SRCS:?} ${UW_CORE_CFLAGS:?} ${UW_SAN_CFLAGS:?} ${TRACE_SRCS:?}"
: "${MEMCHECK_SRCS:?} ${CORE_TESTS:?}"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/core" "$out/lib"
CC=${CC:-gcc}

# lib ARCH FLAVOUR: the core as one object list, built once per flavour.
lib() {
	arch=$1 flavour=$2 objs=
	flags="-m$arch $UW_CORE_CFLAGS"
	[ "$flavour" = asan ] && flags="$flags $UW_SAN_CFLAGS"
	for s in $UW_CORE_SRCS; do
		o=$out/lib/$arch-$flavour-$(basename "$s" .c).o
		$CC $flags -c "$s" -o "$o"
		objs="$objs $o"
	done
	echo "$objs"
}

core64=$(lib 64 plain)
tflags="-O2 -g -Wall -Wextra"
$CC $tflags -o "$out/uw-trace" $TRACE_SRCS $core64 -ldw -lelf
$CC $tflags -o "$out/uw-memcheck" $MEMCHECK_SRCS $core64 -ldw -lelf

core32=$(lib 32 plain)
core32asan=$(lib 32 asan)
for t in $CORE_TESTS; do
	name=${t%%=*} rest=${t#*=}
	src=${rest%%:*} flavour=${rest#*:}
	case $flavour in
	asan) $CC -m32 $UW_CORE_CFLAGS $UW_SAN_CFLAGS -O1 -g -o "$out/core/$name" "$src" $core32asan ;;
	*) $CC -m32 $UW_CORE_CFLAGS -O2 -g -o "$out/core/$name" "$src" $core32 ;;
	esac
done

UWT_ARCHES=32 sh "$here/build-progs.sh" "$here/progs" "$out/progs"
echo "build-guest: built in $out with $($CC --version | head -n1)," \
	"elfutils $(dpkg-query -W -f '${Version}' libdw-dev 2>/dev/null || echo '(unknown)')"
