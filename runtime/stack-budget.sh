#!/bin/sh
# The unwinder's kernel stack budget in the runtime as stap builds it: the
# core's check (unwind/kbuild/check.sh) sees the core under a stand-in
# host; this one compiles a real module (stap -p4, nothing is loaded) with
# gcc's call graph and sums the chain below uw_step through the runtime's
# own find_tables (stock/unwind.c: the table sources, VMA tracking, the
# ELF scan) and read_mem.  Same limits: 1 KiB for the deepest chain, 512
# bytes for a frame.  About 3 minutes.
#
#   stack-budget.sh [-r RELEASE] [--as-old-kernel] OVERLAY [STAP-OPTIONS...]
#
# RELEASE: the kernel to build for (default: the tree's own, in /boot).
# --as-old-kernel: as if the kernel lacked the features it may lack
# (stap-unwind/features.h): the build of the fallbacks (the compile
# matrix, testsuite/unit.core/matrix.exp).  Meant to run inside the
# stapvm target tree, with the overlay `make` generated, e.g.
#   vm/stapvm tree sh /src/runtime/stack-budget.sh /src/runtime-overlay
# Output and exit status as check.sh's: "stack budget: OK" or
# "stack budget: FAILED", exit 0, 1 (stap failed) or 3 (over the budget).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
rel=$(ls /boot/vmlinuz-* 2>/dev/null | head -n 1)
rel=${rel#/boot/vmlinuz-}
old=no
while :; do
	case ${1:-} in
	-r) rel=${2:?-r needs a release}; shift 2 ;;
	--as-old-kernel) old=yes; shift ;;
	*) break ;;
	esac
done
overlay=${1:?usage: $0 [-r RELEASE] [--as-old-kernel] OVERLAY [STAP-OPTIONS...]}
shift
# The kernel's features, as the stap-unwind wrapper passes them.  As on an
# older kernel: only those that are its interface (a changed signature
# cannot be left out), and the preprocessor's seen as absent.
kflags=$(sh "$here/kfeatures.sh" "$rel") || exit 1
# The host's return-address hook: stap-unwind/uretprobe.c's, where the
# kernel's uretprobe instances are readable.
retaddr=stp_uw_return_address
if [ $old = yes ]; then
	kflags="$(echo " $kflags " | sed 's/ -DSTP_UW_KF_\(MMAP_LOCK_SPECULATE\|MM_LOCK_SEQCOUNT\|WQ_PERCPU\|URETPROBE_INSTANCES\|URETPROBE_TRAMPOLINE_VADDR\)\b//g')"
	kflags="$kflags -DSTP_UW_NO_FOR_EACH_VMA -DSTP_UW_NO_ACCESS_OK"
fi
case " $kflags " in *" -DSTP_UW_KF_URETPROBE_INSTANCES "*) ;; *) retaddr= ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A user backtrace, its stop reason and deferral: every unwinder entry;
# and the naming of user addresses (a frame, a build-id, a file offset).
# Besides, what else of the overlay a script may pull in, so that one
# build covers it all: uprobes and uretprobes (stock's inode uprobes,
# with the overlay's adapter where one applies), a sampler, kernel
# stacks, snapshots, stack ids.
printf 'int f(int x) { return x + 1; }\nint main(void) { return f(0); }\n' >"$work/prog.c"
gcc -g -O0 -o "$work/prog" "$work/prog.c"
cat >"$work/budget.stp" <<EOF
probe syscall.getdents {
	print_ubacktrace()
	printf("%s\\n", ubacktrace_stop())
	ubacktrace_defer(1)
	printf("%s %d\\n", ubuildid(uaddr()), umodfileoffset(uaddr()))
}
probe process("$work/prog").function("f") { print_ubacktrace(); print_kubacktrace() }
probe process("$work/prog").function("f").return { printf("%d\\n", ubacktrace_id()) }
probe timer.profile { if (pid()) printf("%d %d\\n", ubacktrace_id(), backtrace_id()) }
probe begin { ustack_snapshot_raw(0) }
EOF
# -m: stap caches no named module, so it is compiled (and the graph
# written) every time; its autoconf probes stay cached.
if ! (cd "$work" && stap -p4 -k -r "$rel" -m uw_budget -R "$overlay" \
	-I "$here/../tapset" -B KCFLAGS=-fcallgraph-info=su $kflags "$@" \
	budget.stp >"$work/stap.out" 2>"$work/stap.err"); then
	cat "$work/stap.err"
	echo "stack budget: FAILED (stap -p4 failed)"
	exit 1
fi
tmp=$(sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' "$work/stap.err")
[ -n "$tmp" ] && [ -d "$tmp" ] || { echo "stack budget: FAILED (no stap build directory)"; exit 1; }
mv "$tmp" "$work/build"

# The runtime's indirect calls below uw_step: the host's callbacks
# (stp_uw_ops; return_address where the kernel has it), the table
# sources in order, the ELF reader's read source (the process's memory
# through read_mem; usym_elf.h's two are also reached by name); the CFI
# walk's two visitors (a scan's, an index build's); no trace hook.  Below the naming of user addresses
# (stp_uw_snprint_addr, stp_uw_usym_lookup), stock's printing: a kernel
# function behind ibt_wrapper (not in the graph, as copy_from_user_nofault
# is not) and the relay transport's sub-buffer callback.
if python3 "$here/unwind/kbuild/stack_budget.py" --frame-limit 512 \
	--chain-limit 1024 --entry uw_step --entry uw_step_many \
	--entry stp_uw_snprint_addr \
	--entry stp_uw_usym_lookup \
	--src / --src "$overlay" \
	--indirect find_tables=stp_uw_find_tables \
	--indirect read_mem=stp_uw_read_mem \
	--indirect return_address=$retaddr \
	--indirect stp_uw_table_sources=stp_uw_tables_vdso,stp_uw_tables_dmod,stp_uw_tables_tracked,stp_uw_tables_stock_map \
	--indirect read=uw_elfmem_read_host,stp_uw_uelf_read,stp_uw_file_read \
	--indirect trace= \
	--indirect visit=uw_cfi_covers_visit,uw_cfi_index_visit \
	--indirect ibt_wrapper= \
	--indirect subbuf_start=__stp_relay_subbuf_start_callback \
	"$work"/build/uw_budget*.ci; then
	echo "stack budget: OK"
else
	echo "stack budget: FAILED (over a limit, or the graph could not be summed: see above)"
	exit 3
fi
