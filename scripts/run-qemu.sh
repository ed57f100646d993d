#!/usr/bin/env bash
# boot: boot the kernel with the initramfs under QEMU, stream the console
# and stop at a wall-clock limit. The guest's /init runs
# 'test_progs $TEST_ARGS' (unless RUN_TEST_PROGS=no), then the guest tests
# named in $GUEST_TESTS, and writes their exit statuses to the second
# serial port, which QEMU stores in $BUILD/result;
# scripts/check-verdict.sh turns the console log and that file into the
# verdict. make qemu-test runs it through scripts/select-tests.sh, which
# resolves T into these three.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
TIMEOUT=${TIMEOUT:-900}       # whole run, seconds
BOOT_TIMEOUT=${BOOT_TIMEOUT:-60} # until /init speaks, seconds
ACCEL=${ACCEL:-tcg}
QEMU_CPU=${QEMU_CPU:-max}  # the CPU model under TCG
TCG_OPTS=${TCG_OPTS:-}     # more -accel tcg options, e.g. tb-size=512
SMP=${SMP:-2}
MEM=${MEM:-2G}
# ICOUNT=SHIFT: QEMU's instruction counting (-icount shift=SHIFT,sleep=off,
# align=off): the guest clock advances 2^SHIFT ns per executed guest
# instruction and never with host time, so guest-timed intervals count
# instructions whatever else the host runs. TCG then runs all vCPUs on one
# host thread in turn (MTTCG and icount exclude each other). Empty: off.
ICOUNT=${ICOUNT:-}
# GUEST_SEED=N: the guest's random numbers (RDRAND) from a PRNG seeded
# with N (-seed) and its RTC from the virtual clock at a fixed date, so
# that an icount guest runs the same way every time. Empty: off.
GUEST_SEED=${GUEST_SEED:-}
BZIMAGE=${BZIMAGE:-$KBUILD_OUT/arch/x86/boot/bzImage}
CONSOLE=${CONSOLE:-$BUILD/console.log}
RESULT=${RESULT:-$BUILD/result}
# Other guests (make bench) boot through this script with their own
# initramfs, files added to it (EXTRA_ROOT, a directory), the line their
# /init prints first (BOOT_MARK) and their own step name; QUIET_KERNEL=1
# streams the console without the kernel's messages.
INITRAMFS=${INITRAMFS:-$BUILD/initramfs.cpio}
BOOT_MARK=${BOOT_MARK:-^netkit-6.1 guest:}
TEST_ARGS=${TEST_ARGS-}
GUEST_TESTS=${GUEST_TESTS-}
GUEST_SMOKE=${GUEST_SMOKE-}
GUEST_AREAS=${GUEST_AREAS-}
RUN_TEST_PROGS=${RUN_TEST_PROGS:-yes}

step "${BOOT_STEP:-boot}"
[ -f "$BZIMAGE" ] || die "$BZIMAGE not found; run: make kernel"
[ -f "$INITRAMFS" ] || die "$INITRAMFS not found; run: make initramfs"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found; install qemu-system-x86 (make deps)"

case $ACCEL in
tcg) accel=(-accel "tcg${TCG_OPTS:+,$TCG_OPTS}" -cpu "$QEMU_CPU") ;;
kvm)
	# Opt-in only: the KVM on these machines hangs stock kernels
	# silently; the boot watchdog below still bounds the run.
	[ -w /dev/kvm ] || die "ACCEL=kvm but /dev/kvm is not usable"
	accel=(-accel kvm -cpu host)
	;;
*) die "ACCEL must be tcg or kvm, not '$ACCEL'" ;;
esac
if [ -n "$ICOUNT" ]; then
	[[ $ICOUNT =~ ^[0-9]$ ]] || die "ICOUNT must be a shift of 0..9, not '$ICOUNT'"
	[ "$ACCEL" = tcg ] || die "ICOUNT needs ACCEL=tcg, not '$ACCEL'"
	accel+=(-icount "shift=$ICOUNT,sleep=off,align=off")
fi
if [ -n "$GUEST_SEED" ]; then
	[[ $GUEST_SEED =~ ^[0-9]+$ ]] || die "GUEST_SEED must be a number, not '$GUEST_SEED'"
	accel+=(-seed "$GUEST_SEED" -rtc "base=2026-01-01T00:00:00,clock=vm")
fi

