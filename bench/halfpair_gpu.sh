#!/usr/bin/env bash
# A pair is merged whole or not at all, on the GPU host: `stream` planned with malloc'd host
# buffers and run with --host new, so only the device sides' sites match. Merged alone, a
# device side would be host memory the kernel reads over PCIe, with no copy removed; the
# shim now leaves such a pair as written. ROUNDS alternating runs at 64 MiB: as written,
# echoctl run (this shim), the planned arguments for reference, and with PREV_SHIM=PATH
# another libechoshim.so (a previous build) through the same plan. Needs root (the trace).
# Usage: [PREV_SHIM=lib.so] bench/halfpair_gpu.sh [ROUNDS] (5)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-5}
bench_out build-gpu/halfpair
gpu_build testdata/workloads/stream.cu "$out/stream" -cudart shared
args=(--size 64M --iters 20 --warmup 3)
build/bin/echoctl trace --host-allocs -o "$out/h.trace" -- "$out/stream" "${args[@]}" >/dev/null 2>&1
build/bin/echoctl plan -o "$out/h.plan" "$out/h.trace" >/dev/null
variants=(base echo planned)
[ -n "${PREV_SHIM:-}" ] && variants+=(prev)
rm -f "$out"/hp.*
for ((r = 0; r < rounds; r++)); do
	"$out/stream" "${args[@]}" --host new 2>/dev/null >>"$out/hp.base"
	build/bin/echoctl run --force "$out/h.plan" -- "$out/stream" "${args[@]}" --host new 2>>"$out/hp.err" >>"$out/hp.echo"
	build/bin/echoctl run --force "$out/h.plan" -- "$out/stream" "${args[@]}" 2>/dev/null >>"$out/hp.planned"
	if [ -n "${PREV_SHIM:-}" ]; then
		ECHO_SHIM=$PREV_SHIM build/bin/echoctl run --force "$out/h.plan" -- "$out/stream" "${args[@]}" --host new \
			2>/dev/null >>"$out/hp.prev"
	fi
done
echo "== planned with malloc, run with --host new: 64 MiB, median ms per iteration of $rounds rounds"
printf '%-34s %9s  %s\n' variant ms/iter checksum
for v in "${variants[@]}"; do
	case $v in
	base) label="as written (--host new)" ;;
	echo) label="echoctl run (--host new)" ;;
	planned) label="echoctl run (the planned --host)" ;;
	prev) label="previous shim (--host new)" ;;
	esac
	printf '%-34s %9.3f  %s\n' "$label" "$(iter_ms "$out/hp.$v" | median)" "$(field checksum <"$out/hp.$v")"
done
sort -u "$out/hp.err" | grep echo-shim || true
