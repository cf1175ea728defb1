# Test program of kernel.ustack/names.exp, run as python3 -X perf
# pyperf.py SECONDS: f() calls g() calls h(), which spins, so that samples
# of it go through py::f, py::g, py::h (the trampolines that -X perf names
# in /tmp/perf-PID.map), in that order.  h spins for SECONDS of the
# process's CPU time, and at least twice what the interpreter's start took
# before f: a profiler's samples follow CPU time, and on a loaded guest the
# start alone can take longer than SECONDS, so h's share of the process's
# samples is then still two thirds or more.
import os, sys, time

def h(until):
    n = 0
    while time.process_time() < until:  # a system call: read it seldom
        for _ in range(10000):
            n += 1
    return n

def g(until):
    return h(until) + 1

def f(until):
    return g(until) + 1

print(f"ready {os.getpid()}", flush=True)
start = time.process_time()
f(start + max(float(sys.argv[1]), 2 * start))
print("done", flush=True)
