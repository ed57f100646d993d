#!/usr/bin/env bash
# coverage-run: the guest run of make coverage. It is make qemu-test's
# run on the gcov kernel (scripts/coverage/kernel.sh) and the initramfs of
# its own BUILD (COV_BUILD), in its own run directory RUN_DIR (COV_RUN_DIR,
# default COV_BUILD/qemu-test): the selection record that
# scripts/select-tests.sh wrote there (T, by default the default set),
# scripts/run-qemu.sh with one file more in the guest, and then, from the
# Makefile, scripts/verdict.sh on RUN_DIR - the counters only count if the
# run passes the one verdict.
#
# The one file more: qemu/gcov-dump as /usr/sbin/reboot (GUEST_EXTRA of
# run-qemu.sh), ahead of busybox's /bin/reboot in /init's PATH. /init's
# last "reboot -f" first sends the counters to the host on the second
# serial port, after NETKIT_DONE, into RUN_DIR/result, where
# scripts/coverage/report.sh finds them.
#
# Skipped when the kernel, the initramfs, the selection record, the hook
# and the command line are those of the last run, and that run sent its
# counters and passes the verdict: a failed or cut-short run runs again.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
BZ=$KBUILD_OUT/arch/x86/boot/bzImage
INITRD=$BUILD/initramfs.cpio
HOOK_ROOT=$BUILD/coverage/guest-root

step coverage-run
for f in "$BZ" "$INITRD"; do
	[ -f "$f" ] || die "$f not found; run: make coverage"
done
[ -f "$RUN_DIR/selection" ] || die "no selection record in $RUN_DIR; run: make coverage (scripts/select-tests.sh writes it)"
grep -qx 'CONFIG_GCOV_KERNEL=y' "$KBUILD_OUT/.config" ||
	die "$KBUILD_OUT is not a gcov kernel's build (scripts/coverage/kernel.sh)"
inputs=$(hash_of "$0" "$BZ" "$INITRD" "$TOP/qemu/gcov-dump" "$RUN_DIR/selection" "$TOP/scripts/run-qemu.sh" "${CMDLINE:-}")
if [ "$(stamp_read coverage-run)" = "$inputs" ] && grep -q '^NETKIT_GCOV_END' "$RUN_DIR/result" 2>/dev/null &&
	"$TOP/scripts/verdict.sh" "$RUN_DIR" >/dev/null 2>&1; then
	step_done "unchanged: the last run passed and sent its counters ($RUN_DIR)"
	exit 0
fi
stamp_clear coverage-run
rm -rf "$HOOK_ROOT"
mkdir -p "$HOOK_ROOT/usr/sbin"
install -m 0755 "$TOP/qemu/gcov-dump" "$HOOK_ROOT/usr/sbin/reboot"
step_done "booting the gcov kernel, run directory $RUN_DIR (the guest's console below)"

# run-qemu.sh records how the run ended in $RUN_DIR/qemu and judges
# nothing: the verdict is the Makefile's next step.
GUEST_EXTRA=$HOOK_ROOT KBUILD_OUT=$KBUILD_OUT "$TOP/scripts/run-qemu.sh"
if grep -q '^NETKIT_GCOV_END' "$RUN_DIR/result" 2>/dev/null; then
	stamp_write coverage-run "$inputs"
else
	warn "the guest sent no gcov counters ($RUN_DIR/result, run $(run_status "$RUN_DIR")); the verdict says why"
fi
