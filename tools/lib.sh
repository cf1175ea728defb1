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

# run_stap PROGRAM ARGS...: run the tool's stap program PROGRAM (a file
# of $tooldir) with ARGS, stap's options and then the program's arguments
# ($1 ...), by $STAP_UNWIND: the command that runs stap, split on spaces
# (the tests give "vm/stapvm stap"), else the stap-unwind wrapper beside
# the tool, else stap-unwind on PATH.  The program goes to stap as text
# (-e), so a stap that runs elsewhere (stapvm's, in its tree) needs no
# path of this machine.  Exits with the rule's status.
run_stap() {
	program=$tooldir/$1
	shift
	[ -r "$program" ] || { echo "$tool: cannot read its stap program $program" >&2; exit 1; }
	if [ -z "${STAP_UNWIND:-}" ]; then
		STAP_UNWIND=$(dirname "$0")/stap-unwind
		[ -x "$STAP_UNWIND" ] || STAP_UNWIND=stap-unwind
	fi
	err=$(mktemp "${TMPDIR:-/tmp}/$tool.XXXXXX") || { echo "$tool: cannot make a temporary file" >&2; exit 1; }
	trap 'rm -f "$err"' EXIT
	# Ctrl-C goes to stap too, which then prints what it has and ends:
	# this shell waits for it, to report its messages and status.
	trap : INT
	# shellcheck disable=SC2086	# STAP_UNWIND is a command line
	$STAP_UNWIND -e "$(cat "$program")" "$@" 2>"$err"
	status=$?
	trap - INT
	problem=$(stap_problem "$status" "$err")
	if [ -n "$problem" ]; then
		echo "$tool: $problem" >&2
		exit 1
	fi
	cat "$err" >&2
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
