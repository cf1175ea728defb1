#!/bin/sh
# Benchmark runtime/unwind against libdw and libunwind on the same recorded
# snapshots (see bench/uw-bench.c).  Not a test: it reports numbers.
#   1. record snapshots of the test programs (x86_64 and i386, -O2 without
#      frame pointers, PIE): random stops while they run every scenario,
#      plus every 20th single-step stop through top();
#   2. time each unwinder on every snapshot (median and p99 ns per frame),
#      ours again without its row cache (the cold path: every step parses
#      its row) and with new rows (its rows forgotten before each unwind,
#      its tables and parsed CIEs kept: a sampler's first step at a new pc),
#      and against a frame-pointer walk of a program built with
#      frame pointers (the floor);
#   3. count instructions per frame under callgrind;
#   4. the cost of whole backtraces over hostile tables, which the work
#      budget caps (testsuite/core/uw_hostile --time: hostile_cfi.h).
# usage: bench/run.sh [-b BUILDDIR] [-r REPS] [-n RANDOM_STOPS]
set -eu
builddir=.
reps=20
stops=500
while getopts b:r:n: opt; do
	case $opt in
	b) builddir=$OPTARG ;;
	r) reps=$OPTARG ;;
	n) stops=$OPTARG ;;
	*) exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
builddir=$(cd "$builddir" && pwd)
tracer=$builddir/testsuite/harness/uw-trace
bench=$builddir/bench/uw-bench
progs=$builddir/testsuite/harness/progs-build
out=$builddir/bench/run
for f in "$tracer" "$bench"; do
	[ -x "$f" ] || { echo "bench/run.sh: $f not built (run make and make check first)" >&2; exit 2; }
done
sh "$top/testsuite/harness/build-progs.sh" "$top/testsuite/harness/progs" "$progs" 2>/dev/null
mkdir -p "$out"

# record ARCH RUN TRACER PROGS DIR [FP]: snapshots of ARCH's program into
# DIR (random$ARCH$FP.snap, step$ARCH$FP.snap), with RUN (a command prefix:
# "" on the host, the guest's runner) and its tracer/progs; FP "fp": the
# program built with frame pointers, for the floor.
record() {
	arch=$1 run=$2 trc=$3 prg=$4 dir=$5 fp=${6:-}
	prog=$prg/uwt-$arch-O2-nofp-pie
	[ -z "$fp" ] || prog=$prg/uwt-$arch-O2-fp-pie
	$run "$trc" --label bench$arch$fp --random "$stops" --save "$dir/random$arch$fp.snap" --no-ours \
		-- "$prog" all 0 50 | tail -1
	$run "$trc" --label bench$arch$fp --step top --save "$dir/step$arch$fp.snap" --save-every 20 --no-ours \
		-- "$prog" all 1 2 | tail -1
}

# i386 snapshots are recorded where i386 programs run: on the host if it
# can, otherwise in the stapvm guest (testsuite/harness/i386-place.sh), and
# replayed here with the guest's files found under the target tree.
echo "== recording snapshots"
record 64 "" "$tracer" "$progs" "$out"
place=$(sh "$top/testsuite/harness/i386-place.sh" "$builddir" | tail -n1)
# record32 [FP]: the i386 snapshots (of the program built with frame
# pointers, for FP "fp") where they can be made; sets files to uw-bench's
# arguments for them, empty if they cannot be made.
record32() {
	case $place in
	host)
		record 32 "" "$tracer" "$progs" "$out" ${1:-}
		files="$out/random32${1:-}.snap $out/step32${1:-}.snap" ;;
	guest\ *)
		fp=${1:-}
		set -- $place
		gdir=$2 tree=$3
		mkdir -p "$tree$gdir/bench"
		record 32 "env STAPVM_TIMEOUT=1800 STAPVM_TCG_THREAD=multi $top/vm/stapvm guest" \
			"$gdir/uw-trace" "$gdir/progs" "$gdir/bench" $fp
		files="--sysroot=$tree $tree$gdir/bench/random32$fp.snap $tree$gdir/bench/step32$fp.snap" ;;
	*)
		files= ;;
	esac
}
case $place in
host) echo "i386: recorded on the host" ;;
guest\ *) echo "i386: recorded in the stapvm guest (the host cannot run i386 programs: ${place#guest * * }); files from its tree" ;;
*) echo "i386: not measured: ${place#none }" ;;
esac
record32
snap32=$files

echo "== time (clock_gettime around each unwind, caches warm, $reps repetitions)"
"$bench" --reps "$reps" "$out"/random64.snap "$out"/step64.snap $snap32

# The cold path: ours with no row cache, so every step finds its FDE and
# runs its CFI (a sampler's first step at a new pc, a cold backtrace); the
# peers keep their caches, as above.
echo "== time, ours without its row cache (every step parses its row), $reps repetitions"
"$bench" --no-row-cache --reps "$reps" "$out"/random64.snap "$out"/step64.snap $snap32

