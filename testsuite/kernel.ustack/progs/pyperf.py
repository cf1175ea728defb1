# Test program of kernel.ustack/names.exp, run as python3 -X perf
# pyperf.py SECONDS: f() calls g() calls h(), which spins for SECONDS, so
# that samples of it go through py::f, py::g, py::h (the trampolines that
# -X perf names in /tmp/perf-PID.map), in that order.
import os, sys, time

def h(deadline):
    n = 0
    while time.monotonic() < deadline:
        n += 1
    return n

def g(deadline):
    return h(deadline) + 1

def f(deadline):
    return g(deadline) + 1

print(f"ready {os.getpid()}", flush=True)
f(time.monotonic() + float(sys.argv[1]))
print("done", flush=True)
