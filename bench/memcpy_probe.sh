#!/usr/bin/env bash
# Issue 44: what a uprobe on the C library's memcpy would cost a traced program, which is why
# the tracer does not probe it and a framework's staging copy is found in-process instead
# (shim/staging.c). glibc's memcpy and memmove are IFUNCs; the probe goes on the implementation
# this CPU resolves them to (read from a small C program's own memcpy pointer). Every call
# traps, whatever a BPF program attached to the probe would then filter, so the cost is the
# trap's times the calls. Per program (python3 starting and exiting; python3 running a loop of
# bytes copies and small objects for ROUNDS seconds): the calls the probe counted, the wall
# time without and with it, and the cost per call. Needs root, perf (linux-perf) and cc.
# Usage: sudo bench/memcpy_probe.sh [SECONDS]   (1)
set -euo pipefail
secs=${1:-1}
dir=$(mktemp -d)
trap 'perf probe -q -d probe_libc:echo_memcpy 2>/dev/null || true; rm -rf "$dir"' EXIT
cat >"$dir/impl.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	void *(*volatile m)(void *, const void *, size_t) = memcpy;
	Dl_info i;
	if (!dladdr((void *)m, &i))
		return 1;
	printf("%s %#lx\n", i.dli_fname, (unsigned long)((char *)m - (char *)i.dli_fbase));
	return 0;
}
EOF
cc -O1 -o "$dir/impl" "$dir/impl.c" -ldl
read -r libc off < <("$dir/impl")
echo "== memcpy resolves to $libc+$off on this CPU ($(uname -r), $(nproc) cores)"
cat >"$dir/loop.py" <<EOF
import time
buf, n, t = bytearray(1 << 20), 0, time.time()
while time.time() - t < $secs:
    b = bytes(buf)
    s = str(n) + "x" * 10
    l = list(range(100))
    d = {i: i for i in range(50)}
    n += 1
print(n)
EOF
wall() { local t0 t1; t0=$(date +%s%N); "$@" >"$dir/out" 2>"$dir/err"; t1=$(date +%s%N); echo $(((t1 - t0) / 1000)); }
start_plain=$(wall python3 -c pass)
loop_plain=$(wall python3 "$dir/loop.py")
iters_plain=$(cat "$dir/out")
perf probe -q -x "$libc" -a "echo_memcpy=$off"
start_probed=$(wall perf stat -x, -e probe_libc:echo_memcpy -- python3 -c pass)
start_calls=$(grep echo_memcpy "$dir/err" | cut -d, -f1)
loop_probed=$(wall perf stat -x, -e probe_libc:echo_memcpy -- python3 "$dir/loop.py")
iters_probed=$(cat "$dir/out")
loop_calls=$(grep echo_memcpy "$dir/err" | cut -d, -f1)
echo
printf '%-34s %10s %12s %12s %12s\n' program calls 'plain µs' 'probed µs' 'µs/call'
printf '%-34s %10s %12s %12s %12.1f\n' 'python3 -c pass' "$start_calls" "$start_plain" "$start_probed" \
	"$(awk -v a="$start_plain" -v b="$start_probed" -v n="$start_calls" 'BEGIN { print (b - a) / n }')"
printf '%-34s %10s %12s %12s %12s\n' "python3 loop, ${secs} s: iterations" '' "$iters_plain" "$iters_probed" ''
printf '%-34s %10s %12s %12s %12s\n' '  memcpy calls in it' "$loop_calls" '' '' ''
