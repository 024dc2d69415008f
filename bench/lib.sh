# Shared by the bench scripts: median timing of workloads run side by side.

# median: the median of the numbers on stdin, one per line.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit 1; print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# spread: twice the median distance of the numbers on stdin from their median, calibration's
# spread (calibrate/decide.go): one run slowed by something else widens it less than a range.
spread() {
	local v m
	v=$(cat)
	m=$(median <<<"$v")
	awk -v m="$m" '{ d = $1 - m; print (d < 0 ? -d : d) }' <<<"$v" | median | awk '{ print 2 * $1 }'
}

# timed OUT CMD...: runs CMD, its stdout appended to OUT and its stderr to OUT.err, and its
# wall seconds to OUT.wall; fails saying so, with the end of its stderr, if CMD does.
timed() {
	local o=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	"$@" >>"$o" 2>>"$o.err" || { echo "bench: $* failed:" >&2; tail -5 "$o.err" >&2; return 1; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }' >>"$o.wall"
}

# gpu_build SRC OUT FLAGS...: one program for the GPU host, built with nvcc ($NVCC) for
# the GPU of this machine ($ARCH, default native).
gpu_build() {
	local src=$1 dst=$2
	shift 2
	"${NVCC:-nvcc}" -O2 -arch="${ARCH:-native}" -x cu "$src" -o "$dst" "$@"
}

# iter_ms FILE: the iter_ms values of every run whose output FILE collects, one per line.
iter_ms() {
	sed -n 's/^iter_ms=//p' "$1"
}

# iter_ratio A B: the median over rounds of A's iter_ms over B's, files A and B collecting the
# same rounds' outputs in order.
iter_ratio() {
	paste <(iter_ms "$1") <(iter_ms "$2") | awk '{ print $1 / $2 }' | median
}

# checksums FILE...: how many different checksum= lines the runs FILE... collect print: 1
# where every run computed the same.
checksums() {
	grep -h '^checksum=' "$@" | sort -u | wc -l
}

# field KEY: the value of the KEY= line a workload printed on stdin.
field() {
	sed -n "s/^$1=//p" | head -n 1
}

