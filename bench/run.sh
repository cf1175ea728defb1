#!/bin/sh
# Benchmark runtime/unwind against libdw, libunwind and a frame-pointer
# walk on the same recorded snapshots (see bench/uw-bench.c).  Not a test:
# it reports numbers.
#   1. record snapshots of the test programs (x86_64 and i386, -O2 without
#      frame pointers, PIE): random stops while they run every scenario,
#      plus every 20th single-step stop through top(); the same programs
#      built with frame pointers, for the floor; and two large programs,
#      python3 running a script (bench/python-work.py) and gcc's cc1
#      compiling a generated file, at random stops;
#   2. time each unwinder on every snapshot (median and p99 ns per frame,
#      and whole passes): ours with compiled tables (the kernel's algorithm,
#      one uw_step a frame as the kernel calls it, and by uw_step_many, a
#      walk's frames in one call) and without them (the interpreter and its
#      row cache), warm (each snapshot again right after itself) and in
#      order (each once, in the order recorded, the caches as the unwinds
#      before left them: a sampler's order), with new rows (its row
#      cache's rows forgotten before each unwind: a sampler's step at a pc
#      never seen), and the frame-pointer walk of the programs built with
#      frame pointers;
#   3. count instructions per frame under callgrind, the same cases;
#   4. the compiled tables of large objects: rows, rows the compact form
#      cannot say, bytes, build time (testsuite/harness/uw-compiled-diff);
#   5. the cost of whole backtraces over hostile tables, which the work
#      budget caps (testsuite/core/uw_hostile --time: hostile_cfi.h).
# usage: bench/run.sh [-b BUILDDIR] [-r REPS] [-n RANDOM_STOPS] [-N LARGE_STOPS]
set -eu
builddir=.
reps=20
stops=500
large=300
while getopts b:r:n:N: opt; do
	case $opt in
	b) builddir=$OPTARG ;;
	r) reps=$OPTARG ;;
	n) stops=$OPTARG ;;
	N) large=$OPTARG ;;
	*) exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
builddir=$(cd "$builddir" && pwd)
tracer=$builddir/testsuite/harness/uw-trace
bench=$builddir/bench/uw-bench
differ=$builddir/testsuite/harness/uw-compiled-diff
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

# Large programs (x86_64: the host's): python3 running a script, and
# cc1 compiling a generated file of 6,000 lines, at random stops.
cc1=$(gcc -print-prog-name=cc1 2>/dev/null || true)
large_snaps=
if [ "$large" -gt 0 ]; then
	echo "== recording snapshots of large programs"
	"$tracer" --label python3 --random "$large" --save "$out/python3.snap" --no-ours \
		-- "$(command -v python3)" "$here/python-work.py" | tail -1
	large_snaps="$out/python3.snap"
	if [ -x "$cc1" ]; then
		awk 'BEGIN { for (i = 0; i < 600; i++) {
			printf "int f%d(int *a, int n) {\n\tint s = 0;\n", i
			printf "\tfor (int j = 0; j < n; j++) {\n"
			printf "\t\tif (a[j] %% %d == 0) s += a[j] * %d;\n", i % 7 + 2, i % 13 + 1
			printf "\t\telse s ^= a[j] << %d;\n\t}\n", i % 5
			printf "\tswitch (s & 7) { case 0: s += %d; break; case 1: s -= 3; break;\n", i
			printf "\tcase 3: s *= 5; break; default: s ^= %d; }\n\treturn s;\n}\n", i * 3 } }' \
			> "$out/cc1-input.c"
		"$tracer" --label cc1 --random "$large" --max-delay-us 20000 --save "$out/cc1.snap" \
			--no-ours -- "$cc1" -quiet -O2 "$out/cc1-input.c" -o "$out/cc1-input.s" | tail -1
		large_snaps="$large_snaps $out/cc1.snap"
	fi
fi

# The floor of any unwinder: a frame-pointer walk (one load of the saved
# frame pointer and one of the return address per frame), beside the
# others on the programs built with frame pointers.  It stops at the first
# frame without one (libc's), so it finds fewer frames: the ratio is per
# frame, and each unwind's clock read weighs on its few frames ("pass":
# whole passes timed at once, one clock read each).
record 64 "" "$tracer" "$progs" "$out" fp
record32 fp
snapfp="$out/random64fp.snap $out/step64fp.snap $files"
snaps="$out/random64.snap $out/step64.snap $snap32"

