#!/usr/bin/env bash
# Issue 27 on the GPU host: what tracing a launch-bound loop costs with kernel launches probed
# (--launches) and without (the default). The PyTorch ResNet-50 batch-1 inference loop
# (bench/frameworks/vision_loop.py, ITERS iterations), ROUNDS alternating runs as written,
# traced with --launches, and traced as by default; the loop's own median iter_ms per run, then the
# median per variant and the median of the per-round ratios against as written. Needs root and
# build/bin/echoctl. Usage: bench/launches_gpu.sh [ROUNDS] [ITERS]   (5, 210)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-5}
iters=${2:-210}
E=${ECHOCTL:-build/bin/echoctl}
bench_out build-gpu/launches
rm -f "$out"/{base,launches,default}
prog=(python3 bench/frameworks/vision_loop.py resnet50 1 224 "$iters")
echo "== machine: $(gpu_name)"
for ((r = 0; r < rounds; r++)); do
	"${prog[@]}" 2>/dev/null | field iter_ms >>"$out/base"
	"$E" trace --launches -o "$out/t.bin" -- "${prog[@]}" 2>/dev/null | field iter_ms >>"$out/launches"
	"$E" trace -o "$out/t2.bin" -- "${prog[@]}" 2>/dev/null | field iter_ms >>"$out/default"
done
paste "$out/base" "$out/launches" "$out/default"
b=$(median <"$out/base")
for v in launches default; do
	printf '%-9s median %.3f ms/iter against %.3f as written; per-round ratio median %.3f\n' "$v" \
		"$(median <"$out/$v")" "$b" "$(paste "$out/$v" "$out/base" | awk '{ print $1 / $2 }' | median)"
done
"$E" stats "$out/t.bin" 2>/dev/null | grep -iE "launch|events" | head -4 || true
"$E" stats "$out/t2.bin" 2>/dev/null | grep -iE "launch|events" | head -4 || true
