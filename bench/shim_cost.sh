#!/usr/bin/env bash
# What the preload library costs a program's ordinary calls: build/bench/shimcost run plain
# and with libechoshim.so on an armed plan (pairs of a size these calls never have), median
# of ROUNDS alternating runs. As root also what an elided copy costs: `shimcost copies` is
# traced, planned and deployed (`echoctl run --force`, mapped) with its pair merged, so each
# copy costs the hook and the idle device-wide wait it keeps, next to that wait as the
# program's own cudaDeviceSynchronize (through the shim) costs it.
# Usage: bench/shim_cost.sh [ROUNDS] (default 5)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-5}
prog=build/bench/shimcost
id=$(readelf -n "$prog" | sed -n 's/.*Build ID: //p')
plan=$(mktemp)
tmp=$(mktemp -d)
trap 'rm -rf "$plan" "$tmp"' EXIT
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
for ((r = 0; r < rounds; r++)); do
	"$prog" >>"$tmp/plain"
	ECHO_QUIET=1 LD_PRELOAD=build/lib/libechoshim.so ECHO_PLAN="$plan" "$prog" >>"$tmp/shim"
done
printf '%-18s %10s %10s %10s\n' call plain_ns shim_ns added_ns
for call in "malloc(64)+free" "cudaFree(NULL)"; do
	p=$(grep -F "$call " "$tmp/plain" | awk '{ print $NF }' | median)
	s=$(grep -F "$call " "$tmp/shim" | awk '{ print $NF }' | median)
	printf '%-18s %10.2f %10.2f %10.2f\n' "$call" "$p" "$s" "$(awk -v a="$s" -v b="$p" 'BEGIN { print a - b }')"
done

if [ "$(id -u)" != 0 ]; then
	echo "shim_cost: skipping the elided copy (tracing needs root)"
	exit 0
fi
build/bin/echoctl trace --host-allocs -o "$tmp/copies.trace" -- "$prog" copies 20 >/dev/null 2>&1
build/bin/echoctl plan -o "$tmp/copies.plan" "$tmp/copies.trace" >/dev/null
for ((r = 0; r < rounds; r++)); do
	ECHO_QUIET=1 build/bin/echoctl run --force --strategy mapped "$tmp/copies.plan" -- "$prog" copies 2000000 \
		2>/dev/null >>"$tmp/copies"
done
e=$(grep -F "cudaMemcpy(1MiB) " "$tmp/copies" | awk '{ print $NF }' | median)
w=$(grep -F "cudaDeviceSynchronize " "$tmp/copies" | awk '{ print $NF }' | median)
printf '%-18s %10s %10s %10s\n' "elided cudaMemcpy" "wait_ns" "elided_ns" "hook_ns"
printf '%-18s %10.2f %10.2f %10.2f\n' "(1 MiB pair)" "$w" "$e" "$(awk -v a="$e" -v b="$w" 'BEGIN { print a - b }')"