# alternate ROUNDS DIR ARGS -- VARIANT...: runs each variant (a binary name under DIR, then its
# own extra flags after a colon, e.g. "stream-manual:--strategy mapped") once per round, in
# turn, so drift on a shared machine hits them all alike. Prints "VARIANT<TAB>MEDIAN_MS<TAB>
# CHECKSUM" per variant; fails loudly if a run fails.
alternate() {
	local rounds=$1 dir=$2
	shift 2
	local args=()
	while [ "$1" != "--" ]; do args+=("$1"); shift; done
	shift
	local tmp
	tmp=$(mktemp -d)
	for ((r = 0; r < rounds; r++)); do
		local i=0
		for v in "$@"; do
			local bin=${v%%:*} extra=""
			[ "$bin" != "$v" ] && extra=${v#*:}
			# shellcheck disable=SC2086
			if ! "$dir/$bin" "${args[@]}" $extra >"$tmp/out" 2>"$tmp/err"; then
				echo "bench: $bin ${args[*]} $extra failed:" >&2
				cat "$tmp/err" >&2
				rm -rf "$tmp"
				return 1
			fi
			field iter_ms <"$tmp/out" >>"$tmp/ms.$i"
			field checksum <"$tmp/out" >"$tmp/sum.$i"
			i=$((i + 1))
		done
	done
	local i=0
	for v in "$@"; do
		printf '%s\t%s\t%s\n' "${v/:/ }" "$(median <"$tmp/ms.$i")" "$(cat "$tmp/sum.$i")"
		i=$((i + 1))
	done
	rm -rf "$tmp"
}

# shuffled SEED WORD...: the words in a random order that SEED fixes (Fisher-Yates on bash's
# RANDOM), one per line, so that a benchmark's order of variants differs from round to round
# and a re-run repeats it.
shuffled() {
	RANDOM=$1
	shift
	local w=("$@") i j t
	for ((i = ${#w[@]} - 1; i > 0; i--)); do
		j=$((RANDOM % (i + 1)))
		t=${w[i]} w[i]=${w[j]} w[j]=$t
	done
	printf '%s\n' "${w[@]}"
}

# launch_cost ECHOCTL STREAM ROUNDS: what a trace adds to one launch of a small C program,
# `STREAM --size 4M --iters 3` (an nvcc-built stream) run ROUNDS times as written and under
# `ECHOCTL trace`, alternating; prints the medians of the wall times and their difference.
launch_cost() {
	local echoctl=$1 stream=$2 rounds=$3 tmp t0 r
	tmp=$(mktemp -d)
	for ((r = 0; r < rounds; r++)); do
		t0=$(date +%s%N)
		"$stream" --size 4M --iters 3 --warmup 0 >/dev/null 2>&1
		echo $(($(date +%s%N) - t0)) >>"$tmp/plain"
		t0=$(date +%s%N)
		"$echoctl" trace -o "$tmp/trace" -- "$stream" --size 4M --iters 3 --warmup 0 >/dev/null 2>&1
		echo $(($(date +%s%N) - t0)) >>"$tmp/traced"
	done
	awk -v a="$(median <"$tmp/plain")" -v b="$(median <"$tmp/traced")" -v n="$rounds" 'BEGIN {
		printf "launch: stream 4M x3 as written %.3f s, traced %.3f s: +%.0f ms per launch (median of %d)\n", a / 1e9, b / 1e9, (b - a) / 1e6, n }'
	rm -rf "$tmp"
}

# paired_ci ratio|diff A_FILE B_FILE: A and B measured round by round (line i of each, the
# same round), the per-round change from A to B ("ratio": (B/A - 1) in percent; "diff": B - A)
# as its median and a distribution-free 95 % confidence interval of that median (order
# statistics of the rounds' changes; with fewer than 6 rounds no such interval exists and the
# range is given with its coverage). Prints "MEDIAN [LO, HI] (n rounds, COVERAGE %)".
paired_ci() {
	python3 - "$@" <<'PY'
import math, sys
mode, a, b = sys.argv[1:4]
xs = [float(l) for l in open(a) if l.strip()]
ys = [float(l) for l in open(b) if l.strip()]
n = min(len(xs), len(ys))
d = sorted((y / x - 1) * 100 if mode == "ratio" else y - x for x, y in zip(xs[:n], ys[:n]))
med = (d[(n - 1) // 2] + d[n // 2]) / 2
# the largest k with P(Bin(n, 1/2) <= k - 1) <= 2.5 %: the interval is d[k-1] .. d[n-k]
k, below = 0, 0.0
for i in range(n):
    below += math.comb(n, i) / 2 ** n
    if below > 0.025:
        break
    k = i + 1
if k == 0:
    lo, hi, cover = d[0], d[-1], 100 * (1 - 2 / 2 ** n)
else:
    lo, hi = d[k - 1], d[n - k]
    cover = 100 * (1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2 ** n)
unit = "%" if mode == "ratio" else ""
print(f"{med:+.2f}{unit} [{lo:+.2f}, {hi:+.2f}] ({n} rounds, {cover:.1f} %)")
PY
}

# bench_start: what every bench script starts with, after sourcing this file as
# `. "$(dirname "$0")/lib.sh"`: strict mode, and the repository root as the working directory.
bench_start() {
	set -euo pipefail
	cd "$(dirname "$0")/.."
}

# gpu_name: the first GPU's name and driver version, as nvidia-smi gives them ("NAME, VERSION"),
# for a script's "== machine:" line.
gpu_name() {
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1
}

# gpu_bus: the first GPU's PCI bus id, lowercase, less the first four zeros of nvidia-smi's
# eight-digit domain: the name sysfs gives it (/sys/bus/pci/devices/0000:1a:00.0), under which
# the scripts look for its NUMA node and local CPUs.
gpu_bus() {
	nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -n 1 | tr 'A-F' 'a-f' | sed 's/^0000//'
}

# bench_args ROUNDS PROGRAMS [ARG...]: a script's "[ROUNDS] [PROGRAM...]" arguments, ARG...,
# into $rounds and the array $programs (each argument split at white space), ROUNDS and the
# words of PROGRAMS where none are given.
bench_args() {
	local default_rounds=$1 default_programs=$2
	shift 2
	rounds=${1:-$default_rounds}
	shift || true
	programs=("${@:-$default_programs}")
	read -r -a programs <<<"${programs[*]}"
}

# bench_out DIR: DIR, relative to the root, made and kept in $out for the script's files.
bench_out() {
	out=$1
	mkdir -p "$out"
}
