#!/usr/bin/env bash
# The user-space suite on arm64 (issue 16): every Go test built for linux/arm64 and run under
# qemu's user mode (qemu-user-static, through binfmt_misc) against the arm64 build tree that
# `make cross` lays out, with the tests that need BPF skipped (ECHO_NO_BPF=1: qemu's user
# mode does not emulate the bpf system call; the tracer's tests belong to an arm64 kernel).
# Registering the binfmt handler, once per boot, needs root. Without the cross toolchain's
# build, qemu or the arm64 C library it says what to install and exits 0, unless
# ECHO_REQUIRE_ARM64=1 (CI), which makes that a failure.
# Usage: tests/arm64.sh [TREE] [PACKAGES...]   (build/arm64; ./...)
set -euo pipefail
cd "$(dirname "$0")/.."
tree=${1:-build/arm64}
shift || true
packages=("${@:-./...}")
libc=/usr/aarch64-linux-gnu

skip() {
	echo "test-arm64: $1: skipped (apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static; make cross)" >&2
	[ -z "${ECHO_REQUIRE_ARM64:-}" ] || exit 1
	exit 0
}
[ -f "$tree/lib/libechoshim.so" ] || skip "no arm64 build in $tree"
command -v qemu-aarch64-static >/dev/null || skip "no qemu-aarch64-static"
[ -e "$libc/lib/ld-linux-aarch64.so.1" ] || skip "no arm64 C library in $libc"

binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/qemu-aarch64" ]; then
	[ "$(id -u)" = 0 ] || skip "no qemu-aarch64 binfmt handler, and registering one needs root"
	[ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt"
	# Debian's own handler line (qemu-user-static), as systemd-binfmt would register it.
	cat /usr/lib/binfmt.d/qemu-aarch64.conf >"$binfmt/register"
fi

# What the tests start besides the tree's own programs must be arm64 too: the device probe
# preloads the shim into `true`, which on an arm64 machine is arm64.
mkdir -p "$tree/host"
echo 'int main(void) { return 0; }' | "${CROSS:-aarch64-linux-gnu-}gcc" -O2 -x c - -o "$tree/host/true"
# The symbol tests strip copies of arm64 programs: the host's objcopy knows only its own
# machine, the cross toolchain's knows arm64.
ln -sf "$(command -v "${CROSS:-aarch64-linux-gnu-}objcopy")" "$tree/host/objcopy"

echo "test-arm64: go test ${packages[*]} for linux/arm64 under qemu's user mode, against $tree"
PATH="$PWD/$tree/host:$PATH" QEMU_LD_PREFIX=$libc ECHO_BUILD=$tree ECHO_NO_BPF=1 \
	GOARCH=arm64 CGO_ENABLED=0 go test -count=1 "${packages[@]}"
