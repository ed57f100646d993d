#!/usr/bin/env bash
# regress-run SIDE: boot the base (unpatched) or the patched kernel with its
# own test_progs and run the test set of selftests/regress.list, the same
# way for both: same list, same QEMU, no guest tests. The run goes to
# BUILD/regress/SIDE/ (its selection, console.log, result and QEMU's
# record) and is judged by scripts/verdict.sh (mode regress: it ran to
# test_progs' Summary; a timeout fails, naming the console's kernel
# trouble); scripts/slow/regress-diff.sh compares the two consoles.
# A side whose kernel, initramfs and list did not change keeps its last
# run that passed the verdict (the base does not change when the series does).
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=regress-lib.sh
. "$(dirname "$0")/regress-lib.sh"

side=${1:?usage: regress-run.sh base|patched}
case $side in
base) run_build=${BASE_BUILD:?BASE_BUILD not set (the Makefile sets it)} ;;
patched) run_build=$BUILD ;;
*) die "regress-run.sh: side must be base or patched, not '$side'" ;;
esac
OUT=$BUILD/regress
run=$OUT/$side
console=$run/console.log

step "regress-$side"
args=$(regress_args)
bzimage=$run_build/kernel/arch/x86/boot/bzImage
for f in "$bzimage" "$run_build/initramfs.cpio"; do
	[ -f "$f" ] || die "$f not found; run: make regress (it builds both sides)"
done
inputs=$(hash_of "$0" "$bzimage" "$run_build/initramfs.cpio" "$args" \
	"$TOP/scripts/run-qemu.sh" "$ACCEL $QEMU_CPU $TCG_OPTS $SMP $MEM")
if [ "$(stamp_read "regress-$side")" = "$inputs" ] && "$TOP/scripts/verdict.sh" "$run" >/dev/null 2>&1; then
	step_done "unchanged kernel, initramfs and list: keeping $console"
	exit 0
fi
stamp_clear "regress-$side"
mkdir -p "$run"
msg "$(wc -w <<<"$args") words of test_progs arguments, from $REGRESS_LIST"
RUN_DIR=$run TEST_ARGS=$args GUEST_TESTS='' "$TOP/scripts/select-tests.sh"
BUILD=$run_build RUN_DIR=$run VERDICT=regress VERDICT_ARGS=$side TIMEOUT=${REGRESS_TIMEOUT:-3600} \
	TIMEOUT_HINT=' (REGRESS_TIMEOUT)' "$TOP/scripts/run-qemu.sh"
"$TOP/scripts/verdict.sh" "$run"
stamp_write "regress-$side" "$inputs"
step_done "$(grep -E '^Summary:' "$console" | tail -n 1), console $console"
