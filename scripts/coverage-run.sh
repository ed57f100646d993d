#!/usr/bin/env bash
# coverage-run: boot the gcov kernel (scripts/coverage-kernel.sh) with the
# initramfs of its BUILD and the tests T selects - by default the default
# set of make qemu-test, the same test_progs terms and guest tests -
# through scripts/select-tests.sh and scripts/run-qemu.sh, then the
# verdict (scripts/check-verdict.sh): the counters only count if the tests
# passed. qemu/gcov-dump rides along in the boot's extra files as
# /usr/sbin/reboot: /init's final "reboot -f" first sends the counters to
# the host on the second serial port ($BUILD/result), where
# scripts/coverage-report.sh finds them. Skipped when the kernel, the
# initramfs, the selection and the hook are those of the last run.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
COV=$BUILD/coverage
BZ=$KBUILD_OUT/arch/x86/boot/bzImage
INITRD=$BUILD/initramfs.cpio

step coverage-run
for f in "$BZ" "$INITRD"; do
	[ -f "$f" ] || die "$f not found; run: make coverage"
done
inputs=$(hash_of "$0" "$BZ" "$INITRD" "$TOP/qemu/gcov-dump" "T=${T:-}" "${TEST_ARGS-unset}" "${GUEST_TESTS-unset}" "${CMDLINE:-}")
if [ "$(stamp_read coverage-run)" = "$inputs" ] && [ -f "$COV/result" ] && grep -q '^NETKIT_GCOV_END' "$COV/result"; then
	step_done "unchanged: the counters of the last run ($COV/result)"
	exit 0
fi
stamp_clear coverage-run
rm -rf "$COV/root"
mkdir -p "$COV/root/usr/sbin"
install -m 0755 "$TOP/qemu/gcov-dump" "$COV/root/usr/sbin/reboot"
step_done "booting the gcov kernel (the guest's console below)"

EXTRA_ROOT=$COV/root CONSOLE=$COV/console.log RESULT=$COV/result KBUILD_OUT=$KBUILD_OUT \
	"$TOP/scripts/select-tests.sh" "$TOP/scripts/run-qemu.sh"
CONSOLE=$COV/console.log RESULT=$COV/result "$TOP/scripts/select-tests.sh" "$TOP/scripts/check-verdict.sh"
grep -q '^NETKIT_GCOV_END' "$COV/result" ||
	die "the guest sent no gcov counters on ttyS1 ($COV/result): does /init still end with 'reboot -f' through PATH (qemu/gcov-dump)?"
stamp_write coverage-run "$inputs"
