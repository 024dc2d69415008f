#!/usr/bin/env bash
# What the preload library costs a program's ordinary calls: build/bench/shimcost run plain
# and with libechoshim.so on an armed plan (pairs of a size these calls never have), median
# of ROUNDS alternating runs. Usage: bench/shim_cost.sh [ROUNDS] (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
rounds=${1:-5}
prog=build/bench/shimcost
id=$(readelf -n "$prog" | sed -n 's/.*Build ID: //p')
plan=$(mktemp)
trap 'rm -f "$plan"' EXIT
cat >"$plan" <<PLAN
echo-plan 1
exe $id
strategy mapped
mode deploy
pair p1 1048576 input
host $id 1000 malloc 1048576 0
device $id 1100 cudaMalloc 1048576 0
end
PLAN
tmp=$(mktemp -d)
for ((r = 0; r < rounds; r++)); do
	"$prog" >>"$tmp/plain"
	LD_PRELOAD=build/lib/libechoshim.so ECHO_PLAN="$plan" "$prog" >>"$tmp/shim"
done
printf '%-18s %10s %10s %10s\n' call plain_ns shim_ns added_ns
for call in "malloc(64)+free" "cudaFree(NULL)"; do
	p=$(grep -F "$call " "$tmp/plain" | awk '{ print $NF }' | median)
	s=$(grep -F "$call " "$tmp/shim" | awk '{ print $NF }' | median)
	printf '%-18s %10.2f %10.2f %10.2f\n' "$call" "$p" "$s" "$(awk -v a="$s" -v b="$p" 'BEGIN { print a - b }')"
done
rm -rf "$tmp"
