#!/bin/sh
# Run the fuzz targets for N seconds in all (default 20), split evenly
# among the targets named (default: both).  The brief run of `make check`
# takes them one at a time (unit.fuzz/fuzz.exp: `run.sh 10 cfi`,
# `run.sh 10 elf`); run it by hand for longer, e.g. `run.sh 7200`.
#   cfi  testsuite/fuzz/fuzz_cfi.c: the unwinder core on arbitrary CFI
#   elf  testsuite/fuzz/fuzz_elf.c: the ELF reader (elfmem.c) on arbitrary
#        object images, and the core on the tables it finds
#
# Builds each target with clang (-fsanitize=fuzzer,address,undefined) into
# $UW_BUILDDIR/testsuite/fuzz (default: the current directory's
# testsuite/fuzz), generates its seed corpus from real binaries on this
# machine (nothing fetched), adds the inputs in cases/ that once failed
# (TARGET-WHAT: what the failure taught), and runs libFuzzer.
# Exit status 0 = no crash, UB, hang (-timeout) or bound violation found by
# any target.  Crash inputs are left in the work directory as
# TARGET-crash-* / TARGET-timeout-*, each target's log as fuzz-TARGET.log.
set -eu

secs=${1:-20}
[ $# -gt 0 ] && shift
targets=${*:-cfi elf}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${UW_BUILDDIR:-$(pwd)}/testsuite/fuzz
clang=${CLANG:-$(command -v clang || command -v clang-14 || true)}
if [ -z "$clang" ]; then
	echo "run.sh: no clang; cannot build the fuzz target" >&2
	exit 77
fi
for t in $targets; do
	case "$t" in
	cfi|elf) mkdir -p "$build/corpus/$t" "$build/seeds/$t" ;;
	*) echo "run.sh: unknown target $t (cfi, elf)" >&2; exit 2 ;;
	esac
done
ntargets=$(echo $targets | wc -w)
per=$((secs / ntargets))
[ "$per" -ge 1 ] || per=1
cd "$build"

core="$top/runtime/unwind"
build_target() {	# build_target NAME [EXTRA-SOURCE...]
	t=$1
	shift
	"$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-std=gnu11 -Wall -Wextra -Werror -DUW_CHECK_DELTA \
		"$top/testsuite/fuzz/fuzz_$t.c" \
		"$core/stop.c" "$core/cursor.c" "$core/mem.c" "$core/cfi.c" "$core/row.c" "$core/expr.c" \
		"$core/arch.c" "$core/rowcache.c" "$core/tables.c" "$core/compile.c" \
		"$core/step.c" \
		"$core/nocfi.c" \
		"$@" -o "fuzz_$t"
}

