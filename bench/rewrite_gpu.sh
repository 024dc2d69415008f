#!/usr/bin/env bash
# Issue 28 on the GPU host: the source path against the hand-merged variant and the binary
# path. For each corpus workload whose source `echoctl rewrite` changes (stream, compute,
# pipeline, memset: the safe workloads with proven pairs; TestProveCorpus and the rewrite
# round trip), the .cu is rewritten by build/bin/echoctl rewrite (mapped: a discrete GPU)
# into a copy of testdata/workloads, then built with nvcc three ways — as written, rewritten,
# hand-merged (-DECHO_MANUAL, --strategy mapped) — and the binary path is `echoctl optimize`
# on the as-written build and `echoctl run PLAN`. Each variant's stdout (checksum) must equal
# the as-written one's. ROUNDS alternating runs (order shuffled per round); per workload the
# median ms per iteration of each and the share of the hand-merged gain the source and the
# binary path get: (base - path) / (base - manual). Runs on the CPUs of the GPU's NUMA node,
# as optimize_gpu.sh does. The log goes to build-gpu/rewrite/rewrite_gpu.log and to $OUT
# when set; the short table is printed last.
#
# Needs root (optimize traces), build/bin/echoctl from the dev machine, clang (Debian's, or
# /usr/lib/llvm-*/bin) for the parse. EMU=1 runs the same on the emulator with g++ (no GPU,
# no pinning), to check the script itself: EMU=1 SIZE=1M ITERS=5 bench/rewrite_gpu.sh 1.
# Usage: [WORKLOADS="stream compute"] [SIZE=64M] [ITERS=20] bench/rewrite_gpu.sh [ROUNDS] (5)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-5}
size=${SIZE:-64M}
iters=${ITERS:-20}
E=${ECHOCTL:-build/bin/echoctl}
E=$(realpath "$E")
out=build-gpu/rewrite
rm -rf "$out"
mkdir -p "$out/src/testdata/workloads"
log=$out/rewrite_gpu.log
exec > >(tee "$log") 2>&1

# clang parses for the rewrite; the GPU host has it only under /usr/lib/llvm-N/bin.
if ! command -v clang >/dev/null; then
	for d in /usr/lib/llvm-*/bin; do [ -x "$d/clang" ] && PATH=$d:$PATH; done
fi
command -v clang >/dev/null || { echo "rewrite_gpu: no clang: install it or put /usr/lib/llvm-N/bin on PATH" >&2; exit 1; }

pin=()
if [ -n "${EMU:-}" ]; then
	root=$(pwd)
	# As the Makefile builds workloads for the emulator.
	build() {
		local src=$1 dst=$2
		shift 2
		g++ -O2 -g -x c++ -I"$root/testdata/emulator/include" "$@" "$src" -o "$dst" \
			-L"$root/build/lib" -lcudart -lpthread -Wl,-rpath,"$root/build/lib"
	}
	echo "== machine: the emulator (EMU=1), $(clang --version | head -n 1)"
else
	build() {
		local src=$1 dst=$2
		shift 2
		gpu_build "$src" "$dst" -cudart shared "$@"
	}
	bus=$(gpu_bus)
	dev=/sys/bus/pci/devices/$bus
	cpus=$(cat "$dev/local_cpulist" 2>/dev/null || echo "")
	if [ -n "$cpus" ] && command -v taskset >/dev/null; then
		pin=(taskset -c "$cpus")
	fi
	echo "== machine: $(gpu_name)," \
		"runs pinned to CPUs ${cpus:-(not pinned)}; $(clang --version | head -n 1)"
fi

