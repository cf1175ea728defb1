#!/usr/bin/env python3
"""The kernel stack budget of the unwinder: the deepest call chain from
each probe-context entry point, summed from gcc's own frame sizes.

    stack_budget.py --entry FN [--entry FN ...] [--src DIR ...]
                    [--indirect MEMBER=FN,FN... ...]
                    [--frame-limit N] [--chain-limit N] FILE.ci...

FILE.ci: what gcc -fcallgraph-info=su writes next to each object, a VCG
graph whose nodes are the functions as compiled (after inlining: gcc's
clones such as uw_step.constprop.0 count as uw_step) labelled with their
-fstack-usage figure ("336 bytes (static)", return address included on
x86), and whose edges are the calls.  Why not trust the compiler's
-Wframe-larger-than alone: it sees one frame, while a probe handler's
stack holds the whole chain, and the core's chain passes through the
host's callbacks (find_tables scans an ELF image).

--indirect: what an indirect call may reach.  gcc only says
"__indirect_call" at a source position; the source line there (found
under --src) names the pointer called, e.g. "c->ops->find_tables(" or
"stp_uw_table_sources[i](", and --indirect find_tables=uw_kcheck_find
says which functions it holds (the host's callbacks in struct
uw_host_ops).  MEMBER= with no function: never set in this build (the
trace hook).  An indirect call this does not resolve is an error, so no
chain escapes the sum unseen.  A callback that would call back into a
function already on the chain is not followed: the core never recurses.

Calls out of the graph (kernel functions: copy_from_user_nofault,
memcpy, __stack_chk_fail) count 0 bytes and are listed.  Exit status: 0
within the limits, 1 over a limit (the message names the chain or frame
and its size), 2 usage error (an entry point not found, an unbounded
dynamic frame, recursion).
"""
import argparse
import re
import sys

NODE = re.compile(r'^node: \{ title: "([^"]*)" label: "([^"]*)"')
EDGE = re.compile(r'^edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"'
                  r'(?: label: "([^"]*)")?')
# The called pointer at a call's position: "read_mem(" in
# "c->ops->read_mem(", "stp_uw_table_sources" in "stp_uw_table_sources[i](".
CALLEE = re.compile(r'(\w+)\s*(?:\[[^]]*\])?\s*\(')
SIZE = re.compile(r'(\d+) bytes \(([a-z,]+)\)')
INDIRECT = "__indirect_call"


def base(name):
    """uw_step.constprop.0.isra.0 -> uw_step (C names have no dots)."""
    return name.split(".", 1)[0]


def read_graph(paths):
    """{title: (name, where, size or None, kind)}, {title: [callee...]}"""
    nodes, edges = {}, {}
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:  # bound: the file's lines
                m = NODE.match(line)
                if m:
                    parts = m.group(2).split("\\n")
                    s = SIZE.search(m.group(2))
                    node = (parts[0], parts[1] if len(parts) > 1 else "",
                            int(s.group(1)) if s else None,
                            s.group(2) if s else "")
                    # A function defined in another object appears here
                    # without a size: keep the sized node of its own file.
                    if m.group(1) not in nodes or node[2] is not None:
                        nodes[m.group(1)] = node
                    continue
                m = EDGE.match(line)
                if m:
                    edges.setdefault(m.group(1), []).append(
                        (m.group(2), m.group(3) or ""))
    return nodes, edges


