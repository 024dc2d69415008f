#!/usr/bin/env bash
# The tracer on an arm64 kernel (issue 16, item 3): boots Debian's arm64 kernel in
# qemu-system-aarch64 (TCG: no KVM on these machines) from an initramfs holding the arm64
# build tree (make cross), the arm64 C library and the Go test binaries of PACKAGES, runs
# those tests there as root (BPF, uprobes, tracefs all real, on arm64's pt_regs), and prints
# each package's result and the time it took, as it happens. Debian's arm64 kernel and busybox
# (for /bin/sh and kin) are fetched once into build/arm64vm from the host's apt sources, with
# apt told to be an arm64 machine with its own package lists under build/arm64vm/apt: the
# host's dpkg (its architectures, package lists and installed packages) is left as it is, and
# the fetch needs no root. Needs qemu-system-arm, cpio and the cross toolchain (tests/arm64.sh's
# packages); without them it says so and exits 0, unless ECHO_REQUIRE_ARM64=1 (CI).
# Usage: tests/arm64vm.sh [PACKAGE...]   (./tracer)
# ARM64VM_RUN=REGEXP runs only the tests it matches (go test's -run), to chase one failure.
# ARM64VM_COUNT=N runs each test N times (go test's -count; 1), to see how often it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
work=build/arm64vm
tree=build/arm64
packages=("${@:-./tracer}")
mkdir -p "$work"
skip() {
	echo "arm64vm: $1: skipped (apt-get install qemu-system-arm cpio gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross)" >&2
	[ -z "${ECHO_REQUIRE_ARM64:-}" ] || exit 1
	exit 0
}
for tool in qemu-system-aarch64 cpio; do
	command -v "$tool" >/dev/null || skip "no $tool"
done
[ -f "$tree/lib/libechoshim.so" ] || skip "no arm64 build in $tree (make cross, with the cross toolchain)"

# apt as an arm64 machine: its own architecture and package lists (in $apt), the host's
# sources and proxy settings, no installed packages (the host's are amd64's) and no AppStream
# metadata. Nothing here touches /var/lib/dpkg or /var/lib/apt, so a fresh machine stays as it
# was: no foreign architecture added behind the user's back.
apt=$PWD/$work/apt
aptopts=(-o APT::Architecture=arm64 -o APT::Architectures=arm64
	-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o Dir::State::status=/dev/null
	-o APT::Sandbox::User="$(id -un)" -o Acquire::Languages=none
	-o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false
	-o Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false)
aptready=
# fetch PACKAGE PATH: PATH (a glob) out of Debian's arm64 PACKAGE, into $work.
fetch() {
	if [ -z "$aptready" ]; then
		echo "arm64vm: fetching Debian's arm64 package lists into $apt (the host's dpkg is left as it is)"
		mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
		apt-get "${aptopts[@]}" -qq update
		aptready=1
	fi
	local pkg=$1
	if [ "$pkg" = linux-image-arm64 ]; then
		# A metapackage: the kernel is in the linux-image-VERSION-arm64 it depends on now.
		pkg=$(apt-cache "${aptopts[@]}" depends linux-image-arm64 | awk '/Depends: linux-image/ {sub(/:arm64$/, "", $2); print $2; exit}')
	fi
	echo "arm64vm: fetching $pkg (arm64)"
	(cd "$work" && apt-get "${aptopts[@]}" -qq download "$pkg")
	dpkg-deb --fsys-tarfile "$work/${pkg}"_*_arm64.deb | tar -x -C "$work" --wildcards "./$2"
	rm -f "$work/${pkg}"_*_arm64.deb
}
[ -n "$(find "$work/boot" -name 'vmlinuz-*' 2>/dev/null)" ] || fetch linux-image-arm64 'boot/vmlinuz-*'
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
printf '%s\n' ECHO_BUILD=build/arm64 >"$root/vm/env"
: >"$root/vm/commands"
for p in "${packages[@]}"; do
	dir=${p#./}
	GOARCH=arm64 CGO_ENABLED=0 go test -c -o "$root/echo/$dir/test" "$p"
	printf '/echo/%s\t/echo/%s/test\t-test.v\t-test.count=%s\t-test.timeout=80m%s\n' "$dir" "$dir" "${ARM64VM_COUNT:-1}" \
		"${ARM64VM_RUN:+$'\t'-test.run=$ARM64VM_RUN}" >>"$root/vm/commands"
done
(cd "$root" && find . | cpio -o -H newc --quiet) >"$work/initrd.cpio"

log=$work/console.log
echo "arm64vm: booting $(basename "$kernel") under qemu-system-aarch64 (TCG), log in $log"
echo "arm64vm: ${#packages[@]} package(s) to test: ${packages[*]} (minutes each: every instruction is emulated)"
start=$(date +%s)
: >"$log"
timeout "${ARM64VM_TIMEOUT:-85m}" qemu-system-aarch64 -M virt -cpu cortex-a72 -smp 2 -m 3072 -nographic -nic none -no-reboot \
	-kernel "$kernel" -initrd "$work/initrd.cpio" -append "console=ttyAMA0 rdinit=/init panic=-1 quiet" \
	</dev/null >"$log" 2>&1 &
qemu=$!
trap 'kill "$qemu" 2>/dev/null || true' EXIT
# Progress as it happens, not at the end: the init's lines (the kernel, each package as it
# starts and its exit status with the time it took), each failed or skipped test and each
# package's verdict, stamped with the minutes since boot. tail stops once qemu has exited.
tail -n +1 -F --pid="$qemu" "$log" 2>/dev/null |
	grep --line-buffered -E '^(arm64vm:|--- (FAIL|SKIP)|(ok|FAIL|PASS)\b)' |
	while IFS= read -r line; do
		s=$(($(date +%s) - start))
		printf '[%2d:%02d] %s\n' $((s / 60)) $((s % 60)) "${line%$'\r'}"
	done || true
wait "$qemu" || true
trap - EXIT
echo "arm64vm: $(($(date +%s) - start)) s in all"
# What each failed test said: go test -v prints a test's messages (indented) after its
# "=== RUN" line and before its "--- FAIL", so each failure is printed with the messages since
# the last test started. The progress above names the failure; this says why, in CI's log.
tr -d '\r' <"$log" | awk '
	/^=== (RUN|CONT)/ { said = ""; next }
	/^[ \t]*--- FAIL/ { print; printf "%s", said; said = ""; next }
	/^[ \t]/ { said = said $0 "\n" }' | sed 's/^/arm64vm: | /'
# Every package ran and exited 0.
[ "$(grep -c '^arm64vm: exit 0 ' "$log")" = "${#packages[@]}" ] && grep -q '^arm64vm: done' "$log"
