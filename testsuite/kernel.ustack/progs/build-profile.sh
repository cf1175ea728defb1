#!/bin/sh
# Build what kernel.ustack/profile.exp runs (in the stapvm tree, which is the
# guest's root: gcc, gcc-multilib, libdw-dev):  build-profile.sh OUTDIR
#   mix-m64, mix-m32   the sampled test program (progs/mix.c), -O2, no frame pointer
#   mixhelper          input generator and maps/vdso snapshotter (progs/mixhelper.c)
#   profile-oracle     the libdwfl judge (testsuite/oracle/profile-oracle.c)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-profile.sh OUTDIR}
mkdir -p "$out"
for abi in m64 m32; do
	gcc -$abi -O2 -fomit-frame-pointer -g -Wall -pthread -o "$out/mix-$abi" "$here/mix.c"
done
gcc -O2 -Wall -o "$out/mixhelper" "$here/mixhelper.c"
gcc -O2 -g -Wall -Wextra -o "$out/profile-oracle" "$here/../../oracle/profile-oracle.c" -ldw -lelf
echo "built: mix-m64 mix-m32 mixhelper profile-oracle"
