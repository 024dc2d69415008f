#!/usr/bin/env bash
# Baseline against the hand-merged references on the emulator, every workload, median of
# alternating runs. Usage: bench/emulator.sh [ROUNDS]  (default 5)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-5}
printf '%-12s %6s %12s %12s %12s %8s %8s\n' workload size base_ms mapped_ms managed_ms mapped× managed×
run() {
	local name=$1 size=$2
	shift 2
	local r
	r=$(alternate "$rounds" build/workloads --size "$size" "$@" -- \
		"$name" "$name:--manual --strategy mapped" "$name:--manual --strategy managed")
	awk -F'\t' -v n="$name" -v s="$size" '
		{ ms[NR] = $2; sum[NR] = $3 }
		END {
			if (sum[1] != sum[2] || sum[1] != sum[3]) { print "checksums differ for " n > "/dev/stderr"; exit 1 }
			printf "%-12s %6s %12.3f %12.3f %12.3f %7.2fx %7.2fx\n", n, s, ms[1], ms[2], ms[3], ms[1] / ms[2], ms[1] / ms[3]
		}' <<<"$r"
}
run stream 4M --iters 20
run stream 64M --iters 10
run pipeline 4M --iters 10
run compute 256K --iters 5
run multistream 16M --iters 10
echo "machine: $(nproc) cores, $(uname -m), $(uname -r); $(date -u +%Y-%m-%d)"
