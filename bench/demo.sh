#!/usr/bin/env bash
# The built-in demo: the copy-dominated `stream` workload on the emulator, as written
# (separate host and device buffers, a copy each way per iteration) and hand-merged (one
# buffer per pair, no copies, the waits kept). Until the Echo pipeline lands this shows what
# it will recover; `echoctl optimize` takes over here when it exists.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
size=${DEMO_SIZE:-64M}
iters=${DEMO_ITERS:-10}
echo "demo: stream workload, ${size} buffers, ${iters} iterations, median of 3 alternating runs (emulator)"
results=$(alternate 3 build/workloads --size "$size" --iters "$iters" --warmup 2 -- \
	stream "stream-manual:--strategy mapped" "stream-manual:--strategy managed")
echo
awk -F'\t' '
	NR == 1 { base = $2; sum = $3; printf "%-34s %10s %9s  %s\n", "variant", "ms/iter", "speed-up", "checksum" }
	{ same = $3 == sum ? "same" : "DIFFERS"; bad += $3 != sum
	  printf "%-34s %10.3f %8.2fx  %s (%s)\n", $1, $2, base / $2, $3, same }
	END { if (bad) { print "demo: a merged variant computed something else" > "/dev/stderr"; exit 1 } }' <<<"$results"

