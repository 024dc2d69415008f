#!/usr/bin/env bash
# The stream-aware corpus (issue 13) on the GPU host with the real CUDA runtime: for each safe
# program, `echoctl optimize` (trace, plan, validate in stream time, calibrate) and then the
# deployed plan against the program as written and its hand-merged reference (--manual
# --strategy mapped), ROUNDS alternating runs; for each unsafe twin, optimize, the verdict of
# its pairs, and its output under the plan. Prints one table last: the strategy chosen, the
# medians, the share of the hand-merged gain Echo recovers, and whether every checksum of
# the program as written, deployed and hand-merged agreed. Needs root and build/bin/echoctl +
# build/lib/libechoshim.so from the dev machine.
# EXTRA adds flags to the safe programs' command lines (background's --patience); ECHO_SHIM
# picks another shim build, as for echoctl.
# Usage: [SIZE=64M] [SAFE="w ..."] [UNSAFE="w ..."] [EXTRA="..."] bench/streams_gpu.sh [ROUNDS] (5)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-5}
size=${SIZE:-64M}
bench_out build-gpu/streams
read -ra safe <<<"${SAFE:-multistream memset async_stream doublebuffer chunked background}"
read -ra unsafe <<<"${UNSAFE-unsafe_stream_refill unsafe_memset_read unsafe_doublebuffer unsafe_chunked}"
read -ra extra <<<"${EXTRA:-}"
for w in "${safe[@]}"; do gpu_build "testdata/workloads/$w.cu" "$out/$w" -cudart shared & done
for w in "${unsafe[@]}"; do gpu_build "testdata/workloads/$w.cu" "$out/$w" -cudart shared & done
wait
echo "== machine: $(gpu_name), size $size"

# pairs PLAN: "id:status" per pair, and the plan's strategy.
pairs() {
	python3 -c 'import json,sys
p = json.load(open(sys.argv[1]))
print((p["context"].get("strategy") or "none") + " " + " ".join(x["id"] + ":" + x["status"] for x in p["pairs"]))' "$1"
}

table=$(printf '%-22s %-9s %9s %9s %9s %7s %7s %9s %s' workload strategy base_ms echo_ms manual_ms echo× manual× recovered checksums)
for w in "${safe[@]}"; do
	# 22 frames: doublebuffer's two sets are copied 11 times each
	args=(--size "$size" --iters 20 --warmup 2 "${extra[@]}")
	plan="$out/$w.plan"
	echo "== optimize $w"
	build/bin/echoctl optimize --ignore '^iter_ms=' --rounds 3 -o "$plan" -- "$out/$w" "${args[@]}" 2>&1 |
		grep -E 'refused|round|predicted|enabled|nothing|variant|baseline|mapped|managed|pinned' || true
	echo "plan: $(pairs "$plan")"
	rm -f "$out"/{base,echo,manual}
	for ((r = 0; r < rounds; r++)); do
		"$out/$w" "${args[@]}" 2>/dev/null >>"$out/base"
		build/bin/echoctl run "$plan" -- "$out/$w" "${args[@]}" 2>/dev/null >>"$out/echo"
		"$out/$w" "${args[@]}" --manual --strategy mapped 2>/dev/null >>"$out/manual"
	done
	b=$(iter_ms "$out/base" | median)
	e=$(iter_ms "$out/echo" | median)
	m=$(iter_ms "$out/manual" | median)
	sums=$(checksums "$out"/base "$out"/echo "$out"/manual)
	strategy=$(pairs "$plan" | cut -d' ' -f1)
	table+=$'\n'$(awk -v w="$w" -v st="$strategy" -v b="$b" -v e="$e" -v m="$m" -v s="$sums" 'BEGIN {
		printf "%-22s %-9s %9.3f %9.3f %9.3f %6.2fx %6.2fx %8.1f%% %s", w, st, b, e, m, b / e, b / m, 100 * (b - e) / (b - m), s == 1 ? "same" : "DIFFER" }')
done
for w in "${unsafe[@]}"; do
	args=(--size 16M --iters 20 --warmup 2)
	plan="$out/$w.plan"
	echo "== optimize $w"
	build/bin/echoctl optimize --ignore '^iter_ms=' --rounds 3 -o "$plan" -- "$out/$w" "${args[@]}" 2>&1 |
		grep -E 'refused|validation|enabled|nothing|variant' || true
	b=$("$out/$w" "${args[@]}" 2>/dev/null | field checksum)
	e=$(build/bin/echoctl run "$plan" -- "$out/$w" "${args[@]}" 2>/dev/null | field checksum)
	table+=$'\n'$(printf '%-22s %s; output %s' "$w" "$(pairs "$plan")" "$([ "$b" = "$e" ] && echo same || echo DIFFERS)")
done
echo
echo "$table"