cp testdata/workloads/workload.h testdata/workloads/kernel.h "$out/src/testdata/workloads/"
args=(--size "$size" --iters "$iters" --warmup 3)
table=$(printf '%-9s %10s %11s %11s %11s %8s %8s' workload written_ms manual_ms source_ms binary_ms source% binary%)
for w in ${WORKLOADS:-stream compute pipeline memset}; do
	src=testdata/workloads/$w.cu
	rw=$out/src/testdata/workloads/$w.cu
	cp "$src" "$rw"
	echo "== rewrite $w"
	"$E" rewrite --strategy mapped -w "$rw" 2>&1 | sed 's/^/   /'
	if cmp -s "$src" "$rw"; then
		echo "   nothing merged: $w skipped"
		continue
	fi
	diff -u "$src" "$rw" >"$out/$w.diff" || true
	build "$src" "$out/$w"
	build "$rw" "$out/$w-source"
	build "$src" "$out/$w-manual" -DECHO_MANUAL

	echo "== optimize $w (the binary path)"
	plan=$out/$w.plan
	if ! "${pin[@]}" "$E" optimize --ignore '^iter_ms=' --rounds 3 -o "$plan" -- "$out/$w" "${args[@]}" >"$out/$w.optimize" 2>&1; then
		tail -20 "$out/$w.optimize"
		echo "   optimize failed: $w skipped"
		continue
	fi
	grep -E 'refused|predicted|enabled|nothing|strategy|mapped|managed' "$out/$w.optimize" | head -8 | sed 's/^/   /' || true

	rm -f "$out/$w".{written,manual,source,binary}.{out,ms}
	for ((r = 0; r < rounds; r++)); do
		for v in $(shuffled "$r" written manual source binary); do
			case $v in
			written) cmd=("$out/$w" "${args[@]}") ;;
			manual) cmd=("$out/$w-manual" "${args[@]}" --strategy mapped) ;;
			source) cmd=("$out/$w-source" "${args[@]}") ;;
			binary) cmd=("$E" run "$plan" -- "$out/$w" "${args[@]}") ;;
			esac
			"${pin[@]}" "${cmd[@]}" 2>/dev/null >"$out/$w.$v.last" ||
				{ echo "rewrite_gpu: $w $v failed: ${cmd[*]}" >&2; exit 1; }
			field iter_ms <"$out/$w.$v.last" >>"$out/$w.$v.ms"
			grep -v '^iter_ms=' "$out/$w.$v.last" >>"$out/$w.$v.out"
		done
	done
	same=ok
	for v in manual source binary; do
		if ! cmp -s "$out/$w.written.out" "$out/$w.$v.out"; then
			same=DIFFERS
			echo "OUTPUT DIFFERS: $w $v against as written:" >&2
			diff "$out/$w.written.out" "$out/$w.$v.out" | head -5 >&2 || true
		fi
	done
	echo "== rounds of $w (ms/iter): written manual source binary; output $same"
	paste "$out/$w".{written,manual,source,binary}.ms
	b=$(median <"$out/$w.written.ms")
	m=$(median <"$out/$w.manual.ms")
	s=$(median <"$out/$w.source.ms")
	x=$(median <"$out/$w.binary.ms")
	table+=$'\n'$(awk -v w="$w" -v b="$b" -v m="$m" -v s="$s" -v x="$x" -v same="$same" 'BEGIN {
		g = b - m
		if (g > 0) { ps = sprintf("%7.1f%%", 100 * (b - s) / g); px = sprintf("%7.1f%%", 100 * (b - x) / g) } else { ps = px = "   no gain" }
		printf "%-9s %10.3f %11.3f %11.3f %11.3f %8s %8s%s", w, b, m, s, x, ps, px, same == "ok" ? "" : "  OUTPUT DIFFERS" }')
done

echo
echo "== source path vs hand-merged vs binary path, $size x $iters, median of $rounds rounds;" \
	"source% / binary% = share of the hand-merged gain"
echo "$table"
if [ -n "${OUT:-}" ]; then
	sleep 0.2 # tee's last lines
	cp "$log" "$out"/*.diff "$OUT/" 2>/dev/null || true
fi
