#!/bin/bash
# ab.sh ROUNDS PATTERN BENCHTIME BINARY... runs the benchmarks matching
# PATTERN in each test binary (built with go test -c), the binaries
# alternating, ROUNDS times: this machine's speed drifts between runs, so
# two builds are compared in one run, not in two. Each binary's results go
# to /tmp/ab.NAME.txt, ready for benchstat.
#
#   git worktree add /tmp/base REV && (cd /tmp/base && go test -c -o /tmp/base.test .)
#   go test -c -o /tmp/after.test .
#   bench/ab.sh 5 'SearchText/N=10000$' 2000x /tmp/base.test /tmp/after.test
#   benchstat /tmp/ab.base.test.txt /tmp/ab.after.test.txt
set -eu
if [ $# -lt 4 ]; then
	sed -n '2,12p' "$0" >&2
	exit 2
fi
rounds=$1 pattern=$2 benchtime=$3
shift 3
for b in "$@"; do : >"/tmp/ab.$(basename "$b").txt"; done
cd /tmp
for _ in $(seq "$rounds"); do
	for b in "$@"; do
		"$b" -test.run '^$' -test.bench "$pattern" -test.benchtime "$benchtime" -test.benchmem |
			grep -E '^Benchmark' >>"/tmp/ab.$(basename "$b").txt"
	done
done
