#!/usr/bin/env bash
# Echo against the hand-merged references on the emulator: for each workload, `echoctl
# optimize`, then the deployed plan, the program as written and the hand-merged variant of
# the chosen strategy alternately, ROUNDS rounds, median iter_ms. Reports the share of the
# manual gain Echo recovers and how well the speed-up follows Amdahl's bound from the
# trace's copy share (R^2). The hand-merged variant runs twice per round: what the second run
# "recovers" against the first (A/A) is the resolution of the measurement on this machine.
# The order of the four variants is shuffled each round.
# Everything runs on CPU 0 (CPUS= to choose others, CPUS="" for none): unpinned on two vCPUs,
# runs of one program fall into two clusters 20 % apart, and a program started by echoctl (a
# Go parent) lands in the slow one more often than the same program started by this script
# (BENCHMARKS.md). The hand-merged variant is the program itself run with --manual: the
# emulator's kernels are host code, and in a separate -manual build they were laid out
# differently, which moved timings by a few per cent, most of `pipeline`'s gain
# (BENCHMARKS.md). Needs root (the trace step).
# Usage: [CPUS=LIST] bench/echo_emulator.sh [ROUNDS] (8)
. "$(dirname "$0")/lib.sh"
bench_start
cpus=${CPUS-0}
if [ -n "$cpus" ] && [ -z "${ECHO_BENCH_PINNED:-}" ]; then
	ECHO_BENCH_PINNED=1 exec taskset -c "$cpus" "$0" "$@"
fi
rounds=${1:-8}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
rows=()
run() { # NAME ARGS...
	local name=$1
	shift
	local plan="$dir/$name.plan"
	build/bin/echoctl optimize --ignore '^iter_ms=' --rounds 3 -o "$plan" -- "build/workloads/$name" "$@" >/dev/null 2>&1
	local strategy fcopy
	read -r strategy fcopy < <(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(p["context"].get("strategy") or "none", p["f_copy"])' "$plan")
	local manual_strategy=${strategy/none/mapped}
	rm -f "$dir"/{base,echo,manual,again}
	# Each round runs the variants in a new random order (seeded, so a re-run repeats it): on
	# this machine a run is slower or faster depending on what ran just before it, and a
	# fixed or rotating order makes that a bias.
	for ((r = 0; r < rounds; r++)); do
		local v
		for v in $(shuffled "$r" base echo manual again); do
			case $v in
			base) "build/workloads/$name" "$@" ;;
			echo) build/bin/echoctl run "$plan" -- "build/workloads/$name" "$@" ;;
			*) "build/workloads/$name" "$@" --manual --strategy "$manual_strategy" ;;
			esac 2>/dev/null >>"$dir/$v"
		done
	done
	[ "$(checksums "$dir"/base "$dir"/echo "$dir"/manual "$dir"/again)" = 1 ] || {
		echo "bench: $name: checksums differ" >&2
		exit 1
	}
	local b e m a
	b=$(iter_ms "$dir/base" | median)
	e=$(iter_ms "$dir/echo" | median)
	m=$(iter_ms "$dir/manual" | median)
	a=$(iter_ms "$dir/again" | median)
	rows+=("$name $* | $strategy $fcopy $b $e $m $a")
}
run stream --size 4M --iters 30 --warmup 3
run stream --size 64M --iters 10 --warmup 2
run pipeline --size 4M --iters 10 --warmup 2
run compute --size 256K --iters 5 --warmup 1
run multistream --size 4M --iters 20 --warmup 2
run memset --size 4M --iters 20 --warmup 2
run async_stream --size 4M --iters 20 --warmup 2
printf '%s\n' "${rows[@]}" | python3 -c '
import sys
rows = []
print("%-42s %-8s %6s %9s %9s %9s %6s %7s %9s %9s" % ("workload", "strategy", "f_copy", "base_ms", "echo_ms", "manual_ms", "echo", "amdahl", "recovered", "A/A"))
def share(b, x, m):
    return (b - x) / (b - m) * 100 if b - m > 1e-9 else float("nan")  # no gain: undefined
for line in sys.stdin:
    name, rest = line.split(" | ")
    st, f, b, e, m, a = rest.split()
    f, b, e, m, a = float(f), float(b), float(e), float(m), float(a)
    rows.append((b / e, 1 / (1 - f)))
    print(f"{name:<42} {st:<8} {f:>6.3f} {b:>9.3f} {e:>9.3f} {m:>9.3f} {b/e:>5.2f}x {1/(1-f):>6.2f}x {share(b, e, m):>8.1f}% {share(b, a, m):>8.1f}%")
ys = [y for y, _ in rows]
mean = sum(ys) / len(ys)
ss_tot = sum((y - mean) ** 2 for y in ys)
ss_res = sum((y - p) ** 2 for y, p in rows)
print(f"Amdahl fit over {len(rows)} workloads: R^2 = {1 - ss_res / ss_tot:.3f} (measured speed-up against 1/(1-f_copy))")
'
echo "machine: $(nproc --all) cores, $(uname -m), $(uname -r); run on CPUs ${cpus:-all}; $(date -u +%Y-%m-%d)"
