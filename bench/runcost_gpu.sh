#!/usr/bin/env bash
# What deploying a plan costs a program's complete run, apart from what the plan changes in
# its loop (issue 26: streamcluster-style calls ran faster per iteration under `echoctl run`
# and its whole run slower). One plan from `echoctl optimize`, then ROUNDS alternating runs
# of: the program as written; `echoctl --version` (what starting echoctl costs); the program
# with the deployment's environment (`echoctl run --print-env`: the preload library and the
# plan, no echoctl process); and `echoctl run PLAN`. Per variant the median wall time and
# the median iter_ms; the fixed cost of each way to deploy is its whole-run difference from
# as written less what its iterations saved. Needs root (the trace) and build/bin/echoctl +
# build/lib/libechoshim.so from the dev machine.
# Usage: bench/runcost_gpu.sh [ROUNDS] [CALLS]   (9 300)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-9}
calls=${2:-300}
bench_out build-gpu/runcost
E=${ECHOCTL:-build/bin/echoctl}
echo "== machine: $(gpu_name)"
gpu_build bench/rodinia/streamcluster_like.cu "$out/streamcluster" -cudart shared
prog=("$out/streamcluster" "$calls" 16384)
"$E" optimize --ignore '^iter_ms=' --rounds 3 -o "$out/sc.plan" -- "${prog[@]}" >"$out/optimize.txt" 2>&1
grep -E '^(pinned|mapped|system|enabled|nothing)' "$out/optimize.txt" || true
# What deploying costs is measured on what calibration enabled, or, where it enabled nothing
# (pinned within the spread on a noisy hour), on the validated pairs served pinned all the same.
deploy=("$out/sc.plan")
grep -q '^enabled' "$out/optimize.txt" || deploy=(--force --strategy pinned "$out/sc.plan")
env=$("$E" run --print-env "${deploy[@]}" -- "${prog[@]}" | sed -n 's/^export //p')

rm -f "$out"/{written,version,preload,run}{,.wall,.err}
for ((r = 0; r < rounds; r++)); do
	for v in $(shuffled "$r" written version preload run); do
		case $v in
		written) timed "$out/written" "${prog[@]}" ;;
		version) timed "$out/version" "$E" --version ;;
		# shellcheck disable=SC2086
		preload) timed "$out/preload" env $env "${prog[@]}" ;;
		run) timed "$out/run" "$E" run "${deploy[@]}" -- "${prog[@]}" ;;
		esac
	done
done
printf '%-9s %9s %9s %9s\n' variant 'whole ms' 'iter ms' 'spread ms'
for v in written version preload run; do
	w=$(median <"$out/$v.wall")
	i=$(iter_ms "$out/$v" | median 2>/dev/null || echo 0)
	printf '%-9s %9.1f %9.3f %9.1f\n' "$v" "$(awk -v w="$w" 'BEGIN { print w * 1000 }')" "$i" \
		"$(awk -v s="$(spread <"$out/$v.wall")" 'BEGIN { print 1000 * s }')"
done
same=$(checksums "$out"/{written,preload,run})
echo "outputs: $([ "$same" = 1 ] && echo same || echo DIFFER) ($rounds rounds, $calls calls; spread: twice the median distance from the median)"
