#!/usr/bin/env bash
# The built-in demo: `echoctl optimize` on the copy-dominated `stream` workload (emulator):
# trace, plan, validate, calibrate, then `echoctl run` with the plan, next to the program as
# written and its hand-merged variant. Needs root for the trace step. ECHOCTL picks the
# echoctl to run (default build/bin/echoctl; CI runs the one its .deb installed).
. "$(dirname "$0")/lib.sh"
bench_start
size=${DEMO_SIZE:-64M}
iters=${DEMO_ITERS:-10}
workload=(build/workloads/stream --size "$size" --iters "$iters" --warmup 2)
echoctl=${ECHOCTL:-build/bin/echoctl}
if [ "$(id -u)" != 0 ]; then
	echo "demo: tracing needs root: run sudo make demo" >&2
	exit 1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

echo "== echoctl optimize -- ${workload[*]}"
"$echoctl" optimize --ignore '^iter_ms=' -o "$dir/stream.plan" -- "${workload[@]}"

# Compare like with like: the hand-merged program with the strategy calibration chose (mapped
# when it chose none, and then the plan runs the program as written), or for pinned the
# program with page-locked host buffers (--host pinned), which is what pinned serves.
strategy=$(sed -n 's/^    "strategy": "\(.*\)",\{0,1\}$/\1/p' "$dir/stream.plan" | head -n 1)
manual=${strategy:-mapped}
reference=(build/workloads/stream --manual --size "$size" --iters "$iters" --warmup 2 --strategy "$manual")
reference_label="hand-merged ($manual)"
if [ "$manual" = pinned ]; then
	reference=("${workload[@]}" --host pinned)
	reference_label="hand-pinned (cudaMallocHost)"
fi

echo
echo "== echoctl run: the plan deployed, median of 3 alternating runs, against as written and by hand"
for ((r = 0; r < 3; r++)); do
	"${workload[@]}" 2>/dev/null >>"$dir/base"
	"$echoctl" run "$dir/stream.plan" -- "${workload[@]}" 2>/dev/null >>"$dir/echo"
	"${reference[@]}" 2>/dev/null >>"$dir/manual"
done
base=$(iter_ms "$dir/base" | median)
printf '%-28s %10s %9s  %s\n' variant ms/iter speed-up checksum
for v in base echo manual; do
	ms=$(iter_ms "$dir/$v" | median)
	case $v in
	base) label="as written" ;;
	echo) label="echoctl run (plan${strategy:+, $strategy})" ;;
	manual) label=$reference_label ;;
	esac
	printf '%-28s %10.3f %8.2fx  %s\n' "$label" "$ms" "$(awk -v b="$base" -v m="$ms" 'BEGIN { print b / m }')" \
		"$(field checksum <"$dir/$v")"
done
[ "$(checksums "$dir"/base "$dir"/echo "$dir"/manual)" = 1 ] || {
	echo "demo: the deployed plan computed something else" >&2
	exit 1
}
