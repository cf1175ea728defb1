#!/bin/sh
# cache-time.sh FILE...
# cache-time.sh --hash HEX FILE...
#
# SystemTap keys its caches (modules, autoconf results, tracepoint queries)
# on the sizes and modification times of what a build reads: the runtime's
# directories, and each file it takes symbols from (-d, process("PATH")),
# not on their contents.  This gives each FILE a modification time derived
# from its own contents (or, with --hash, from HEX, a hash of whatever the
# caller says FILE stands for), so that the same bytes built again, in
# another checkout or after a rebuild, hit the cache entries made before,
# and changed bytes miss them.  The times lie in 2001-2010, in the past of
# every make rule.
set -eu

# time_of HEX: seconds since the epoch for a hash's first 28 bits.
time_of() { echo $((1000000000 + 0x$(echo "$1" | cut -c1-7))); }

if [ "${1:-}" = --hash ]; then
	t=$(time_of "${2:?--hash needs a hex string}")
	shift 2
	[ $# -eq 0 ] || touch -d "@$t" "$@"
	exit 0
fi
for f in "$@"; do	# bound: the files named
	touch -d "@$(time_of "$(sha256sum "$f")")" "$f"
done
