#!/usr/bin/env bash
# What `echoctl run` adds to a program's start with a large plan, on the emulator: the H200's
# streamcluster-style plan (testdata/h200, 901 pairs, 1.6 MB), its executable made the
# emulator's stream (so the plan loads and deploys; its sites match nothing here, and the
# program runs as written under the library), against the program as written. ROUNDS
# alternating runs of: as written; `echoctl run` deriving the deployment (an empty cache each
# time); `echoctl run` deploying the one it kept. Medians of the wall times, in ms.
# Usage: bench/runstart.sh [ROUNDS]   (9; after make build)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-9}
E=${ECHOCTL:-build/bin/echoctl}
prog=(build/workloads/stream --size 1M --iters 20)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The plan as the H200 run wrote it, but for this machine's stream.
gzip -dc testdata/h200/streamcluster.plan.gz >"$tmp/h200.plan"
python3 - "$tmp/h200.plan" "${prog[0]}" "$tmp/sc.plan" <<'EOF'
import json, os, subprocess, sys
p = json.load(open(sys.argv[1]))
exe = os.path.abspath(sys.argv[2])
out = subprocess.run(["readelf", "-n", exe], capture_output=True, text=True, check=True).stdout
build_id = next(l.split()[-1] for l in out.splitlines() if "Build ID" in l)
p["context"]["executable"] = {"path": exe, "build_id": build_id, "size": os.path.getsize(exe)}
json.dump(p, open(sys.argv[3], "w"), indent=2)
EOF
export ECHO_QUIET=1
env ECHO_CACHE_DIR="$tmp/cache-kept" "$E" run "$tmp/sc.plan" -- "${prog[@]}" >/dev/null # keeps it
for ((r = 0; r < rounds; r++)); do
	for v in $(shuffled "$r" written derived kept); do
		case $v in
		written) timed "$tmp/written" "${prog[@]}" ;;
		derived) rm -rf "$tmp/cache-fresh" && timed "$tmp/derived" env ECHO_CACHE_DIR="$tmp/cache-fresh" "$E" run "$tmp/sc.plan" -- "${prog[@]}" ;;
		kept) timed "$tmp/kept" env ECHO_CACHE_DIR="$tmp/cache-kept" "$E" run "$tmp/sc.plan" -- "${prog[@]}" ;;
		esac
	done
done
printf '%-9s %9s %9s\n' variant 'whole ms' 'spread ms'
for v in written derived kept; do
	printf '%-9s %9.1f %9.1f\n' "$v" "$(awk -v w="$(median <"$tmp/$v.wall")" 'BEGIN { print w * 1000 }')" \
		"$(awk -v s="$(spread <"$tmp/$v.wall")" 'BEGIN { print 1000 * s }')"
done
echo "($rounds alternating rounds; spread: twice the median distance from the median)"
