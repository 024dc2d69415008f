#!/usr/bin/env bash
# Issue 13's kept waits on the GPU host: what an event on a stream waits for on the real
# runtime (bench/copy_wait.cu), then the background workload optimized and deployed with
# this shim and with an older one (OLD_SHIM, the device synchronize) side by side, and the
# per-thread-default-stream S1 case built with nvcc --default-stream per-thread. Needs root,
# build/bin/echoctl, build/lib/libechoshim.so and OLD_SHIM from the dev machine.
# Usage: OLD_SHIM=path [SIZE=64M] bench/repair_gpu.sh [ROUNDS] (5)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-5}
bench_out build-gpu/repair
gpu_build bench/copy_wait.cu "$out/copy_wait"
gpu_build testdata/workloads/unsafe_live_value.cu "$out/unsafe_live_value-ptds" -cudart shared --default-stream per-thread

echo "== what a kept wait waits for"
timeout 60 "$out/copy_wait" 20000 || echo "copy_wait: the runtime did not do what its documentation says"

echo "== unsafe_live_value, --default-stream per-thread"
build/bin/echoctl optimize --ignore '^iter_ms=' --rounds 3 -o "$out/ulv.plan" -- \
	"$out/unsafe_live_value-ptds" --size 16M --iters 20 --warmup 2 2>&1 | grep -E 'refused|validat|enabled|nothing' || true
b=$("$out/unsafe_live_value-ptds" --size 16M --iters 20 --warmup 2 2>/dev/null | field checksum)
e=$(build/bin/echoctl run "$out/ulv.plan" -- "$out/unsafe_live_value-ptds" --size 16M --iters 20 --warmup 2 2>/dev/null | field checksum)
echo "unsafe_live_value-ptds output under the plan: $([ "$b" = "$e" ] && echo same || echo DIFFERS)"

echo "== background with this shim"
SAFE=background UNSAFE="" bench/streams_gpu.sh "$rounds" 2>&1 | tee "$out/new.log" | grep -v '^background ' || true
echo "== background with OLD_SHIM ($OLD_SHIM), the watcher's patience 3 s"
ECHO_SHIM=$OLD_SHIM SAFE=background UNSAFE="" EXTRA="--patience 3" bench/streams_gpu.sh 3 2>&1 | tee "$out/old.log" | grep -v '^background ' || true
echo
echo "this shim: $(grep '^background ' "$out/new.log")"
echo "old shim:  $(grep '^background ' "$out/old.log")"
