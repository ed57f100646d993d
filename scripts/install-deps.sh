#!/usr/bin/env bash
# deps [bench|debian|coverage|arches]: install the Debian packages the
# pipeline needs (or, with "bench", "debian", "coverage" or "arches", what
# make bench, make deb-install-test, make coverage or make check-arches
# needs on top), nothing else. Only
# packages that are missing are installed; without apt-get, or without
# root/sudo, the missing packages are named and the step fails.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

case ${1:-pipeline} in
pipeline)
	# Build the kernel and its tools, build the BPF selftests, assemble
	# the initramfs, boot it, and check the series.
	name=deps
	PACKAGES=(
		linux-source-6.1 dash
		linux-source-6.12 linux-config-6.1 dpkg-dev fakeroot
		gcc make bc flex bison libelf-dev libssl-dev openssl dwarves kmod
		xz-utils lz4 git ccache rsync cpio perl python3
		clang llvm lld pkg-config libcap-dev zlib1g-dev libzstd-dev
		libbpf-dev bpftool
		qemu-system-x86 busybox-static iproute2 ethtool iptables bash
		shellcheck python3-ply python3-git quilt
	)
	;;
bench)
	# The load generators and perf copied into the bench guest, gnuplot
	# for the chart, python3 for the report.
	name=bench-deps
	PACKAGES=(iperf3 sockperf linux-perf gnuplot-nox python3)
	;;
debian)
	# make deb-install-test: the Debian 12 system (mmdebstrap), its ext4
	# disk image (mkfs.ext4 -d, debugfs), booted under QEMU.
	name=debian-deps
	PACKAGES=(mmdebstrap e2fsprogs qemu-system-x86)
	;;
coverage)
	# lcov (geninfo, genhtml) for make coverage's tracefile and HTML
	# report; gcov itself comes with gcc.
	name=coverage-deps
	PACKAGES=(lcov)
	;;
arches)
	# make check-arches: Debian's cross compilers for the other
	# architectures Debian ships 6.1 for (i386, armhf, arm64, ppc64el,
	# s390x), and each one's C library headers for libbpf and bpftool
	# (libelf's and zlib's headers are the host's: the same on every
	# architecture).
	name=arches-deps
	PACKAGES=(
		gcc-i686-linux-gnu libc6-dev-i386-cross
		gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
		gcc-aarch64-linux-gnu libc6-dev-arm64-cross
		gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross
		gcc-s390x-linux-gnu libc6-dev-s390x-cross
	)
	;;
*) die "usage: install-deps.sh [pipeline|bench|debian|coverage|arches]" ;;
esac

step "$name"
missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed ||
		missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
	step_done "all ${#PACKAGES[@]} packages present"
	exit 0
fi

msg "missing: ${missing[*]}"
command -v apt-get >/dev/null ||
	die "apt-get not found; install these packages by hand: ${missing[*]}"

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null ||
		die "not root and no sudo; as root run: apt-get install ${missing[*]}"
	SUDO=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
run_logged "$LOG" "${SUDO[@]}" apt-get update -q
run_logged "$LOG" "${SUDO[@]}" apt-get install -y -q \
	--no-install-recommends "${missing[@]}"
step_done "installed ${#missing[@]} packages"
