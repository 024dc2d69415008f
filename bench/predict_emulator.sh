#!/usr/bin/env bash
# Predicted against measured on the emulator (issue 26 item 4): for each corpus workload,
# `echoctl optimize` with the copies and host reads priced like a discrete GPU's
# (CUDA_EMU_COPY_DELAY_US, CUDA_EMU_HOST_SLOWDOWN), then, per strategy calibration measured,
# the plan's estimate (planner.Predict) beside the measured speed-up (baseline median over the
# strategy's median, from the calibration record) and the copies' Amdahl bound. The goal is predicted
# within ±25 % of measured; "error" says how far each is. Beside them, the trace's iteration and
# the calibrated baseline's (ms): the estimate divides the trace's iteration by what serving
# saves, so where the two iterations differ (tracer cost, load) the estimate moves with them.
# "rounds" is the range of the measured speed-up round by round (each round's baseline over
# the same round's variant): how far the measurement itself moves.
# Kernels are priced too (issue 41): each takes at least CUDA_EMU_KERNEL_MIN_US (2000), its
# loop's time slept out, as a device's kernel takes its own time whatever the host's memory
# gives. The emulator's kernels are memory-bound CPU loops whose speed moves from outside the
# process: on the development VM the same loop on the same pages takes about 320 or 800 µs, by
# process and sometimes within one (bench/memplace.c, results/memplace-2026-12-07-2cpu.txt), and
# on the GPU hosts whole merged runs take 0.78 or 1.4-1.7 ms an iteration (results/mapped-modes-*).
# With kernels timed by the CPU, helper_alloc's merged speed-up measured 4.48x in one GPU-host
# run and 8.18x in another: no one prediction is within ±25 % of both. Priced kernels sleep
# beside one another, so the device then runs kernels concurrently
# (CUDA_EMU_CONCURRENT_KERNELS=1) even on 2 CPUs.
# CUDA_EMU_KERNEL_MIN_US=0 times kernels by the CPU, as before 2026-12-07.
# The load average before and after is printed: the machine may be shared. Needs root.
# Usage: [SIZE=4M] [WORKLOADS="stream pipeline ..."] [KEEP=DIR] bench/predict_emulator.sh [ROUNDS] (3; every
# corpus loop; KEEP: a directory to keep each workload's plan and calibration record in)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export CUDA_EMU_COPY_DELAY_US=${CUDA_EMU_COPY_DELAY_US:-2000} CUDA_EMU_HOST_SLOWDOWN=${CUDA_EMU_HOST_SLOWDOWN:-1}
export CUDA_EMU_KERNEL_DELAY_US=${CUDA_EMU_KERNEL_DELAY_US:-0} CUDA_EMU_KERNEL_MIN_US=${CUDA_EMU_KERNEL_MIN_US:-2000}
[ "$CUDA_EMU_KERNEL_MIN_US" = 0 ] || export CUDA_EMU_CONCURRENT_KERNELS=${CUDA_EMU_CONCURRENT_KERNELS:-1}
echo "CUDA_EMU_COPY_DELAY_US=$CUDA_EMU_COPY_DELAY_US CUDA_EMU_KERNEL_DELAY_US=$CUDA_EMU_KERNEL_DELAY_US CUDA_EMU_KERNEL_MIN_US=$CUDA_EMU_KERNEL_MIN_US CUDA_EMU_CONCURRENT_KERNELS=${CUDA_EMU_CONCURRENT_KERNELS:-} CUDA_EMU_HOST_SLOWDOWN=$CUDA_EMU_HOST_SLOWDOWN rounds=$rounds"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
python3 bench/prediction_row.py --header
run() { # NAME ARGS...
	local name=$1
	shift
	local plan="$dir/$name.plan"
	if ! build/bin/echoctl optimize --ignore '^iter_ms=' --rounds "$rounds" -o "$plan" -- "build/workloads/$name" "$@" >"$dir/$name.out" 2>&1; then
		printf '%-40s optimize failed: %s\n' "$name $*" "$(tail -1 "$dir/$name.out")"
		return
	fi
	python3 bench/prediction_row.py "$plan" "$plan.calibration" "$name $*"
	[ -z "${KEEP:-}" ] || { mkdir -p "$KEEP" && cp "$plan" "$plan.calibration" "$KEEP/"; }
}
for w in ${WORKLOADS:-stream pipeline compute multistream memset async_stream doublebuffer chunked helper_alloc framework background mt_stream}; do
	# compute multiplies two n×n matrices an iteration (n² floats in SIZE): at 4M, seconds
	# an iteration on the emulator's CPU; its own default size keeps it to milliseconds.
	size=${SIZE:-4M}
	[ "$w" != compute ] || size=256K
	run "$w" --size "$size" --iters 20 --warmup 2
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
