#!/bin/sh
# Build the unwind test program matrix into OUTDIR:
#   uwt-<arch>-<opt>-<frame>-<link>[-clang]
#   arch: 64 32   opt: O0 O2 O3   frame: fp nofp   link: pie nopie static
# plus a few clang builds.  Each dynamic program calls into its own
# libuwt-<arch>-<opt>-<frame>.so through the PLT; static ones link the same
# code from an archive.  Only out-of-date outputs are rebuilt.
# usage: build-progs.sh SRCDIR OUTDIR      (SRCDIR = testsuite/harness/progs)
# UWT_ARCHES: the arches to build (default "64 32"; the guest builds "32").
set -eu
src=$1
out=$2
mkdir -p "$out"
CC=${CC:-gcc}
CLANG=${CLANG:-clang}
common="-g -Wall -Wno-unused-result -fasynchronous-unwind-tables"

newer() { # newer TARGET DEPS... : true when TARGET is missing or older
	t=$1; shift
	[ -e "$t" ] || return 0
	for d in "$@"; do [ "$d" -nt "$t" ] && return 0; done
	return 1
}

build_one() { # build_one CC ARCH OPT FRAME LINK SUFFIX
	cc=$1 arch=$2 opt=$3 frame=$4 link=$5 suffix=$6
	case $frame in fp) fflag=-fno-omit-frame-pointer ;; *) fflag=-fomit-frame-pointer ;; esac
	flags="-m$arch -$opt $fflag $common"
	lib=uwt-$arch-$opt-$frame$suffix
	prog=$out/uwt-$arch-$opt-$frame-$link$suffix
	deps="$src/uwt.c $src/uwt-lib.c $src/uwt.h"
	case $link in
	static)
		if newer "$out/lib$lib.a" $deps; then
			$cc $flags -c "$src/uwt-lib.c" -o "$out/$lib.o"
			rm -f "$out/lib$lib.a"
			ar rcs "$out/lib$lib.a" "$out/$lib.o"
		fi
		newer "$prog" $deps "$out/lib$lib.a" &&
			$cc $flags -static "$src/uwt.c" "$out/lib$lib.a" -o "$prog"
		;;
	*)
		if newer "$out/lib$lib.so" $deps; then
			$cc $flags -fPIC -shared "$src/uwt-lib.c" -o "$out/lib$lib.so.tmp$$"
			mv "$out/lib$lib.so.tmp$$" "$out/lib$lib.so"
		fi
		case $link in pie) lflag="-fPIE -pie" ;; *) lflag="-fno-PIE -no-pie" ;; esac
		newer "$prog" $deps "$out/lib$lib.so" &&
			$cc $flags $lflag "$src/uwt.c" -L"$out" -l"$lib" \
				-Wl,-rpath,"$(cd "$out" && pwd)" -o "$prog"
		;;
	esac
	return 0
}

pids=
for arch in ${UWT_ARCHES:-64 32}; do
	for opt in O0 O2 O3; do
		for frame in fp nofp; do
			# pie and nopie share one library; build them in sequence.
			( for link in pie nopie static; do
				build_one "$CC" $arch $opt $frame $link ""
			  done ) &
			pids="$pids $!"
		done
	done
	if command -v "$CLANG" >/dev/null 2>&1; then
		( build_one "$CLANG" $arch O2 nofp pie -clang
		  build_one "$CLANG" $arch O2 fp nopie -clang ) &
		pids="$pids $!"
	fi
done
status=0
for p in $pids; do wait "$p" || status=1; done
exit $status
