#!/usr/bin/env bash
# boot: the one way the project starts a QEMU guest. Boots a kernel with
# an initramfs under QEMU, streams the console, stops at a wall-clock
# limit, and records what happened; judges nothing. Every guest - make
# qemu-test's, the Debian stages', the bench's, make regress's, make
# coverage's, make mutate's - boots here, and scripts/verdict.sh judges
# the run directory it leaves, also after a timeout.
#
# The run lives in $RUN_DIR (default $BUILD/qemu-test):
#   selection    what to run (scripts/select-tests.sh wrote it; the test
#                guest only), carried into the guest as
#                /etc/netkit-6.1/selection as it is
#   console.log  the guest's console (ttyS0; ARCH=arm64: ttyAMA0, virt's
#                PL011; s390x: ttysclp0; CONSOLE moves it)
#   result       what the guest reported on its second serial port (ttyS1;
#                ARCH=arm64 and s390x: a virtio console, hvc0;
#                RESULT moves it)
#   qemu         this script's record, one name=value per line: status
#                (finished, timeout, boot-timeout, stuck), qemu_rc, booted
#                (the seconds until the guest's boot mark, empty if it
#                never came), elapsed, timeout, boot_timeout, stop_line
#                (what made a stuck boot stop), verdict and verdict_args
#                (how scripts/verdict.sh judges the run), console and
#                result (the two files), limits (the variables that set
#                the two limits, TIMEOUT_HINT)
# Exits non-zero only when QEMU could not be run at all, or exited with
# an error of its own.
#
# What differs between the guests is said by the caller, each in one
# variable:
#   VERDICT        verdict.sh's mode for this run: tests (default: the
#                  test guest of qemu/init), debian, bench, regress,
#                  mutate; VERDICT_ARGS: the mode's words (debian: the
#                  stage)
#   BZIMAGE, INITRAMFS  the kernel and the initramfs or initrd
#   APPEND         the kernel command line before CMDLINE (default: the
#                  busybox guests' console=ttyS0 panic=-1 oops=panic
#                  rdinit=/init; another ARCH's console, and its result
#                  port as netkit.report=, which qemu/init reads; and for
#                  the guests that judge (tests, regress, mutate)
#                  init_on_free=1: freed memory is zeroed, so that a
#                  program or bpf_mprog entry used after its free runs as
#                  none, which a test sees, instead of on from stale
#                  memory; not the bench's, whose cost it would change)
#   GUEST_ROOT     what goes into the guest besides the initramfs, as a
#                  cpio archive appended to it: "selection" (default: the
#                  run's selection record, plus the files of GUEST_EXTRA,
#                  a directory), "dir" (the files of EXTRA_ROOT, a
#                  directory: the bench's parameters, a mutant boot's
#                  plan) or "none" (a distribution's own initrd)
#   QEMU_ARGS      more QEMU arguments, one per line (disks)
#   BOOT_MARK      the line that says the guest's own code started, and
#                  BOOT_MARK_IN where it comes: console (default) or result
#   STOP_RE        a console line after which the boot cannot go on (the
#                  Debian initrd's "ALERT!" shell), before the boot mark:
#                  the run stops at once as "stuck"
#   SHOW           what of the console is streamed: all (default), user
#                  (no kernel messages) or an extended regex of lines to
#                  show; SHOW_RESULT=1 streams the result port too
#   BOOT_STEP      the step's name; TIMEOUT_HINT the variable that sets
#                  the limit, for the message
#   DESCRIBE       1: print the settings above that decide how the guest
#                  runs (one line) and boot nothing
#
# ARCH (lib.sh) chooses the QEMU binary, the machine, the kernel image and
# the two ports: x86_64 qemu-system-x86_64's default machine, bzImage,
# two 8250 UARTs; arm64 qemu-system-aarch64 -M virt (TCG only), Image,
# the PL011 and a virtio console on virtio-mmio; s390x qemu-system-s390x
# -M s390-ccw-virtio (TCG only), bzImage, the SCLP console and a virtio
# console on virtio-ccw.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
TIMEOUT=${TIMEOUT:-900}       # whole run, seconds
BOOT_TIMEOUT=${BOOT_TIMEOUT:-60} # until the boot mark, seconds
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
BZIMAGE=${BZIMAGE:-$KBUILD_OUT/$ARCH_IMAGE}
SELECTION=$RUN_DIR/selection
CONSOLE=${CONSOLE:-$RUN_DIR/console.log}
RESULT=${RESULT:-$RUN_DIR/result}
RECORD=$RUN_DIR/qemu
INITRAMFS=${INITRAMFS:-$BUILD/initramfs.cpio}
VERDICT=${VERDICT:-tests}
VERDICT_ARGS=${VERDICT_ARGS:-}
report=
[ "$ARCH_REPORT" = /dev/ttyS1 ] || report=" netkit.report=$ARCH_REPORT"
zero=
case $VERDICT in
tests | regress | mutate) zero=" init_on_free=1" ;;
esac
APPEND=${APPEND:-console=$ARCH_CONSOLE panic=-1 oops=panic rdinit=/init$report$zero}
GUEST_ROOT=${GUEST_ROOT:-selection}
BOOT_MARK=${BOOT_MARK:-^netkit-6.1 guest:}
BOOT_MARK_IN=${BOOT_MARK_IN:-console}
STOP_RE=${STOP_RE:-}
SHOW=${SHOW:-all}

