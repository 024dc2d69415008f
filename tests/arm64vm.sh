#!/usr/bin/env bash
# The tracer on an arm64 kernel (issue 16, item 3): boots Debian's arm64 kernel in
# qemu-system-aarch64 (TCG: no KVM on these machines) from an initramfs holding the arm64
# build tree (make cross), the arm64 C library and the Go test binaries of PACKAGES, runs
# those tests there as root (BPF, uprobes, tracefs all real, on arm64's pt_regs), and prints
# each package's result and the time it took. Debian's arm64 kernel and busybox (for /bin/sh
# and kin) are fetched once (adding dpkg's arm64 architecture, as root) into build/arm64vm.
# Needs root, qemu-system-arm, cpio and the cross toolchain (tests/arm64.sh's packages);
# without them it says so and exits 0, unless ECHO_REQUIRE_ARM64=1 (CI).
# Usage: tests/arm64vm.sh [PACKAGE...]   (./tracer)
set -euo pipefail
cd "$(dirname "$0")/.."
work=build/arm64vm
tree=build/arm64
packages=("${@:-./tracer}")
mkdir -p "$work"
skip() {
	echo "arm64vm: $1: skipped (apt-get install qemu-system-arm cpio gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross; run as root)" >&2
	[ -z "${ECHO_REQUIRE_ARM64:-}" ] || exit 1
	exit 0
}
for tool in qemu-system-aarch64 cpio; do
	command -v "$tool" >/dev/null || skip "no $tool"
done
[ "$(id -u)" = 0 ] || skip "not root (the kernel package is fetched as root)"
[ -f "$tree/lib/libechoshim.so" ] || skip "no arm64 build in $tree (make cross, with the cross toolchain)"

# fetch PACKAGE PATH: PATH (a glob) out of Debian's arm64 PACKAGE, into $work.
fetch() {
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
		apt-get update -qq
	fi
	(cd "$work" && apt-get download "$1:arm64" 2>/dev/null)
	dpkg-deb --fsys-tarfile "$work/${1}"_*_arm64.deb | tar -x -C "$work" --wildcards "./$2"
	rm -f "$work/${1}"_*_arm64.deb
}
if [ -z "$(find "$work/boot" -name 'vmlinuz-*' 2>/dev/null)" ]; then
	fetch "$(apt-cache depends linux-image-arm64:arm64 | awk '/Depends: linux-image/ {sub(/:arm64$/, "", $2); print $2; exit}')" 'boot/vmlinuz-*'
fi
[ -x "$work/bin/busybox" ] || fetch busybox-static bin/busybox
kernel=$(find "$work/boot" -name 'vmlinuz-*' | head -n 1)

# The initramfs: init, the C library where arm64 programs look for it, and the repository
# under /echo (its files as in the work tree, which tests may read; the arm64 tree as
# build/arm64; each package's test binary in its directory).
root=$work/root
rm -rf "$root"
mkdir -p "$root"/{vm,echo/build,lib,bin,usr/bin}
GOARCH=arm64 CGO_ENABLED=0 go build -o "$root/init" ./tests/arm64vm
cp "$work/bin/busybox" "$root/bin/"
for applet in sh true env cat ls sleep; do ln -s busybox "$root/bin/$applet"; done
cp -a /usr/aarch64-linux-gnu/lib "$root/lib/aarch64-linux-gnu"
find "$root/lib/aarch64-linux-gnu" -name '*.a' -delete
cp -L /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 "$root/lib/"
git ls-files -z --cached --others --exclude-standard | tar -c --null --ignore-failed-read -T - 2>/dev/null | tar -x -C "$root/echo"
cp -a "$tree" "$root/echo/build/arm64"
rm -rf "$root/echo/build/arm64/obj"
# ECHO_EMULATED_CPU: every instruction is emulated (TCG), so page faults and the like cost
# far more next to a copy than on hardware; the tests whose premise is hardware's proportions
# say what they accept instead.
printf '%s\n' ECHO_BUILD=build/arm64 ECHO_EMULATED_CPU=1 >"$root/vm/env"
: >"$root/vm/commands"
for p in "${packages[@]}"; do
	dir=${p#./}
	GOARCH=arm64 CGO_ENABLED=0 go test -c -o "$root/echo/$dir/test" "$p"
	printf '/echo/%s\t/echo/%s/test\t-test.v\t-test.count=1\t-test.timeout=80m\n' "$dir" "$dir" >>"$root/vm/commands"
done
(cd "$root" && find . | cpio -o -H newc --quiet) >"$work/initrd.cpio"

log=$work/console.log
echo "arm64vm: booting $(basename "$kernel") under qemu-system-aarch64 (TCG), log in $log"
start=$(date +%s)
timeout "${ARM64VM_TIMEOUT:-85m}" qemu-system-aarch64 -M virt -cpu cortex-a72 -smp 2 -m 3072 -nographic -nic none -no-reboot \
	-kernel "$kernel" -initrd "$work/initrd.cpio" -append "console=ttyAMA0 rdinit=/init panic=-1 quiet" \
	</dev/null >"$log" 2>&1 || true
grep -E '^(arm64vm:|--- (FAIL|SKIP)|(ok|FAIL|PASS)\b)' "$log" || true
echo "arm64vm: $(($(date +%s) - start)) s in all"
# Every package ran and exited 0.
[ "$(grep -c '^arm64vm: exit 0 ' "$log")" = "${#packages[@]}" ] && grep -q '^arm64vm: done' "$log"
