#!/usr/bin/env bash
# Issue 12's acceptance on the GPU host: framework loops nobody here wrote, unmodified, as
# written, hand-pinned, and deployed by Echo. Per program: `echoctl optimize` (default trace:
# no host-allocator probes), then ROUNDS alternating runs of the program as written, its
# hand-pinned variant and `echoctl run PLAN`, with the median iter_ms of each and whether
# every checksum agrees; then the tracer's cost, as written against `echoctl trace`, per
# iteration and whole process (wall time of the command), alternating. Last, the cost a
# trace adds to one launch of a small C program. Programs: fcn (PyTorch FCN-ResNet50, batch
# 4, 520x520), resnet50 (batch 32, 224x224), cupy (64 MiB elementwise), framework (the
# corpus's C framework workload, nvcc-built). Needs root and build/bin/echoctl +
# build/lib/libechoshim.so from the dev machine.
# Usage: bench/frameworks_gpu.sh [ROUNDS] [PROGRAM...]   (3; all)
. "$(dirname "$0")/lib.sh"
bench_start
bench_args 3 "fcn resnet50 cupy framework launch" "$@"
bench_out build-gpu/frameworks
E=${ECHOCTL:-build/bin/echoctl}
echo "== machine: $(gpu_name), python $(python3 -c 'import sys; print(sys.version.split()[0])')"

# cmd NAME [--manual]: the command line of a program.
cmd() {
	case $1 in
	fcn) echo python3 bench/frameworks/vision_loop.py fcn 4 520 30 "${2:-}" ;;
	resnet50) echo python3 bench/frameworks/vision_loop.py resnet50 32 224 30 "${2:-}" ;;
	cupy) echo python3 bench/frameworks/cupy_loop.py 30 64 "${2:-}" ;;
	framework) echo "$out/framework$([ "${2:-}" = --manual ] && echo -manual) --size 64M --iters 30 --warmup 3" ;;
	esac
}

# timed OUT CMD...: runs CMD, its stdout to OUT, and appends the wall seconds to OUT.
timed() {
	local o=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	"$@" >"$o" 2>"$o.err" || { echo "bench: $* failed:" >&2; tail -5 "$o.err" >&2; return 1; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "wall_s=%.3f\n", b - a }' >>"$o"
}

table=$(printf '%-9s %9s %9s %9s %8s %9s %-8s %10s %10s' program written manual echo echo/man checksums strategy trace_iter trace_wall)
for p in "${programs[@]}"; do
	if [ "$p" = launch ]; then
		continue
	fi
	if [ "$p" = framework ]; then
		gpu_build testdata/workloads/framework.cu "$out/framework" -cudart shared -lcuda
		gpu_build testdata/workloads/framework.cu "$out/framework-manual" -cudart shared -lcuda -DECHO_MANUAL
	fi
	# shellcheck disable=SC2046
	written=($(cmd "$p")) manual=($(cmd "$p" --manual))
	echo "== $p: ${written[*]}"
	t0=$(date +%s)
	"$E" optimize --rounds "$rounds" --ignore '^iter_ms=' -o "$out/$p.plan" -- "${written[@]}" >"$out/$p.optimize" 2>&1 ||
		{ cat "$out/$p.optimize"; exit 1; }
	echo "optimize took $(($(date +%s) - t0)) s:"
	sed -n 's/^optimize: //p; /ms\/iter/,$p' "$out/$p.optimize" | tail -12
	for ((r = 0; r < rounds; r++)); do
		timed "$out/$p.w$r" "${written[@]}"
		timed "$out/$p.m$r" "${manual[@]}"
		if grep -q '"strategy"' "$out/$p.plan"; then
			timed "$out/$p.e$r" "$E" run "$out/$p.plan" -- "${written[@]}"
		else # optimize enabled nothing: Echo runs the program as written
			timed "$out/$p.e$r" "${written[@]}"
		fi
		timed "$out/$p.t$r" "$E" trace -o "$out/$p.trace" -- "${written[@]}"
	done
	"$E" stats "$out/$p.trace" | sed -n '/^API/,/^$/p' | head -12
	med() { for ((r = 0; r < rounds; r++)); do field "$2" <"$out/$p.$1$r"; done | median; }
	sums=$(for v in w m e t; do for ((r = 0; r < rounds; r++)); do field checksum <"$out/$p.$v$r"; done; done | sort -u | wc -l)
	same=$([ "$sums" = 1 ] && echo same || echo "DIFFER($sums)")
	w=$(med w iter_ms) m=$(med m iter_ms) e=$(med e iter_ms) t=$(med t iter_ms)
	ww=$(med w wall_s) tw=$(med t wall_s)
	strategy=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["context"].get("strategy") or "none")' "$out/$p.plan")
	row=$(awk -v p="$p" -v w="$w" -v m="$m" -v e="$e" -v t="$t" -v ww="$ww" -v tw="$tw" -v s="$same" -v st="$strategy" \
		'BEGIN { printf "%-9s %9.2f %9.2f %9.2f %8.3f %9s %-8s %+9.1f%% %+9.1f%%", p, w, m, e, e / m, s, st, 100 * (t / w - 1), 100 * (tw / ww - 1) }')
	echo "$row"
	table+=$'\n'"$row"
done

if [[ " ${programs[*]} " == *" launch "* ]]; then
	gpu_build testdata/workloads/stream.cu "$out/stream" -cudart shared
	launch=$(launch_cost "$E" "$out/stream" 7)
fi
echo
echo "$table"
[ -n "${launch:-}" ] && echo "$launch"
exit 0