# DESCRIBE=1: print how the guest would be run (the kernel command line,
# the machine's settings) and stop, booting nothing: make mutate keeps it
# in its identity, since these decide verdicts as much as the tests do.
if [ -n "${DESCRIBE:-}" ]; then
	printf 'arch=%s append=%s cmdline=%s accel=%s cpu=%s tcg=%s smp=%s mem=%s icount=%s seed=%s boot_timeout=%s\n' \
		"$ARCH" "$APPEND" "${CMDLINE:-}" "$ACCEL" "$QEMU_CPU" "$TCG_OPTS" "$SMP" "$MEM" "$ICOUNT" \
		"$GUEST_SEED" "$BOOT_TIMEOUT"
	exit 0
fi
step "${BOOT_STEP:-boot}"
case $VERDICT in
tests | debian | bench | regress | mutate) ;;
*) die "VERDICT must be tests, debian, bench, regress or mutate, not '$VERDICT'" ;;
esac
case $BOOT_MARK_IN in
console) mark_file=$CONSOLE ;;
result) mark_file=$RESULT ;;
*) die "BOOT_MARK_IN must be console or result, not '$BOOT_MARK_IN'" ;;
esac
[ -f "$BZIMAGE" ] || die "$BZIMAGE not found; run: make kernel"
[ -f "$INITRAMFS" ] || die "$INITRAMFS not found; run: make initramfs"
command -v "$ARCH_QEMU" >/dev/null || die "$ARCH_QEMU not found; install $ARCH_QEMU_PKG (make deps${ARCH_CROSS:+ ARCH=$ARCH})"
# The machine and the two ports, console and result.
case $ARCH in
x86_64)
	machine=()
	ports=(-serial "file:$CONSOLE" -serial "file:$RESULT")
	;;
arm64)
	machine=(-M virt)
	# shellcheck disable=SC2054 # QEMU's option values have commas
	ports=(-serial "file:$CONSOLE" -chardev "file,id=result,path=$RESULT"
		-device virtio-serial-device -device virtconsole,chardev=result)
	;;
s390x)
	# The first -serial is the SCLP VT220 console (ttysclp0); the
	# result port is a virtio console on the channel subsystem.
	machine=(-M s390-ccw-virtio)
	# shellcheck disable=SC2054 # QEMU's option values have commas
	ports=(-serial "file:$CONSOLE" -chardev "file,id=result,path=$RESULT"
		-device virtio-serial-ccw -device virtconsole,chardev=result)
	;;
esac

case $ACCEL in
tcg) accel=(-accel "tcg${TCG_OPTS:+,$TCG_OPTS}" -cpu "$QEMU_CPU") ;;
kvm)
	# Opt-in only: the KVM on these machines hangs stock kernels
	# silently; the boot watchdog below still bounds the run.
	[ -w /dev/kvm ] || die "ACCEL=kvm but /dev/kvm is not usable"
	[ -z "$ARCH_CROSS" ] || die "ACCEL=kvm runs the host's architecture, not ARCH=$ARCH: use ACCEL=tcg"
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
extra=()
[ -z "${QEMU_ARGS:-}" ] || mapfile -t extra <<<"$QEMU_ARGS"

# The guest's own files travel in a second cpio archive appended to the
# initramfs; the kernel unpacks both into the same rootfs.
args_dir=$(mktemp -d)
trap 'rm -rf "$args_dir"' EXIT
mkdir -p "$args_dir/root/etc/netkit-6.1" "$RUN_DIR" "$(dirname "$CONSOLE")" "$(dirname "$RESULT")"
case $GUEST_ROOT in
selection)
	[ -f "$SELECTION" ] || die "no selection record at $SELECTION; run: scripts/select-tests.sh (make qemu-test does)"
	cp "$SELECTION" "$args_dir/root/etc/netkit-6.1/selection"
	[ -z "${GUEST_EXTRA:-}" ] || cp -a "$GUEST_EXTRA/." "$args_dir/root/"
	;;
dir)
	[ -d "${EXTRA_ROOT:-}" ] || die "GUEST_ROOT=dir needs EXTRA_ROOT, a directory (got '${EXTRA_ROOT:-}')"
	rm -rf "$args_dir/root"
	cp -a "$EXTRA_ROOT/." "$args_dir/root/"
	;;
