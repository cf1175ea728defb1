#!/bin/sh
# The tools' namer for the kernel tests: stap-unwind-symbolize run in the
# stapvm tree (the guest's root: its programs, libraries and debug files)
# on the host, natively.  Run in the guest under TCG, naming took most of
# the tools' time (a CI rehearsal: names.exp's i386 profile 340 s of 392,
# the python3 profile 395 s of 497).  The guest's /tmp, where the traced
# processes write their perf maps, is not in the tree: its perf maps are
# copied over first (owners and modes kept, for the namer's ownership
# rules), into a directory the namer sees as /tmp.  The tools run it as
# STAP_UNWIND_SYMBOLIZE="sh namer-tree.sh STAPVM HOSTDIR SRCDIR", HOSTDIR
# being the build directory and SRCDIR its path in the tree and guest
# (both see the checkout as /src).
#   namer-tree.sh STAPVM HOSTDIR SRCDIR NAMER-ARGS...
stapvm=$1 hostdir=$2 srcdir=$3
shift 3
work=$(mktemp -d "$hostdir/namer.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cat >"$work/in"
mkdir "$work/tmp"
# Only a guest that is up has a /tmp (status 0: up).
if "$stapvm" status >/dev/null 2>&1; then
	"$stapvm" guest sh -c 'cd /tmp && ! ls perf-*.map >/dev/null 2>&1 || tar -cf "$0" perf-*.map' \
		"$srcdir/${work##*/}/maps.tar" >/dev/null || exit 1
	[ ! -f "$work/maps.tar" ] || tar -C "$work/tmp" -xpf "$work/maps.tar" || exit 1
fi
"$stapvm" tree sh -c 'mount --bind "$0" /tmp && in=$1 && shift && exec "$@" <"$in"' \
	"$srcdir/${work##*/}/tmp" "$srcdir/${work##*/}/in" \
	"$srcdir/symbolize/stap-unwind-symbolize" "$@"
