#!/usr/bin/env bash
# bench-run: boot the pipeline's kernel ($BUILD/kernel) with the bench
# initramfs under QEMU, as scripts/run-qemu.sh boots the test guest, and
# stream the console while the guest runs bench/bench-guest.sh. The console
# (with the NKBENCH result lines) is kept in $BUILD/bench/console.log; the
# tools' raw output and the guest's exit status arrive on the second serial
# port, $BUILD/bench/raw.log. scripts/bench-report.sh reads both.
#
# BENCH=full (default) or smoke picks the parameters; each can be
# overridden: BENCH_ROUNDS, BENCH_DURATION (seconds per iperf3 run, after
# BENCH_OMIT seconds iperf3 leaves out), BENCH_RR_DURATION (sockperf),
# BENCH_SCALE_N (pair counts of the scale curve; empty for none), BENCH_TOPOS,
# BENCH_WORKLOADS, BENCH_PROFILE (topologies profiled with perf after the
# measured rounds; empty for none), BENCH_TIMEOUT (seconds for the whole
# guest run), BENCH_APPEND (more kernel arguments; by default tsc=reliable:
# under TCG the vCPUs' TSCs fail the kernel's sync check, and every clock
# read of the stack, several per packet, would then be an HPET access,
# emulated as MMIO under QEMU's global lock, a cost alike for every
# topology that only dilutes their differences).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-60}
ACCEL=${ACCEL:-tcg}
QEMU_CPU=${QEMU_CPU:-max}
TCG_OPTS=${TCG_OPTS:-}
SMP=${SMP:-2}
MEM=${MEM:-2G}
BENCH=${BENCH:-full}
BENCH_DIR=$BUILD/bench
LOGDIR=$BENCH_DIR/logs
BZIMAGE=$KBUILD_OUT/arch/x86/boot/bzImage
CONSOLE=$BENCH_DIR/console.log
RAW=$BENCH_DIR/raw.log

case $BENCH in
full) d_rounds=5 d_duration=5 d_omit=1 d_rr=5 d_scale="10 100 1000" d_timeout=1380
	d_profile="lo netkit-pair veth-bpf netkit-bpf" ;;
smoke) d_rounds=1 d_duration=1 d_omit=0 d_rr=1 d_scale="10" d_timeout=240 d_profile="" ;;
*) die "BENCH must be full or smoke, not '$BENCH'" ;;
esac
ROUNDS=${BENCH_ROUNDS:-$d_rounds}
DURATION=${BENCH_DURATION:-$d_duration}
OMIT=${BENCH_OMIT:-$d_omit}
RR_DURATION=${BENCH_RR_DURATION:-$d_rr}
SCALE_N=${BENCH_SCALE_N-$d_scale}
TOPOS=${BENCH_TOPOS:-lo veth-pair netkit-pair veth-routed netkit-routed veth-bpf netkit-bpf}
WORKLOADS=${BENCH_WORKLOADS:-tcp1 tcp4 rr}
PROFILE=${BENCH_PROFILE-$d_profile}
TIMEOUT=${BENCH_TIMEOUT:-$d_timeout}
APPEND=${BENCH_APPEND-tsc=reliable}

step bench-run
[ -f "$BZIMAGE" ] || die "$BZIMAGE not found; run: make kernel"
[ -f "$BENCH_DIR/initramfs.cpio" ] || die "$BENCH_DIR/initramfs.cpio not found; run: scripts/bench-initramfs.sh (make bench)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found; install qemu-system-x86 (make deps)"
for v in ROUNDS DURATION OMIT RR_DURATION TIMEOUT; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "BENCH_$v must be a number, not '${!v}'"
done
[ "$ROUNDS" -ge 1 ] || die "BENCH_ROUNDS must be at least 1"

case $ACCEL in
tcg) accel=(-accel "tcg${TCG_OPTS:+,$TCG_OPTS}" -cpu "$QEMU_CPU") ;;
kvm)
	[ -w /dev/kvm ] || die "ACCEL=kvm but /dev/kvm is not usable"
	accel=(-accel kvm -cpu host)
	;;
*) die "ACCEL must be tcg or kvm, not '$ACCEL'" ;;
esac

# The parameters travel in a second cpio archive appended to the first.
params_dir=$(mktemp -d)
params_cpio=$(mktemp)
trap 'rm -rf "$params_dir" "$params_cpio"' EXIT
mkdir -p "$params_dir/etc/nkbench"
{
	printf 'MODE=%s\nROUNDS=%s\nDURATION=%s\nOMIT=%s\nRR_DURATION=%s\n' \
		"$BENCH" "$ROUNDS" "$DURATION" "$OMIT" "$RR_DURATION"
	printf "SCALE_N='%s'\nTOPOS='%s'\nWORKLOADS='%s'\nPROFILE='%s'\n" \
		"$SCALE_N" "$TOPOS" "$WORKLOADS" "$PROFILE"
} >"$params_dir/etc/nkbench/params"
(cd "$params_dir" && find . -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --owner=0:0 --quiet) >"$params_cpio"
cat "$BENCH_DIR/initramfs.cpio" "$params_cpio" >"$BENCH_DIR/boot.cpio"

rm -f "$CONSOLE" "$RAW"
: >"$CONSOLE"
msg "qemu: $ACCEL${TCG_OPTS:+,$TCG_OPTS} -cpu $QEMU_CPU, $SMP CPUs, $MEM, timeout ${TIMEOUT}s${APPEND:+, kernel args: $APPEND}; console: $CONSOLE"
# The host's load matters under TCG: the vCPUs are host threads.
load0=$(cut -d' ' -f1-3 /proc/loadavg)
msg "host load average before: $load0 ($(nproc) CPUs)"
msg "bench $BENCH: $ROUNDS rounds of $WORKLOADS on $TOPOS; iperf3 ${DURATION}s (+${OMIT}s omitted), sockperf ${RR_DURATION}s; scale N = $SCALE_N${PROFILE:+; perf profile of $PROFILE}"
qemu-system-x86_64 "${accel[@]}" -smp "$SMP" -m "$MEM" \
	-nodefaults -display none -no-reboot \
	-kernel "$BZIMAGE" -initrd "$BENCH_DIR/boot.cpio" \
	-append "console=ttyS0 panic=-1 oops=panic rdinit=/init${APPEND:+ $APPEND}" \
	-serial "file:$CONSOLE" -serial "file:$RAW" \
	</dev/null >"$LOG" 2>&1 &
qemu=$!
# The console without the kernel's boot messages.
tail -n +1 -f --pid="$qemu" "$CONSOLE" | grep --line-buffered -vE '^\[ *[0-9]+\.[0-9]+\] ' &
tailer=$!

verdict="" booted=""
t0=$(date +%s)
while kill -0 "$qemu" 2>/dev/null; do
	sleep 1
	elapsed=$(($(date +%s) - t0))
	if [ -z "$booted" ] && grep -q '^nkbench guest:' "$CONSOLE"; then
		booted=$elapsed
	fi
	if [ "$elapsed" -ge "$TIMEOUT" ]; then
		verdict="timeout: the bench guest did not finish within ${TIMEOUT}s (BENCH_TIMEOUT)"
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
load1=$(cut -d' ' -f1-3 /proc/loadavg)
printf 'host_load_before=%s host_load_after=%s host_cpus=%s\n' "${load0// /,}" "${load1// /,}" \
	"$(nproc)" >"$BENCH_DIR/host-load.txt"
msg "host load average after: $load1"
step_done "guest finished, /init started after ${booted:-?}s"
