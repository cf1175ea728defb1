#!/bin/sh
# kernel.ustack/stapusr.exp, in the guest as root: what an administrator
# and two users do.
#   run-stapusr.sh BUILD MODULE.ko
# The administrator installs MODULE.ko (compiled with --privilege=stapusr)
# where staprun lets members of the stapusr group load it,
# /lib/modules/$(uname -r)/systemtap/ (here a tmpfs, so that the tree keeps
# nothing).  User "bob" (uid 4002) runs tracking processes and a busy loop;
# user "alice" (uid 4001, in group stapusr) runs her own, then staprun.
# The script (scripts/stapusr.stp) exits by itself.  Printed: the
# module's output, then "P OWNER PID" for each process started here, and
# "N OWNER COUNT" for the processes whose euid is ALICE's or BOB's, counted
# while the module runs.
set -u
build=$1 ko=$2
alice=4001 bob=4002
stapusr=$(getent group stapusr | cut -d: -f3)
moddir=/lib/modules/$(uname -r)/systemtap
out=/tmp/stapusr.out
as() { uid=$1; shift; setpriv --reuid=$uid --regid=$uid --clear-groups "$@"; }

mkdir -p "$moddir" && mount -t tmpfs -o mode=0755 tmpfs "$moddir" || exit 1
cp "$ko" "$moddir/" || exit 1
name=$(basename "$ko" .ko)

pids=""
start() { owner=$1; shift; "$@" >/dev/null 2>&1 & pids="$pids $!"; echo "P $owner $!"; }
start bob as $bob "$build/tracking-m64-O2-nofp" many 20
start bob as $bob "$build/tracking-m64-O2-nofp" loop 60
start bob as $bob "$build/tracking-m32-O2-nofp" loop 60
start bob as $bob sh -c 'while :; do :; done'
start alice as $alice "$build/tracking-m64-O2-nofp" loop 60
start alice as $alice "$build/tracking-m32-O2-nofp" loop 60
start alice as $alice sh -c 'while :; do :; done'
sleep 1

rm -f "$out"
setpriv --reuid=$alice --regid=$alice --groups=$stapusr staprun -o "$out" "$name" &
srun=$!
count() { ps -e -o euid= | awk -v u=$1 '$1 == u { n++ } END { print n + 0 }'; }
na=0 nb=0
# bound: the script ends itself after a few seconds; 60 polls at most.
for i in $(seq 60); do
	kill -0 $srun 2>/dev/null || break
	a=$(count $alice); b=$(count $bob)
	[ "$a" -gt "$na" ] && na=$a
	[ "$b" -gt "$nb" ] && nb=$b
	sleep 0.5
done
wait $srun
rc=$?
cat "$out"
echo "N alice $na"
echo "N bob $nb"
echo "staprun $rc"
kill $pids 2>/dev/null
pkill -u $bob; pkill -u $alice
wait
umount "$moddir"
