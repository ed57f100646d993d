#!/usr/bin/env bash
# bench-run: boot the kernel of $BUILD/kernel with the bench initramfs
# ($BUILD/bench/initramfs.cpio) under QEMU, as scripts/run-qemu.sh boots
# the test guest, and stream the console while the guest runs
# bench/guest/bench-guest.sh, then judge the run (scripts/verdict.sh).
# The console (with the NKBENCH result lines) is
# kept in $BENCH_OUT/console.log; the tools' raw output and the guest's
# exit status arrive on the second serial port, $BENCH_OUT/raw.log.
# bench/host/report.sh reads both. Each mode has its own result
# directory, so the smoke run of make test leaves the last full run's
# results alone.
#
# BENCH (full, smoke or kernels) and BENCH_CLOCK (icount or wall) pick the
# parameters, each overridden by its BENCH_* variable: bench/modes.sh,
# the one place of the defaults, says which and what they mean. By
# default the guest counts instructions: QEMU's -icount (run-qemu.sh
# ICOUNT), one vCPU, a fixed seed and RTC date (run-qemu.sh GUEST_SEED),
# so that every interval the guest's tools time is the number of
# instructions on that path and two runs take the same branches.
#
# BENCH_TOPOS defaults to every topology of bench/topologies the kernel
# has (the smoke mode: its six of them, bench/modes.sh) (netkit: CONFIG_NETKIT; tcx: CONFIG_NET_XGRESS; nic: CONFIG_PCI,
# CONFIG_VIRTIO_PCI and CONFIG_VIRTIO_NET); naming one it lacks is an
# error.
#
# The node's physical device is a real NIC: when a topology needs it the
# guest gets two virtio-net devices on a QEMU hub of their own (nothing
# else on it, nothing leaves the machine): the node's (MAC NIC_MAC0, the
# guest renames it nic0) and the remote host's (NIC_MAC1, nicr, moved into
# the remote's netns). Everything the devices do must happen at a fixed
# guest instruction: the guest's notifications are handled in the vCPU's
# own thread (ioeventfd=off: QEMU's default hands them to its main loop
# through an eventfd, and the device then acts whenever that host thread
# gets to it - two runs of the same guest differed by 10-25 %), and their
# transmit runs on a timer of QEMU's virtual clock (tx=timer) of
# NIC_TXTIMER ns, which under -icount is the instruction count: the device
# sends what the guest queued that many instructions later (1: at once);
# QEMU's default transmit, a bottom half of its main loop, is host time
# again, and its 150 us timer would let an idle guest's clock jump 150,000
# instructions per packet. bench/README.md says what counts under icount
# (the driver's instructions) and what does not (the emulated wire).
#
# BENCH_OUT is the result directory (default
# $BUILD/bench/<mode>) and BENCH_KERNEL a name for the kernel in the
# results (make bench-kernels: base, series, mainline); the run before
# stays in BENCH_OUT-previous for the report's comparison of two
# consecutive runs.
set -euo pipefail
# shellcheck source=../../scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../modes.sh
. "$TOP/bench/modes.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
BENCH_DIR=$BUILD/bench
LOGDIR=$BENCH_DIR/logs
bench_mode
OUT=${BENCH_OUT:-$BENCH_DIR/$MODE}
CONSOLE=$OUT/console.log
RAW=$OUT/raw.log
LABEL=${BENCH_KERNEL:-$(cat "$KBUILD_OUT/include/config/kernel.release" 2>/dev/null || echo kernel)}

step bench-run
[ -f "$BENCH_DIR/initramfs.cpio" ] || die "$BENCH_DIR/initramfs.cpio not found; run: bench/host/initramfs.sh (make bench)"
[ -f "$KBUILD_OUT/.config" ] || die "$KBUILD_OUT/.config not found; run: make kernel"
have=""
grep -qx 'CONFIG_NETKIT=y' "$KBUILD_OUT/.config" && have="$have netkit"
grep -qx 'CONFIG_NET_XGRESS=y' "$KBUILD_OUT/.config" && have="$have tcx"
grep -qw IFLA_NETKIT_HEADROOM "$KBUILD_OUT/usr/include/linux/if_link.h" 2>/dev/null && have="$have headroom"
grep -qx 'CONFIG_PCI=y' "$KBUILD_OUT/.config" && grep -qx 'CONFIG_VIRTIO_PCI=y' "$KBUILD_OUT/.config" &&
	grep -qx 'CONFIG_VIRTIO_NET=y' "$KBUILD_OUT/.config" && have="$have nic"
TOPOS=${BENCH_TOPOS:-}
if [ -z "$TOPOS" ]; then
	all=" $(bench_topologies "$have" | xargs) "
	if [ -n "$MODE_TOPOS" ]; then
		for t in $MODE_TOPOS; do
			[[ "$all" != *" $t "* ]] || TOPOS+="${TOPOS:+ }$t"
		done
	else
		TOPOS=$(xargs <<<"$all")
	fi
