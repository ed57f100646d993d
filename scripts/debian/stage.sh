#!/usr/bin/env bash
# debian-stage STAGE [LABEL]: one boot of the Debian 12 image of make
# deb-install-test under QEMU (TCG), as its boot loader would: the
# installed /boot/vmlinuz-<release> with /boot/initrd.img-<release>
# (read out of the disk image with debugfs), root=LABEL=netkit-root on
# virtio-blk.
# systemd starts netkit-stage.service after multi-user.target, which runs
# qemu/debian/stage.sh STAGE from the payload disk (a tar archive on a
# second virtio disk) and writes its report to the second serial port.
#
#   install    copy the cached image afresh, boot Debian's stock kernel,
#              apt install the netkit packages
#   netkit     boot the netkit kernel, run the checks
#   remove     boot the stock kernel, apt remove the netkit packages
#   reinstall  boot the stock kernel again, apt install again
#
# NETKIT_PLANT=failing-unit|initrd-without-virtio_blk|failing-postinst
# plants a failure (qemu/debian/stage.sh). LABEL (default STAGE) names the step and its
# run directory, $BUILD/deb-install/LABEL (a stage booted twice keeps
# both). scripts/verdict.sh judges that run directory.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

STAGE=${1:-}
LABEL=${2:-$STAGE}
IMAGE=${IMAGE:-$NETKIT_CACHE/debian12/rootfs.img}
DEB_DIR=$BUILD/deb
WORK=$BUILD/deb-install
DISK=$WORK/disk.img
# Until the stage starts (systemd reached multi-user.target), and the
# whole boot: apt, initramfs-tools and DKMS run under TCG.
STAGE_BOOT_TIMEOUT=${STAGE_BOOT_TIMEOUT:-600}
STAGE_TIMEOUT=${STAGE_TIMEOUT:-1800}
NETKIT_PLANT=${NETKIT_PLANT:-}

case $STAGE in
install | netkit | remove | reinstall) ;;
*) die "usage: debian-stage.sh install|netkit|remove|reinstall [LABEL]" ;;
esac
step "deb-install-$LABEL"
[ -f "$IMAGE" ] || die "no Debian image at $IMAGE; run: make deb-install-test"
[ -f "$BUILD/kernel/include/config/kernel.release" ] || die "no kernel in $BUILD/kernel; run: make deb-install-test"
for t in netkit-pair netkit-attach; do
	[ -x "$BUILD/guest/$t" ] || die "$BUILD/guest/$t not found; run: make selftests KCONFIG=debian"
done
release=$(cat "$BUILD/kernel/include/config/kernel.release")
image_deb=$(find "$DEB_DIR" -maxdepth 1 -name "linux-image-${release}_*.deb" -printf '%f\n')
headers_deb=$(find "$DEB_DIR" -maxdepth 1 -name "linux-headers-${release}_*.deb" -printf '%f\n')
{ [ -n "$image_deb" ] && [ -n "$headers_deb" ]; } ||
	die "no linux-image-$release or linux-headers-$release package in $DEB_DIR; run: make deb-install-test"

mkdir -p "$WORK"
if [ "$STAGE" = install ]; then
	# Every run starts from the cached system as mmdebstrap made it.
	rm -f "$DISK"
	cp --sparse=always "$IMAGE" "$DISK"
fi
[ -f "$DISK" ] || die "no $DISK: the install stage makes it; run: make deb-install-test"

# The kernels in the image's /boot, as the boot loader would see them.
boot_ls=$(debugfs -R 'ls -p /boot' "$DISK" 2>/dev/null | awk -F/ '{ print $6 }')
stock=$(grep -E '^vmlinuz-.*-cloud-amd64$' <<<"$boot_ls" | sed 's/^vmlinuz-//' | sort -V | tail -n 1)
[ -n "$stock" ] || die "no Debian cloud kernel in $DISK's /boot: ${boot_ls//$'\n'/ }"
case $STAGE in
netkit) kernel=$release ;;
*) kernel=$stock ;;
esac
for f in "vmlinuz-$kernel" "initrd.img-$kernel"; do
	grep -qxF "$f" <<<"$boot_ls" || die "no /boot/$f in $DISK (did the install stage pass?): ${boot_ls//$'\n'/ }"
	rm -f "$WORK/$f"
	run_logged "$LOG" debugfs -R "dump -p /boot/$f $WORK/$f" "$DISK"
	[ -s "$WORK/$f" ] || die "debugfs could not read /boot/$f out of $DISK; see $LOG"
done

# The payload: the stage script and its helpers, the project's static
# netkit tools, the packages, and what the stage needs to know.
payload=$WORK/payload
rm -rf "$payload" "$WORK/payload.tar"
mkdir -p "$payload/bin"
install -m 0755 "$TOP/qemu/debian/stage.sh" "$payload/stage.sh"
install -m 0644 "$TOP/selftests/guest/lib.sh" "$payload/lib.sh"
install -m 0755 "$BUILD/guest/netkit-pair" "$BUILD/guest/netkit-attach" "$payload/bin/"
case $STAGE in
install | reinstall) cp "$DEB_DIR/$image_deb" "$DEB_DIR/$headers_deb" "$payload/" ;;
esac
echo "$STAGE" >"$payload/stage"
echo "$release" >"$payload/release"
echo "$stock" >"$payload/stock"
echo "$image_deb" >"$payload/image_deb"
echo "$headers_deb" >"$payload/headers_deb"
echo "$NETKIT_PLANT" >"$payload/plant"
tar -C "$payload" -cf "$WORK/payload.tar" --owner=0 --group=0 .
rm -rf "$payload"

# The boot, through the project's one boot path (scripts/run-qemu.sh):
# the system's own kernel and initrd from /boot, no cpio of ours, the
# two disks; the boot mark is the stage's first report line, and the
# initrd's "ALERT!" shell (it gave up on the root disk) stops the boot
# at once. scripts/verdict.sh (mode debian) judges the run directory.
run=$WORK/$LABEL
msg "booting $kernel (/boot/vmlinuz-$kernel, /boot/initrd.img-$kernel) from $DISK${NETKIT_PLANT:+; planted: $NETKIT_PLANT}"
RUN_DIR=$run VERDICT=debian VERDICT_ARGS="$STAGE" BOOT_STEP="deb-install-$LABEL-boot" \
	BZIMAGE="$WORK/vmlinuz-$kernel" INITRAMFS="$WORK/initrd.img-$kernel" GUEST_ROOT=none \
	APPEND="root=LABEL=netkit-root ro console=ttyS0 panic=-1 rootdelay=60" \
	QEMU_ARGS="-drive
file=$DISK,if=virtio,format=raw
-drive
file=$WORK/payload.tar,if=none,id=payload,format=raw,readonly=on
-device
virtio-blk-pci,drive=payload,serial=netkit-payload" \
	BOOT_MARK='^netkit-6.1 deb-install-test: stage' BOOT_MARK_IN=result STOP_RE='ALERT! ' \
	SHOW='Run /init|Begin: Mounting root|Reached target|Gave up waiting|ALERT!|Kernel panic|Power-Off' SHOW_RESULT=1 \
	TIMEOUT="$STAGE_TIMEOUT" BOOT_TIMEOUT="$STAGE_BOOT_TIMEOUT" TIMEOUT_HINT=' (STAGE_TIMEOUT, STAGE_BOOT_TIMEOUT)' \
	"$TOP/scripts/run-qemu.sh"
step_done "$kernel booted; run $run"
