#!/usr/bin/env bash
# Does calibration give the same verdict twice (issue 41)? `echoctl optimize` of one program,
# REPEATS times (20), under a load generator, for two workloads on the emulator:
#  - gain: stream whose kernel and copies take device time (CUDA_EMU_KERNEL_DELAY_US=5000,
#    CUDA_EMU_COPY_DELAY_US=130 a copy, 64 KiB buffers): mapped removes both copies, about
#    1.09x per iteration; pinned keeps them and gains nothing. The verdict wanted: mapped.
#  - no gain: the same with copies that take no device time (CUDA_EMU_COPY_DELAY_US=0):
#    mapped removes two 64 KiB memcpys of a 5 ms iteration, pinned a staging pass of them.
#    The verdict wanted: nothing enabled.
# The delays sleep, as a GPU's kernels and copies take time the host's CPUs do not give:
# what a CPU load moves is the host's share, the launches and the waits' wake-ups. The
# load generator (LOAD) runs beside every optimize: "busy" (default) keeps one CPU busy
# with a shell loop, "stress" runs stress-ng --cpu 1 where it is installed, "none" nothing.
# Each optimize runs with calibration's defaults (--rounds 7, --budget 30s). Per workload:
# how many optimizes gave each verdict, the rounds each ran (min/median/max), the measured
# speed-up of every strategy (median over the optimizes, with their range), and how long an
# optimize took. The load average before and after is printed: the machine may be shared.
# About 20 s an optimize on a 2-core machine (about 15 minutes for the two workloads).
# Needs root (the trace step).
# ECHOCTL names another echoctl to run (one built at an earlier commit, to compare).
# Usage: [LOAD=busy|stress|none] [WORKLOADS="gain nogain"] [ECHOCTL=PATH] bench/verdicts_emulator.sh [REPEATS] (20)
. "$(dirname "$0")/lib.sh"
bench_start
echoctl=${ECHOCTL:-build/bin/echoctl}
repeats=${1:-20}
load=${LOAD:-busy}
dir=$(mktemp -d)
loadpid=
cleanup() {
	if [ -n "$loadpid" ]; then
		kill "$loadpid" 2>/dev/null || true
		wait "$loadpid" 2>/dev/null || true
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
case $load in
busy) # one CPU kept busy by a shell loop, on the last CPU
	taskset -c "$(($(nproc) - 1))" sh -c 'while :; do :; done' &
	loadpid=$!
	;;
stress)
	stress-ng --cpu 1 --quiet &
	loadpid=$!
	;;
none) ;;
*)
	echo "LOAD=$load: want busy, stress or none" >&2
	exit 2
	;;
esac
echo "load generator: $load; repeats: $repeats; $("$echoctl" version | head -1)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

# one NAME COPY_DELAY_US I: one optimize, its --json document kept as NAME.I.json
one() {
	local name=$1 delay=$2 i=$3 t0 t1
	t0=$(date +%s.%N)
	if ! CUDA_EMU_KERNEL_DELAY_US=5000 CUDA_EMU_COPY_DELAY_US=$delay "$echoctl" optimize --json \
		--ignore '^iter_ms=' -o "$dir/$name.$i.plan" -- build/workloads/stream --size 64K --iters 20 --warmup 2 \
		>"$dir/$name.$i.json" 2>"$dir/$name.$i.err"; then
		echo "$name $i: optimize failed: $(tail -1 "$dir/$name.$i.err")" >&2
		return
	fi
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$dir/$name.$i.wall"
}

for w in ${WORKLOADS:-gain nogain}; do
	case $w in
	gain) delay=130 ;;
	nogain) delay=0 ;;
	*)
		echo "workload $w: want gain or nogain" >&2
		exit 2
		;;
	esac
	for i in $(seq "$repeats"); do
		one "$w" "$delay" "$i"
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$dir" ${WORKLOADS:-gain nogain} <<'EOF'
import glob, json, os, statistics, sys
d, names = sys.argv[1], sys.argv[2:]
want = {"gain": "mapped", "nogain": "nothing"}
print(f"{'workload':<8} {'runs':>4}  {'verdicts':<28} {'wanted':>8}  {'rounds min/med/max':>18}  {'time s':>6}  measured speed-up: median (range) and outcomes")
for name in names:
    docs = []
    for p in sorted(glob.glob(f"{d}/{name}.*.json")):
        try:
            docs.append((p, json.load(open(p))))
        except ValueError:
            pass
    if not docs:
        print(f"{name:<8} no optimize finished")
        continue
    verdicts, rounds, walls, speedups, outcomes = {}, [], [], {}, {}
    for p, doc in docs:
        v = doc.get("strategy") or "nothing"
        verdicts[v] = verdicts.get(v, 0) + 1
        cal = doc.get("calibration") or {}
        rounds.append(cal.get("rounds", 0))
        w = p[:-5] + ".wall"
        if os.path.exists(w):
            walls.append(float(open(w).read()))
        for var in cal.get("variants", []):
            s = var["strategy"]
            pr = var.get("paired") or {}
            if pr.get("speedup"):
                speedups.setdefault(s, []).append(pr["speedup"])
            elif var.get("median_ms"):  # an echoctl from before the rounds were paired
                speedups.setdefault(s, []).append(cal["baseline"]["median_ms"] / var["median_ms"])
            o = pr.get("outcome") or (var.get("verdict") or "-").split(":")[0]
            outcomes.setdefault(s, {})[o] = outcomes.setdefault(s, {}).get(o, 0) + 1
    tally = ", ".join(f"{k} {n}" for k, n in sorted(verdicts.items(), key=lambda kv: -kv[1]))
    same = verdicts.get(want[name], 0)
    meas = "; ".join(
        f"{s} {statistics.median(v):.3f}x ({min(v):.3f}-{max(v):.3f}) "
        + "/".join(f"{o} {n}" for o, n in sorted(outcomes[s].items()))
        for s, v in sorted(speedups.items()))
    r = sorted(rounds)
    print(f"{name:<8} {len(docs):>4}  {tally:<28} {same:>3} of {len(docs):<3} "
          f"{r[0]:>6}/{statistics.median(r):g}/{r[-1]:<6}  {statistics.median(walls) if walls else 0:>6.1f}  {meas}")
EOF
