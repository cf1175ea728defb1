#!/usr/bin/env python3
"""The code a walk runs, counted in distinct instructions, 64-byte lines
and 4 KiB pages: what a sampler's walk finds cold after a context switch
(on hardware, in the instruction cache and TLB; under TCG, its translated
blocks looked up again after each flush of the soft TLB).

    valgrind --tool=callgrind --dump-instr=yes --collect-atstart=no \\
        --toggle-collect=measure_ours --dump-after=uw_ours_unwind \\
        --callgrind-out-file=DIR/cg.%p \\
        bench/uw-bench --callgrind [--step-many] --only ours SNAPSHOTS
    bench/code-footprint.py CORE-LIBRARY DIR/cg.*

Each dump holds one walk (uw_ours_unwind).  CORE-LIBRARY
(runtime/unwind/libuwcore64.a) names the core's functions, so that the
core's share is told apart from the harness's.  Prints the medians a
walk, then the distinct instructions a walk of each function."""
import collections
import re
import statistics
import subprocess
import sys


def dump_order(path):
    m = re.search(r"-(\d+)$", path)
    return int(m.group(1)) if m else 0


def walks(paths):
    """Each dump with costs: {function: set of instruction addresses}.
    Names are compressed across the dumps of one run: "fn=(N) NAME"
    defines N the first time, in whichever dump that is."""
    names = {}
    position = re.compile(r"^(0x[0-9a-f]+|[+-]\d+|\*)\s")
    for path in sorted(paths, key=dump_order):	# bound: the dumps
        fn, addr, total = None, 0, 0
        per = collections.defaultdict(set)
        with open(path) as f:
            for line in f:	# bound: the dump's lines
                m = re.match(r"^(c?)fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
                if m:
                    if m.group(3):
                        names[m.group(2)] = m.group(3)
                    if not m.group(1):
                        fn = names.get(m.group(2), m.group(2))
                    continue
                if line.startswith("summary:"):
                    total = int(line.split()[1])
                    continue
                m = position.match(line)
                if m and fn is not None:
                    t = m.group(1)
                    if t.startswith("0x"):
                        addr = int(t, 16)
                    elif t != "*":
                        addr += int(t)
                    per[fn].add(addr)
        if total:
            yield total, per


def footprint(per, keep):
    addrs = [a for fn, s in per.items() if keep(fn) for a in s]
    return len(addrs), len({a >> 6 for a in addrs}), len({a >> 12 for a in addrs})


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: code-footprint.py CORE-LIBRARY CALLGRIND-DUMP...")
    nm = subprocess.run(["nm", sys.argv[1]], capture_output=True, text=True, check=True)
    core = {f[2] for f in (l.split() for l in nm.stdout.splitlines())
            if len(f) == 3 and f[1] in "tT"}
    runs = list(walks(sys.argv[2:]))
    if not runs:
        sys.exit("code-footprint.py: no dump with costs")
    print("%d walks" % len(runs))
    print("instructions run a walk: median %d" % statistics.median(t for t, _ in runs))
    for title, keep in (("all", lambda fn: True), ("core", lambda fn: fn in core)):	# bound: 2
        f = [footprint(per, keep) for _, per in runs]
        print("%s: distinct instructions %d, 64-byte lines %d, pages %d (medians a walk)"
              % (title, statistics.median(x[0] for x in f),
                 statistics.median(x[1] for x in f), statistics.median(x[2] for x in f)))
    by_fn = collections.Counter()
    for _, per in runs:
        for fn, s in per.items():
            by_fn[fn] += len(s)
    for fn, n in by_fn.most_common(20):	# bound: 20
        print("%8.1f  %s%s" % (n / len(runs), fn, "" if fn in core else "  (harness)"))


main()
