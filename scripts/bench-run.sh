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
#
# BENCH_CLOCK=icount (default) boots the guest with QEMU's instruction
# counting (scripts/run-qemu.sh ICOUNT=BENCH_ICOUNT_SHIFT, default 0: the
# guest clock advances 1 ns per executed guest instruction and not with
# host time), so that every interval the guest's tools time is the number
# of instructions on that path; on BENCH_SMP (default 1) vCPUs, and
# without tcp4 (see bench/README.md). BENCH_CLOCK=wall is the bench
# before: the guest clock follows the host's, 2 vCPUs (SMP), tcp4 runs.
# Under icount the guest also gets a fixed seed for its random numbers and
# a fixed RTC date (run-qemu.sh GUEST_SEED=BENCH_SEED, default 1; random:
# from the host), so that two runs take the same branches.
# BENCH_UDP_DURATION (seconds of each 64-byte UDP run) and
# BENCH_PROFILE_PERIOD (perf's cpu-clock period, ns) have defaults per
# mode and clock.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

BENCH=${BENCH:-full}
BENCH_DIR=$BUILD/bench
LOGDIR=$BENCH_DIR/logs
OUT=$BENCH_DIR/$BENCH
CONSOLE=$OUT/console.log
RAW=$OUT/raw.log

CLOCK=${BENCH_CLOCK:-icount}
all_topos="lo veth-pair netkit-pair veth-routed netkit-routed veth-bpf netkit-bpf veth-phys netkit-phys"
# Under icount the counts do not depend on the host, so one round says
# what five would (two in full, to show it); the runs take longer in host
# time (one host thread for the guest, instruction counting).
case $BENCH/$CLOCK in
full/wall) d_rounds=5 d_duration=5 d_omit=1 d_rr=5 d_udp=2 d_scale="10 100 1000" d_timeout=1800
	d_profile="lo netkit-pair veth-bpf netkit-bpf" d_workloads="tcp1 tcp4 rr udp" d_period="" ;;
smoke/wall) d_rounds=1 d_duration=1 d_omit=0 d_rr=1 d_udp=0.5 d_scale="10" d_timeout=300 d_profile=""
	d_workloads="tcp1 tcp4 rr udp" d_period="" ;;
full/icount) d_rounds=2 d_duration=2 d_omit=1 d_rr=2 d_udp=1 d_scale="10 100 1000" d_timeout=3600
	d_profile="lo veth-pair netkit-pair veth-bpf netkit-bpf veth-phys netkit-phys"
	d_workloads="tcp1 rr udp" d_period=50000 ;;
smoke/icount) d_rounds=1 d_duration=1 d_omit=0 d_rr=1 d_udp=0.2 d_scale="10" d_timeout=420 d_profile=""
	d_workloads="tcp1 rr udp" d_period=50000 ;;
*/wall | */icount) die "BENCH must be full or smoke, not '$BENCH'" ;;
*) die "BENCH_CLOCK must be icount or wall, not '$CLOCK'" ;;
esac
ROUNDS=${BENCH_ROUNDS:-$d_rounds}
DURATION=${BENCH_DURATION:-$d_duration}
OMIT=${BENCH_OMIT:-$d_omit}
RR_DURATION=${BENCH_RR_DURATION:-$d_rr}
SCALE_N=${BENCH_SCALE_N-$d_scale}
UDP_DURATION=${BENCH_UDP_DURATION:-$d_udp}
TOPOS=${BENCH_TOPOS:-$all_topos}
WORKLOADS=${BENCH_WORKLOADS:-$d_workloads}
PROFILE_PERIOD=${BENCH_PROFILE_PERIOD-$d_period}
PROFILE=${BENCH_PROFILE-$d_profile}
TIMEOUT=${BENCH_TIMEOUT:-$d_timeout}
APPEND=${BENCH_APPEND-tsc=reliable}

