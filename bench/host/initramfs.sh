#!/usr/bin/env bash
# bench-initramfs: the bench guest's cpio, built like the test guest's
# (scripts/make-initramfs.sh: busybox-static, Debian's dash as /bin/sh,
# Debian's ip, the shared libraries every binary needs at the paths the
# loader looks for them) but with only what the bench runs: bench/guest/init as
# /init, bench/guest/bench-guest.sh, iperf3 and sockperf from Debian, what
# bench-build compiled for this kernel (nkbench, the BPF objects),
# Debian's perf for the profiles and ethtool for the NIC's features and
# counters. Written to $BUILD/bench/initramfs.cpio.
set -euo pipefail
# shellcheck source=../../scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../../scripts/initramfs-lib.sh
. "$TOP/scripts/initramfs-lib.sh"

BENCH_DIR=$BUILD/bench
LOGDIR=$BENCH_DIR/logs
STAMPS=$BENCH_DIR/stamps
BIN=$BENCH_DIR/bin
ROOT=$BENCH_DIR/initramfs
OUT=$BENCH_DIR/initramfs.cpio

step bench-initramfs
[ -x "$BIN/nkbench" ] || die "$BIN/nkbench not built; run: bench/host/build.sh (make bench)"

initramfs_host_tools
tools=()
for t in ip iperf3 sockperf perf ethtool; do
	p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$t" || true)
	[ -n "$p" ] || die "'$t' not found; run: make deps (ethtool) and scripts/install-deps.sh bench (make bench)"
	tools+=("$(readlink -f "$p")")
done

ours=("$TOP/bench/guest/init" "$TOP/bench/guest/bench-guest.sh" "$BIN"/*)
inputs=$(hash_of "$0" "$TOP/scripts/initramfs-lib.sh" "$busybox" "$dash" "${tools[@]}" "${ours[@]}")
if [ "$(stamp_read bench-initramfs)" = "$inputs" ] && [ -f "$OUT" ]; then
	step_done "unchanged: $(du -h "$OUT" | cut -f1)"
	exit 0
fi
stamp_clear bench-initramfs

initramfs_skeleton "$ROOT" "$TOP/bench/guest/init" etc/nkbench bench
for p in "${tools[@]}"; do
	install -m 0755 "$p" "$ROOT/usr/sbin/$(basename "$p")"
done
install -m 0755 "$BIN/nkbench" "$ROOT/usr/sbin/"
install -m 0644 "$BIN"/*.bpf.o "$ROOT/bench/"
install -m 0755 "$TOP/bench/guest/bench-guest.sh" "$ROOT/bench/"
initramfs_pack "$ROOT" "$OUT"
stamp_write bench-initramfs "$inputs"
step_done "$(find "$ROOT" -type f | wc -l) files, $(du -h "$OUT" | cut -f1)"
