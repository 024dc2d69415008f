#!/usr/bin/env bash
# Predicted against measured on the GPU host (issue 26 item 4), for the C programs whose
# copies a merge removes: `echoctl optimize` of stream at each SIZE and of backprop-like, then,
# per strategy calibration measured, the plan's estimate beside the speed-up calibration
# measured and how far apart (bench/prediction_row.py, the rows bench/predict_emulator.sh
# prints). Each plan and its calibration record go to build-gpu/predict/testdata/ (gzipped,
# ready for testdata/h200 and TestPredictionsOnTheH200), and to $OUT when set. Needs root, nvcc and build/bin/echoctl +
# build/lib/libechoshim.so from the dev machine.
# Usage: [ECHOCTL=PATH] bench/predict_gpu.sh [SIZE...]   (16M 64M 256M)
. "$(dirname "$0")/lib.sh"
bench_start
sizes=("${@:-16M 64M 256M}")
read -r -a sizes <<<"${sizes[*]}"
E=$(readlink -f "${ECHOCTL:-build/bin/echoctl}")
dir=build-gpu/predict
mkdir -p "$dir/testdata"
gpu_build testdata/workloads/stream.cu "$dir/stream" -cudart shared -g
gpu_build bench/rodinia/backprop_like.cu "$dir/backprop" -cudart shared

optimize() { # NAME ARGS...: the plan NAME.plan of the program ARGS, and its record
	local name=$1
	shift
	echo "== optimize $name: $*"
	(cd "$dir" && "$E" optimize --ignore '^iter_ms=' -o "$name.plan" -- "$@" 2>&1 | grep -E '^(predicted|variant|baseline|mapped|pinned|system) ')
	gzip -9c "$dir/$name.plan" >"$dir/testdata/$name.plan.gz"
	cp "$dir/$name.plan.calibration" "$dir/testdata/"
	if [ -n "${OUT:-}" ]; then cp "$dir/testdata/$name.plan.gz" "$dir/$name.plan.calibration" "$OUT/"; fi
}
for size in "${sizes[@]}"; do optimize "stream-$size" ./stream --size "$size" --iters 20 --warmup 2; done
optimize backprop ./backprop 40 65536

echo
python3 bench/prediction_row.py --header
for rec in "$dir"/testdata/*.plan.calibration; do
	name=$(basename "$rec" .plan.calibration)
	python3 bench/prediction_row.py "$dir/testdata/$name.plan.gz" "$rec" "$name"
done
