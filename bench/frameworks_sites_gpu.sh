#!/usr/bin/env bash
# Real framework programs traced on the GPU host (issue 12, item 5): the PyTorch and CuPy
# loops under bench/frameworks run through `python3` (a link to python3.X), are traced
# without the host-allocator probes, and planned. Prints, per program, the executable the
# plan names (it must be the interpreter's file, by build-id), how many copy sites the trace
# holds and how many of them resolve to no module (raw addresses: must be 0), and the plan's
# pair verdicts. Needs root and build/bin/echoctl from the dev machine.
# Usage: bench/frameworks_sites_gpu.sh [ITERATIONS] (10)
. "$(dirname "$0")/lib.sh"
bench_start
iters=${1:-10}
bench_out build-gpu/frameworks
for prog in torch_loop cupy_loop; do
	echo "== $prog ($(readlink -f "$(command -v python3)"))"
	build/bin/echoctl trace -o "$out/$prog.trace" -- python3 "bench/frameworks/$prog.py" "$iters" 64 \
		2>"$out/$prog.err" | grep -E '^(checksum|iter_ms)=' || { cat "$out/$prog.err"; exit 1; }
	build/bin/echoctl stats --json "$out/$prog.trace" >"$out/$prog.stats.json"
	build/bin/echoctl plan --json -o "$out/$prog.plan" "$out/$prog.trace" >/dev/null
	python3 - "$out/$prog.stats.json" "$out/$prog.plan" <<'PY'
import collections, json, sys
stats, plan = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sites = stats["top_sites"]
raw = [s for s in sites if not s["module"]]
exe = plan["context"]["executable"]
print(f"executable {exe['path']} build-id {exe.get('build_id', '')[:12] or 'NONE'}")
print(f"copy sites {len(sites)}, unresolved {len(raw)}")
verdicts = collections.Counter((p["status"], p.get("reason", "").split(":")[0]) for p in plan["pairs"])
for (status, reason), n in verdicts.most_common(6):
    print(f"  {n:4d} pairs {status} {reason}")
for note in plan.get("notes", []):
    print(f"  note: {note[:150]}")
PY
done