class Sources:
    """Source lines by the "file:line:col" of gcc's edge labels."""

    def __init__(self, dirs):
        self.dirs, self.lines = dirs, {}

    def _find(self, name):
        """name as given, else its longest tail found under a --src
        directory: "/src/runtime-overlay/unwind.c" (the build's path)
        is "runtime-overlay/unwind.c" of the checkout."""
        import os
        if os.path.isfile(name):
            return name
        parts = name.strip("/").split("/")
        for i in range(len(parts)):  # bound: the path's components
            for d in self.dirs:  # bound: the --src directories
                path = os.path.join(d, *parts[i:])
                if os.path.isfile(path):
                    return path
        return None

    def pointer_at(self, pos):
        """The name of the pointer called at pos, or None."""
        m = re.match(r'^(.*):(\d+):(\d+)$', pos)
        if not m:
            return None
        if m.group(1) not in self.lines:
            path = self._find(m.group(1))
            self.lines[m.group(1)] = (open(path, encoding="utf-8",
                                           errors="replace").read().split("\n")
                                      if path else [])
        lines = self.lines[m.group(1)]
        line = int(m.group(2))
        if line > len(lines):
            return None
        c = CALLEE.search(lines[line - 1], max(int(m.group(3)) - 1, 0))
        return c.group(1) if c else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--entry", action="append", required=True)
    ap.add_argument("--indirect", action="append", default=[])
    ap.add_argument("--src", action="append", default=[])
    ap.add_argument("--frame-limit", type=int, default=512)
    ap.add_argument("--chain-limit", type=int, default=1024)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()

    nodes, edges = read_graph(a.files)
    src = Sources(a.src)
    by_base = {}
    for t in nodes:  # bound: the graph's nodes
        if nodes[t][2] is not None:
            by_base.setdefault(base(nodes[t][0]), []).append(t)
    pointers = {}       # member -> [title...]
    for spec in a.indirect:  # bound: the command line
        member, _, fns = spec.partition("=")
        pointers[member] = []
        for fn in filter(None, fns.split(",")):  # bound: the list
            if fn not in by_base:
                print("stack budget: --indirect %s: %s is not in the call "
                      "graph" % (member, fn), file=sys.stderr)
                return 2
            pointers[member] += by_base[fn]
    errors = []

    def callees(t):
        for c, pos in edges.get(t, []):  # bound: the node's edges
            if c != INDIRECT:
                yield c, False
                continue
            member = src.pointer_at(pos)
            if member not in pointers:
                errors.append("indirect call at %s (%s) not resolved: give "
                              "--indirect %s=FN,..." % (pos, nodes[t][0],
                                                         member))
                continue
            for r in pointers[member]:  # bound: its --indirect functions
                yield r, True

    memo = {}           # title -> (bytes of the deepest chain, next title)
    outside = set()     # callees without a size: not counted
    sys.setrecursionlimit(100000)

    def deepest(t, path):
        if t in memo:
            return memo[t][0]
        name, where, size, kind = nodes.get(t, (t, "", None, ""))
        if size is None:
            outside.add(base(name))
            return 0
        if kind == "dynamic":
            errors.append("%s (%s): unbounded dynamic frame" % (name, where))
        best, nxt = 0, None
        path.add(t)
        for c, indirect in callees(t):
            if c in path:
                if not indirect:
                    errors.append("recursion: %s calls %s" % (name, c))
                continue
            d = deepest(c, path)
            if d > best or nxt is None:
                best, nxt = d, c
        path.discard(t)
        memo[t] = (size + best, nxt)
        return size + best

    status = 0
    for entry in a.entry:  # bound: the command line
        starts = [t for t in nodes
                  if base(nodes[t][0]) == entry and nodes[t][2] is not None]
        if not starts:
            print("stack budget: entry point %s is not in the call graph "
                  "(inlined everywhere? name its caller)" % entry,
                  file=sys.stderr)
            return 2
        top = max(starts, key=lambda t: deepest(t, set()))
        total = memo[top][0]
        over = total > a.chain_limit
        print("stack budget: %s: deepest chain %d bytes (limit %d)%s"
              % (entry, total, a.chain_limit, ": OVER" if over else ""))
        t = top
        while t is not None and t in memo:  # bound: the chain's length
            name, where, size, _ = nodes[t]
            print("  %5d  %s (%s)" % (size, name, where))
            t = memo[t][1]
        # The other ways down, for the record: the deepest chain through
        # each function the entry calls.
        others = {}
        for c, _ in callees(top):  # bound: the entry's callees
            if c in memo and c != memo[top][1]:
                others[nodes[c][0]] = nodes[top][2] + memo[c][0]
        for name, d in sorted(others.items(), key=lambda x: -x[1])[:5]:
            print("  (through %s: %d bytes)" % (name, d))  # bound: 5
        if over:
            status = 1
    if errors:
        for e in sorted(set(errors)):
            print("stack budget: " + e, file=sys.stderr)
        return 2

    frames = sorted(((nodes[t][2], nodes[t][0], nodes[t][1]) for t in memo
                     if nodes.get(t, (0, 0, None))[2] is not None),
                    reverse=True)
    print("largest frames reached:")
    for size, name, where in frames[:6]:  # bound: 6
        mark = "  OVER %d" % a.frame_limit if size > a.frame_limit else ""
        print("  %5d  %s (%s)%s" % (size, name, where, mark))
    for size, name, where in frames:  # bound: the reached functions
        if size > a.frame_limit:
            print("stack budget: frame of %s (%s) is %d bytes, over %d"
                  % (name, where, size, a.frame_limit))
            status = 1
    if outside:
        print("not counted (outside the graph): " + ", ".join(sorted(outside)))
    return status


if __name__ == "__main__":
    sys.exit(main())