none) ;;
*) die "GUEST_ROOT must be selection, dir or none, not '$GUEST_ROOT'" ;;
esac
boot_initrd=$INITRAMFS
if [ "$GUEST_ROOT" != none ]; then
	(cd "$args_dir/root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null --create --format=newc --owner=0:0 --quiet) >"$args_dir/args.cpio"
	boot_initrd=$RUN_DIR/boot.cpio
	cat "$INITRAMFS" "$args_dir/args.cpio" >"$boot_initrd"
fi

rm -f "$CONSOLE" "$RESULT" "$RECORD"
: >"$CONSOLE"
: >"$RESULT"
msg "qemu: $ACCEL${TCG_OPTS:+,$TCG_OPTS} -cpu ${QEMU_CPU}${ICOUNT:+, -icount shift=$ICOUNT,sleep=off,align=off}${GUEST_SEED:+, -seed $GUEST_SEED}, $SMP CPUs, $MEM, timeout ${TIMEOUT}s${TIMEOUT_HINT:-}; console: $CONSOLE"
[ -z "${CMDLINE:-}" ] || msg "kernel command line adds: $CMDLINE"
if [ "$GUEST_ROOT" = selection ]; then
	# shellcheck source=/dev/null disable=SC2154 # the record select-tests.sh wrote
	(. "$SELECTION"
	msg "guest runs ($filter): ${test_progs:+test_progs $test_progs; }${guest_tests:+then selftests/guest: $guest_tests}${guest_smoke:+ (in their smoke form: $guest_smoke)}"
	[ "$filter" = "the default set" ] ||
		msg "left out of the default set: test_progs ${left_test_progs:-nothing}; guest tests ${left_guest:-none}")
fi
"$ARCH_QEMU" "${machine[@]}" "${accel[@]}" -smp "$SMP" -m "$MEM" \
	-nodefaults -display none -no-reboot \
	-kernel "$BZIMAGE" -initrd "$boot_initrd" \
	-append "$APPEND${CMDLINE:+ $CMDLINE}" \
	"${extra[@]}" \
	"${ports[@]}" \
	</dev/null >"$LOG" 2>&1 &
qemu=$!
tailers=()
case $SHOW in
all) tail -n +1 -f --pid="$qemu" "$CONSOLE" & ;;
user) tail -n +1 -f --pid="$qemu" "$CONSOLE" | grep --line-buffered -avE '^\[ *[0-9]+\.[0-9]+\] ' & ;;
*) tail -n +1 -f --pid="$qemu" "$CONSOLE" | grep --line-buffered -aE "$SHOW" | sed -u 's/\r//; s/^/    console: /' & ;;
esac
tailers+=("$!")
if [ "${SHOW_RESULT:-}" = 1 ]; then
	tail -n +1 -f --pid="$qemu" "$RESULT" | sed -u 's/\r//; s/^/    /' &
	tailers+=("$!")
fi

status=finished booted="" stop_line=""
t0=$(date +%s)
while kill -0 "$qemu" 2>/dev/null; do
	sleep 1
	elapsed=$(($(date +%s) - t0))
	if [ -z "$booted" ] && grep -aq "$BOOT_MARK" "$mark_file"; then
		booted=$elapsed
	fi
	if [ -z "$booted" ] && [ -n "$STOP_RE" ]; then
		stop_line=$(tr -d '\r' <"$CONSOLE" | grep -a -m 1 -E "$STOP_RE" || true)
	fi
	if [ -n "$stop_line" ]; then
		status=stuck
	elif [ "$elapsed" -ge "$TIMEOUT" ]; then
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
wait "${tailers[@]}" 2>/dev/null || true
elapsed=$(($(date +%s) - t0))
{
	printf 'status=%s\nqemu_rc=%s\nbooted=%s\nelapsed=%s\ntimeout=%s\nboot_timeout=%s\n' \
		"$status" "$rc" "$booted" "$elapsed" "$TIMEOUT" "$BOOT_TIMEOUT"
	printf 'stop_line=%s\nverdict=%s\nverdict_args=%s\nconsole=%s\nresult=%s\nlimits=%s\n' \
		"${stop_line//$'\n'/ }" "$VERDICT" "$VERDICT_ARGS" "$CONSOLE" "$RESULT" "${TIMEOUT_HINT:- (TIMEOUT, BOOT_TIMEOUT)}"
} >"$RECORD"

case $status in
finished)
	if [ "$rc" -ne 0 ]; then
		cat "$LOG" >&2
		die "qemu exited with status $rc; its output: $LOG"
	fi
	step_done "guest finished after ${elapsed}s, its code started after ${booted:-?}s; record $RECORD"
	;;
*) step_done "stopped: $status after ${elapsed}s${TIMEOUT_HINT:-}; record $RECORD (scripts/verdict.sh judges it)" ;;
esac
