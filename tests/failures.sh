#!/usr/bin/env bash
# Repeats, after a failed `go test ./...`, the lines of its log that say what failed: each
# failing test with the messages under it, and the tests a timeout caught running. CI keeps
# only the end of a long log, where a goroutine dump would otherwise be all there is.
set -euo pipefail
log=${1:?usage: tests/failures.sh GO-TEST-LOG}
echo "== what failed (the whole log: $log)"
awk '
	/^panic: test timed out/ { dump = 1; print; next }
	dump && /^goroutine / { dump = 0 }
	dump { print; next }
	/^[ \t]*--- FAIL/ { keep = 1; print; next }
	/^(=== |--- PASS|--- SKIP|ok |PASS$)/ { keep = 0 }
	/^FAIL/ { keep = 0; print; next }
	keep { print }
' "$log" | head -200
