#!/bin/sh
# Build the programs of kernel.ustack/upstream.exp (SystemTap's own test
# cases about user stacks and symbols, as behaviours; sources in
# upstream/), in the stapvm tree:  build-upstream.sh OUTDIR RUNDIR
# RUNDIR is where the guest runs them from (uprobes do not fire in files on
# the 9p checkout): libraries are found there through the rpath.
set -eu
src=$(cd "$(dirname "$0")" && pwd)/upstream
out=${1:?usage: build-upstream.sh OUTDIR RUNDIR}
run=${2:?usage: build-upstream.sh OUTDIR RUNDIR}
mkdir -p "$out"
cd "$out"

# sepdebug FILE: debuginfo moved to FILE.debug, found through a debuglink.
sepdebug() {
	objcopy --only-keep-debug "$1" "$1.debug"
	objcopy --strip-debug "$1"
	objcopy --add-gnu-debuglink="$1.debug" "$1"
}

# sys/sdt.h is installed for x86_64 only (multiarch include directory):
# the 32-bit builds see just that header, not the rest of that directory.
sdt=$(echo '#include <sys/sdt.h>' | gcc -M -x c - | tr ' \\' '\n\n' | grep '/sys/sdt.h$')
mkdir -p sdt-include/sys
for h in "$(dirname "$sdt")"/sdt*.h; do ln -sf "$h" sdt-include/sys/; done

for abi in m64 m32; do
	gcc -$abi -g -O0 -o chain-$abi "$src/chain.c"
	gcc -$abi -g -o vdsocall-$abi "$src/vdsocall.c"
	for o in O0 O2; do
		gcc -$abi -g -$o -fPIC -shared -o libhandlers-$abi-$o.so "$src/handlers_lib.c"
		gcc -$abi -g -$o -o handlers-$abi-$o "$src/handlers.c" -L. -lhandlers-$abi-$o \
			-Wl,-rpath,"$run"
	done
	for ld in dbg sep; do
		gcc -$abi -g -O3 -Isdt-include -fPIC -shared -o libexelib-$abi-$ld.so "$src/exelib_lib.c"
		[ $ld = sep ] && sepdebug libexelib-$abi-$ld.so
		for pie in pie nopie; do
			case $pie in pie) pf="-fPIE -pie" ;; *) pf="-fno-PIE -no-pie" ;; esac
			for ed in dbg sep; do
				e=exelib-$abi-$pie-$ed-lib$ld
				gcc -$abi -g -O3 -Isdt-include $pf -o $e "$src/exelib.c" -L. -lexelib-$abi-$ld \
					-Wl,-rpath,"$run"
				[ $ed = sep ] && sepdebug $e
			done
		done
	done
done
gcc -m64 -g -O0 -o callret-m64 "$src/callret.c"
g++ -m64 -g -o fileline-m64 "$src/fileline.cc"
echo "built: $(ls | tr '\n' ' ')"
