#!/usr/bin/env bash
# boot: boot the kernel with the initramfs under QEMU, stream the console
# and stop at a wall-clock limit; record what happened, judge nothing.
# The run lives in $RUN_DIR (default $BUILD/qemu-test):
#   selection    what to run (scripts/select-tests.sh wrote it), carried
#                into the guest as /etc/netkit-6.1/selection as it is
#   console.log  the guest's console (ttyS0)
#   result       what the guest reported on its second serial port (ttyS1)
#   qemu         this script's record, one name=value per line: status
#                (finished, timeout, boot-timeout), qemu_rc, booted (the
#                seconds until /init spoke, empty if it never did),
#                elapsed, timeout
# scripts/verdict.sh reads the four and decides, also after a timeout.
# Exits non-zero only when QEMU could not be run at all.
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
RUN_DIR=${RUN_DIR:-$BUILD/qemu-test}
SELECTION=$RUN_DIR/selection
CONSOLE=${CONSOLE:-$RUN_DIR/console.log}
RESULT=${RESULT:-$RUN_DIR/result}
RECORD=$RUN_DIR/qemu
# Other guests (make bench) boot through this script with their own
# initramfs, files added to it (EXTRA_ROOT, a directory), their own
# console and result files, the line their /init prints first (BOOT_MARK)
# and their own step name; QUIET_KERNEL=1 streams the console without
# the kernel's messages. They have no selection record. GUEST_EXTRA, a
# directory, adds files to the test guest's own root, next to its
# selection (make coverage: qemu/gcov-dump, scripts/coverage/run.sh).
INITRAMFS=${INITRAMFS:-$BUILD/initramfs.cpio}
BOOT_MARK=${BOOT_MARK:-^netkit-6.1 guest:}

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

# The selection travels in a second cpio archive appended to the first;
# the kernel unpacks both into the same rootfs.
args_dir=$(mktemp -d)
trap 'rm -rf "$args_dir"' EXIT
mkdir -p "$args_dir/root/etc/netkit-6.1" "$RUN_DIR"
if [ -z "${EXTRA_ROOT:-}" ]; then
	[ -f "$SELECTION" ] || die "no selection record at $SELECTION; run: scripts/select-tests.sh (make qemu-test does)"
	cp "$SELECTION" "$args_dir/root/etc/netkit-6.1/selection"
	[ -z "${GUEST_EXTRA:-}" ] || cp -a "$GUEST_EXTRA/." "$args_dir/root/"
else
	cp -a "$EXTRA_ROOT/." "$args_dir/root/"
fi
(cd "$args_dir/root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --owner=0:0 --quiet) >"$args_dir/args.cpio"
boot_cpio=$(dirname "$CONSOLE")/boot.cpio
cat "$INITRAMFS" "$args_dir/args.cpio" >"$boot_cpio"

rm -f "$CONSOLE" "$RESULT" "$RECORD"
: >"$CONSOLE"
msg "qemu: $ACCEL${TCG_OPTS:+,$TCG_OPTS} -cpu ${QEMU_CPU}${ICOUNT:+, -icount shift=$ICOUNT,sleep=off,align=off}${GUEST_SEED:+, -seed $GUEST_SEED}, $SMP CPUs, $MEM, timeout ${TIMEOUT}s; console: $CONSOLE"
[ -z "${CMDLINE:-}" ] || msg "kernel command line adds: $CMDLINE"
if [ -z "${EXTRA_ROOT:-}" ]; then
	# shellcheck source=/dev/null disable=SC2154 # the record select-tests.sh wrote
	(. "$SELECTION"
	msg "guest runs ($filter): ${test_progs:+test_progs $test_progs; }${guest_tests:+then selftests/guest: $guest_tests}${guest_smoke:+ (in their smoke form: $guest_smoke)}"
	[ "$filter" = "the default set" ] ||
		msg "left out of the default set: test_progs ${left_test_progs:-nothing}; guest tests ${left_guest:-none}")
fi
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

status=finished booted=""
t0=$(date +%s)
while kill -0 "$qemu" 2>/dev/null; do
	sleep 1
	elapsed=$(($(date +%s) - t0))
	if [ -z "$booted" ] && grep -q "$BOOT_MARK" "$CONSOLE"; then
		booted=$elapsed
	fi
	if [ "$elapsed" -ge "$TIMEOUT" ]; then
		status=timeout
	elif [ -z "$booted" ] && [ "$elapsed" -ge "$BOOT_TIMEOUT" ]; then
		status=boot-timeout
	fi
	if [ "$status" != finished ]; then
		kill "$qemu" 2>/dev/null || true
		break
	fi
done
rc=0
wait "$qemu" || rc=$?
wait "$tailer" 2>/dev/null || true
elapsed=$(($(date +%s) - t0))
printf 'status=%s\nqemu_rc=%s\nbooted=%s\nelapsed=%s\ntimeout=%s\nboot_timeout=%s\n' \
	"$status" "$rc" "$booted" "$elapsed" "$TIMEOUT" "$BOOT_TIMEOUT" >"$RECORD"

case $status in
finished)
	if [ "$rc" -ne 0 ]; then
		cat "$LOG" >&2
		die "qemu exited with status $rc; its output: $LOG"
	fi
	step_done "guest finished after ${elapsed}s, /init started after ${booted:-?}s; record $RECORD"
	;;
*) step_done "stopped: $status after ${elapsed}s${TIMEOUT_HINT:-}; record $RECORD" ;;
esac
