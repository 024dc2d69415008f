#!/usr/bin/env bash
# What scan's skipping of the files that cannot hold a copy (no cudaMemcpy written in them or
# their tree's headers: parse.TreeIndex.MayCopy) saves and whether it loses anything (issue
# 40): each tree is scanned ROUNDS times by default and with --parse-all, alternating. It
# checks, from the JSON, that every file the default scan did not parse has no copy and no
# pair when it is parsed (--parse-all), and that every other file's findings (pattern, copies,
# pairs and their verdicts, how it parsed) are the same in both; then prints the wall and CPU
# time (user + system, clang's included) of each run, and the medians. The table comes last.
# Usage: [ROUNDS=2] [JOBS=N] bench/scan_nocopy.sh TREE...
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: bench/scan_nocopy.sh TREE..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
echoctl=${ECHOCTL:-$root/build/bin/echoctl}
[ -x "$echoctl" ] || { echo "no $echoctl: run make build first" >&2; exit 2; }
rounds=${ROUNDS:-2}
jobs=${JOBS:-$(nproc)}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "$("$echoctl" version 2>/dev/null | head -1), -j $jobs on $(nproc) CPUs, $rounds rounds, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
rows=()
for tree in "$@"; do
	name=$(basename "$tree")
	for r in $(seq "$rounds"); do
		for mode in default parse-all; do
			flag=()
			[ "$mode" = default ] || flag=(--parse-all)
			/usr/bin/time -f '%e %U %S' -o "$dir/$name.$mode.$r.time" \
				"$echoctl" scan --json -j "$jobs" "${flag[@]}" "$tree" >"$dir/$name.$mode.$r.json" 2>/dev/null
		done
	done
	rows+=("$(python3 - "$dir" "$name" "$rounds" <<'EOF'
import json, statistics, sys
d, name, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
def load(mode, r):
    return json.load(open(f"{d}/{name}.{mode}.{r}.json"))
def findings(f):
    pairs = sorted((p["function"], p["host"], p["device"], p["proven"], json.dumps(p.get("declined"), sort_keys=True)) for p in f["pairs"])
    return (f["pattern"], f["copies"], f.get("unparsable", ""), f.get("skipped", ""), f["errors"], pairs)
skipped = lost = differ = 0
for r in range(1, rounds + 1):
    dflt = {f["path"]: f for f in load("default", r)["files"]}
    full = {f["path"]: f for f in load("parse-all", r)["files"]}
    for path, f in dflt.items():
        g = full[path]
        if f.get("no_copy"):
            skipped += r == 1
            if g["copies"] or g["pairs"] or g.get("no_copy"):
                lost += 1
                print(f"   {name}: {path} was not parsed, and --parse-all finds {g['copies']} copies, {len(g['pairs'])} pairs", file=sys.stderr)
        elif findings(f) != findings(g):
            differ += 1
            print(f"   {name}: {path} differs: {findings(f)} against {findings(g)}", file=sys.stderr)
def times(mode):
    out = []
    for r in range(1, rounds + 1):
        wall, user, sysc = (float(x) for x in open(f"{d}/{name}.{mode}.{r}.time").read().split()[-3:])
        out.append((wall, user + sysc))
    return out
td, ta = times("default"), times("parse-all")
cuda = load("default", 1)["prevalence"]["cuda_files"]
med = lambda xs: statistics.median(xs)
fmt = lambda ts: " ".join(f"{w:.1f}" for w, _ in ts)
print("\t".join(str(x) for x in [name, cuda, skipped, lost, differ, fmt(td), fmt(ta),
      f"{med([w for w, _ in td]):.1f}", f"{med([w for w, _ in ta]):.1f}", f"{med([c for _, c in td]):.0f}", f"{med([c for _, c in ta]):.0f}",
      f"{med([w for w, _ in td]) / med([w for w, _ in ta]):.2f}"]))
EOF
	)")
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
{
	printf 'TREE\tCUDA FILES\tNOT PARSED (NO COPY)\tOF THEM WITH A COPY\tOTHERS DIFFERING\tWALL s DEFAULT\tWALL s --parse-all\tMEDIAN WALL\tMEDIAN WALL --parse-all\tCPU s\tCPU s --parse-all\tWALL RATIO\n'
	printf '%s\n' "${rows[@]}"
} | column -t -s $'\t'
