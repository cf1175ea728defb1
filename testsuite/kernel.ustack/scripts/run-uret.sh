#!/bin/sh
# Both modes of every uret-* variant (for uret.stp), from RUN (copies
# outside /src: uprobes do not fire in files on the guest's 9p checkout).
# DEPTH: the recursion's argument (its calls: DEPTH + 1).
run=${RUN:?RUN: the directory of the copies}
for abi in m64 m32; do
	for opt in O0 O2; do
		for fp in fp nofp; do
			"$run/uret-$abi-$opt-$fp" c
			"$run/uret-$abi-$opt-$fp" r "${DEPTH:-6}"
		done
	done
done