step bench-run
[ -f "$BENCH_DIR/initramfs.cpio" ] || die "$BENCH_DIR/initramfs.cpio not found; run: scripts/bench-initramfs.sh (make bench)"
for v in ROUNDS DURATION OMIT RR_DURATION TIMEOUT; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "BENCH_$v must be a number, not '${!v}'"
done
[ "$ROUNDS" -ge 1 ] || die "BENCH_ROUNDS must be at least 1"
[[ $UDP_DURATION =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "BENCH_UDP_DURATION must be a number, not '$UDP_DURATION'"
[[ $PROFILE_PERIOD =~ ^[0-9]*$ ]] || die "BENCH_PROFILE_PERIOD must be a number, not '$PROFILE_PERIOD'"
icount="" smp=${SMP:-2} seed=""
if [ "$CLOCK" = icount ]; then
	icount=${BENCH_ICOUNT_SHIFT:-0}
	smp=${BENCH_SMP:-1}
	# BENCH_SEED=random: the guest's random numbers from the host
	seed=${BENCH_SEED:-1}
	[ "$seed" != random ] || seed=""
fi
mkdir -p "$OUT"
# The last run's per-unit table stays for the report's comparison of two
# consecutive runs.
prev=$BENCH_DIR/$BENCH-previous
if [ -f "$OUT/bench-units.csv" ]; then
	rm -rf "$prev"
	mkdir -p "$prev"
	cp "$OUT/bench-units.csv" "$OUT/host-load.txt" "$prev/" 2>/dev/null || true
	grep -m 1 '^NKBENCH start' "$OUT/console.log" >"$prev/start.txt" 2>/dev/null || true
fi
find "$OUT" -mindepth 1 -delete

# The parameters travel in the cpio archive run-qemu.sh appends.
params_dir=$(mktemp -d)
trap 'rm -rf "$params_dir"' EXIT
mkdir -p "$params_dir/etc/nkbench"
{
	printf 'MODE=%s\nROUNDS=%s\nDURATION=%s\nOMIT=%s\nRR_DURATION=%s\n' \
		"$BENCH" "$ROUNDS" "$DURATION" "$OMIT" "$RR_DURATION"
	printf 'CLOCK=%s\nICOUNT=%s\nUDP_DURATION=%s\nUDP_SIZE=64\nPROFILE_PERIOD=%s\n' \
		"$CLOCK" "$icount" "$UDP_DURATION" "$PROFILE_PERIOD"
	printf "SCALE_N='%s'\nTOPOS='%s'\nWORKLOADS='%s'\nPROFILE='%s'\n" \
		"$SCALE_N" "$TOPOS" "$WORKLOADS" "$PROFILE"
} >"$params_dir/etc/nkbench/params"

# The host's load matters under TCG: the vCPUs are host threads.
load0=$(cut -d' ' -f1-3 /proc/loadavg)
t_run=$(date +%s)
msg "host load average before: $load0 ($(nproc) CPUs)"
msg "bench $BENCH, clock $CLOCK${icount:+ (-icount shift=$icount)}, $smp vCPUs: $ROUNDS rounds of $WORKLOADS on $TOPOS; iperf3 ${DURATION}s (+${OMIT}s omitted), sockperf ${RR_DURATION}s, UDP ${UDP_DURATION}s; scale N = $SCALE_N${PROFILE:+; perf profile of $PROFILE}"
# The pipeline's boot, with the bench's initramfs, console and ports;
# its /init runs no test_progs and no guest test.
INITRAMFS=$BENCH_DIR/initramfs.cpio EXTRA_ROOT=$params_dir RUN_DIR=$OUT CONSOLE=$CONSOLE RESULT=$RAW \
	BOOT_MARK='^nkbench guest:' BOOT_STEP=bench-boot QUIET_KERNEL=1 TIMEOUT=$TIMEOUT \
	TIMEOUT_HINT=' (BENCH_TIMEOUT)' CMDLINE=$APPEND ICOUNT=$icount GUEST_SEED=$seed SMP=$smp "$TOP/scripts/run-qemu.sh"
status=$(run_status "$OUT")
if [ "$status" != finished ]; then
	printf '\n---- last 50 console lines (%s) ----\n' "$CONSOLE" >&2
	tail -n 50 "$CONSOLE" | tr -d '\r' >&2
	die "the bench guest did not finish: $status (BENCH_TIMEOUT=$TIMEOUT s); console: $CONSOLE"
fi
load1=$(cut -d' ' -f1-3 /proc/loadavg)
printf 'host_load_before=%s host_load_after=%s host_cpus=%s wall_s=%s\n' "${load0// /,}" "${load1// /,}" \
	"$(nproc)" "$(($(date +%s) - t_run))" >"$OUT/host-load.txt"
msg "host load average after: $load1"
step_done "guest finished"
