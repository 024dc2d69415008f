#!/usr/bin/env bash
# Issue 26 on the GPU host: Echo's decisions on real programs. Per program, `echoctl optimize`
# (default trace), then ROUNDS alternating runs of the program as written, its hand-optimized
# variant where one exists, and `echoctl run PLAN`, each timed whole (wall seconds of the
# command) and per iteration (its iter_ms). The table says whether the plan found the loop the
# program runs (iterations found against the program's), what calibration enabled and why
# (its verdict), the trace's prediction (the Amdahl bound, and the per-strategy estimate where
# the plan has one) against the measured per-iteration speed-up, the complete-run ratio, and
# whether every output agreed. Programs: resnet50-b1 (PyTorch ResNet-50, batch 1, 210
# iterations), resnet50-b32 (batch 32, 60 iterations), train (a ResNet-18 training loop, 60 steps, loss.item() every step), fcn
# (FCN-ResNet50 batch 4), cupy (64 MiB elementwise), prefetch (a side-stream prefetcher of
# pinned batches), dataloader (a DataLoader with two workers feeding an MLP, 96 steps),
# streamcluster and backprop (C programs in the style of Rodinia's, bench/rodinia/: one
# allocating its buffers in every call, one copy-bound), short (the nvcc-built stream at
# 256 MiB for 2 iterations: set-up that its few iterations cannot repay), staging (the
# corpus's CuPy-style framework, nvcc-built: a fresh 64 MiB array staged through the
# framework's page-locked buffer each iteration, testdata/workloads/staging.cu). Needs root and
# build/bin/echoctl + build/lib/libechoshim.so from the dev machine. Each program's plan and
# calibration record go to build-gpu/decisions/testdata/, ready for testdata/h200.
# OPTIMIZE_LIMIT=SECONDS stops a program's `echoctl optimize` (SIGINT) past that long and goes
# on to the next, its row saying so; a few seconds before, the processes' states go to
# build-gpu/decisions/PROGRAM.ps (T: stopped), to tell a stalled trace from a slow one.
# TRACED=1 adds to each round a run under `echoctl trace` (default probes), and says its
# iteration beside the program's as written: the trace's iteration is what the plan's
# prediction divides, so a tracer that slows the loop lowers the predicted speed-up.
# Per program the log also lists the plan's pairs (a staged one with the framework's buffer it
# goes through and the copy into it: CuPy's cp.asarray, issue 44) and what the last deployed
# run said of its pairs (sites served, fallbacks and why); the table's gain% is the share of
# the hand-pinned gain the deployed run reached: (as written - echoctl run) / (as written -
# hand-pinned), per iteration.
# Usage: [OPTIMIZE_LIMIT=S] [TRACED=1] bench/decisions_gpu.sh [ROUNDS] [PROGRAM...]   (5; all)
. "$(dirname "$0")/lib.sh"
bench_start
bench_args 5 "resnet50-b1 resnet50-b32 train fcn cupy prefetch dataloader streamcluster backprop short" "$@"
bench_out build-gpu/decisions
E=${ECHOCTL:-build/bin/echoctl}
echo "== machine: $(gpu_name)"
gpu_build testdata/workloads/stream.cu "$out/stream" -cudart shared
for r in streamcluster backprop; do gpu_build "bench/rodinia/${r}_like.cu" "$out/$r" -cudart shared; done
gpu_build testdata/workloads/staging.cu "$out/staging" -cudart shared -lcuda

# cmd NAME [--manual]: the program's command line; iterations NAME: how many it runs.
cmd() {
	case $1 in
	resnet50-b1) echo python3 bench/frameworks/vision_loop.py resnet50 1 224 210 "${2:-}" ;;
	resnet50-b32) echo python3 bench/frameworks/vision_loop.py resnet50 32 224 60 "${2:-}" ;;
	train) echo python3 bench/frameworks/train_loop.py 60 16 128 ;;
	fcn) echo python3 bench/frameworks/vision_loop.py fcn 4 520 30 "${2:-}" ;;
	cupy) echo python3 bench/frameworks/cupy_loop.py 30 64 "${2:-}" ;;
	prefetch) echo python3 bench/frameworks/prefetch_loop.py 40 32 ;;
	dataloader) echo python3 bench/frameworks/dataloader_loop.py 3 512 "${2:-}" ;;
	streamcluster) echo "$out/streamcluster 300 16384 ${2:+--pinned}" ;;
	backprop) echo "$out/backprop 40 65536 ${2:+--pinned}" ;;
	short) echo "$out/stream --size 256M --iters 2 --warmup 0" ;;
	staging) echo "$out/staging --size 64M --iters 30 --warmup 2 ${2:-}" ;;
	esac
}
iterations() {
	case $1 in
	resnet50-b1) echo 210 ;; resnet50-b32 | train) echo 60 ;; fcn | cupy) echo 30 ;; prefetch | backprop) echo 40 ;;
	dataloader) echo 96 ;; streamcluster) echo 300 ;; short) echo 2 ;; staging) echo 32 ;;
	esac
}
has_manual() { case $1 in resnet50-b1 | resnet50-b32 | fcn | cupy | dataloader | streamcluster | backprop | staging) return 0 ;; esac; return 1; }

