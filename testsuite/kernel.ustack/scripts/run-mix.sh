#!/bin/sh
# kernel.ustack/profile.exp: the mix of processes that timer.profile samples
# (started without -d or --ldd), run for SECONDS; just before they are
# killed, their maps and vdso are copied to OUTDIR for the oracle.
#   run-mix.sh OUTDIR SECONDS
# The test programs: the build directory's (PROGS, as the caller sees it).
b=${PROGS:-/src/testsuite/kernel.ustack/build}
out=${1:?usage: run-mix.sh OUTDIR SECONDS}
t=${2:-6}
rm -rf "$out"
mkdir -p "$out"
# sort's temporary files: its own directory, removed at the end.
tmpd=$(mktemp -d /tmp/run-mix.XXXXXX)
: > "$out/pids"
$b/mix-m64 &
echo "$! mix-m64" >> "$out/pids"
$b/mix-m32 &
echo "$! mix-m32" >> "$out/pids"
# A 16 MiB buffer: enough lines per sort for sort to start a second thread.
$b/mixhelper lines | sort -S 16M --parallel=2 -T "$tmpd" > /dev/null &
echo "$! sort" >> "$out/pids"
$b/mixhelper lines | gzip -6 > /dev/null &
echo "$! gzip" >> "$out/pids"
python3 -c '
def inner(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def outer():
    while True:
        inner(20000)
        sorted(str(i) for i in range(2000))
outer()
' &
echo "$! python3" >> "$out/pids"
sleep "$t"
while read -r pid kind; do
	$b/mixhelper snap "$pid" "$out" || echo "run-mix: no maps of $kind $pid" >&2
done < "$out/pids"
while read -r pid kind; do
	kill -9 "$pid" 2>/dev/null
done < "$out/pids"
wait
rm -rf "$tmpd"
exit 0