fi
for t in $TOPOS; do
	needs=$(bench_topology_needs "$t")
	[ -n "$needs" ] || die "BENCH_TOPOS: no topology '$t' in bench/topologies"
	for n in ${needs//,/ }; do
		[ "$n" = - ] || [[ " $have " == *" $n "* ]] ||
			die "BENCH_TOPOS: $t needs $n, which the kernel in $KBUILD_OUT does not have"
	done
done
# The NIC serves one topology at a time.
nic_topos=()
for t in $TOPOS; do
	[[ ",$(bench_topology_needs "$t")," != *,nic,* ]] || nic_topos+=("$t")
done
[ "$ISOLATE" = yes ] || [ "${#nic_topos[@]}" -le 1 ] ||
	die "BENCH_ISOLATE=no sets every topology up at once, but the guest's one NIC serves one topology at a time: ${nic_topos[*]}"
# Its two ends, on a hub of their own, at PCI slots whose INTx lines
# SeaBIOS routes to different IRQs (10 and 11), so that neither interrupt
# handler runs for the other device.
NIC_MAC0=52:54:00:6e:6b:01
NIC_MAC1=52:54:00:6e:6b:02
NIC_TXTIMER=1
nic_args=""
if [ "${#nic_topos[@]}" -gt 0 ]; then
	nic_args="-netdev
hubport,id=nkphys0,hubid=0
-device
virtio-net-pci,netdev=nkphys0,mac=$NIC_MAC0,addr=0x10,ioeventfd=off,tx=timer,x-txtimer=$NIC_TXTIMER
-netdev
hubport,id=nkphys1,hubid=0
-device
virtio-net-pci,netdev=nkphys1,mac=$NIC_MAC1,addr=0x12,ioeventfd=off,tx=timer,x-txtimer=$NIC_TXTIMER"
fi
# Profiles only of the topologies this kernel runs (make bench-kernels
# asks for the same list on every kernel; the base has no netkit).
prof=""
for t in $PROFILE; do
	[[ " $TOPOS " != *" $t "* ]] || prof="$prof${prof:+ }$t"
done
PROFILE=$prof
mkdir -p "$OUT"
# The last run's per-unit table stays for the report's comparison of two
# consecutive runs.
prev=$OUT-previous
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
	printf 'MODE=%s\nLABEL=%s\nROUNDS=%s\nDURATION=%s\nOMIT=%s\nRR_DURATION=%s\n' \
		"$MODE" "$LABEL" "$ROUNDS" "$DURATION" "$OMIT" "$RR_DURATION"
	printf 'CLOCK=%s\nICOUNT=%s\nUDP_DURATION=%s\nUDP_SIZE=%s\nPROFILE_PERIOD=%s\nISOLATE=%s\n' \
		"$CLOCK" "$ICOUNT_SHIFT" "$UDP_DURATION" "$UDP_SIZE" "$PROFILE_PERIOD" "$ISOLATE"
	printf "SCALE_N='%s'\nTOPOS='%s'\nWORKLOADS='%s'\nPROFILE='%s'\nPROFILE_WORKLOADS='%s'\n" \
		"$SCALE_N" "$TOPOS" "$WORKLOADS" "$PROFILE" "$PROFILE_WORKLOADS"
	printf 'NIC_MAC0=%s\nNIC_MAC1=%s\nNIC_TXTIMER=%s\n' "$NIC_MAC0" "$NIC_MAC1" "$NIC_TXTIMER"
	printf "TCP_WINDOW='%s'\nNIC_STREAM_RUNS=%s\n" "$TCP_WINDOW" "$NIC_STREAM_RUNS"
} >"$params_dir/etc/nkbench/params"

# The host's load matters under TCG: the vCPUs are host threads.
load0=$(cut -d' ' -f1-3 /proc/loadavg)
t_run=$(date +%s)
msg "host load average before: $load0 ($(nproc) CPUs)"
[ -z "$nic_args" ] || msg "NIC: two virtio-net-pci on QEMU hub 0 (nic0 $NIC_MAC0, nicr $NIC_MAC1), tx=timer,x-txtimer=$NIC_TXTIMER"
msg "bench $MODE on $LABEL, clock $CLOCK${ICOUNT_SHIFT:+ (-icount shift=$ICOUNT_SHIFT)}, $SMP_GUEST vCPUs: $ROUNDS rounds of $WORKLOADS on $TOPOS$([ "$ISOLATE" = no ] || echo ', each alone'); iperf3 ${DURATION}s (+${OMIT}s omitted, window ${TCP_WINDOW:-autotuned}, over the NIC ${NIC_STREAM_RUNS}x), sockperf ${RR_DURATION}s, UDP ${UDP_DURATION}s; scale N = ${SCALE_N:-none}${PROFILE:+; perf profile of $PROFILE}"
# The pipeline's one boot path, with the bench's initramfs, console and
# ports; its /init runs no test_progs and no guest test. The run is
# judged by scripts/verdict.sh (mode bench: the guest's exit status and
# the console's kernel trouble, also after a timeout) before any number
# is read from it.
VERDICT=bench VERDICT_ARGS="$MODE on $LABEL" INITRAMFS=$BENCH_DIR/initramfs.cpio GUEST_ROOT=dir EXTRA_ROOT=$params_dir \
	RUN_DIR=$OUT CONSOLE=$CONSOLE RESULT=$RAW BOOT_MARK='^nkbench guest:' BOOT_STEP=bench-boot SHOW=user \
	TIMEOUT=$TIMEOUT TIMEOUT_HINT=' (BENCH_TIMEOUT)' CMDLINE=$APPEND ICOUNT=$ICOUNT_SHIFT GUEST_SEED=$SEED SMP=$SMP_GUEST \
	QEMU_ARGS=$nic_args "$TOP/scripts/run-qemu.sh"
"$TOP/scripts/verdict.sh" "$OUT"
load1=$(cut -d' ' -f1-3 /proc/loadavg)
printf 'host_load_before=%s host_load_after=%s host_cpus=%s wall_s=%s\n' "${load0// /,}" "${load1// /,}" \
	"$(nproc)" "$(($(date +%s) - t_run))" >"$OUT/host-load.txt"
msg "host load average after: $load1"
step_done "guest finished"
