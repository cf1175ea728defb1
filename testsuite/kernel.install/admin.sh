#!/bin/sh
# kernel.install/install.exp: run a command in the guest as an
# administrator of a machine with the package installed would: in a
# mount namespace of its own without the checkout (/src unmounted), from
# DIR, with a plain environment whose PATH holds no checkout.
#   admin.sh DIR CMD...
# First checks that the installed files are what runs: stap-unwind is
# /usr/bin/stap-unwind and its overlay is the package's, under /usr.
set -eu
if [ "${ADMIN_SH_INNER:-}" != 1 ]; then
	[ $# -ge 2 ] || { echo "usage: admin.sh DIR CMD..." >&2; exit 2; }
	# Copy this script out of the checkout before /src goes away.
	self=$(mktemp /tmp/admin.XXXXXX)
	cp "$0" "$self"
	exec env ADMIN_SH_INNER=1 unshare --mount --propagation private sh "$self" "$@"
fi
rm -f "$0"
dir=$1; shift
if mountpoint -q /src; then
	umount -l /src || { echo "admin.sh: cannot unmount /src" >&2; exit 2; }
fi
[ ! -e /src/vm/stapvm ] || { echo "admin.sh: the checkout is still visible at /src" >&2; exit 2; }
cd "$dir"
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
w=$(command -v stap-unwind) || { echo "admin.sh: no stap-unwind on PATH" >&2; exit 2; }
[ "$w" = /usr/bin/stap-unwind ] || { echo "admin.sh: stap-unwind is $w, not /usr/bin/stap-unwind" >&2; exit 2; }
rt=$(sed -n 's/^runtime=\${STAP_UNWIND_RUNTIME:-\(.*\)}$/\1/p' "$w")
[ "$rt" = /usr/share/stap-unwind/runtime ] && [ -f "$rt/.stap-unwind-overlay" ] ||
	{ echo "admin.sh: the wrapper's overlay is '$rt', not the package's /usr/share/stap-unwind/runtime" >&2; exit 2; }
exec env -i PATH="$PATH" HOME=/root LANG=C.UTF-8 TERM=dumb "$@"