# The arguments travel in a second cpio archive appended to the first; the
# kernel unpacks both into the same rootfs.
args_dir=$(mktemp -d)
trap 'rm -rf "$args_dir"' EXIT
mkdir -p "$args_dir/root/etc/netkit-6.1"
# No args file: /init does not run test_progs.
[ "$RUN_TEST_PROGS" = no ] || printf '%s\n' "$TEST_ARGS" >"$args_dir/root/etc/netkit-6.1/args"
printf '%s\n' "$GUEST_TESTS" >"$args_dir/root/etc/netkit-6.1/guest-tests"
printf '%s\n' "$GUEST_SMOKE" >"$args_dir/root/etc/netkit-6.1/guest-smoke"
printf '%s\n' "$GUEST_AREAS" >"$args_dir/root/etc/netkit-6.1/guest-areas"
for t in $GUEST_TESTS; do
	[ -f "$TOP/selftests/guest/$t.sh" ] || die "GUEST_TESTS: no selftests/guest/$t.sh"
done
[ -z "${EXTRA_ROOT:-}" ] || cp -a "$EXTRA_ROOT/." "$args_dir/root/"
(cd "$args_dir/root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --owner=0:0 --quiet) >"$args_dir/args.cpio"
boot_cpio=$(dirname "$CONSOLE")/boot.cpio
cat "$INITRAMFS" "$args_dir/args.cpio" >"$boot_cpio"

rm -f "$CONSOLE" "$RESULT"
: >"$CONSOLE"
msg "qemu: $ACCEL${TCG_OPTS:+,$TCG_OPTS} -cpu ${QEMU_CPU}${ICOUNT:+, -icount shift=$ICOUNT,sleep=off,align=off}${GUEST_SEED:+, -seed $GUEST_SEED}, $SMP CPUs, $MEM, timeout ${TIMEOUT}s; console: $CONSOLE"
[ -z "${CMDLINE:-}" ] || msg "kernel command line adds: $CMDLINE"
if [ "$RUN_TEST_PROGS" = no ]; then
	runs="no test_progs"
else
	runs="test_progs $TEST_ARGS"
fi
msg "guest runs${SEL_FILTER:+ ($SEL_FILTER)}: $runs; ${GUEST_TESTS:+then selftests/guest: }${GUEST_TESTS:-no guest test}${GUEST_SMOKE:+ (in their smoke form: $GUEST_SMOKE)}"
[ -z "${SEL_FILTER:-}" ] ||
	msg "left out of the default set: test_progs ${SEL_LEFT_TP:-nothing}; guest tests ${SEL_LEFT_GUEST:-none}"
qemu-system-x86_64 "${accel[@]}" -smp "$SMP" -m "$MEM" \
	-nodefaults -display none -no-reboot \
	-kernel "$BZIMAGE" -initrd "$boot_cpio" \
	-append "console=ttyS0 panic=-1 oops=panic rdinit=/init${CMDLINE:+ $CMDLINE}" \
	-serial "file:$CONSOLE" -serial "file:$RESULT" \
	</dev/null >"$LOG" 2>&1 &
qemu=$!
if [ "${QUIET_KERNEL:-}" = 1 ]; then
	tail -n +1 -f --pid="$qemu" "$CONSOLE" | grep --line-buffered -vE '^\[ *[0-9]+\.[0-9]+\] ' &
else
	tail -n +1 -f --pid="$qemu" "$CONSOLE" &
fi
tailer=$!

verdict="" booted=""
t0=$(date +%s)
while kill -0 "$qemu" 2>/dev/null; do
	sleep 1
	elapsed=$(($(date +%s) - t0))
	if [ -z "$booted" ] && grep -q "$BOOT_MARK" "$CONSOLE"; then
		booted=$elapsed
	fi
	if [ "$elapsed" -ge "$TIMEOUT" ]; then
		verdict="timeout: the guest did not finish within ${TIMEOUT}s${TIMEOUT_HINT:-}"
	elif [ -z "$booted" ] && [ "$elapsed" -ge "$BOOT_TIMEOUT" ]; then
		verdict="boot timeout: /init did not start within ${BOOT_TIMEOUT}s"
	fi
	if [ -n "$verdict" ]; then
		kill "$qemu" 2>/dev/null || true
		break
	fi
done
rc=0
wait "$qemu" || rc=$?
wait "$tailer" 2>/dev/null || true

if [ -n "$verdict" ]; then
	printf '\n---- last 50 console lines (%s) ----\n' "$CONSOLE" >&2
	tail -n 50 "$CONSOLE" | tr -d '\r' >&2
	die "$verdict"
fi
if [ "$rc" -ne 0 ]; then
	cat "$LOG" >&2
	die "qemu exited with status $rc; its output: $LOG"
fi
step_done "guest finished, /init started after ${booted:-?}s"
