#!/usr/bin/env bash
# Where the deployed plan's time goes against the hand-merged program, on the GPU host:
# `stream` at SIZE, ROUNDS rounds, the variants in a shuffled order each round:
#   manual   hand-merged, one wait per iteration (after the kernel)
#   waits    hand-merged keeping the wait of the elided H2D copy too (-DECHO_KEEP_WAITS)
#   shim     manual with libechoshim.so preloaded on an unreadable plan (hooks, no merge)
#   direct   the program as written, merged by the shim from `echoctl run --print-env`
#   run      the same through `echoctl run` (echoctl is the program's parent)
# Prints per variant the median iter_ms and the median over rounds of its ratio to waits
# (runs of one round are side by side). Needs root (optimize traces), build/bin/echoctl and
# build/lib/libechoshim.so from the dev machine.
# Usage: [SIZE=4M] bench/split_gpu.sh [ROUNDS] (21)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-21}
size=${SIZE:-4M}
out=build-gpu/split
rm -rf "$out" && mkdir -p "$out"
src=testdata/workloads/stream.cu
gpu_build "$src" "$out/stream" -cudart shared & a=$!
gpu_build "$src" "$out/manual" -cudart shared -DECHO_MANUAL & b=$!
gpu_build "$src" "$out/waits" -cudart shared -DECHO_MANUAL -DECHO_KEEP_WAITS & c=$!
wait $a && wait $b && wait $c
args=(--size "$size" --iters 100 --warmup 3)
build/bin/echoctl optimize --ignore '^iter_ms=' --rounds 3 -o "$out/p.plan" -- "$out/stream" "${args[@]}" >/dev/null 2>&1
strategy=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["context"].get("strategy") or "none")' "$out/p.plan")
[ "$strategy" = mapped ] || { echo "split_gpu.sh: optimize did not choose mapped" >&2; exit 1; }
eval "$(build/bin/echoctl run --print-env "$out/p.plan" -- "$out/stream" 2>/dev/null)"
shim=$LD_PRELOAD direct_plan=$ECHO_PLAN
unset LD_PRELOAD ECHO_PLAN

variant() { # NAME: one run, its stdout
	case $1 in
	manual) "$out/manual" "${args[@]}" ;;
	waits) "$out/waits" "${args[@]}" ;;
	shim) ECHO_QUIET=1 ECHO_PLAN=/nonexistent LD_PRELOAD=$shim "$out/manual" "${args[@]}" ;;
	direct) ECHO_PLAN=$direct_plan LD_PRELOAD=$shim "$out/stream" "${args[@]}" ;;
	run) build/bin/echoctl run "$out/p.plan" -- "$out/stream" "${args[@]}" ;;
	esac
}
ECHO_REPORT=$out/direct.json variant direct >/dev/null 2>&1
merged=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["merged"])' "$out/direct.json")
[ "$merged" = 2 ] || { echo "split_gpu.sh: the --print-env run merged $merged pairs, not 2" >&2; exit 1; }
names=(manual waits shim direct run)
for ((r = 1; r <= rounds; r++)); do
	for v in $(shuffled "$r" "${names[@]}"); do
		variant "$v" 2>/dev/null >"$out/last"
		field iter_ms <"$out/last" >>"$out/$v.ms"
		field checksum <"$out/last" >>"$out/$v.sum"
	done
done
[ "$(sort -u "$out"/*.sum | wc -l)" = 1 ] || echo "CHECKSUMS DIFFER" >&2
echo "== stream $size, $rounds rounds: iter_ms per round (${names[*]})"
(cd "$out" && paste manual.ms waits.ms shim.ms direct.ms run.ms)
echo
printf '%-8s %10s %10s\n' variant median_ms vs_waits
for v in "${names[@]}"; do
	printf '%-8s %10.4f %+9.2f%%\n' "$v" "$(median <"$out/$v.ms")" \
		"$(paste "$out/$v.ms" "$out/waits.ms" | awk '{ print 100 * ($1 / $2 - 1) }' | median)"
done
