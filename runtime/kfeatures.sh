#!/bin/sh
# kfeatures.sh [--cache DIR] [--stap STAP] RELEASE|KDIR
#
# What the kernel RELEASE offers the stap-unwind runtime where neither its
# headers' macros nor __has_include can tell (an inline function, an enum,
# a changed signature), found as stock SystemTap's autoconf tests find
# theirs: by compiling a small file per feature (kfeatures/NAME.c) against
# the kernel's build tree, /lib/modules/RELEASE/build.  Prints the stap
# options that pass the result to the runtime, on one line:
#
#     -DSTP_UW_KFEATURES -DSTP_UW_KF_NAME ...
#
# (NAME upper-cased, one per feature the kernel has), and, given the stock
# translator STAP, the kbuild options (-B) that its own builds need on
# this kernel (see "The translator" below).  The runtime refuses
# to build without STP_UW_KFEATURES, so that no module guesses.  The answer
# is cached per release, build tree and test set in DIR (default
# $XDG_CACHE_HOME/stap-unwind, else ~/.cache/stap-unwind): the first call
# for a kernel takes a kbuild run (seconds), later ones nothing.
#
# Exit: 0; 1 with one line on stderr when the kernel cannot be built for
# (no build tree) or lacks what stap-unwind needs (an x86_64 kernel with
# kprobes, uprobes and kallsyms).
set -eu

me=stap-unwind
cache=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/stap-unwind
stap=
while [ $# -gt 1 ]; do
	case $1 in
	--cache) cache=${2:?--cache needs a directory} ;;
	--stap) stap=$(command -v "${2:?--stap needs a program}") || stap= ;;
	*) break ;;
	esac
	shift 2
done
[ $# = 1 ] || { echo "usage: $0 [--cache DIR] [--stap STAP] RELEASE|KDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
tests=$here/kfeatures
case $1 in
*/*)	# a build tree, as stap -r takes one
	kdir=$1
	rel=$(cat "$kdir/include/config/kernel.release" 2>/dev/null) || rel=$(echo "$kdir" | tr / _) ;;
*)	rel=$1 kdir=/lib/modules/$1/build ;;
esac

[ -f "$kdir/Makefile" ] && [ -f "$kdir/.config" ] || {
	echo "$me: no kernel build tree for $rel at $kdir (install its headers: linux-headers-$rel)" >&2
	exit 1
}
for c in CONFIG_X86_64 CONFIG_KPROBES CONFIG_UPROBES CONFIG_KALLSYMS; do
	grep -q "^$c=y" "$kdir/.config" || {
		echo "$me: kernel $rel has no $c: stap-unwind needs an x86_64 kernel with kprobes, uprobes and kallsyms" >&2
		exit 1
	}
done

# The key: the release, its build tree as installed, and the tests.
key=$( (echo "$rel"; ls -l --time-style=+%s "$kdir/.config" "$kdir/Makefile" 2>/dev/null | awk '{ print $5, $6 }';
	cat "$tests"/*.c) | cksum | cut -d' ' -f1)
answer=$cache/kfeatures-$rel-$key

# The kernel's features: each test that compiles is one it has.
kernel_flags() {
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	objs=
	for t in "$tests"/*.c; do
		n=${t##*/}; n=${n%.c}
		cp "$t" "$work/$n.c"
		objs="$objs $n.o"
	done
	echo "obj-m :=$objs" >"$work/Kbuild"
	# -k: every test is tried.
	make -k -C "$kdir" M="$work" $objs >"$work/kbuild.log" 2>&1 || true
	[ -n "$(ls "$work"/*.o 2>/dev/null)" ] || grep -q 'error:' "$work/kbuild.log" || {
		echo "$me: could not run kbuild for $rel in $kdir:" >&2
		tail -n 5 "$work/kbuild.log" >&2
		return 1
	}
	flags=-DSTP_UW_KFEATURES
	for o in $objs; do
		n=${o%.o}
		[ -f "$work/$o" ] && flags="$flags -DSTP_UW_KF_$(echo "$n" | tr '[:lower:]' '[:upper:]')"
	done
	mkdir -p "$cache"
	echo "$flags" >"$answer.tmp.$$"
	mv "$answer.tmp.$$" "$answer"
}
[ -f "$answer" ] || kernel_flags || exit 1
flags=$(cat "$answer")

# The translator.  Its tracepoint query (pass 2 of every script that
# probes kernel.trace(), the syscall_any tapset among them) is a module of
# its own, built with -Werror, that defines the twelve-argument
# COUNT_ARGS().  A translator that defines it without asking whether the
# kernel's headers already did (SystemTap 5.1 and older) builds no query
# on a kernel whose <linux/tracepoint.h> brings a wider one (Linux 6.7 and
# later): "COUNT_ARGS redefined", and no tracepoint resolves.  Its modules
# then build with -Wno-error after -Werror (kbuild puts CFLAGS_MODULE
# last): the redefinition, which the query's own uses expect, stays a
# warning.  The translator is read, not its version: the guard is in its
# text.
case " $flags " in
*" -DSTP_UW_KF_TRACEPOINT_WIDE_COUNT_ARGS "*)
	if [ -n "$stap" ] && ! grep -aq '#ifndef COUNT_ARGS' "$stap"; then
		flags="$flags -B CFLAGS_MODULE=-Wno-error"
	fi ;;
esac
echo "$flags"
