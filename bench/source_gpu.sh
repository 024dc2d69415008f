#!/usr/bin/env bash
# Issue 39 on the GPU host: does `echoctl rewrite` make programs faster, never slower, and never
# change what they print? Each program of a corpus is built with nvcc as written and as
# rewritten (the default strategy, auto: chosen per pair for this machine's GPU; -s adds
# others), the variants are run ROUNDS times each, in a shuffled order every round, and per
# program and strategy the table gives the pairs served (merged into one buffer, pinned), the
# median of the per-round ratios of wall time rewritten/as written with their spread (twice
# the median distance from the median, as calibration's), the same of the program's own
# iter_ms where it prints one, and whether the outputs match (stdout without the lines
# --ignore drops, and the files --output names; "varies" where the as-written runs differ
# among themselves). A rewritten program that does not build, prints something else, or is
# slower by more than its spread is flagged and the script exits 1.
#
# The corpus: the source-path corpus under testdata/source/corpus (each .cu a program, run
# with $CORPUS_ARGS), the workloads testdata/workloads/*.cu (run with $WL_ARGS), and any
# directories given with --dir, each with the command that builds it and the command that runs
# it, both run in a copy of the directory made beside it (.NAME.echo-VARIANT, so that paths
# such as ../data still lead where they did; removed at the end), with $SRC the original,
# $NVCC and $ARCH set:
#
#   --dir DIR --build CMD --run CMD [--files 'A.cu B.cu'] [--output FILE]... [--ignore REGEX]
#            [--clang 'FLAGS'] [--name NAME]
#
# --files are the sources to rewrite (default: DIR's *.cu), --clang flags for the parse (after
# `echoctl rewrite --`). Nothing here knows any suite: a suite's program is a directory and two
# commands. --no-corpus leaves out the built-in programs; --only REGEX keeps the programs whose
# name matches.
#
# Needs nvcc ($NVCC, for $ARCH, default native), a GPU, clang (Debian's, or /usr/lib/llvm-N/bin)
# and an echoctl built on the dev machine (-e, $ECHOCTL, or build/bin/echoctl). EMU=1 runs the
# same against the CUDA emulator with g++ as the Makefile builds workloads (no GPU; --device
# discrete), to check the script itself: EMU=1 bench/source_gpu.sh -n 2 --only stream.
# The log goes to bench/results/source-gpu-HOST-DATE.log (EMU=1: build-gpu/source/), the
# per-program diffs, JSON and outputs to build-gpu/source/; the table is printed last.
#
# Usage: bench/source_gpu.sh [-n ROUNDS (5)] [-s STRATEGIES (auto)] [-e ECHOCTL] [--device D]
#        [--no-corpus] [--only REGEX] [--dir … ]...
. "$(dirname "$0")/lib.sh"
bench_start
root=$(pwd)

rounds=5
strategies=auto
echoctl=${ECHOCTL:-build/bin/echoctl}
device=${DEVICE:-auto}
corpus=1
only=
wl_args=${WL_ARGS:---size 64M --iters 20 --warmup 3}
# The corpus programs default to 256 KiB and 3 iterations (the emulator's tests): here enough
# work that the kernels and copies, not the process's start, are what is timed.
corpus_args=${CORPUS_ARGS:---size 16M --iters 20 --warmup 2}
# Programs, one per index: name, directory, files to rewrite, build and run commands, outputs
# to compare, stdout lines to ignore, clang flags.
names=() dirs=() files=() builds=() runs=() outputs=() ignores=() clangs=()
add() { # NAME DIR FILES BUILD RUN OUTPUTS IGNORE CLANG
	names+=("$1") dirs+=("$2") files+=("$3") builds+=("$4") runs+=("$5") outputs+=("$6") ignores+=("$7") clangs+=("$8")
}
need() { [ "$2" -ge 2 ] || { echo "source_gpu: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	-n) need "$1" $#; rounds=$2; shift 2 ;;
	-s) need "$1" $#; strategies=${2//,/ }; shift 2 ;;
	-e) need "$1" $#; echoctl=$2; shift 2 ;;
	--device) need "$1" $#; device=$2; shift 2 ;;
	--no-corpus) corpus=; shift ;;
	--only) need "$1" $#; only=$2; shift 2 ;;
	--dir)
		need "$1" $#
		add "$(basename "$2")" "$(realpath "$2")" "" "" "" "" "" ""
		shift 2 ;;
	--build | --run | --files | --output | --ignore | --clang | --name)
		need "$1" $#
		i=$((${#names[@]} - 1))
		[ "$i" -ge 0 ] || { echo "source_gpu: $1 before any --dir" >&2; exit 2; }
		case $1 in
		--build) builds[i]=$2 ;;
		--run) runs[i]=$2 ;;
		--files) files[i]=$2 ;;
		--output) outputs[i]="${outputs[i]} $2" ;;
		--ignore) ignores[i]=$2 ;;
		--clang) clangs[i]=$2 ;;
		--name) names[i]=$2 ;;
		esac
		shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "source_gpu: unknown argument $1 (--help)" >&2; exit 2 ;;
	esac
