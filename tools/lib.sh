# tools/lib.sh: what every stap-unwind tool shares, sourced by each after
# it sets `tool` (its name) and `tooldir` (where this file and the tools'
# stap programs are).  As bcc's tools share one library: the option
# checks, finding stap, running a stap program, and one exit-status rule:
#
#   0  success
#   1  stap or its run failed: a compile error, an error in a probe (an
#      "ERROR:" line: stap's own status does not say so), a process that
#      is gone
#   2  a usage error: an unknown option, a missing argument, a bad number
#
# A failure prints one line on stderr, "TOOL: PROBLEM"; a tool run by
# another in its place (stap-unwind-profile runs stap-unwind-stackcount)
# speaks under the other's name, which STAP_UNWIND_TOOL gives.
#
# A tool's stap program (tools/NAME.stp) takes its parameters as
# arguments: the few the language needs as constants (a probe point, an
# array's size) as $1, $2, ...; the others as globals, -G NAME=VALUE.
#
# User frames are named in user space as they are printed: the session
# prints them in the explicit form, as tokens, and its output goes through
# the namer, stap-unwind-symbolize --stream (symbolize/filter.h), which
# names them from the objects' symbol tables, their debug files and the
# processes' perf maps (docs/symbols.md).
#
# Stacks are taken --depth frames deep (DEPTH_DEFAULT, at most DEPTH_MAX).

# shellcheck shell=sh disable=SC2154	# tool, tooldir: the sourcing tool's
tool=${STAP_UNWIND_TOOL:-$tool}

# usage_error MESSAGE: the usage error, on one line; exit 2.
usage_error() {
	echo "$tool: $* (see $tool --help)" >&2
	exit 2
}

# need_value ARGC OPTION: OPTION, with ARGC arguments left (its own
# included), has its value after it.
need_value() {
	[ "$1" -ge 2 ] || usage_error "$2 needs a value"
}

# --depth: how many frames of a stack are taken.  bcc and perf take 127;
# DEPTH_MAX bounds what a probe prints of one new stack (and the stack
# table's memory: tapset/stack_id.stp).
# shellcheck disable=SC2034	# used by the tools that source this file
DEPTH_DEFAULT=127 DEPTH_MAX=1024

# depth_defines DEPTH: stap's options for stacks of DEPTH frames: the
# frames kept (MAXBACKTRACE), and the statements a probe may run
# (MAXACTION, default 1000): a new stack is printed frame by frame.
depth_defines() {
	echo "-DMAXBACKTRACE=$1 -DMAXACTION=$((1000 + 16 * $1))"
}

# number WHAT VALUE [MIN [MAX]]: VALUE is a decimal number from MIN
# (default 0) to MAX (default 999999999), else a usage error.
number() {
	case $2 in
	'' | *[!0-9]*) usage_error "$1 takes a number, not '$2'" ;;
	esac
	# Longer than 9 digits is beyond MAX, and beyond what test(1) compares.
	[ ${#2} -le 9 ] && [ "$2" -ge "${3:-0}" ] && [ "$2" -le "${4:-999999999}" ] ||
		usage_error "$1 $2: not from ${3:-0} to ${4:-999999999}"
}

# find_namer: the command line of the namer: $STAP_UNWIND_SYMBOLIZE (split
# on spaces: the tests give one that runs it in the stapvm guest, where
# the traced processes' files are), else stap-unwind-symbolize beside the
# tool (both are installed in one directory), else on PATH.
find_namer() {
	if [ -n "${STAP_UNWIND_SYMBOLIZE:-}" ]; then
		echo "$STAP_UNWIND_SYMBOLIZE"
	elif [ -x "$(dirname "$0")/stap-unwind-symbolize" ]; then
		echo "$(dirname "$0")/stap-unwind-symbolize"
	elif command -v stap-unwind-symbolize >/dev/null; then
		echo stap-unwind-symbolize
	else
		echo "$tool: cannot find stap-unwind-symbolize, which names the frames (or set STAP_UNWIND_SYMBOLIZE)" >&2
		exit 1
	fi
}

# run_stap PROGRAM ARGS...: run the tool's stap program PROGRAM (a file
# of $tooldir) with ARGS, stap's options and then the program's arguments
# ($1 ...), by $STAP_UNWIND: the command that runs stap, split on spaces
# (the tests give "vm/stapvm stap"), else the stap-unwind wrapper beside
# the tool, else stap-unwind on PATH.  The program goes to stap as text
# (-e), so a stap that runs elsewhere (stapvm's, in its tree) needs no
# path of this machine.  Its output goes through the namer, with the
# options in $namer_options, unless that is "off" (a raw form, named
# later), and then through the command in $after, if the tool sets one.
# Exits with the rule's status.
run_stap() {
	program=$tooldir/$1
	shift
	[ -r "$program" ] || { echo "$tool: cannot read its stap program $program" >&2; exit 1; }
	if [ -z "${STAP_UNWIND:-}" ]; then
		STAP_UNWIND=$(dirname "$0")/stap-unwind
		[ -x "$STAP_UNWIND" ] || STAP_UNWIND=stap-unwind
	fi
	namer=
	[ "${namer_options-}" = off ] || namer=$(find_namer) || exit 1
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$tool.XXXXXX") || { echo "$tool: cannot make a temporary directory" >&2; exit 1; }
	trap 'rm -rf "$tmp"' EXIT
	# Ctrl-C goes to stap too, which then prints what it has and ends:
	# this shell waits for it, to report its messages and status, and
	# what reads stap's output ignores it, to pass that on.
	trap : INT
	# shellcheck disable=SC2086	# STAP_UNWIND, namer: command lines
	{ $STAP_UNWIND -e "$(cat "$program")" "$@" 2>"$tmp/err"; echo $? >"$tmp/stap"; } |
	{
		trap '' INT
		if [ -n "$namer" ]; then
			$namer --stream --name "$tool" ${namer_options-}
			echo $? >"$tmp/namer"
		else
			cat
		fi
	} | { trap '' INT; ${after:-cat}; }
	trap - INT
	status=$(cat "$tmp/stap" 2>/dev/null) || status=1
	problem=$(stap_problem "$status" "$tmp/err")
	if [ -n "$problem" ]; then
		echo "$tool: $problem" >&2
		exit 1
	fi
	cat "$tmp/err" >&2
	# The namer says why on stderr, under the tool's name.
	[ -z "$namer" ] || [ "$(cat "$tmp/namer" 2>/dev/null)" = 0 ] || exit 1
	exit 0
}

# stap_problem STATUS ERRFILE: what went wrong in a stap run that ended
# with STATUS and wrote ERRFILE, on one line; nothing if nothing did.
# stap's error messages (the first three, and how many more), each
# without where in the program it arose; else its first line; else its
# status.
stap_problem() {
	awk -v status="$1" '
	function add(m) {
		if (m == last)
			return
		last = m
		if (++n <= 3)
			line = n > 1 ? line "; " m : m
	}
	{ sub(/ near [^:]* at <input>:[0-9:]*.*$/, ""); sub(/ at <input>:[0-9:]*.*$/, "") }
	/^ERROR: / { add(substr($0, 8)); next }
	/^[a-z ]*error: / { add($0); next }
	first == "" && /./ { first = $0 }
	END {
		if (n > 3)
			line = line "; and " (n - 3) " more"
		if (n)
			print line
		else if (status != 0)
			print first != "" ? first : "stap ended with status " status
	}' "$2"
}
