#!/bin/sh
# Run the unwinder-core fuzz target (testsuite/fuzz/fuzz_cfi.c) for N
# seconds (default 20: the brief run of `make check`; run it by hand for
# longer, e.g. `testsuite/fuzz/run.sh 3600`).
#
# Builds the target with clang (-fsanitize=fuzzer,address,undefined) into
# $UW_BUILDDIR/testsuite/fuzz (default: the current directory's
# testsuite/fuzz), generates a seed corpus from the CFI of real binaries on
# this machine (nothing fetched, nothing committed), and runs libFuzzer.
# Exit status 0 = no crash, UB, hang (-timeout) or bound violation found.
# Crash inputs are left in the work directory as crash-* / timeout-*.
set -eu

secs=${1:-20}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${UW_BUILDDIR:-$(pwd)}/testsuite/fuzz
clang=${CLANG:-$(command -v clang || command -v clang-14 || true)}
if [ -z "$clang" ]; then
	echo "run.sh: no clang; cannot build the fuzz target" >&2
	exit 77
fi
mkdir -p "$build/corpus" "$build/seeds"
cd "$build"

core="$top/runtime/unwind"
"$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-std=gnu11 -Wall -Wextra -Werror \
	"$top/testsuite/fuzz/fuzz_cfi.c" \
	"$core/stop.c" "$core/mem.c" "$core/cfi.c" "$core/row.c" "$core/expr.c" \
	"$core/arch.c" "$core/rowcache.c" "$core/step.c" "$core/nocfi.c" -o fuzz_cfi

# ---- seeds: real .eh_frame_hdr/.eh_frame of a few binaries ------------
le32() {	# print $1 as 4 little-endian bytes
	v=$1
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((v & 255)) $(((v >> 8) & 255)) \
		$(((v >> 16) & 255)) $(((v >> 24) & 255)))"
}
le16() {
	printf "$(printf '\\%03o\\%03o' $(($1 & 255)) $((($1 >> 8) & 255)))"
}
secaddr() {	# link-time address of section $2 in $1, as a decimal number
	a=$(readelf -SW "$1" 2>/dev/null | awk -v s="$2" '$2 == s { print $4; exit }
		$3 == s { print $5; exit }')
	[ -n "$a" ] && echo $((0x$a)) || echo 0
}
seed() {	# seed FILE FLAGS PC-OFFSET-IN-TEXT NAME
	f=$1 flags=$2 name=$4
	tmp=$(mktemp -d)
	objcopy -O binary --only-section=.eh_frame_hdr "$f" "$tmp/hdr" 2>/dev/null || : >"$tmp/hdr"
	objcopy -O binary --only-section=.eh_frame "$f" "$tmp/eh" 2>/dev/null || : >"$tmp/eh"
	objcopy -O binary --only-section=.debug_frame "$f" "$tmp/df" 2>/dev/null || : >"$tmp/df"
	text=$(secaddr "$f" .text)
	pc=$((text + $3))
	{
		printf "$(printf '\\%03o' "$flags")"
		printf '\040'				# max depth 32
		le32 "$(stat -c %s "$tmp/hdr")"; le32 "$(secaddr "$f" .eh_frame_hdr)"
		le32 "$(stat -c %s "$tmp/eh")"; le32 "$(secaddr "$f" .eh_frame)"
		le32 "$(stat -c %s "$tmp/df")"; le32 "$(secaddr "$f" .debug_frame)"
		le32 "$pc"; le16 256; le16 512; le32 $((0x1ffff))
		cat "$tmp/hdr" "$tmp/eh" "$tmp/df"
		head -c 1024 "$f"			# "stack": some bytes
	} >"seeds/$name"
	rm -rf "$tmp"
}
for f in /bin/true /bin/ls /lib/x86_64-linux-gnu/libc.so.6 /usr/lib32/libc.so.6; do
	[ -r "$f" ] || continue
	b=$(basename "$f")
	case "$f" in *lib32*) a=1 ;; *) a=0 ;; esac
	# with header, local; without header (linear scan); header + target
	# memory with unknown size; the same with a load bias.
	seed "$f" $((a | 2)) 64 "$b.$a.hdr" || true
	seed "$f" $((a)) 300 "$b.$a.scan" || true
	seed "$f" $((a | 2 | 8 | 64)) 1000 "$b.$a.target" || true
	seed "$f" $((a | 2 | 32)) 4000 "$b.$a.bias" || true
done

# ---- run ---------------------------------------------------------------
set +e
./fuzz_cfi -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-max_len=300000 -print_final_stats=1 -error_exitcode=1 \
	corpus seeds >fuzz.log 2>&1
rc=$?
set -e
grep -E '^(#[0-9]+.*(INITED|DONE)|Done|stat::)' fuzz.log || true
if [ $rc -ne 0 ]; then
	tail -n 30 fuzz.log
	echo "run.sh: fuzzer failed (exit $rc); see $build/fuzz.log and crash-*" >&2
fi
exit $rc
