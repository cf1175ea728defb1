#!/bin/sh
# The soak's churn (soak.exp): PROCS processes per ABI of progs/soak.c,
# all at once, for SECONDS each.   run-soak.sh BUILD SECONDS PROCS
b=${1:?} secs=${2:?} procs=${3:?}
for abi in m64 m32; do
	i=0
	while [ "$i" -lt "$procs" ]; do		# bound: PROCS
		$b/soak-$abi "$secs" $b/libsoak-$abi.so &
		i=$((i + 1))
	done
done
wait
echo "run-soak: done"
