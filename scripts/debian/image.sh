#!/usr/bin/env bash
# debian-image: the Debian 12 system of make deb-install-test, a raw disk
# image with one ext4 filesystem labelled netkit-root, made with mmdebstrap
# from Debian's packages only: the packages of qemu/debian/packages
# from the machine's own apt sources (the host's sources files, as they
# are), without Recommends. On top: fstab, hostname, machine id, the
# stage unit (qemu/debian/netkit-stage.service) that runs each boot's
# stage from the payload disk, and apt's timers masked (the guest has no
# network). Cached in $NETKIT_CACHE/debian12 and rebuilt only when the
# package list, the unit, its runner or this script change.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

IMAGE_DIR=${IMAGE_DIR:-$NETKIT_CACHE/debian12}
IMAGE=$IMAGE_DIR/rootfs.img
IMAGE_SIZE=${IMAGE_SIZE:-6G}
SUITE=bookworm
GUEST=$TOP/qemu/debian

step debian-image
for c in mmdebstrap mkfs.ext4 debugfs; do
	command -v "$c" >/dev/null || die "$c not found; run: make deps"
done
[ "$(id -u)" -eq 0 ] || die "mmdebstrap makes the image as root (a chroot with device nodes and owners); run as root"
mapfile -t packages < <(grep -vE '^[[:space:]]*(#|$)' "$GUEST/packages")
# The machine's apt sources, as apt itself reads them (deb822 files and
# one-line lists); mmdebstrap pastes each into the image's sources.
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
	[ -s "$f" ] && sources+=("$f")
done
[ "${#sources[@]}" -gt 0 ] || die "no apt sources in /etc/apt (sources.list, sources.list.d/*.sources or *.list)"
inputs=$(hash_of "$0" "$GUEST/packages" "$GUEST/netkit-stage.service" "$GUEST/netkit-stage" "$IMAGE_SIZE")
if [ "$(STAMPS=$IMAGE_DIR stamp_read stamp)" = "$inputs" ] && [ -f "$IMAGE" ]; then
	step_done "unchanged: $IMAGE ($(du -h "$IMAGE" | cut -f1) used)"
	exit 0
fi
STAMPS=$IMAGE_DIR stamp_clear stamp
mkdir -p "$IMAGE_DIR"
root=$IMAGE_DIR/root
rm -rf "$root" "$IMAGE" "$IMAGE.new"
trap 'rm -rf "$root"' EXIT

msg "mmdebstrap $SUITE: ${#packages[@]} packages from ${sources[*]}"
pkgs=$(IFS=,; echo "${packages[*]}")
# The kernel package's postinst builds the stock initrd in the chroot;
# dkms finds no headers for the stock kernel and builds nothing yet.
PROGRESS_RE='^I: ' run_progress "$LOG" "mmdebstrap (steps: its phases)" mmdebstrap --variant=apt --include="$pkgs" \
	--aptopt='APT::Install-Recommends "false"' \
	"$SUITE" "$root" "${sources[@]}"

# By label, as an installer writes it by UUID: the payload disk, also
# virtio-blk, may come first and be vda.
printf 'LABEL=netkit-root / ext4 errors=remount-ro 0 1\n' >"$root/etc/fstab"
echo netkit-deb >"$root/etc/hostname"
printf '127.0.1.1\tnetkit-deb\n' >>"$root/etc/hosts"
# A machine id of its own: no first-boot machinery on every boot.
od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$root/etc/machine-id"
echo >>"$root/etc/machine-id"
install -m 0644 "$GUEST/netkit-stage.service" "$root/etc/systemd/system/netkit-stage.service"
install -m 0755 "$GUEST/netkit-stage" "$root/usr/local/sbin/netkit-stage"
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/netkit-stage.service "$root/etc/systemd/system/multi-user.target.wants/"
# apt's daily timers would try to reach the archive, which the guest
# (no network device) cannot: masked, so that a boot's failed units are
# the kernel's doing.
for t in apt-daily.timer apt-daily-upgrade.timer; do
	ln -sf /dev/null "$root/etc/systemd/system/$t"
done
stock=$(find "$root/boot" -name 'vmlinuz-*' -printf '%f\n' | sed 's/^vmlinuz-//' | sort | tail -n 1)
{ [ -n "$stock" ] && [ -f "$root/boot/initrd.img-$stock" ]; } ||
	die "mmdebstrap installed no kernel with an initrd in $root/boot; see $LOG"
used=$(du -sm "$root" | cut -f1)
run_logged "$LOG" mkfs.ext4 -q -F -L netkit-root -d "$root" "$IMAGE.new" "$IMAGE_SIZE"
mv "$IMAGE.new" "$IMAGE"
STAMPS=$IMAGE_DIR stamp_write stamp "$inputs"
step_done "$IMAGE: Debian $SUITE, ${#packages[@]} packages, ${used} MiB, stock kernel $stock"