done
for ((i = 0; i < ${#names[@]}; i++)); do
	if [ -z "${builds[i]}" ] || [ -z "${runs[i]}" ]; then
		echo "source_gpu: --dir ${dirs[i]} needs --build and --run" >&2
		exit 2
	fi
done

E=$(realpath "$echoctl") || { echo "source_gpu: no echoctl at $echoctl: build it (make build) or give -e" >&2; exit 2; }
out=$root/build-gpu/source
rm -rf "$out"
mkdir -p "$out"
if [ -n "${EMU:-}" ]; then
	log=$out/source-gpu-emulator.log
	[ "$device" = auto ] && device=discrete # the emulator says integrated; the GPU host is discrete
	export NVCC=nvcc_emu ARCH=none
	# nvcc as the emulator's build: g++ on the .cu as C++, the emulator's runtime.
	# shellcheck disable=SC2317 # called by the build commands, through bash -c
	nvcc_emu() {
		local args=() a
		for a in "$@"; do
			case $a in
			-arch=* | -cudart | shared | -x | cu) ;;
			*) args+=("$a") ;;
			esac
		done
		g++ -O2 -x c++ -I"$EMU_ROOT/testdata/emulator/include" "${args[@]}" -L"$EMU_ROOT/build/lib" -lcudart -lpthread \
			-Wl,-rpath,"$EMU_ROOT/build/lib"
	}
	export -f nvcc_emu
	export EMU_ROOT=$root
	machine="the CUDA emulator (EMU=1), g++"
else
	mkdir -p bench/results
	log=$root/bench/results/source-gpu-$(hostname -s)-$(date +%Y-%m-%d-%H%M%S).log
	export NVCC=${NVCC:-nvcc} ARCH=${ARCH:-native}
	command -v "$NVCC" >/dev/null || { echo "source_gpu: no nvcc: put the CUDA toolkit's bin on PATH or set NVCC" >&2; exit 2; }
	if ! nvidia-smi -L >/dev/null 2>&1; then
		echo "source_gpu: no GPU (nvidia-smi -L fails)" >&2
		exit 2
	fi
	machine="$(gpu_name), $("$NVCC" --version | tail -n 1)"
fi
exec > >(tee "$log") 2>&1
copies=()
# shellcheck disable=SC2317 # the EXIT trap calls it
cleanup() { [ ${#copies[@]} -eq 0 ] || rm -rf "${copies[@]}"; }
trap cleanup EXIT

# clang parses for the rewrite; the GPU host has it only under /usr/lib/llvm-N/bin.
if ! command -v clang >/dev/null; then
	for d in /usr/lib/llvm-*/bin; do [ -x "$d/clang" ] && PATH=$d:$PATH; done
fi
command -v clang >/dev/null || { echo "source_gpu: no clang: install it or put /usr/lib/llvm-N/bin on PATH" >&2; exit 2; }

if [ -n "$corpus" ]; then
	# The source-path corpus: every .cu a program of its own, beside its headers.
	if [ -d testdata/source/corpus ]; then
		while IFS= read -r f; do
			rel=${f#testdata/source/corpus/}
			add "corpus/${rel%.cu}" "$root/$(dirname "$f")" "$(basename "$f")" \
				"\$NVCC -O2 -arch=\$ARCH -x cu $(basename "$f") -o prog -I\$SRC -I$root/testdata/workloads -cudart shared" \
				"./prog $corpus_args" "" '^iter_ms=' ""
		done < <(find testdata/source/corpus -name '*.cu' | sort)
	fi
	for f in testdata/workloads/*.cu; do
		wl=$(basename "$f" .cu)
		link=
		grep -q 'cuMemcpy\|cuLaunch\|<cuda.h>' "$f" && link=-lcuda
		add "$wl" "$root/testdata/workloads" "$wl.cu" \
			"\$NVCC -O2 -arch=\$ARCH -x cu $wl.cu -o prog -cudart shared $link" \
			"./prog $wl_args" "" '^iter_ms=' ""
	done
fi

echo "== machine: $machine; $(clang --version | head -n 1); echoctl $("$E" version 2>/dev/null | head -n 1)"
echo "== $rounds rounds, strategies: $strategies, device: $device"

# ns since the epoch.
now() { date +%s%N; }

# served JSON: the pairs of a rewrite --json document by strategy, "3: 1 mapped, 2 pinned".
served() {
	python3 - "$1" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
pairs = [p for f in doc["files"] for p in f["pairs"]]
by = collections.Counter(p.get("strategy") or "as written" for p in pairs)
print(f"{len(pairs)}: " + ", ".join(f"{n} {s}" for s, n in sorted(by.items())) if pairs else "no pairs")
PY
}

# outcome FILE: the filtered stdout of a run and the hashes of its output files, to compare.
table=$(printf '%-28s %-8s %-34s %-20s %-20s %s' PROGRAM STRATEGY PAIRS WALL_RATIO ITER_RATIO OUTPUT)
bad=0
for ((i = 0; i < ${#names[@]}; i++)); do
	name=${names[i]}
	if [ -n "$only" ] && ! [[ $name =~ $only ]]; then
		continue
	fi
	p=$out/$(tr '/' '_' <<<"$name")
	mkdir -p "$p"
	srcs=${files[i]}
	if [ -z "$srcs" ]; then
		srcs=$(cd "${dirs[i]}" && for f in *.cu; do [ -e "$f" ] && printf '%s ' "$f"; done)
	fi
	echo
	echo "== $name (${dirs[i]}: $srcs)"
	# Variants: written, then one per strategy; each a copy of the directory.
	variants=(written)
	for s in $strategies; do variants+=("$s"); done
	built=()
	for v in "${variants[@]}"; do
		copy=$(dirname "${dirs[i]}")/.$(basename "${dirs[i]}").echo-$v
		rm -rf "$copy"
		cp -a "${dirs[i]}" "$copy"
		copies+=("$copy")
		ln -sfn "$copy" "$p/$v"
		if [ "$v" != written ]; then
			# shellcheck disable=SC2086 # the file list and clang flags are words
			if ! (cd "$copy" && "$E" rewrite --json -w --strategy "$v" --device "$device" $srcs -- ${clangs[i]}) >"$p/$v.json" 2>"$p/$v.rewrite"; then
				echo "   rewrite --strategy $v failed:"
				tail -3 "$p/$v.rewrite" | sed 's/^/   /'
				table+=$'\n'$(printf '%-28s %-8s %s' "$name" "$v" "REWRITE FAILED")
				bad=1
				continue
			fi
			(cd "${dirs[i]}" && for f in $srcs; do diff -u "$f" "$copy/$f" || true; done) >"$p/$v.diff"
			if ! [ -s "$p/$v.diff" ]; then
				# Nothing served: the program as written, not timed again.
				echo "   $v: no pair served: $(served "$p/$v.json")"
				table+=$'\n'$(printf '%-28s %-8s %-34s %s' "$name" "$v" "$(served "$p/$v.json")" "unchanged")
				continue
			fi
		fi
		if ! (cd "$copy" && SRC=${dirs[i]} bash -c "${builds[i]}") >"$p/$v.build" 2>&1; then
			if [ "$v" = written ]; then
				echo "   does not build as written: skipped ($(grep -m1 -i error "$p/$v.build" || tail -1 "$p/$v.build"))"
				table+=$'\n'$(printf '%-28s %-8s %s' "$name" "-" "skipped: does not build as written")
				continue 2
			fi
			echo "   REWRITTEN ($v) DOES NOT BUILD:"
			grep -m3 -i error "$p/$v.build" | sed 's/^/   /' || true
			table+=$'\n'$(printf '%-28s %-8s %s' "$name" "$v" "REWRITTEN DOES NOT BUILD")
			bad=1
			continue
		fi
		built+=("$v")
	done
	[ ${#built[@]} -gt 1 ] || continue # nothing rewritten to compare
	# Runs: every built variant once a round, in a shuffled order.
	for ((r = 0; r < rounds; r++)); do
		for v in $(shuffled "$r" "${built[@]}"); do
			t0=$(now)
			if ! (cd -P "$p/$v" && SRC=${dirs[i]} bash -c "${runs[i]}") >"$p/$v.out.$r" 2>"$p/$v.err.$r"; then
				if [ "$v" = written ]; then
					echo "   does not run as written: skipped ($(tail -1 "$p/$v.err.$r"))"
					table+=$'\n'$(printf '%-28s %-8s %s' "$name" "-" "skipped: does not run as written")
					continue 3
				fi
				echo "   REWRITTEN ($v) FAILED: $(tail -1 "$p/$v.err.$r")"
				echo "failed" >>"$p/$v.failed"
			fi
			t1=$(now)
			awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) / 1e6 }' >>"$p/$v.wall"
			field iter_ms <"$p/$v.out.$r" >>"$p/$v.iter" || true
			{
				if [ -n "${ignores[i]}" ]; then grep -Ev -- "${ignores[i]}" "$p/$v.out.$r" || true; else cat "$p/$v.out.$r"; fi
				for o in ${outputs[i]}; do
					echo "$o: $(sha256sum <"$p/$v/$o" 2>/dev/null | cut -d' ' -f1)"
				done
			} >"$p/$v.outcome.$r"
		done
	done
	varies=
	for ((r = 1; r < rounds; r++)); do
		cmp -s "$p/written.outcome.0" "$p/written.outcome.$r" || varies=1
	done
	for v in "${built[@]}"; do
		[ "$v" = written ] && continue
		served=$(served "$p/$v.json")
		same=match
		for ((r = 0; r < rounds; r++)); do
			cmp -s "$p/written.outcome.0" "$p/$v.outcome.$r" || same=DIFFERS
		done
		[ -e "$p/$v.failed" ] && same=FAILED
		if [ "$same" != match ] && [ -n "$varies" ]; then
			same="varies (as written too)"
		elif [ "$same" != match ]; then
			bad=1
			echo "   OUTPUT $same ($v):"
			diff "$p/written.outcome.0" "$p/$v.outcome.0" | head -5 | sed 's/^/   /' || true
		fi
		ratio() { # A B: median and spread of the per-round ratios B/A, and whether B is slower
			paste "$1" "$2" | awk '$1 > 0 { print $2 / $1 }' >"$p/ratio"
			[ -s "$p/ratio" ] || { echo "-"; return; }
			local m s
			m=$(median <"$p/ratio")
			s=$(spread <"$p/ratio")
			awk -v m="$m" -v s="$s" 'BEGIN { printf "%.3fx±%.3f%s", m, s, (m - 1 > s ? " SLOWER" : "") }'
		}
		wall=$(ratio "$p/written.wall" "$p/$v.wall")
		iter=-
		[ -s "$p/written.iter" ] && [ -s "$p/$v.iter" ] && iter=$(ratio "$p/written.iter" "$p/$v.iter")
		[[ $wall == *SLOWER* ]] && bad=1
		echo "   $v: pairs $served; wall rewritten/as written $wall; iter_ms $iter; output $same"
		echo "   rounds (wall ms): as written $(tr '\n' ' ' <"$p/written.wall")| $v $(tr '\n' ' ' <"$p/$v.wall")"
		table+=$'\n'$(printf '%-28s %-8s %-34s %-20s %-20s %s' "$name" "$v" "$served" "$wall" "$iter" "$same")
	done
done

echo
echo "== source path on $machine: median of $rounds rounds of the per-round ratio rewritten/as written" \
	"(±: twice the median distance from the median); SLOWER: by more than that"
echo "$table"
echo "(log: ${log#"$root"/})"
if [ -n "${OUT:-}" ]; then
	sleep 0.2 # tee's last lines
	cp "$log" "$OUT/"
	tar -C "$out" -czf "$OUT/source-gpu-details.tgz" --exclude='*.echo-*' . 2>/dev/null || true
fi
exit "$bad"
