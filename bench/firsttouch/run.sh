#!/usr/bin/env bash
# How fast this host faults in fresh memory (the planner's first-touch rates, planner/copyrate.go,
# measured the same way in C), and what numpy's first touch of a fresh 64 MiB array costs
# against filling a touched one. Prints the kernel's THP setting first.
# Usage: bench/firsttouch/run.sh   (needs cc; python3 with numpy for the second line)
set -euo pipefail
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -O2 -o "$out/ft" ft.c
cat /sys/kernel/mm/transparent_hugepage/enabled
"$out/ft"
python3 np.py
