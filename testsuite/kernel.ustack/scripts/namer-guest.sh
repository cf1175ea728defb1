#!/bin/sh
# The tools' namer in the stapvm guest, for the kernel tests: the traced
# processes' files and perf maps (/tmp of the guest) are there.  The tools
# run it as STAP_UNWIND_SYMBOLIZE="sh namer-guest.sh STAPVM HOSTDIR
# GUESTDIR"; stapvm's guest command takes no standard input, so the
# session's output is kept in HOSTDIR (GUESTDIR in the guest: the build
# directory), and named there when it has ended.
#   namer-guest.sh STAPVM HOSTDIR GUESTDIR NAMER-ARGS...
stapvm=$1 hostdir=$2 guestdir=$3
shift 3
in=$(mktemp "$hostdir/namer-in.XXXXXX") || exit 1
trap 'rm -f "$in"' EXIT
cat >"$in"
# Naming a profile of python3 (thousands of frames, libpython's symbols)
# under TCG beside three other guests took more than stapvm's default
# 300 s in a CI rehearsal: 900.
STAPVM_TIMEOUT=900 "$stapvm" guest sh -c 'in=$1; shift; exec "$0" "$@" <"$in"' \
	"$guestdir/symbolize/stap-unwind-symbolize" "$guestdir/${in##*/}" "$@"
