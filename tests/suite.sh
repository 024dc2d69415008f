#!/usr/bin/env bash
# make test and make test-all, as stages (tests/stage.sh: each line prefixed with its stage,
# a line at least every 25 s, the stage's time at its end), and a table of every stage's
# time and the total at the end.
#
#   test      build, the check that the generated BPF code is current, then lint (the
#             packages changed since the last clean lint) beside the Go tests (tests/gotest:
#             test binaries side by side, long packages in shards), -short: the end-to-end
#             tests of a minute or more (testenv.Long) skip, saying how to run them. Within
#             10 minutes on a 2-core machine from a fresh clone.
#   test-all  what CI runs (.ci/run): every part built for arm64 too, then test with the whole
#             lint and every test, then -race, the shared tracer's benchmark, the user-space
#             suite on arm64 under qemu's user mode and the tracer's tests on an arm64 kernel
#             in qemu-system-aarch64. Each arm64 stage skips, saying what to install, where its
#             tools are missing, unless ECHO_REQUIRE_ARM64=1 (CI).
# Usage: tests/suite.sh test|test-all
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-test}
MAKE=${MAKE:-make}
GO=${GO:-go}
JOBS=${JOBS:-$(nproc)}
mk=("$MAKE" --no-print-directory)
mkdir -p build/logs
: >build/logs/stages
start=$(date +%s)
failed=0
stage() { tests/stage.sh "$@" || failed=1; }

summary() {
	echo "== make $mode: the stages"
	awk -F '\t' '{printf "   %-14s %3dm%02ds  %s\n", $1, $2 / 60, $2 % 60, $3}' build/logs/stages
	local s=$(($(date +%s) - start))
	printf '   %-14s %3dm%02ds  %s\n' total $((s / 60)) $((s % 60)) "$([ $failed = 0 ] && echo ok || echo FAILED)"
}
trap summary EXIT

stage build "${mk[@]}" -j"$JOBS" build
# After the build, not beside it: go generate rewrites the Go files the build compiles.
[ $failed = 0 ] && stage generated "${mk[@]}" check-generated
[ $failed = 0 ] || exit 1

# test-all builds every part for arm64 before the tests: the runner's tests check that the
# arm64 preload library is refused on this machine, where there is one.
if [ "$mode" = test-all ]; then
	stage cross "${mk[@]}" cross
	[ $failed = 0 ] || exit 1
fi

# Lint and the Go tests side by side: lint is a few seconds when little changed, and the
# tests spend much of their time waiting on the programs they run. The full lint (test-all)
# goes first instead, to give the tests the machine.
if [ "$mode" = test-all ]; then
	stage lint "${mk[@]}" lint-all
	stage go-test "$GO" run ./tests/gotest -p "$JOBS" -log build/test.log -times build/test-times-all.json ./...
else
	tests/stage.sh lint "${mk[@]}" lint &
	lint=$!
	# -short: the end-to-end tests of a minute or more (testenv.Long) are test-all's. The
	# durations of a fresh clone's first run come from tests/gotest/times.json (a make test
	# of this machine's, at load ~10).
	stage go-test "$GO" run ./tests/gotest -p "$JOBS" -flags -short -log build/test.log -times build/test-times.json -seed tests/gotest/times.json ./...
	wait "$lint" || failed=1
fi
if [ "$mode" = test ]; then
	[ $failed = 0 ] || exit 1
	exit 0
fi

# One after another: each of these keeps both cores busy, and the benchmark's figures are
# BENCHMARKS.md's, measured on a quiet machine.
stage race "${mk[@]}" test-race
# The shared tracer's benchmark runs once (100 workloads watched; about a minute): its
# figures are BENCHMARKS.md's, and a run that breaks it fails.
if [ "$(id -u)" = 0 ]; then
	stage bench-shared "$GO" test -run '^$' -bench SharedTracer -benchtime 1x -v ./live/
else
	echo "test-all: skipping the shared tracer's benchmark (tracing needs root)"
fi
stage arm64 tests/arm64.sh build/arm64
stage arm64vm tests/arm64vm.sh ${ARM64_VM_PACKAGES:-./tracer ./runner ./validate ./calibrate ./planner}
[ $failed = 0 ]
