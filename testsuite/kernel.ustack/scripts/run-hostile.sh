#!/bin/sh
# The hostile processes of hostile.exp, all at once, for SECONDS each:
# every kind of hostile tables (progs/hostile.c) in both ABIs, and
# MUTANTS mutants per ABI (the insns tables with random bytes changed).
#   run-hostile.sh BUILD SECONDS MUTANTS
b=${1:?} secs=${2:?} mutants=${3:?}
for abi in m64 m32; do
	for kind in scan insns exprs; do
		$b/hostile-$abi $kind "$secs" &
	done
	seed=1
	while [ "$seed" -le "$mutants" ]; do	# bound: MUTANTS
		$b/hostile-$abi mutant "$secs" "$seed" &
		seed=$((seed + 1))
	done
done
wait
echo "run-hostile: done"
