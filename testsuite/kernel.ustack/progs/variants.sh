# Sourced by the kernel.ustack build scripts: the matrix of test program
# variants each of them builds.
#   for_each_variant FUNC: calls FUNC "CFLAGS" VARIANT for every ABI x
#   optimisation x frame-pointer choice, VARIANT naming it (m64-O0-fp ...).
for_each_variant() {
	for abi in m64 m32; do
		for opt in O0 O2; do
			for fp in fp nofp; do
				case $fp in
				fp) fpf=-fno-omit-frame-pointer ;;
				nofp) fpf=-fomit-frame-pointer ;;
				esac
				"$1" "-$abi -$opt $fpf" "$abi-$opt-$fp"
			done
		done
	done
}
