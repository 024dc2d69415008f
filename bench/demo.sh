#!/usr/bin/env bash
# The built-in demo on the copy-dominated `stream` workload (emulator): trace it, plan it,
# and measure it as written against its hand-merged variants. The shim that deploys a plan
# comes next (validate, calibrate, run); until then the hand-merged variants show what the
# plan predicts. Needs root for the trace step, which it skips (saying so) without.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
size=${DEMO_SIZE:-64M}
iters=${DEMO_ITERS:-10}
workload=(build/workloads/stream --size "$size" --iters "$iters" --warmup 2)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

echo "== 1. trace: echoctl trace -- ${workload[*]}"
if [ "$(id -u)" = 0 ]; then
	build/bin/echoctl trace -o "$dir/stream.trace" -- "${workload[@]}" >/dev/null
	echo
	echo "== 2. plan: echoctl plan"
	build/bin/echoctl plan -o "$dir/stream.plan" "$dir/stream.trace" | sed '$d'
else
	echo "(skipped: tracing needs root; run sudo make demo)"
fi

echo
echo "== 3. measured: as written and hand-merged, median of 3 alternating runs (emulator)"
results=$(alternate 3 build/workloads --size "$size" --iters "$iters" --warmup 2 -- \
	stream "stream-manual:--strategy mapped" "stream-manual:--strategy managed")
awk -F'\t' '
	NR == 1 { base = $2; sum = $3; printf "%-34s %10s %9s  %s\n", "variant", "ms/iter", "speed-up", "checksum" }
	{ same = $3 == sum ? "same" : "DIFFERS"; bad += $3 != sum
	  printf "%-34s %10.3f %8.2fx  %s (%s)\n", $1, $2, base / $2, $3, same }
	END { if (bad) { print "demo: a merged variant computed something else" > "/dev/stderr"; exit 1 } }' <<<"$results"
