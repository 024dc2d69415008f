#!/usr/bin/env bash
# Issue 25 item 1 on the GPU host, with the real CUDA runtime: a merge binds a pair's two
# buffers only at its linking copy (shim/bind.c), and allocations are told apart by their call
# chain. `echoctl optimize` on the nvcc-built helper_alloc (every host buffer from one helper)
# with its default options; then the plan deployed on runs with options that allocate one more
# buffer of the pairs' size through that helper (--verify, --verify-first, --previous): each
# must print what it printed as written and pass its own check, and say how many pairs were
# merged. The same for pipeline, whose output sides come from cudaMallocHost and cudaHostAlloc
# (the bound host side is page-locked again over the device side's memory). Last, stream: the
# deployed plan (its device side a page-locked memory file) against as written and the
# hand-merged mapped variant (cudaHostAlloc), ROUNDS alternating runs, medians and the median
# ratio. Needs root and build/bin/echoctl + build/lib/libechoshim.so from the dev machine.
# Usage: [SIZE=64M] bench/identity_gpu.sh [ROUNDS] (5)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-5}
size=${SIZE:-64M}
bench_out build-gpu/identity
echo "== machine: $(gpu_name)"
gpu_build bench/bind_probe.cu "$out/bind_probe"
echo "== bind_probe: a page-locked memory file bound to a second host address"
"$out/bind_probe" || true
# chains PLAN: each pair's status, and whether validation named its sides by call chain.
chains() {
	python3 -c 'import json,sys
p = json.load(open(sys.argv[1]))
for x in p["pairs"]:
    print(" ", x["id"], x["status"], "host:", x["host"]["site"]["call"], "chain" if x["host"].get("identity") else "no chain",
          "device:", "chain" if x["device"].get("identity") else "no chain")' "$1"
}
for w in helper_alloc pipeline stream; do
	gpu_build "testdata/workloads/$w.cu" "$out/$w" -cudart shared
done
gpu_build testdata/workloads/stream.cu "$out/stream-manual" -cudart shared -DECHO_MANUAL
args=(--size "$size" --iters 20 --warmup 3)
table=$(printf '%-13s %-14s %-6s %-6s %-8s %s' program option exit same merged note)

# deployed PROGRAM PLAN OPTION: runs it as written and deployed (with run's flags in
# runflags); one table row.
deployed() {
	local prog=$1 plan=$2 opt=$3
	local want got rc merged
	want=$("$out/$prog" "${args[@]}" $opt 2>/dev/null | field checksum)
	set +e
	got=$(build/bin/echoctl run -v "${runflags[@]}" "$plan" -- "$out/$prog" "${args[@]}" $opt 2>"$out/err" | field checksum)
	rc=${PIPESTATUS[0]}
	set -e
	merged=$(sed -n 's/^echoctl: \([0-9]* of [0-9]*\) pairs merged.*/\1/p' "$out/err" | head -n 1)
	local same=no
	[ -n "$want" ] && [ "$want" = "$got" ] && same=yes
	table+=$'\n'$(printf '%-13s %-14s %-6s %-6s %-8s %s' "$prog" "${opt:-(default)}" "$rc" "$same" "${merged:-?}" \
		"$(grep -v '^/' "$out/err" | grep -v 'pairs merged' | head -n 1 | cut -c1-90)")
}

# helper_alloc: the whole pipeline, as a user runs it (calibration enables mapped at 64M).
runflags=()
plan="$out/helper_alloc.plan"
echo "== optimize helper_alloc $size"
build/bin/echoctl optimize --ignore '^iter_ms=' --rounds 3 -o "$plan" -- "$out/helper_alloc" "${args[@]}" 2>&1 |
	grep -E 'round|predicted|enabled|nothing|variant|baseline|mapped|pinned|refused' || true
chains "$plan"
for opt in "" --verify --verify-first --previous; do
	deployed helper_alloc "$plan" "$opt"
done
# pipeline: traced, planned and validated, then every validated pair merged with mapped
# (--force), whatever calibration would choose: its output pairs' host sides come from
# cudaMallocHost and cudaHostAlloc, page-locked again once bound.
plan="$out/pipeline.trace.plan"
echo "== trace, plan and validate pipeline $size"
build/bin/echoctl trace -o "$out/pipeline.trace" -- "$out/pipeline" "${args[@]}" >/dev/null 2>&1
build/bin/echoctl plan -o "$plan" "$out/pipeline.trace" >/dev/null
build/bin/echoctl validate "$plan" -- "$out/pipeline" "${args[@]}" 2>&1 | grep -v '^/' | tail -n 3
chains "$plan"
runflags=(--force --strategy mapped)
deployed pipeline "$plan" ""

echo "== stream $size: as written, deployed, hand-merged (mapped), $rounds alternating rounds"
build/bin/echoctl optimize --ignore '^iter_ms=' --rounds 3 -o "$out/stream.plan" -- "$out/stream" "${args[@]}" 2>&1 |
	grep -E 'enabled|nothing' || true
rm -f "$out"/{base,echo,manual}
for ((r = 0; r < rounds; r++)); do
	"$out/stream" "${args[@]}" 2>/dev/null >>"$out/base"
	build/bin/echoctl run "$out/stream.plan" -- "$out/stream" "${args[@]}" 2>/dev/null >>"$out/echo"
	"$out/stream-manual" "${args[@]}" --strategy mapped 2>/dev/null >>"$out/manual"
done
paste <(iter_ms "$out/base") <(iter_ms "$out/echo") <(iter_ms "$out/manual")
b=$(iter_ms "$out/base" | median)
e=$(iter_ms "$out/echo" | median)
m=$(iter_ms "$out/manual" | median)
ratio=$(iter_ratio "$out/echo" "$out/manual")
sums=$(checksums "$out"/base "$out"/echo "$out"/manual)

echo
echo "$table"
printf '\nstream %s: as written %.3f ms, deployed %.3f ms, hand-merged %.3f ms; deployed/hand-merged %.3f (median of %d paired rounds); checksums alike: %s\n' \
	"$size" "$b" "$e" "$m" "$ratio" "$rounds" "$([ "$sums" = 1 ] && echo yes || echo NO)"
