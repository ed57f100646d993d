#!/usr/bin/env bash
# deb: the KCONFIG=debian kernel as Debian packages. kbuild's bindeb-pkg
# in the kernel step's build directory (which it finds up to date: same
# make line, same build number) writes linux-image-<release> (with -dbg),
# linux-headers-<release> and linux-libc-dev into $BUILD/deb; then the
# image package is unpacked (dpkg-deb -x) into $BUILD/deb/root, whose
# vmlinuz and modules make deb boots and tests - the package, not the
# build tree.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
JOBS=${JOBS:-$(nproc)}
DEB_DIR=$BUILD/deb

step deb
[ "${KCONFIG:-test}" = debian ] || die "make deb packages the KCONFIG=debian kernel; run: make deb"
[ -f "$KBUILD_OUT/arch/x86/boot/bzImage" ] || die "no kernel in $KBUILD_OUT; run: make kernel KCONFIG=debian"
for c in dpkg-buildpackage dpkg-deb fakeroot; do
	command -v "$c" >/dev/null || die "$c not found; run: make deps"
done
kbuild_setup "$KBUILD_OUT"
release=$(cat "$KBUILD_OUT/include/config/kernel.release")
inputs=$(hash_of "$0" "$(sha256sum <"$KBUILD_OUT/arch/x86/boot/bzImage")" \
	"$(sha256sum <"$KBUILD_OUT/.config")" "$(sha256sum <"$KBUILD_OUT/modules.order")")
if [ "$(stamp_read deb)" = "$inputs" ] && [ -f "$DEB_DIR/vmlinuz" ]; then
	step_done "unchanged: $(find "$DEB_DIR" -maxdepth 1 -name '*.deb' -printf '%f ')"
	exit 0
fi
stamp_clear deb

# dpkg-buildpackage writes the packages next to the build directory.
rm -rf "$DEB_DIR"
rm -f "$BUILD"/*.deb "$BUILD"/*.buildinfo "$BUILD"/*.changes
mkdir -p "$DEB_DIR"
# The package revision is the kernel step's fixed build number (1):
# debian/rules passes it to kbuild as KBUILD_BUILD_VERSION, and with the
# same number nothing relinks.
run_progress "$LOG" "bindeb-pkg" "${KMAKE[@]}" -j"$JOBS" KDEB_PKGVERSION="$release-1" bindeb-pkg
mv "$BUILD"/*.deb "$BUILD"/*.buildinfo "$BUILD"/*.changes "$DEB_DIR/"
image=$DEB_DIR/linux-image-${release}_${release}-1_amd64.deb
[ -f "$image" ] || die "bindeb-pkg wrote no $(basename "$image"); see $LOG"
relinked=$(grep -cE '^ +(CC|LD) ' "$LOG" || true)
msg "packages ($relinked objects compiled or linked by bindeb-pkg):"
for d in "$DEB_DIR"/*.deb; do
	msg "  $(basename "$d")  $(du -h "$d" | cut -f1)"
done

# Unpacked as dpkg would install it (kbuild's package ships modules.dep
# with the modules).
run_logged "$LOG" dpkg-deb -x "$image" "$DEB_DIR/root"
vmlinuz=$DEB_DIR/root/boot/vmlinuz-$release
[ -f "$vmlinuz" ] || die "$(basename "$image") has no boot/vmlinuz-$release"
[ -f "$DEB_DIR/root/lib/modules/$release/modules.dep" ] ||
	die "$(basename "$image") has no lib/modules/$release/modules.dep"
ln -sfn "root/boot/vmlinuz-$release" "$DEB_DIR/vmlinuz"
if cmp -s "$vmlinuz" "$KBUILD_OUT/arch/x86/boot/bzImage"; then
	same="the build's bzImage, byte for byte"
else
	same="differs from the build's bzImage"
fi
stamp_write deb "$inputs"
step_done "$(basename "$image"): boot/vmlinuz-$release ($same), $(find "$DEB_DIR/root/lib/modules" -name '*.ko*' | wc -l) modules; in $DEB_DIR"