# time TITLE UW-BENCH-ARGS...: one timed run, its lines.
time_run() {
	echo "== time: $1 ($reps repetitions)"
	shift
	"$bench" --reps "$reps" "$@" | grep -E '^(frames|time|ratio|steps):'
}
time_run "warm, compiled tables, the peers" $snaps
time_run "warm, ours interpreted (no compiled tables)" --no-compiled $snaps
time_run "warm, compiled tables, a walk's frames in one call (uw_step_many)" --step-many $snaps
time_run "in order, compiled tables" --in-order $snaps
time_run "in order, ours interpreted" --in-order --no-compiled $snaps
time_run "new rows (rows forgotten before each unwind), compiled tables" --new-rows $snaps
time_run "new rows, ours interpreted" --new-rows --no-compiled $snaps
echo "== steps by object: where each object's rows came from, and what its compiled table leaves to the interpreter"
"$bench" --reps 1 --only ours $snaps | grep -E '^objects?:'
time_run "the floor: frame-pointer walk, warm, on uwt-{64,32}-O2-fp-pie" --fp $snapfp
time_run "the floor, in order" --fp --in-order $snapfp
time_run "the floor, warm, ours by uw_step_many" --fp --step-many $snapfp
if [ -n "$large_snaps" ]; then
	time_run "large programs, warm, compiled tables" $large_snaps
	time_run "large programs, warm, ours interpreted" --no-compiled $large_snaps
	time_run "large programs, in order, compiled tables" --in-order $large_snaps
	time_run "large programs, in order, ours interpreted" --in-order --no-compiled $large_snaps
	time_run "large programs, new rows, compiled tables" --new-rows $large_snaps
	time_run "large programs, new rows, ours interpreted" --new-rows --no-compiled $large_snaps
fi

if [ -x "$differ" ]; then
	echo "== compiled tables of large objects (rows; not compact; bytes; build time)"
	for f in /lib/x86_64-linux-gnu/libc.so.6 /usr/lib32/libc.so.6 "$(readlink -f /usr/bin/python3)" "$cc1"; do
		[ -f "$f" ] && "$differ" --every 65536 "$f" | grep -v '^uw-compiled-diff:'
	done
