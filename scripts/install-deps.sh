#!/usr/bin/env bash
# deps [bench|debian|coverage|arches|arm64|s390x]: install the Debian
# packages the pipeline needs (or, with "bench", "debian", "coverage" or
# "arches", what make bench, make deb-install-test, make coverage or make
# check-arches needs on top; with "arm64" or "s390x", what the pipeline
# needs on top for that ARCH), nothing else. Only packages that are missing are
# installed; without apt-get, or without root/sudo, the missing packages
# are named and the step fails.
#
# arm64, s390x: Debian's cross tool chain for it (gcc and the C
# library's -cross packages) and its QEMU (qemu-system-arm,
# qemu-system-misc) on the host; everything else of the target is never
# installed: downloaded with apt-get download (the architecture added to
# dpkg's and apt's lists, dpkg --add-architecture) and unpacked with dpkg
# -x into a sysroot (lib.sh's ARCH_SYSROOT) - the -dev packages the
# selftests link against (libelf, zlib, libzstd, libcap, libssl for
# sign-file; scripts/build-selftests.sh points the target's compiler
# there) and the guest's userland (busybox, dash, bash, ip, tc, ethtool,
# iptables and the libraries they and the selftests need at run time;
# scripts/make-initramfs.sh copies from there). Installing the -dev
# packages as multiarch packages would need the host's copies of the
# same libraries at the very same version, which Debian's security
# archive does not give for every architecture (bookworm-security has
# no s390x), and would change the host's packages.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

case ${1:-pipeline} in
pipeline)
	# Build the kernel and its tools, build the BPF selftests, assemble
	# the initramfs, boot it, and check the series (make check's
	# check-verdict makes and reads ext4 images: e2fsprogs).
	name=deps
	PACKAGES=(
		linux-source-6.1 dash
		linux-source-6.12 linux-config-6.1 dpkg-dev fakeroot
		gcc make bc flex bison libelf-dev libssl-dev openssl dwarves kmod
		xz-utils lz4 git ccache rsync cpio perl python3
		clang llvm lld pkg-config libcap-dev zlib1g-dev libzstd-dev
		libbpf-dev bpftool
		qemu-system-x86 busybox-static iproute2 ethtool iptables bash
		shellcheck python3-ply python3-git quilt e2fsprogs
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
arm64 | s390x)
	# lib.sh's facts of the target (ARCH_SYSROOT, ARCH_DEB, ARCH_CC,
	# ARCH_QEMU_PKG) are ARCH's.
	[ "$ARCH" = "$1" ] || exec env ARCH="$1" "$0" "$1"
	name=$ARCH-deps
	FOREIGN_ARCH=$ARCH_DEB
	PACKAGES=("gcc-$ARCH_TRIPLET" "libc6-dev-$ARCH_DEB-cross" "$ARCH_QEMU_PKG")
	# A big-endian target's bpftool runs under qemu-user for the
	# selftests' build (lib.sh's ARCH_QEMU_USER).
	[ -z "$ARCH_QEMU_USER" ] || PACKAGES+=(qemu-user)
	# The guest's userland, unpacked into the sysroot: the programs, then
	# every library their ELF NEEDED entries name (closed by hand:
	# scripts/make-initramfs.sh stops naming a soname that the sysroot
	# lacks), libgcc_s (glibc dlopen()s it for pthread_exit) and libssl3
	# (libcrypto, for the selftests' sign-file).
	SYSROOT_PACKAGES=(libelf-dev zlib1g-dev libzstd-dev libcap-dev libssl-dev
		busybox-static dash bash iproute2 ethtool iptables
		libc6 libgcc-s1 libelf1 zlib1g libzstd1 libmnl0 libcap2 libbpf1 libbsd0 libmd0
		libxtables12 libip4tc2 libip6tc2 libnetfilter-conntrack3 libnfnetlink0 libtinfo6 libssl3)
	;;
*) die "usage: install-deps.sh [pipeline|bench|debian|coverage|arches|arm64|s390x]" ;;
esac

step "$name"
# as_root CMD...: CMD as root (through sudo when not root), logged.
SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo)
as_root() {
	[ "${#SUDO[@]}" -eq 0 ] || command -v sudo >/dev/null || die "not root and no sudo; as root run: $*"
	run_logged "$LOG" "${SUDO[@]}" "$@"
}
export DEBIAN_FRONTEND=noninteractive
# A foreign architecture's packages need it known to dpkg and in apt's
# lists.
updated=
if [ -n "${FOREIGN_ARCH:-}" ] && ! dpkg --print-foreign-architectures | grep -qx "$FOREIGN_ARCH"; then
	msg "adding the foreign architecture $FOREIGN_ARCH (dpkg --add-architecture)"
	as_root dpkg --add-architecture "$FOREIGN_ARCH"
	as_root apt-get update -q
	updated=1
fi
missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed ||
		missing+=("$p")
done

note="all ${#PACKAGES[@]} packages present"
if [ "${#missing[@]}" -ne 0 ]; then
	msg "missing: ${missing[*]}"
	command -v apt-get >/dev/null ||
		die "apt-get not found; install these packages by hand: ${missing[*]}"
	[ -n "$updated" ] || as_root apt-get update -q
	as_root apt-get install -y -q --no-install-recommends "${missing[@]}"
	note="installed ${#missing[@]} packages"
fi

# The target's userland: downloaded and unpacked, not installed. The
# sysroot is made again when the list or a candidate version changed
# (apt-get download --print-uris names each .deb with its version).
if [ -n "${SYSROOT_PACKAGES[*]-}" ]; then
	sysroot=$ARCH_SYSROOT
	debs=$(dirname "$sysroot")/debs
	pkgs=("${SYSROOT_PACKAGES[@]/%/:$ARCH_DEB}")
	uris=$(apt-get download --print-uris "${pkgs[@]}" 2>>"$LOG") ||
		fail_with_log "$LOG" "apt-get download --print-uris (is $ARCH_DEB in apt's lists? apt-get update)" 1
	files=$(sed -E "s/^'[^']*' ([^ ]+) .*/\1/" <<<"$uris" | sort)
	want=$(hash_of "$files")
	if [ "$(cat "$sysroot/.netkit-6.1-packages" 2>/dev/null)" = "$want" ]; then
		note+="; sysroot $sysroot current (${#pkgs[@]} packages)"
	else
		rm -rf "$debs" "$sysroot"
		mkdir -p "$debs" "$sysroot"
		msg "downloading ${#pkgs[@]} $ARCH_DEB packages into $debs"
		# apt's sandbox user cannot write into a root-owned cache: quiet
		# its warning by downloading as root, which is what it falls back
		# to.
		(cd "$debs" && run_logged "$LOG" apt-get download -q -o APT::Sandbox::User=root "${pkgs[@]}")
		for f in "$debs"/*.deb; do
			run_logged "$LOG" dpkg-deb -x "$f" "$sysroot"
		done
		# A package's absolute link (libz.so -> /lib/<triplet>/...)
		# points into the sysroot, not into the host.
		while IFS= read -r -d '' l; do
			ln -sfn "$sysroot$(readlink "$l")" "$l"
		done < <(find "$sysroot" -type l -lname '/*' -print0)
		printf '%s\n' "$files" >"$sysroot/.netkit-6.1-debs"
		printf '%s\n' "$want" >"$sysroot/.netkit-6.1-packages"
		note+="; ${#pkgs[@]} packages unpacked into $sysroot"
	fi
fi
step_done "$note"
