#!/usr/bin/env bash
# What the driver's nested probes cost a runtime copy (issue 27 item 2): the emulator's
# stream workload with CUDA_EMU_DRIVER=1 (its runtime calls the driver for each copy, as the
# real one does) traced by default, where only the runtime is probed in a process that calls
# the driver through it alone, and with --all-driver-probes, where each copy also traps the
# driver's probe pair and the BPF side drops the call as nested. Launches are not probed, so
# the difference per iteration is the two nested copies' (cuMemcpyHtoD_v2, cuMemcpyDtoH_v2).
# Medians of ROUNDS alternating rounds of ITERS iterations of 64-byte copies.
# Needs root and a built tree (make build). Usage: sudo bench/nested_driver.sh [ROUNDS] [ITERS]
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-7}
iters=${2:-50000}
echoctl=build/bin/echoctl
stream=build/workloads/stream
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export CUDA_EMU_DRIVER=1
run() {
	local mode=$1
	shift
	case $mode in
	untraced) "$stream" --size 64 --iters "$iters" --warmup 200 2>/dev/null ;;
	*) "$echoctl" trace -o "$out/t.bin" --launches=false "$@" -- "$stream" --size 64 --iters "$iters" --warmup 200 2>/dev/null ;;
	esac | field iter_ms >>"$out/$mode"
}
for _ in $(seq "$rounds"); do
	run untraced
	run runtime-only
	run all-driver --all-driver-probes
done
u=$(median <"$out/untraced")
r=$(median <"$out/runtime-only")
a=$(median <"$out/all-driver")
printf 'untraced      %.4f ms/iter\n' "$u"
printf 'runtime only  %.4f ms/iter  (+%.2f us per copy)\n' "$r" "$(echo "($r - $u) * 1000 / 2" | bc -l)"
printf 'all driver    %.4f ms/iter  (+%.2f us per copy)\n' "$a" "$(echo "($a - $u) * 1000 / 2" | bc -l)"
printf 'nested driver probes: %.2f us per copy\n' "$(echo "($a - $r) * 1000 / 2" | bc -l)"
