#!/usr/bin/env bash
# The paper's prevalence survey (§2.4) over any list of source trees (issue 40): `echoctl scan`
# on each, then per tree how many of its CUDA files cannot hold a copy (not parsed: no cudaMemcpy
# written in them or their tree's headers), how many of the rest were parsed (and how many
# without an error clang recovered from), how many files and directories have the pattern by a grep
# (cudaMalloc and cudaMemcpy in the text) and by the analysis (a candidate pair), the pairs
# found and proven, and what the scan cost: wall time and CPU time (user + system, the scan's
# clang runs included), also per 100 files, and the CPU time the scan left unused (CPUs × wall
# − CPU: the workers' uneven ends, its serial start, or other programs' load). Before the
# table, per tree: the files clang could not parse with their first error, and why the files
# the grep matches have no pair, by reason.
# The grep column is the scan's own; a real grep over the same files is run beside it and a
# line says so if the two disagree. The table comes last.
# Usage: [JOBS=N] [KEEP=DIR] [SCANFLAGS=...] bench/scan_trees.sh TREE...   (JOBS: files at once,
# default nproc; KEEP: a directory to keep each tree's echo.scan/1 document and text report in;
# SCANFLAGS: more scan flags, like --parse-all to parse the files that cannot hold a copy too)
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: bench/scan_trees.sh TREE..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
echoctl=${ECHOCTL:-$root/build/bin/echoctl}
[ -x "$echoctl" ] || { echo "no $echoctl: run make build first" >&2; exit 2; }
jobs=${JOBS:-$(nproc)}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
keep=${KEEP:-}
[ -z "$keep" ] || mkdir -p "$keep"
echo "$("$echoctl" version 2>/dev/null | head -1), clang $(clang --version | head -1 | grep -o '[0-9][0-9.]*' | head -1), -j $jobs on $(nproc) CPUs, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
rows=()
for tree in "$@"; do
	name=$(basename "$tree")
	json="$dir/$name.json"
	/usr/bin/time -f '%e %U %S' -o "$dir/$name.time" "$echoctl" scan --json -j "$jobs" ${SCANFLAGS:-} "$tree" >"$json" 2>"$dir/$name.err" ||
		{ echo "$name: scan failed: $(tail -1 "$dir/$name.err")"; continue; }
	[ -z "$keep" ] || { cp "$json" "$keep/$name.json"; }
	# The grep, run for real over the files the scan walked (it skips build trees and vendored
	# code), to check the scan's own column.
	(cd "$tree" && python3 -c 'import json,sys; [print(f["path"]) for f in json.load(open(sys.argv[1]))["files"] if not f.get("not_cuda")]' "$json" |
		tr '\n' '\0' | xargs -0 -r grep -lE 'cudaMalloc(Async)?[[:space:]]*\(' | tr '\n' '\0' |
		xargs -0 -r grep -lE 'cudaMemcpy(Async)?[[:space:]]*\(' | wc -l) >"$dir/$name.grep"
	rows+=("$(python3 - "$json" "$dir/$name.time" "$dir/$name.grep" "$name" <<'EOF'
import collections, json, os, sys
doc = json.load(open(sys.argv[1]))
wall, user, sysc = (float(x) for x in open(sys.argv[2]).read().split()[-3:])
real_grep = int(open(sys.argv[3]).read())
name = sys.argv[4]
p = doc["prevalence"]
files = doc["files"]
print(f"== {name}: {p['cuda_files']} CUDA files ({p['not_cuda']} C/C++ files with nothing of CUDA not parsed; "
      f"{p.get('no_copy', 0)} CUDA files not parsed, no cudaMemcpy written in them or their headers)", file=sys.stderr)
bad = [f for f in files if f.get("unparsable")]
for f in bad:
    print(f"   unparsable {f['path']}: {f['unparsable']}", file=sys.stderr)
why = collections.Counter()
for f in files:
    if f["grep"] and not f["pattern"] and not f.get("not_cuda"):
        if f.get("unparsable"):
            why["unparsable"] += 1
        elif not f.get("unpaired_copies"):
            why["no cudaMemcpy in the parsed code (comment, macro body, #if branch not taken)"] += 1
        else:
            for u in f["unpaired_copies"]:
                w = u["why"]
                for k in ("is a parameter", "is a global", "struct field", "array element", "container", "part of a buffer",
                          "not given", "address of", "DeviceToDevice", "HostToHost", "Default copy", "direction", "is what",
                          "local array", "does not follow", "found no pair"):
                    if k in w:
                        w = k
                        break
                why[w] += 1
if why:
    print(f"   grep matches, no pair ({p['grep_no_pair']} files), their copies by reason:", file=sys.stderr)
    for w, n in why.most_common():
        print(f"     {n:5d}  {w}", file=sys.stderr)
if real_grep != p["files_grep"]:
    print(f"   a real grep matches {real_grep} files, the scan's grep {p['files_grep']}", file=sys.stderr)
pct = lambda n, d: f"{100 * n / d:.0f}%" if d else "-"
cpu = user + sysc
n = p["cuda_files"]
need = n - p.get("no_copy", 0)  # the CUDA files that may hold a copy: those the scan parses
print("\t".join(str(x) for x in [name, n, p.get("no_copy", 0), pct(p["parsed"], need), pct(p["parsed"] - p["parsed_with_errors"], need),
      p["files_grep"], p["files_scan"], pct(p["files_scan"], p["files_grep"]), f"{p['dirs_grep']}/{p['dirs']}",
      f"{p['dirs_scan']}/{p['dirs']}", p["pairs"], p["proven"], f"{wall:.0f}", f"{cpu:.0f}",
      f"{100 * wall / n:.1f}" if n else "-", f"{100 * cpu / n:.1f}" if n else "-", f"{len(os.sched_getaffinity(0)) * wall - cpu:.0f}"]))
EOF
	)")
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
{
	printf 'TREE\tCUDA FILES\tNO COPY\tPARSED\tNO ERROR\tGREP FILES\tSCAN FILES\tSCAN/GREP\tGREP DIRS\tSCAN DIRS\tPAIRS\tPROVEN\tWALL s\tCPU s\tWALL s/100\tCPU s/100\tIDLE CPU s\n'
	printf '%s\n' "${rows[@]}"
} | column -t -s $'\t'