fi

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
# count TITLE ARCH UW-BENCH-ARGS...: instructions per frame of each peer
# under callgrind, collected only inside measure_* (not in warm_up, nor
# in forget_rows), after a warm-up pass.
count() {
	title=$1 arch=$2
	shift 2
	cg=$out/callgrind.out
	frames=$(valgrind --tool=callgrind --callgrind-out-file="$cg" --collect-atstart=no \
		--toggle-collect=measure_ours --toggle-collect=measure_libdw \
		--toggle-collect=measure_libunwind --toggle-collect=measure_fp \
		--toggle-collect=warm_up --toggle-collect=forget_rows \
		"$bench" --callgrind "$@" 2>/dev/null |
		sed -n "s/^callgrind x86_$arch: \([a-z]*\) \([0-9]*\) frames/\1 \2/p")
	callgrind_annotate --inclusive=yes --threshold=100 "$cg" 2>/dev/null |
		sed -n 's/^ *\([0-9,]*\) .*:measure_\([a-z]*\) .*/\2 \1/p' | tr -d , |
		awk -v arch="$arch" -v frames="$frames" -v title="$title" '
			BEGIN { n = split(frames, f, /[ \n]/); for (i = 1; i < n; i += 2) fr[f[i]] = f[i + 1] }
			{ ir[$1] = $2 }
			END {
				for (p in ir) if (fr[p] > 0)
					printf "instructions: %-40s %-9s x86_%s %6.0f per frame (%d frames)\n", title, p, arch, ir[p] / fr[p], fr[p]
				if (fr["fp"] > 0 && fr["ours"] > 0)
					printf "ratio:  ours / fp (instructions per frame, x86_%s, %s) = %.1fx\n", arch, title, (ir["ours"] / fr["ours"]) / (ir["fp"] / fr["fp"])
			}'
}
# parts TITLE ARCH UW-BENCH-ARGS...: where ours' instructions a frame go,
# counted as count counts them (ours alone), by the functions that spent them
# (callgrind's self cost, each function with what is inlined into it): the
# fast steps (uw_step_fast_many), the rows kept whole (a signal frame's:
# uw_step_fast_full, the interpreter), the other steps, the stack reads
# (the core's window and the harness's copy), the switches between
# objects' tables, the start of a walk, uw_step_many's loop, and the
# harness and the benchmark around them.
parts() {
	title=$1 arch=$2
	shift 2
	cg=$out/callgrind.parts.out
	n=$(valgrind --tool=callgrind --callgrind-out-file="$cg" --collect-atstart=no \
		--toggle-collect=measure_ours --toggle-collect=warm_up \
		--toggle-collect=forget_rows "$bench" --callgrind --only ours "$@" 2>/dev/null |
		sed -n "s/^callgrind x86_$arch: ours \([0-9]*\) frames/\1/p")
	[ -n "$n" ] && [ "$n" -gt 0 ] || return 0
	callgrind_annotate --inclusive=no --threshold=100 "$cg" 2>/dev/null |
		sed -n 's/^ *\([0-9,]*\) ([ 0-9.%]*) *[^ ]*:\([A-Za-z_][A-Za-z0-9_.]*\).*/\2 \1/p' | tr -d , |
		awk -v n="$n" -v arch="$arch" -v title="$title" '
			{ f = $1; sub(/\..*/, "", f)
			  if (f ~ /^uw_step_fast_many$/) p = "fast steps"
			  else if (f ~ /^(uw_step_fast_full|uw_step_apply_rare)$/) p = "rows kept whole"
			  else if (f ~ /^uw_(step_general|row_|compiled_(decode|unpack)|expr_|cfi_|arch_tramp|nocfi_)/) p = "other steps"
			  else if (f ~ /^(uw_stack_fill|uw_read_target|host_read_mem|uw_space_read|__mem(cpy|move).*)$/) p = "stack reads"
			  else if (f ~ /^uw_tables_/) p = "tables"
			  else if (f ~ /^(uw_init|uw_cursor_reset|uw_regs_from_pt_regs)$/) p = "walk start"
			  else if (f == "uw_step_many") p = "uw_step_many"
			  else p = "harness, other"
			  ir[p] += $2; total += $2 }
			END {
				m = split("fast steps|rows kept whole|other steps|stack reads|tables|walk start|uw_step_many|harness, other", order, "|")
				printf "parts:  %-40s x86_%s %.0f a frame:", title, arch, total / n
				for (i = 1; i <= m; i++)
					printf " %s %.0f%s", order[i], ir[order[i]] / n, i < m ? ";" : "\n"
			}'
}
echo "== instructions per frame (callgrind)"
for arch in 64 32; do
	s="$out/random64.snap $out/step64.snap"
	sfp="$out/random64fp.snap $out/step64fp.snap"
	if [ $arch = 32 ]; then
		[ -n "$snap32" ] || continue
		s=$snap32
		sfp=$files
	fi
	count "warm, compiled, peers" $arch $s
	count "warm, interpreted" $arch --no-compiled $s
	count "warm, compiled, uw_step_many" $arch --step-many $s
	parts "warm, compiled, uw_step_many" $arch --step-many $s
	count "in order, compiled" $arch --in-order $s
	count "in order, interpreted" $arch --in-order --no-compiled $s
	count "new rows, compiled" $arch --new-rows $s
	count "new rows, interpreted" $arch --new-rows --no-compiled $s
	count "floor: fp programs, warm, compiled" $arch --fp $sfp
	count "floor: fp programs, in order, compiled" $arch --fp --in-order $sfp
	count "floor: fp programs, warm, uw_step_many" $arch --fp --step-many $sfp
done
if [ -n "$large_snaps" ]; then
	count "large programs, warm, compiled" 64 $large_snaps
	count "large programs, warm, interpreted" 64 --no-compiled $large_snaps
	count "large programs, in order, compiled" 64 --in-order $large_snaps
	count "large programs, in order, interpreted" 64 --in-order --no-compiled $large_snaps
	count "large programs, new rows, compiled" 64 --new-rows $large_snaps
	count "large programs, new rows, interpreted" 64 --new-rows --no-compiled $large_snaps
fi