table=$(printf '%-13s %-9s %-8s %-38s %7s %8s %7s %7s %-7s %7s %6s %8s %-15s %4s' program loop strategy verdict bound estimate iter× run× whole manual× gain% break-even 'mJ/iter' same)
for p in "${programs[@]}"; do
	plan="$out/$p.plan"
	echo "== optimize $p: $(cmd "$p")"
	limit=${OPTIMIZE_LIMIT:-0} watcher=
	if [ "$limit" -gt 10 ]; then
		(sleep $((limit - 5)) && ps -eo pid,stat,wchan:24,etime,args | grep -E '[p]ython|[e]choctl|decisions/' >"$out/$p.ps") &
		watcher=$!
	fi
	rc=0
	# shellcheck disable=SC2046
	timeout --signal=INT --kill-after=30 "$limit" "$E" optimize --ignore '^iter_ms=' --rounds 3 -o "$plan" -- $(cmd "$p") \
		>"$out/$p.optimize" 2>&1 || rc=$?
	[ -z "$watcher" ] || kill "$watcher" 2>/dev/null || true
	if [ "$rc" != 0 ]; then
		tail -20 "$out/$p.optimize"
		if [ "$rc" = 124 ]; then
			echo "   optimize ran past ${limit} s; processes then:" && cat "$out/$p.ps" 2>/dev/null
			table+=$'\n'$(printf '%-13s %s' "$p" "optimize ran past ${limit} s: $(tail -n 1 "$out/$p.optimize")")
		fi
		continue
	fi
	grep -E 'pairs,|loop|round|variant|baseline|mapped|system|pinned|enabled|nothing|predicted|energy|break-even|saved|skipped' "$out/$p.optimize" | head -30 || true
	if [ -s "$plan" ]; then
		# The plan's pairs: status, host side, and a staged pair's staging (issue 44).
		python3 - "$plan" <<'EOF'
import json, sys
for q in json.load(open(sys.argv[1]))["pairs"]:
    h, st = q["host"], q.get("staging")
    line = "   %-4s %-6s %-9s host %s %s+%#x" % (q["id"], q["direction"], q["status"], h["site"]["call"],
                                              h["site"]["module"].rsplit("/", 1)[-1], h["site"]["offset"])
    if st:
        c = st.get("copy")
        line += "; staged through %s+%#x (%s)" % (st["via"]["module"].rsplit("/", 1)[-1], st["via"]["offset"], st["via"]["call"])
        line += ", by %s at %s+%#x, %d of %d copies, %.2f ms each" % (c["call"], c["module"].rsplit("/", 1)[-1], c["offset"],
                                                                      st.get("copies", 0), st.get("linked", 0), st.get("ms", 0)) if c else ", staging not found"
    if q["status"] == "refused":
        line += ": " + q["reason"][:110]
    print(line)
