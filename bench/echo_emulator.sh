#!/usr/bin/env bash
# Echo against the hand-merged references on the emulator: for each workload, `echoctl
# optimize`, then the deployed plan, the program as written and the hand-merged variant of
# the chosen strategy alternately, ROUNDS rounds, median iter_ms. Reports the share of the
# manual gain Echo recovers and how well the speed-up follows Amdahl's bound from the
# trace's copy share (R^2). Needs root (the trace step). Usage: bench/echo_emulator.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
rounds=${1:-5}
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
	rm -f "$dir"/{base,echo,manual}
	for ((r = 0; r < rounds; r++)); do
		"build/workloads/$name" "$@" 2>/dev/null >>"$dir/base"
		build/bin/echoctl run "$plan" -- "build/workloads/$name" "$@" 2>/dev/null >>"$dir/echo"
		"build/workloads/$name-manual" "$@" --strategy "$manual_strategy" 2>/dev/null >>"$dir/manual"
	done
	[ "$(grep -h '^checksum=' "$dir"/base "$dir"/echo "$dir"/manual | sort -u | wc -l)" = 1 ] || {
		echo "bench: $name: checksums differ" >&2
		exit 1
	}
	local b e m
	b=$(grep '^iter_ms=' "$dir/base" | sed 's/iter_ms=//' | median)
	e=$(grep '^iter_ms=' "$dir/echo" | sed 's/iter_ms=//' | median)
	m=$(grep '^iter_ms=' "$dir/manual" | sed 's/iter_ms=//' | median)
	rows+=("$name $* | $strategy $fcopy $b $e $m")
}
run stream --size 4M --iters 30 --warmup 3
run stream --size 64M --iters 10 --warmup 2
run pipeline --size 4M --iters 10 --warmup 2
run compute --size 256K --iters 5 --warmup 1
printf '%s\n' "${rows[@]}" | python3 -c '
import sys
rows = []
print("%-42s %-8s %6s %9s %9s %9s %6s %7s %9s" % ("workload", "strategy", "f_copy", "base_ms", "echo_ms", "manual_ms", "echo", "amdahl", "recovered"))
for line in sys.stdin:
    name, rest = line.split(" | ")
    st, f, b, e, m = rest.split()
    f, b, e, m = float(f), float(b), float(e), float(m)
    rec = (b - e) / (b - m) * 100 if b - m > 1e-9 else float("nan")
    rows.append((b / e, 1 / (1 - f)))
    print(f"{name:<42} {st:<8} {f:>6.3f} {b:>9.3f} {e:>9.3f} {m:>9.3f} {b/e:>5.2f}x {1/(1-f):>6.2f}x {rec:>8.1f}%")
ys = [y for y, _ in rows]
mean = sum(ys) / len(ys)
ss_tot = sum((y - mean) ** 2 for y in ys)
ss_res = sum((y - p) ** 2 for y, p in rows)
print(f"Amdahl fit over {len(rows)} workloads: R^2 = {1 - ss_res / ss_tot:.3f} (measured speed-up against 1/(1-f_copy))")
'
echo "machine: $(nproc) cores, $(uname -m), $(uname -r); $(date -u +%Y-%m-%d)"