# A sampler's step at a pc never seen, in modules seen before: ours with
# its row cache's rows forgotten before each unwind, the tables (under new
# tags) and parsed CIEs kept (every step parses its row, not the CIEs).
echo "== time, ours with new rows (its rows forgotten before each unwind, CIEs kept), $reps repetitions"
"$bench" --new-rows --reps "$reps" "$out"/random64.snap "$out"/step64.snap $snap32

# The floor of any unwinder: a frame-pointer walk (one load of the saved
# frame pointer and one of the return address per frame), timed per frame
# beside the others on a program built with frame pointers.  It stops at
# the first frame without one (libc's), so it finds fewer frames: the
# ratio is per frame.
echo "== the floor: a frame-pointer walk, on uwt-{64,32}-O2-fp-pie ($reps repetitions)"
record 64 "" "$tracer" "$progs" "$out" fp
record32 fp
"$bench" --fp --reps "$reps" "$out"/random64fp.snap "$out"/step64fp.snap $files

hostile=$builddir/testsuite/core/uw_hostile
if [ -x "$hostile" ]; then
	echo "== whole backtraces over hostile tables (work budget $(sed -n 's/^#define UW_DEFAULT_MAX_WORK[^0-9]*\([0-9]*\).*/\1/p' "$top/runtime/unwind/unwind_core.h") units; 201 runs)"
	"$hostile" --time 201
else
	echo "== $hostile not built (make check): hostile tables not timed"
fi

if ! command -v valgrind >/dev/null 2>&1; then
	echo "== no valgrind: instructions per frame not measured"
	exit 0
fi
echo "== instructions per frame (callgrind, collected only inside measure_*, after a warm-up pass)"
for arch in 64 32; do
	snaps="$out/random64.snap $out/step64.snap"
	if [ $arch = 32 ]; then
		[ -n "$snap32" ] || continue
		snaps=$snap32
	fi
	cg=$out/callgrind.$arch.out
	frames=$(valgrind --tool=callgrind --callgrind-out-file="$cg" --collect-atstart=no \
		--toggle-collect=measure_ours --toggle-collect=measure_libdw \
		--toggle-collect=measure_libunwind \
		"$bench" --callgrind $snaps 2>/dev/null |
		sed -n "s/^callgrind x86_$arch: \([a-z]*\) \([0-9]*\) frames/\1 \2/p")
	callgrind_annotate --inclusive=yes "$cg" 2>/dev/null |
		sed -n 's/^ *\([0-9,]*\) .*:measure_\([a-z]*\) .*/\2 \1/p' | tr -d , |
		awk -v arch="$arch" -v frames="$frames" '
			BEGIN { n = split(frames, f, /[ \n]/); for (i = 1; i < n; i += 2) fr[f[i]] = f[i + 1] }
			{ ir[$1] = $2 }
			END {
				for (p in ir) if (fr[p] > 0)
					printf "instructions: %-9s x86_%s %10.0f per frame (%d frames)\n", p, arch, ir[p] / fr[p], fr[p]
				if (fr["ours"] > 0 && ir["ours"] > 0)
					for (p in ir) if (p != "ours" && fr[p] > 0)
						printf "ratio:  %s / ours (instructions per frame, x86_%s) = %.1fx\n", p, arch, (ir[p] / fr[p]) / (ir["ours"] / fr["ours"])
			}'
	# The cold path again: ours with no row cache.
	frames=$(valgrind --tool=callgrind --callgrind-out-file="$cg.cold" --collect-atstart=no \
		--toggle-collect=measure_ours "$bench" --callgrind --no-row-cache $snaps 2>/dev/null |
		sed -n "s/^callgrind x86_$arch: ours \([0-9]*\) frames/\1/p")
	callgrind_annotate --inclusive=yes "$cg.cold" 2>/dev/null |
		sed -n 's/^ *\([0-9,]*\) .*:measure_ours .*/\1/p' | tr -d , |
		awk -v arch="$arch" -v frames="$frames" '
			frames > 0 { printf "instructions: ours without its row cache x86_%s %6.0f per frame (%d frames)\n", arch, $1 / frames, frames }'
	# And with new rows (forget_rows, between unwinds, is not collected).
	frames=$(valgrind --tool=callgrind --callgrind-out-file="$cg.new" --collect-atstart=no \
		--toggle-collect=measure_ours --toggle-collect=forget_rows \
		"$bench" --callgrind --new-rows $snaps 2>/dev/null |
		sed -n "s/^callgrind x86_$arch: ours \([0-9]*\) frames/\1/p")
	callgrind_annotate --inclusive=yes "$cg.new" 2>/dev/null |
		sed -n 's/^ *\([0-9,]*\) .*:measure_ours .*/\1/p' | tr -d , |
		awk -v arch="$arch" -v frames="$frames" '
			frames > 0 { printf "instructions: ours with new rows x86_%s %6.0f per frame (%d frames)\n", arch, $1 / frames, frames }'
done