EOF
	fi
	if [ ! -s "$plan" ]; then
		table+=$'\n'$(printf '%-13s %s' "$p" "no plan: $(grep -E 'nothing|candidates' "$out/$p.optimize" | tail -n 1)")
		continue
	fi
	# What the plan says: the loop found, the strategy enabled, the Amdahl bound and that
	# strategy's estimate, the break-even in iterations, energy per iteration before→after.
	read -r found strategy bound estimate breakeven energy < <(python3 - "$plan" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
s = p["context"].get("strategy") or "none"
est = [e["speedup"] for e in p.get("estimates") or [] if e.get("strategy") == s and e.get("speedup")]
sv = p.get("savings") or {}
be = sv.get("break_even_iterations")
en = sv.get("energy") or {}
mj = "%.0f→%.0f" % (en["before_mj_per_iteration"], en["after_mj_per_iteration"]) if en.get("after_mj_per_iteration") else "-"
print(p["loop"]["iterations"], s, "%.2f" % p["predicted_speedup"], "%.2f" % est[0] if est else "-",
      "%.0f" % be if be else "-", mj)
EOF
	)
	# The calibration table's verdict: the enabled strategy's row (why it was enabled), else
	# each strategy's (why it was refused), each cut at its first colon; the row's figures
	# (ms/iter, spread, predicted where there is a prediction, measured, run ms) go first.
	verdict=$(awk -v s="$strategy" '$1 ~ /^(mapped|system|pinned)$/ && (s == "none" || $1 == s) {
		sub(/^[a-z]+( +[-0-9.×]+)+ +/, ""); sub(/^enabled: /, ""); sub(/:.*/, ""); v = v (v ? "; " : "") $0 }
		END { print v ? v : "-" }' "$out/$p.optimize" | cut -c1-38 | tr ' ' '_')
	# The plan and its calibration record, as testdata/h200 keeps them for
	# TestPredictionsOnTheH200 (the model's predictions against what calibration measured).
	mkdir -p "$out/testdata"
	gzip -9c "$plan" >"$out/testdata/$p.plan.gz"
	[ ! -f "$plan.calibration" ] || cp "$plan.calibration" "$out/testdata/"
	rm -f "$out/$p".{base,echo,manual,traced}*
	for ((r = 0; r < rounds; r++)); do
		# shellcheck disable=SC2046
		timed "$out/$p.base" $(cmd "$p")
		# shellcheck disable=SC2046
		timed "$out/$p.echo" "$E" -v run "$plan" -- $(cmd "$p")
		if has_manual "$p"; then
			# shellcheck disable=SC2046
			timed "$out/$p.manual" $(cmd "$p" --manual)
		fi
		if [ -n "${TRACED:-}" ]; then
			# shellcheck disable=SC2046
			timed "$out/$p.traced" "$E" trace -o "$out/$p.traced.trace" -- $(cmd "$p")
		fi
	done
	b=$(iter_ms "$out/$p.base" | median)
	e=$(iter_ms "$out/$p.echo" | median)
	bw=$(median <"$out/$p.base.wall")
	ew=$(median <"$out/$p.echo.wall")
	# The deployed run against as written: slower only beyond the larger of the two spreads.
	# Where nothing was enabled, echoctl run runs the program as written: both are the same
	# program, and what their ratio says is the machine's noise ("as-is").
	whole=$(awk -v b="$bw" -v e="$ew" -v sb="$(spread <"$out/$p.base.wall")" -v se="$(spread <"$out/$p.echo.wall")" \
		-v s="$strategy" 'BEGIN { m = sb > se ? sb : se; print (s == "none" ? "as-is" : e > b + m ? "SLOWER" : (e < b - m ? "faster" : "same")) }')
	m=- gain=-
	if has_manual "$p"; then
		hm=$(iter_ms "$out/$p.manual" | median)
		m=$(awk -v b="$b" -v m="$hm" 'BEGIN { printf "%.2f", b / m }')
		gain=$(awk -v b="$b" -v e="$e" -v m="$hm" 'BEGIN { if (b > m) printf "%.1f", 100 * (b - e) / (b - m); else print "-" }')
	fi
	files=("$out/$p.base" "$out/$p.echo")
	[ "$p" = train ] || ! has_manual "$p" || files+=("$out/$p.manual")
	same=$([ "$(checksums "${files[@]}")" = 1 ] && echo yes || echo NO)
	# What the deployed run said of its pairs (sites served, every fallback and why), once each.
	grep -h '^echoctl: ' "$out/$p.echo.err" 2>/dev/null | grep -v 'warning' | sort | uniq -c | sed 's/^/   /' | head -12 || true
	echo "   as written $b ms/iter ($bw s whole), echo $e ms/iter ($ew s whole)$(has_manual "$p" &&
		echo ", hand-pinned $(iter_ms "$out/$p.manual" | median) ms/iter ($(median <"$out/$p.manual.wall") s whole)")$([ -z "${TRACED:-}" ] ||
		echo ", traced $(iter_ms "$out/$p.traced" | median) ms/iter ($(median <"$out/$p.traced.wall") s whole)")"
	table+=$'\n'$(printf '%-13s %-9s %-8s %-38s %7s %8s %7.2f %7.2f %-7s %7s %6s %8s %-15s %4s' "$p" "$found/$(iterations "$p")" \
		"$strategy" "$verdict" "$bound" "$estimate" "$(awk -v a="$b" -v b="$e" 'BEGIN { print a / b }')" \
		"$(awk -v a="$bw" -v b="$ew" 'BEGIN { print a / b }')" "$whole" "$m" "$gain" "$breakeven" "$energy" "$same")
done
echo
echo "$table"
echo "(iter× and run×: as written / echoctl run, medians of $rounds alternating runs; whole: echoctl run's complete run"
echo " against as written beyond the larger of their spreads, twice the median distance from the median, \"as-is\" where nothing"
echo " was enabled and echoctl run ran the program as written; manual×: as written / hand-pinned; gain%: the share of"
echo " hand-pinning's per-iteration gain echoctl run reached)"
