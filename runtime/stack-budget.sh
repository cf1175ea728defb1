#!/bin/sh
# The unwinder's kernel stack budget in the runtime as stap builds it: the
# core's check (unwind/kbuild/check.sh) sees the core under a stand-in
# host; this one compiles a real module (stap -p4, nothing is loaded) with
# gcc's call graph and sums the chain below uw_step through the runtime's
# own find_tables (stock/unwind.c: the table sources, VMA tracking, the
# ELF scan) and read_mem.  Same limits: 1 KiB for the deepest chain, 512
# bytes for a frame.  About 3 minutes.
#
#   stack-budget.sh OVERLAY [STAP-OPTIONS...]
#
# Meant to run inside the stapvm target tree, with the overlay `make`
# generated, e.g.
#   vm/stapvm tree sh /src/runtime/stack-budget.sh /src/runtime-overlay
# Output and exit status as check.sh's: "stack budget: OK" or
# "stack budget: FAILED", exit 0, 1 (stap failed) or 3 (over the budget).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
overlay=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A user backtrace, its stop reason and deferral: every unwinder entry;
# and the naming of user addresses (a frame, a build-id, a file offset).
cat >"$work/budget.stp" <<'EOF'
probe syscall.getdents {
	print_ubacktrace()
	printf("%s\n", ubacktrace_stop())
	ubacktrace_defer(1)
	printf("%s %d\n", ubuildid(uaddr()), umodfileoffset(uaddr()))
}
EOF
rel=$(ls /lib/modules | head -n 1)
# -m: stap caches no named module, so it is compiled (and the graph
# written) every time; its autoconf probes stay cached.
if ! (cd "$work" && stap -p4 -k -r "$rel" -m uw_budget -R "$overlay" \
	-I "$here/../tapset" -B KCFLAGS=-fcallgraph-info=su "$@" \
	budget.stp >"$work/stap.out" 2>"$work/stap.err"); then
	cat "$work/stap.err"
	echo "stack budget: FAILED (stap -p4 failed)"
	exit 1
fi
tmp=$(sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' "$work/stap.err")
[ -n "$tmp" ] && [ -d "$tmp" ] || { echo "stack budget: FAILED (no stap build directory)"; exit 1; }
mv "$tmp" "$work/build"

# The runtime's indirect calls below uw_step: the host's callbacks
# (stp_uw_ops), the table sources in order, the ELF reader's read source
# (the process's memory through read_mem; usym_elf.h's two are also
# reached by name); the CFI walk's two visitors (a scan's, an index
# build's); no trace hook.  Below the naming of user addresses
# (stp_uw_snprint_addr, stp_uw_usym_lookup), stock's printing: a kernel
# function behind ibt_wrapper (not in the graph, as copy_from_user_nofault
# is not) and the relay transport's sub-buffer callback.
if python3 "$here/unwind/kbuild/stack_budget.py" --frame-limit 512 \
	--chain-limit 1024 --entry uw_step --entry stp_uw_snprint_addr \
	--entry stp_uw_usym_lookup \
	--src / --src "$overlay" \
	--indirect find_tables=stp_uw_find_tables \
	--indirect read_mem=stp_uw_read_mem \
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