# ---- seeds: from a few real objects of this machine -------------------
# The objects both targets' seeds come from: a small and a larger
# executable, the C library, and (if installed) the i386 C library and
# dynamic loader; printed as "FILE ARCH" (ARCH 1: i386).
objects() {
	for f in /bin/true /bin/ls /lib/x86_64-linux-gnu/libc.so.6 \
		 /usr/lib32/libc.so.6 /usr/lib32/ld-linux.so.2; do
		[ -r "$f" ] || continue
		case "$f" in *lib32*) echo "$f 1" ;; *) echo "$f 0" ;; esac
	done
}
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
cfi_seed() {	# cfi_seed FLAGS PC-OFFSET-IN-TEXT NAME; $sec: cfi_seeds'
	{
		printf "$(printf '\\%03o' "$1")"
		printf '\040'				# max depth 32
		le32 "$(stat -c %s "$sec/hdr")"; le32 "$(cat "$sec/hdr.at")"
		le32 "$(stat -c %s "$sec/eh")"; le32 "$(cat "$sec/eh.at")"
		le32 "$(stat -c %s "$sec/df")"; le32 "$(cat "$sec/df.at")"
		le32 $(($(cat "$sec/text.at") + $2)); le16 256; le16 512
		le32 $((0x1ffff))
		cat "$sec/hdr" "$sec/eh" "$sec/df"
		cat "$sec/stack"			# "stack": some bytes
	} >"seeds/cfi/$3"
}
cfi_seeds() {
	sec=$(mktemp -d)
	objects | while read -r f a; do
		b=$(basename "$f")
		# The CFI sections and their addresses, once per object.
		for s in hdr:.eh_frame_hdr eh:.eh_frame df:.debug_frame text:.text; do
			objcopy -O binary --only-section="${s#*:}" "$f" "$sec/${s%%:*}" \
				2>/dev/null || : >"$sec/${s%%:*}"
			echo "$(secaddr "$f" "${s#*:}")" >"$sec/${s%%:*}.at"
		done
		head -c 1024 "$f" >"$sec/stack"
		# with header, local; without header (linear scan); header +
		# target memory with unknown size; the same with a load bias.
		cfi_seed $((a | 2)) 64 "$b.$a.hdr" || true
		cfi_seed $((a)) 300 "$b.$a.scan" || true
		cfi_seed $((a | 2 | 8 | 64)) 1000 "$b.$a.target" || true
		cfi_seed $((a | 2 | 32)) 4000 "$b.$a.bias" || true
	done
	rm -rf "$sec"
}

# The ELF target's images: the first page (ELF header, program headers,
# notes) and a tail from .eh_frame_hdr's page on (.eh_frame, .dynamic),
# at most this long: all of them but the C libraries', whose .dynamic
# then cannot be read.
ELF_HEAD=4096
ELF_MAX_TAIL=65536
image() {	# image FILE OUT: FILE's PT_LOADs where a loader maps them,
		# from the first one's page (gaps, .bss: zeros)
	loads=$(readelf -lW "$1" 2>/dev/null | awk '$1 == "LOAD" { print $2, $3, $5, $6 }')
	[ -n "$loads" ] || return 1
	lo=$(echo "$loads" | awk '{ print $2; exit }')
	lo=$((lo & ~4095))
	: >"$2"
	echo "$loads" | while read -r off va fs ms; do
		dd if="$1" of="$2" bs=65536 iflag=skip_bytes,count_bytes \
			oflag=seek_bytes conv=notrunc skip=$((off)) \
			seek=$((va - lo)) count=$((fs)) status=none
		[ $((va + ms - lo)) -le "$(stat -c %s "$2")" ] ||
			truncate -s $((va + ms - lo)) "$2"
	done
}
segoff() {	# segoff FILE TYPE: the link-time address of its first TYPE
		# segment (TEXT: executable PT_LOAD), less the first PT_LOAD's
		# page (its image offset)
	lo=$(readelf -lW "$1" 2>/dev/null | awk '$1 == "LOAD" { print $3; exit }')
	v=$(readelf -lW "$1" 2>/dev/null | awk -v t="$2" '$1 == t ||
		(t == "TEXT" && $1 == "LOAD" && ($7 ~ /E/ || $8 ~ /E/)) { print $3; exit }')
	if [ -n "$lo" ] && [ -n "$v" ]; then
		echo $((v - (lo & ~4095)))
	else
		echo 0
	fi
}
elf_seed() {	# elf_seed ARCH FLAGS PC-OFFSET FAIL-OFFSET TAIL NAME (TAIL 0:
		# the first page only); $img, $text and $eh: elf_seeds'
	flags=$2
	[ "$1" = 1 ] && page=$((0x56555)) || page=$((0x7f0000))
	[ $((flags & 2)) = 0 ] || page=$((0x100))	# 1 MiB below the top
	tail=$((eh & ~4095))
	{
		printf "$(printf '\\%03o' "$flags")"
		printf '\040'				# max depth 32
		le32 "$4"; le32 "$page"; le32 "$3"
		printf '\010\020\024\002'		# sp, bp, build-id max 20, shdr 2
		le32 "$eh"; le16 64
		for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
			le32 $((text + 64 * i + 5))	# words in its text
		done
		le32 "$tail"; le32 $ELF_HEAD
		head -c $ELF_HEAD "$img"
		[ "$5" = 0 ] || dd if="$img" bs=65536 iflag=skip_bytes,count_bytes \
			skip="$tail" count=$ELF_MAX_TAIL status=none
	} >"seeds/elf/$6"
}
elf_seeds() {
	img=$(mktemp)
	objects | while read -r f a; do
		b=$(basename "$f")
		image "$f" "$img" || continue
		text=$(segoff "$f" TEXT)
		eh=$(segoff "$f" GNU_EH_FRAME)
		# the first page only; as mapped; the .eh_frame_hdr page not
		# resident (and the frame-pointer fallback); tables with a pc
		# range and a row cache; mapped at the top of the address
		# space.
		elf_seed "$a" 0 256 0 0 "$b.$a.head" || true
		elf_seed "$a" 0 256 0 1 "$b.$a.elf" || true
		elf_seed "$a" $((1 | 4)) 1024 "$eh" 1 "$b.$a.unread" || true
		elf_seed "$a" $((4 | 16 | 32)) 4096 0 1 "$b.$a.cache" || true
		elf_seed "$a" 2 64 0 1 "$b.$a.top" || true
	done
	rm -f "$img"
}

# ---- run ---------------------------------------------------------------
status=0
for t in $targets; do
	case "$t" in
	cfi) build_target cfi; cfi_seeds; max_len=300000 ;;
	elf) build_target elf "$core/elfmem.c"; elf_seeds
	     max_len=$((96 + ELF_HEAD + ELF_MAX_TAIL)) ;;
	esac
	# Inputs that once failed, kept so every run replays them first.
	for c in "$here"/cases/"$t"-*; do	# bound: the files in cases/
		if [ -f "$c" ]; then cp "$c" "seeds/$t/"; fi
	done
	set +e
	"./fuzz_$t" -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 \
		-max_len="$max_len" -print_final_stats=1 -artifact_prefix="$t-" \
		-error_exitcode=1 \
		"corpus/$t" "seeds/$t" >"fuzz-$t.log" 2>&1
	rc=$?
	set -e
	echo "run.sh: fuzz_$t, $per s:"
	grep -E '^(#[0-9]+.*(INITED|DONE)|Done|stat::)' "fuzz-$t.log" || true
	if [ $rc -ne 0 ]; then
		tail -n 30 "fuzz-$t.log"
		echo "run.sh: fuzz_$t failed (exit $rc); see $build/fuzz-$t.log and $t-crash-*" >&2
		status=1	# not 77 (libFuzzer's default): that is "no clang"
	fi
done
exit $status
