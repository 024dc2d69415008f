"""Predicted against measured, from a plan and its calibration record: per strategy
calibration measured (and whose output agreed), the plan's estimate, the measured speed-up
(the median of the rounds' paired speed-ups, as calibration and the report give it; in a
record from before they were paired, baseline median over the strategy's median), the range
of the speed-up round by round, the copies' Amdahl bound (column "amdahl", 1/(1-f_copy): what
removing the copies alone could give; pinned may pass it, as it also takes the first touch of
fresh host pages out of the loop), the error, and the trace's and the calibrated baseline's
iterations (ms). The plan may be gzipped (testdata/h200). bench/predict_emulator.sh and
bench/predict_gpu.sh.
Usage: prediction_row.py --header | prediction_row.py PLAN CALIBRATION LABEL"""
import gzip
import json
import os
import sys

if sys.argv[1:] == ["--header"]:
    print(f"{'workload':<40} {'strategy':<8} {'predicted':>9} {'measured':>9} {'rounds':>13} {'amdahl':>9} {'error':>8} {'trace_ms':>9} {'base_ms':>9}")
    sys.exit()
path, record, label = sys.argv[1:4]
plan = json.load((gzip.open if path.endswith(".gz") else open)(path))
est = {e["strategy"]: e["speedup"] for e in plan.get("estimates", [])}
if not os.path.exists(record):
    print(f"{label:<40} {'-':<8} {'':>9} {'not calibrated':>9}")
    sys.exit()
rec = json.load(open(record))
base = rec["baseline"]["median_ms"]
for v in rec["variants"]:
    s = v["strategy"]
    if s not in est or not v["median_ms"] or v.get("untouched") or v.get("output_diff"):
        continue
    m = (v.get("paired") or {}).get("speedup") or base / v["median_ms"]
    p = est[s]
    r = [b / x for b, x in zip(rec["baseline"]["round_ms"], v["round_ms"]) if x]
    rng = f"{min(r):.2f}-{max(r):.2f}x" if r else "-"
    print(f"{label:<40} {s:<8} {p:>8.2f}x {m:>8.2f}x {rng:>13} {plan['predicted_speedup']:>8.2f}x {100*(p-m)/m:>+7.1f}% {plan['loop']['ms_per_iteration']:>9.3f} {base:>9.3f}")
