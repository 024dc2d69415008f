#!/usr/bin/env bash
# What a uprobe trap itself costs a call (issue 17): bench/trapcost/target.c times calls of
# an empty function while build/bin/trapcost attaches nothing, an entry probe, a return
# probe, both, an entry probe doing Echo's entry work, and the same through uprobe_multi;
# medians of ROUNDS alternating rounds. On x86-64 it runs once per first instruction of the
# probed function (see target.c: the kernel emulates a push but single-steps an add or an
# endbr64), printing each function's first instruction.
#   TRAPCOST=PATH  a prebuilt trapcost (the GPU host has no Go: `make trapcost` here, copy it)
#   FIRST="LIB:SYM ..."  also print these functions' first instructions, e.g. the real
#                  libcudart's cudaStreamSynchronize, to tell which row a real probe pays
# Needs root and cc. Usage: sudo bench/trapcost.sh [ROUNDS] [CALLS] (default 5, 100000)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-5}
calls=${2:-100000}
target=build/bench/trapcost-target
mkdir -p build/bench build/bin
cc -O2 -Wall -Wextra -Werror bench/trapcost/target.c -o "$target"

bin=${TRAPCOST:-build/bin/trapcost}
# go build is a no-op when nothing changed; without Go, an already built binary serves.
if [ -z "${TRAPCOST:-}" ] && command -v go >/dev/null; then
	go build -o "$bin" ./bench/trapcost
fi
if [ ! -x "$bin" ]; then
	echo "trapcost: no $bin: run make trapcost on a machine with Go, or set TRAPCOST=" >&2
	exit 1
fi

# first_insn FILE SYM: the first instruction of SYM in FILE, as objdump writes it.
first_insn() {
	command -v objdump >/dev/null || { echo "(no objdump)"; return; }
	objdump -d --disassemble="$2" "$1" 2>/dev/null | awk -F'\t' '/^ +[0-9a-f]+:\t/ { print $3; exit }'
}

syms=trap_plain
[ "$(uname -m)" = x86_64 ] && syms="trap_plain trap_push trap_endbr"
for s in $syms; do
	echo "== $s, first instruction: $(first_insn "$target" "$s")"
	"$bin" -rounds "$rounds" -calls "$calls" -target "$target" -sym "$s"
done
for f in ${FIRST:-}; do
	echo "== ${f#*:} in ${f%%:*}, first instruction: $(first_insn "${f%%:*}" "${f#*:}")"
done
