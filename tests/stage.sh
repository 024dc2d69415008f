#!/usr/bin/env bash
# One stage of make test: runs a command with each line it prints prefixed by the stage's
# name, says what is running when it has printed nothing for 25 s (so that a run is never
# silent longer than that; tests/gotest says more, every 20 s), keeps its whole output in
# build/logs/NAME.log, and ends with the stage's time and status, which it also appends to
# build/logs/stages (tests/suite.sh prints them at the end).
# Usage: tests/stage.sh NAME COMMAND [ARGS...]
set -uo pipefail
name=$1
shift
cd "$(dirname "$0")/.."
mkdir -p build/logs
log=build/logs/$name.log
: >"$log"
start=$(date +%s)
elapsed() {
	local s=$(($(date +%s) - start))
	printf '%dm%02ds' $((s / 60)) $((s % 60))
}
echo "[$name] $*"
partial=
# read -t gives up after 25 s of silence (status > 128), keeping what it read of a line.
"$@" 2>&1 | while :; do
	if IFS= read -r -t 25 line; then
		line=$partial$line
		partial=
		printf '[%s] %s\n' "$name" "$line"
		printf '%s\n' "$line" >>"$log"
	elif [ $? -gt 128 ]; then
		partial=$partial$line
		printf '[%s] ... still running after %s: %s\n' "$name" "$(elapsed)" "$(tail -n 1 "$log" | cut -c 1-100)"
	else
		[ -z "$partial$line" ] || { printf '[%s] %s\n' "$name" "$partial$line"; printf '%s\n' "$partial$line" >>"$log"; }
		break
	fi
done
rc=${PIPESTATUS[0]}
status=ok
[ "$rc" = 0 ] || status="FAILED (exit $rc)"
echo "[$name] $status in $(elapsed) (whole output: $log)"
printf '%s\t%s\t%s\n' "$name" "$(($(date +%s) - start))" "$status" >>build/logs/stages
exit "$rc"
