#!/usr/bin/env bash
# Echo end to end on the GPU host with the real CUDA runtime: `echoctl optimize` on the
# nvcc-built `stream` at 4, 64 and 256 MiB (it must choose mapped and refuse managed on a
# discrete GPU), then the deployed plan against the program as written and the hand-merged
# mapped variant, median of ROUNDS alternating runs. Needs root and build/bin/echoctl +
# build/lib/libechoshim.so from the dev machine. Usage: bench/optimize_gpu.sh [ROUNDS] (3)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
rounds=${1:-3}
out=build-gpu/optimize
mkdir -p "$out"
nvcc -O2 -arch="${ARCH:-native}" -cudart shared -x cu testdata/workloads/stream.cu -o "$out/stream"
nvcc -O2 -arch="${ARCH:-native}" -cudart shared -x cu -DECHO_MANUAL testdata/workloads/stream.cu -o "$out/stream-manual"
table=$(printf '%-6s %-9s %10s %10s %10s %8s %8s %9s' size strategy base_ms echo_ms manual_ms echo× manual× recovered)
for size in 4M 64M 256M; do
	iters=20
	[ "$size" = 4M ] && iters=100
	args=(--size "$size" --iters "$iters" --warmup 3)
	plan="$out/stream-$size.plan"
	echo "== optimize stream $size"
	build/bin/echoctl optimize --ignore '^iter_ms=' --rounds 3 -o "$plan" -- "$out/stream" "${args[@]}" 2>&1 |
		grep -E 'refused|round|predicted|enabled|nothing|variant|baseline|mapped|managed|system' || true
	strategy=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["context"].get("strategy") or "none")' "$plan")
	rm -f "$out"/{base,echo,manual}
	for ((r = 0; r < rounds; r++)); do
		"$out/stream" "${args[@]}" 2>/dev/null >>"$out/base"
		build/bin/echoctl run "$plan" -- "$out/stream" "${args[@]}" 2>/dev/null >>"$out/echo"
		"$out/stream-manual" "${args[@]}" --strategy mapped 2>/dev/null >>"$out/manual"
	done
	b=$(grep '^iter_ms=' "$out/base" | sed 's/iter_ms=//' | median)
	e=$(grep '^iter_ms=' "$out/echo" | sed 's/iter_ms=//' | median)
	m=$(grep '^iter_ms=' "$out/manual" | sed 's/iter_ms=//' | median)
	same=$(grep -h '^checksum=' "$out"/base "$out"/echo "$out"/manual | sort -u | wc -l)
	[ "$same" = 1 ] || echo "CHECKSUMS DIFFER at $size" >&2
	table+=$'\n'$(awk -v s="$size" -v st="$strategy" -v b="$b" -v e="$e" -v m="$m" 'BEGIN {
		printf "%-6s %-9s %10.3f %10.3f %10.3f %7.2fx %7.2fx %8.1f%%", s, st, b, e, m, b / e, b / m, 100 * (b - e) / (b - m) }')
done
echo
echo "$table"
