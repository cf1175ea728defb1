#!/bin/sh
# unit.tools/tools.exp: stands in for stap, as STAP_UNWIND="sh fake-stap.sh
# MODE ARGFILE" (a tool appends stap's arguments).
#   fake-stap.sh MODE ARGFILE STAP-ARGS...
# writes its STAP-ARGS into ARGFILE, one a line (-e's program between the
# lines "-e" and "--end of -e--"), then does what stap does in case MODE:
#   ok             output on stdout, a script's warning on stderr; status 0
#   probe-error    a probe's error(): its ERROR line and the lines stap
#                  adds; status 0, as stap gives it
#   compile-error  pass 2's messages of a probe point that does not exist;
#                  status 1
#   status         one message of its own (the stap-unwind wrapper's); status 1
#   silent         nothing; status 3
mode=$1 argfile=$2
shift 2
while [ $# -gt 0 ]; do		# bound: the arguments
	if [ "$1" = -e ]; then
		printf -- '-e\n%s\n--end of -e--\n' "$2"
		shift
	else
		printf '%s\n' "$1"
	fi
	shift
done >"$argfile"
case $mode in
ok)
	echo counted
	echo "WARNING: stackcount: 3 events were not counted" >&2
	exit 0 ;;
probe-error)
	cat >&2 <<'ERR'
ERROR: no process 42 near identifier 'error' at <input>:38:3 in probe begin
WARNING: Number of errors: 1, skipped probes: 0
Pass 5: run failed.  [man error::pass5]
ERR
	exit 0 ;;
compile-error)
	cat >&2 <<'ERR'
semantic error: while resolving probe point: identifier 'nosuch' at <input>:45:7
        source: probe nosuch.probe {
                      ^

semantic error: no match

Pass 2: analysis failed.  [man error::pass2]
ERR
	exit 1 ;;
status)
	echo "stap-unwind: cannot run /usr/bin/stap -V (is SystemTap installed?)" >&2
	exit 1 ;;
silent)
	exit 3 ;;
esac
echo "fake-stap.sh: no mode $mode" >&2
exit 99
