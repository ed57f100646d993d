#!/usr/bin/env bash
# bench-initramfs: the bench guest's cpio, built like the test guest's
# (scripts/make-initramfs.sh: busybox-static, Debian's dash as /bin/sh,
# Debian's ip, the shared libraries every binary needs at the paths the
# loader looks for them) but with only what the bench runs: bench/init as
# /init, bench/bench-guest.sh, iperf3 and sockperf from Debian, the
# pipeline's netkit-pair ($BUILD/guest) and what bench-build compiled
# (nkbench, the BPF objects), and Debian's perf for the profiles. Written
# to $BUILD/bench/initramfs.cpio.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

BENCH_DIR=$BUILD/bench
LOGDIR=$BENCH_DIR/logs
STAMPS=$BENCH_DIR/stamps
BIN=$BENCH_DIR/bin
ROOT=$BENCH_DIR/initramfs
OUT=$BENCH_DIR/initramfs.cpio

step bench-initramfs
[ -x "$BIN/nkbench" ] || die "$BIN/nkbench not built; run: scripts/bench-build.sh (make bench)"
[ -x "$BUILD/guest/netkit-pair" ] || die "$BUILD/guest/netkit-pair not built; run: make selftests"

busybox=$(command -v busybox || true)
[ -n "$busybox" ] || die "busybox not found; install busybox-static (make deps)"
if ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is dynamically linked; install busybox-static (make deps)"
fi
dash=$(command -v dash || true)
[ -n "$dash" ] || die "dash not found (Debian's /bin/sh); install dash"
tools=()
for t in ip iperf3 sockperf perf; do
	p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$t" || true)
	[ -n "$p" ] || die "'$t' not found; run: scripts/bench-deps.sh (make bench)"
	tools+=("$(readlink -f "$p")")
done

ours=("$TOP/bench/init" "$TOP/bench/bench-guest.sh" "$BUILD/guest/netkit-pair" "$BIN"/*)
inputs=$(hash_of "$0" "$busybox" "$dash" "${tools[@]}" "${ours[@]}")
if [ "$(stamp_read bench-initramfs)" = "$inputs" ] && [ -f "$OUT" ]; then
	step_done "unchanged: $(du -h "$OUT" | cut -f1)"
	exit 0
fi
stamp_clear bench-initramfs

rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,etc/nkbench,proc,sys,dev,tmp,run,root,var,bench}
ln -s ../run "$ROOT/var/run"
install -m 0755 "$TOP/bench/init" "$ROOT/init"
install -m 0755 "$busybox" "$ROOT/bin/busybox"
for applet in $("$busybox" --list); do
	case $applet in busybox | ip | sh) continue ;; esac
	ln -sf busybox "$ROOT/bin/$applet"
done
install -m 0755 "$dash" "$ROOT/bin/sh"
for p in "${tools[@]}"; do
	install -m 0755 "$p" "$ROOT/usr/sbin/$(basename "$p")"
done
[ -d /etc/iproute2 ] && cp -a /etc/iproute2 "$ROOT/etc/"
install -m 0755 "$BUILD/guest/netkit-pair" "$BIN/nkbench" "$ROOT/usr/sbin/"
install -m 0644 "$BIN"/*.bpf.o "$ROOT/bench/"
install -m 0755 "$TOP/bench/bench-guest.sh" "$ROOT/bench/"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$ROOT/etc/passwd"
printf 'root:x:0:\n' >"$ROOT/etc/group"
printf '127.0.0.1 localhost\n' >"$ROOT/etc/hosts"

# Shared libraries, at the paths the dynamic loader looks for them.
find "$ROOT" -type f -perm -u+x -print0 | while IFS= read -r -d '' elf; do
	ldd "$elf" 2>/dev/null | grep -oE '(/[^ ]+\.so[^ ]*)' || true
done | sort -u | while read -r lib; do
	[ -e "$ROOT$lib" ] && continue
	mkdir -p "$ROOT$(dirname "$lib")"
	cp -L "$lib" "$ROOT$lib"
done

(cd "$ROOT" && find . -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --owner=0:0 --reproducible --quiet) >"$OUT"
stamp_write bench-initramfs "$inputs"
step_done "$(find "$ROOT" -type f | wc -l) files, $(du -h "$OUT" | cut -f1)"
