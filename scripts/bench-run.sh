#!/usr/bin/env bash
# bench-run: boot the pipeline's kernel ($BUILD/kernel) with the bench
# initramfs under QEMU, as scripts/run-qemu.sh boots the test guest, and
# stream the console while the guest runs bench/bench-guest.sh. The console
# (with the NKBENCH result lines) is kept in $BUILD/bench/$BENCH/console.log;
# the tools' raw output and the guest's exit status arrive on the second
# serial port, $BUILD/bench/$BENCH/raw.log. scripts/bench-report.sh reads
# both. Each mode has its own result directory, so the smoke run of make
# test leaves the last full run's results alone.
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

BENCH=${BENCH:-full}
BENCH_DIR=$BUILD/bench
LOGDIR=$BENCH_DIR/logs
OUT=$BENCH_DIR/$BENCH
CONSOLE=$OUT/console.log
RAW=$OUT/raw.log

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
[ -f "$BENCH_DIR/initramfs.cpio" ] || die "$BENCH_DIR/initramfs.cpio not found; run: scripts/bench-initramfs.sh (make bench)"
for v in ROUNDS DURATION OMIT RR_DURATION TIMEOUT; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "BENCH_$v must be a number, not '${!v}'"
done
[ "$ROUNDS" -ge 1 ] || die "BENCH_ROUNDS must be at least 1"
mkdir -p "$OUT"
find "$OUT" -mindepth 1 -delete

# The parameters travel in the cpio archive run-qemu.sh appends.
params_dir=$(mktemp -d)
trap 'rm -rf "$params_dir"' EXIT
mkdir -p "$params_dir/etc/nkbench"
{
	printf 'MODE=%s\nROUNDS=%s\nDURATION=%s\nOMIT=%s\nRR_DURATION=%s\n' \
		"$BENCH" "$ROUNDS" "$DURATION" "$OMIT" "$RR_DURATION"
	printf "SCALE_N='%s'\nTOPOS='%s'\nWORKLOADS='%s'\nPROFILE='%s'\n" \
		"$SCALE_N" "$TOPOS" "$WORKLOADS" "$PROFILE"
} >"$params_dir/etc/nkbench/params"

# The host's load matters under TCG: the vCPUs are host threads.
load0=$(cut -d' ' -f1-3 /proc/loadavg)
msg "host load average before: $load0 ($(nproc) CPUs)"
msg "bench $BENCH: $ROUNDS rounds of $WORKLOADS on $TOPOS; iperf3 ${DURATION}s (+${OMIT}s omitted), sockperf ${RR_DURATION}s; scale N = $SCALE_N${PROFILE:+; perf profile of $PROFILE}"
# The pipeline's boot, with the bench's initramfs, console and ports;
# its /init runs no test_progs and no guest test.
INITRAMFS=$BENCH_DIR/initramfs.cpio EXTRA_ROOT=$params_dir CONSOLE=$CONSOLE RESULT=$RAW \
	BOOT_MARK='^nkbench guest:' BOOT_STEP=bench-boot QUIET_KERNEL=1 TIMEOUT=$TIMEOUT \
	TIMEOUT_HINT=' (BENCH_TIMEOUT)' CMDLINE=$APPEND GUEST_TESTS='' RUN_TEST_PROGS=no "$TOP/scripts/run-qemu.sh"
load1=$(cut -d' ' -f1-3 /proc/loadavg)
printf 'host_load_before=%s host_load_after=%s host_cpus=%s\n' "${load0// /,}" "${load1// /,}" \
	"$(nproc)" >"$OUT/host-load.txt"
msg "host load average after: $load1"
step_done "guest finished"
