# Sourced by the scripts that drive progs/snapthreads.c in the guest
# (scripts/run-snap.sh, scripts/run-snapstall.sh, bench/snapshot-guest.sh);
# the caller defines die, and seq (0) if it asks for snapshots.
#
# snapthreads_start PROG NTHREADS NSPIN FIFO OUT SECONDS: run PROG (a
# snapthreads build) in the background with its output in OUT, wait at most
# SECONDS until it prints ready (sets pid; its own variables are st_*), then open FIFO as fd 3 (its
# control thread's open() returns and it blocks in read()) and let it
# settle for a second.
snapthreads_start() {
	st_prog=$1 st_n=$2 st_spin=$3 st_fifo=$4 st_out=$5 st_secs=$6
	rm -f "$st_fifo" && mkfifo "$st_fifo" || die "mkfifo $st_fifo"
	"$st_prog" run "$st_n" "$st_spin" "$st_fifo" >"$st_out" 2>&1 &
	pid=$!
	st_i=0
	until grep -q '^ready ' "$st_out"; do	# bound: SECONDS * 10 polls
		st_i=$((st_i + 1))
		[ -d /proc/$pid ] || die "${st_prog##*/} ($st_n threads) died: $(tail -3 "$st_out")"
		[ $st_i -le $((st_secs * 10)) ] || die "${st_prog##*/} ($st_n threads) not ready in $st_secs s"
		sleep 0.1
	done
	exec 3>"$st_fifo"
	sleep 1
}

# snapthreads_snap PID DONE INTERVAL POLLS: ask for the next snapshot of PID
# (seq + 1) with a kill -0, which the caller's stap script takes as a
# request, and wait until that script touches DONE-SEQ, polling every
# INTERVAL seconds at most POLLS times.
snapthreads_snap() {
	seq=$((seq + 1))
	kill -0 "$1" 2>/dev/null
	st_i=0
	while [ ! -e "$2-$seq" ]; do	# bound: POLLS polls
		st_i=$((st_i + 1))
		[ $st_i -le "$4" ] || die "snapshot #$seq of $1 never finished"
		sleep "$3"
	done
}
