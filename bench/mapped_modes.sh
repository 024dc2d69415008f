#!/usr/bin/env bash
# Why the emulator's merged rounds come in two speeds (issue 41, cause 2): a workload's mapped
# iteration took about 0.9 ms in some calibration rounds and 1.7 ms in others, on the GPU
# host's 16 idle CPUs. This runs the calibrated plan's mapped variant RUNS times under each
# placement — free, its threads on CPUs 0 and 1, on 0 and the last CPU, all on CPU 0 — with
# transparent huge pages "always", and with address space randomization off (setarch -R: every
# run maps its buffers at the same addresses), then prints each setting's iterations (iter_ms)
# and their median. Needs root (THP). The host's CPU topology is printed first.
# Usage: [WORKLOADS="stream helper_alloc"] [SETTINGS="free cpu0 ..."] [RUNS=10] bench/mapped_modes.sh
. "$(dirname "$0")/lib.sh"
bench_start
runs=${RUNS:-10}
dir=$(mktemp -d)
thp=/sys/kernel/mm/transparent_hugepage/enabled
thp_was=$(sed 's/.*\[\(.*\)\].*/\1/' "$thp")
trap 'echo "$thp_was" >"$thp"; rm -rf "$dir"' EXIT
export CUDA_EMU_COPY_DELAY_US=${CUDA_EMU_COPY_DELAY_US:-2000}
last=$(($(nproc) - 1))
lscpu | grep -E '^(Model name|Socket|Core|Thread|NUMA node|L2|L3)' || true
echo "THP: $(cat "$thp"); load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
printf '%-14s %-12s %8s  %s\n' workload setting median iter_ms
for w in ${WORKLOADS:-stream helper_alloc}; do
	args=(--size 4M --iters 20 --warmup 2)
	plan="$dir/$w.plan"
	build/bin/echoctl optimize --ignore '^iter_ms=' --rounds 3 -o "$plan" -- "build/workloads/$w" "${args[@]}" >"$dir/$w.out" 2>&1 ||
		{ echo "$w: optimize failed: $(tail -1 "$dir/$w.out")"; continue; }
	for setting in ${SETTINGS:-free cpus0,1 cpus0,$last cpu0 thp-always no-aslr written}; do
		pin=()
		case $setting in
		cpus*) pin=(taskset -c "${setting#cpus}") ;;
		cpu0) pin=(taskset -c 0) ;;
		no-aslr) pin=(setarch "$(uname -m)" -R) ;;
		thp-always) echo always >"$thp" ;;
		esac
		ms=()
		for _ in $(seq "$runs"); do
			if [ "$setting" = written ]; then
				out=$("build/workloads/$w" "${args[@]}" 2>/dev/null)
			else
				out=$("${pin[@]}" build/bin/echoctl run "$plan" -- "build/workloads/$w" "${args[@]}" 2>/dev/null)
			fi
			ms+=("$(sed -n 's/^iter_ms=//p' <<<"$out")")
		done
		[ "$setting" != thp-always ] || echo "$thp_was" >"$thp"
		printf '%-14s %-12s %8s  %s\n' "$w" "$setting" "$(printf '%s\n' "${ms[@]}" | median)" "${ms[*]}"
	done
done
