#!/usr/bin/env bash
# make lint: go vet, staticcheck and deadcode -test (the Makefile's lint says why each), on
# the packages whose Go files changed since the last clean lint, which build/lint/clean
# records (each Go file's SHA-256, go.mod's and go.sum's), or, where no lint ran yet (a fresh
# clone), since the upstream branch's commit (HEAD's without one), which CI linted whole.
# Nothing changed, nothing to do; go.mod or go.sum changed, every package. deadcode sees the
# whole program, and runs when any Go file changed. LINT_ALL=1 (make lint-all, CI) lints
# every package whatever changed. A clean lint rewrites the record; a failed one leaves it.
# Every run also checks the code's shape (tests/funclen, issue 42): cmd/echoctl holds at most
# 2,600 non-test Go lines, and no Go function outside tests and generated files is longer
# than 80 lines; it lists each offender as file:line and its length.
set -euo pipefail
export LC_ALL=C # one order for sort and comm
cd "$(dirname "$0")/.."
GO=${GO:-go}
record=build/lint/clean
mkdir -p build/lint

# The shape first, whatever changed; its verdict is given at the end, after vet and the rest.
shape=ok
$GO build -o build/lint/funclen ./tests/funclen
build/lint/funclen -max 80 -cli 2600 || shape=failed
shape_verdict() {
	[ "$shape" = ok ] && return 0
	echo "lint: the code's shape (above): cmd/echoctl over 2,600 lines or functions over 80 lines" >&2
	exit 1
}

now=
git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
	now=$(git ls-files -z --cached --others --exclude-standard -- '*.go' go.mod go.sum |
		xargs -0 -r sha256sum | sort)
if [ -n "${LINT_ALL:-}" ] || [ -z "$now" ]; then
	changed=ALL # asked for, or not a git checkout: nothing says what changed
elif [ -f "$record" ]; then
	# The files that differ from the record, by name: changed, added or gone.
	changed=$(comm -3 <(sort "$record") <(printf '%s\n' "$now") | awk '{print $2}' | sort -u)
	since="the last clean lint ($record)"
else
	# No lint ran here yet (a fresh clone): what differs from the upstream branch's commit,
	# or from HEAD without one, which CI linted whole (make lint-all) before merging it.
	base=$(git rev-parse -q --verify '@{upstream}' 2>/dev/null || git rev-parse HEAD)
	changed=$({ git diff --name-only "$base" -- '*.go' go.mod go.sum
		git ls-files --others --exclude-standard -- '*.go'; } | sort -u)
	since="commit $(git rev-parse --short "$base"), which CI linted whole"
fi
if [ -z "$changed" ]; then
	echo "lint: no Go file changed since $since (make lint-all lints everything)"
	shape_verdict
	printf '%s\n' "$now" >"$record"
	exit 0
fi
if [ "$changed" = ALL ] || grep -qx -e go.mod -e go.sum <<<"$changed"; then
	pkgs=(./...)
	why="every package"
else
	pkgs=()
	while IFS= read -r dir; do
		# A directory left without Go files is no package; testdata is none either.
		case "/$dir/" in */testdata/*) continue ;; esac
		compgen -G "$dir/*.go" >/dev/null && pkgs+=("./$dir")
	done < <(xargs -r -n 1 dirname <<<"$changed" | sort -u)
	why="the packages whose Go files changed since $since"
fi
if [ ${#pkgs[@]} -gt 0 ]; then
	echo "lint: $why: ${pkgs[*]}"
	$GO vet "${pkgs[@]}"
	$GO tool staticcheck "${pkgs[@]}"
fi
# The plan's types are declared in plan/ alone (issue 42): a parse of every file, so always.
$GO run ./tests/plantypes
# deadcode exits 0 whatever it finds (and leaves out generated files): any line fails here.
dead="$($GO tool deadcode -test ./...)"
if [ -n "$dead" ]; then
	echo "$dead" >&2
	echo "lint: functions nothing calls, not even a test (deadcode -test): remove them" >&2
	exit 1
fi
shape_verdict
[ -z "$now" ] || printf '%s\n' "$now" >"$record"
echo "lint: clean"
