#!/usr/bin/env bash
# The workload corpus on a real GPU: builds every .cu workload with nvcc against the real
# CUDA runtime (-cudart shared, and one -cudart static build), checks that baseline and
# hand-merged checksums agree (framework: also its --pool and --driver loops) and that each
# unsafe case's naive merge does not, then times `stream` baseline against the manual mapped
# and managed variants at 4, 64 and 256 MiB.
# Run on the GPU host from the repository root: bench/gpu.sh [ROUNDS] (default 3).
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-3}
bench_out build-gpu/workloads
builds=()
nvcc_build() { # SRC OUT FLAGS...: in the background; built_all waits for them all
	gpu_build "$@" -Xcompiler -Wall &
	builds+=($!)
}
built_all() {
	local pid ok=0
	for pid in "${builds[@]}"; do wait "$pid" || ok=1; done
	return $ok
}

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
"${NVCC:-nvcc}" --version | tail -n 1
echo
echo "== build (nvcc)"
for w in stream compute pipeline multistream memset async_stream; do
	nvcc_build "testdata/workloads/$w.cu" "$out/$w" -cudart shared
	nvcc_build "testdata/workloads/$w.cu" "$out/$w-manual" -cudart shared -DECHO_MANUAL
done
# framework's --driver loop calls the driver API (CuPy's way), so it links libcuda too.
nvcc_build testdata/workloads/framework.cu "$out/framework" -cudart shared -lcuda
nvcc_build testdata/workloads/framework.cu "$out/framework-manual" -cudart shared -lcuda -DECHO_MANUAL
for w in unsafe_live_value unsafe_sync_wait unsafe_ptr_identity unsafe_lifetime unsafe_inplace unsafe_memset_read unsafe_stream_refill; do
	nvcc_build "testdata/workloads/$w.cu" "$out/$w" -cudart shared
	nvcc_build "testdata/workloads/$w.cu" "$out/$w-naive" -cudart shared -DECHO_NAIVE
done
nvcc_build testdata/workloads/stream.cu "$out/stream-static" -cudart static
built_all || { echo "gpu.sh: an nvcc build failed" >&2; exit 1; }
echo "built $(ls "$out" | wc -l) programs"

echo
echo "== checksums: baseline against manual (must be equal) and naive (must differ)"
fail=0
check() { # WANT(same|differs) A B ARGS...
	local want=$1 a=$2 b=$3
	shift 3
	local sa sb
	sa=$("$out/${a%%:*}" "$@" ${a#*:} 2>/dev/null | field checksum) || true
	sb=$("$out/${b%%:*}" "$@" ${b#*:} 2>/dev/null | field checksum) || true
	local got=differs
	[ -n "$sa" ] && [ "$sa" = "$sb" ] && got=same
	printf '%-10s %-22s %-40s %s %s\n' "$([ "$got" = "$want" ] && echo ok || echo FAIL)" "${a%%:*}" "${b/:/ }" "$sa" "$sb"
	[ "$got" = "$want" ] || fail=1
}
for w in stream compute pipeline multistream memset async_stream; do
	for s in mapped managed; do check same "$w:" "$w-manual:--strategy $s"; done
done
check same "stream:" "stream-static:"
for v in "framework:--pool" "framework:--driver" "framework-manual:"; do check same "framework:" "$v"; done
for w in unsafe_live_value unsafe_sync_wait unsafe_ptr_identity unsafe_lifetime unsafe_inplace unsafe_memset_read unsafe_stream_refill; do
	check differs "$w:" "$w-naive:--strategy mapped" --iters 3
done

echo
echo "== stream: median ms/iteration over $rounds alternating rounds"
table=$(printf '%-8s %12s %12s %12s %9s %9s\n' size base_ms mapped_ms managed_ms mapped× managed×)
for size in 4M 64M 256M; do
	iters=20
	[ "$size" = 4M ] && iters=50
	r=$(alternate "$rounds" "$out" --size "$size" --iters "$iters" --warmup 3 -- \
		stream "stream-manual:--strategy mapped" "stream-manual:--strategy managed")
	table+=$'\n'$(awk -F'\t' -v s="$size" '{ ms[NR] = $2 } END {
		printf "%-8s %12.3f %12.3f %12.3f %8.2fx %8.2fx", s, ms[1], ms[2], ms[3], ms[1] / ms[2], ms[1] / ms[3] }' <<<"$r")
done
echo "$table"
[ "$fail" = 0 ] || { echo "gpu.sh: checksum checks failed" >&2; exit 1; }
