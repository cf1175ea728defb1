#!/bin/sh
# The soak of kernel.ustack/soak.exp for as long as asked (make check runs
# 90 s of it):   testsuite/kernel.ustack/scripts/soak-long.sh [MINUTES [PROCS]]
# MINUTES (default 30) of churn by PROCS processes per ABI (default 50),
# from the top of a built checkout; the results are in
# /tmp/soak-long/kernel.sum and kernel.log ("soak:" lines).
set -eu
minutes=${1:-30}
procs=${2:-50}
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top"
mkdir -p /tmp/soak-long
secs=$((minutes * 60))
UW_SOAK_SECONDS=$secs UW_SOAK_PROCS=$procs \
	runtest --outdir /tmp/soak-long --srcdir ./testsuite --tool kernel \
	kernel.ustack/soak.exp || true
grep -E '^(PASS|FAIL|UNRESOLVED)|soak:' /tmp/soak-long/kernel.log
