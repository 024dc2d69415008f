#!/usr/bin/env bash
# make lint: go vet, staticcheck and deadcode -test (the Makefile's lint says why each), on
# the packages whose Go files changed since the last clean lint, which build/lint/clean
# records (each Go file's SHA-256, go.mod's and go.sum's): nothing changed, nothing to do;
# go.mod or go.sum changed, every package. deadcode sees the whole program either way, and
# runs when any Go file changed. LINT_ALL=1 (make lint-all, CI) lints every package whatever
# the record says. A clean lint rewrites the record; a failed one leaves it as it was.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
record=build/lint/clean
mkdir -p build/lint

now=$(git ls-files -z --cached --others --exclude-standard -- '*.go' go.mod go.sum |
	xargs -0 -r sha256sum | sort -k 2)
last=$(cat "$record" 2>/dev/null || true)
if [ -n "${LINT_ALL:-}" ] || [ -z "$last" ]; then
	pkgs=(./...)
	why="every package"
else
	# The files that differ, by name: changed, added or gone.
	changed=$(comm -3 <(printf '%s\n' "$last") <(printf '%s\n' "$now") | awk '{print $2}' | sort -u)
	if [ -z "$changed" ]; then
		echo "lint: no Go file changed since the last clean lint ($record; make lint-all lints everything)"
		exit 0
	fi
	if grep -qx -e go.mod -e go.sum <<<"$changed"; then
		pkgs=(./...)
		why="every package: go.mod or go.sum changed"
	else
		pkgs=()
		while IFS= read -r dir; do
			# A directory left without Go files is no package; testdata is none either.
			case "/$dir/" in */testdata/*) continue ;; esac
			compgen -G "$dir/*.go" >/dev/null && pkgs+=("./$dir")
		done < <(xargs -r -n 1 dirname <<<"$changed" | sort -u)
		why="the packages whose Go files changed since the last clean lint"
	fi
fi
if [ ${#pkgs[@]} -gt 0 ]; then
	echo "lint: $why: ${pkgs[*]}"
	$GO vet "${pkgs[@]}"
	$GO tool staticcheck "${pkgs[@]}"
fi
# deadcode exits 0 whatever it finds (and leaves out generated files): any line fails here.
dead="$($GO tool deadcode -test ./...)"
if [ -n "$dead" ]; then
	echo "$dead" >&2
	echo "lint: functions nothing calls, not even a test (deadcode -test): remove them" >&2
	exit 1
fi
printf '%s\n' "$now" >"$record"
echo "lint: clean"
