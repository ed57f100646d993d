#!/usr/bin/env bash
# initramfs: a busybox-static cpio with Debian's dash as /bin/sh,
# qemu/init, test_progs and every file it loads, the tree's bpftool and
# Debian's ip/tc (tc_netkit runs ip through system() and checks its exit
# codes: busybox ip will not do), the
# project's guest tests (selftests/guest) and their helpers, plus the shared
# libraries all of them need.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

SELFTESTS=$TREE/tools/testing/selftests/bpf
ROOT=$BUILD/initramfs
OUT=$BUILD/initramfs.cpio

step initramfs
[ -x "$SELFTESTS/test_progs" ] || die "$SELFTESTS/test_progs not built; run: make selftests"

busybox=$(command -v busybox || true)
[ -n "$busybox" ] || die "busybox not found; install busybox-static (make deps)"
if ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is dynamically linked; install busybox-static (make deps)"
fi
dash=$(command -v dash || true)
[ -n "$dash" ] || die "dash not found (Debian's /bin/sh); install dash"
iproute=()
for t in ip tc; do
	p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$t" || true)
	[ -n "$p" ] || die "'$t' not found; install iproute2 (make deps)"
	iproute+=("$(readlink -f "$p")")
done

# What the guest runs from the selftests directory: the runner, the BPF
# objects and helpers tests open by name, and the module.
payload=()
for f in "$SELFTESTS"/{test_progs,*.bpf.o,bpf_testmod.ko,urandom_read,liburandom_read.so} \
	"$SELFTESTS"/{xdp_synproxy,sign-file,*.sh,progs/btf_dump_test_case_*.c}; do
	[ -f "$f" ] && payload+=("${f#"$SELFTESTS"/}")
done
bpftool=$SELFTESTS/tools/sbin/bpftool

guest=("$TOP"/selftests/guest/*.sh "$BUILD"/guest/netkit-*)
inputs=$(hash_of "$0" "$TOP/qemu/init" "$busybox" "$dash" "${iproute[@]}" "${guest[@]}" \
	"$(cd "$SELFTESTS" && stat -c '%n %s %Y' "${payload[@]}")" \
	"$(stat -c '%s %Y' "$bpftool")")
if [ "$(stamp_read initramfs)" = "$inputs" ] && [ -f "$OUT" ]; then
	step_done "unchanged: $(du -h "$OUT" | cut -f1)"
	exit 0
fi
stamp_clear initramfs

rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,etc/netkit-6.1,proc,sys,dev,tmp,run,root,var} \
	"$ROOT"/selftests/{bpf/progs,netkit-6.1}
ln -s ../run "$ROOT/var/run"	# network_helpers opens /var/run/netns/<name>
install -m 0755 "$TOP/qemu/init" "$ROOT/init"
install -m 0755 "$busybox" "$ROOT/bin/busybox"
for applet in $("$busybox" --list); do
	case $applet in busybox | ip | tc | sh) continue ;; esac
	ln -sf busybox "$ROOT/bin/$applet"
done
# Debian's busybox sh runs its own applets before anything in PATH, so
# system("ip ...") from test_progs would get busybox's ip: use dash.
install -m 0755 "$dash" "$ROOT/bin/sh"
for p in "${iproute[@]}"; do
	install -m 0755 "$p" "$ROOT/usr/sbin/$(basename "$p")"
done
[ -d /etc/iproute2 ] && cp -a /etc/iproute2 "$ROOT/etc/"
install -m 0755 "$bpftool" "$ROOT/usr/sbin/bpftool"
install -m 0755 "$BUILD"/guest/netkit-* "$ROOT/usr/sbin/"
install -m 0755 "$TOP"/selftests/guest/*.sh "$ROOT/selftests/netkit-6.1/"
(cd "$SELFTESTS" && cp --parents -a "${payload[@]}" "$ROOT/selftests/bpf/")
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$ROOT/etc/passwd"
printf 'root:x:0:\n' >"$ROOT/etc/group"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$ROOT/etc/hosts"

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
stamp_write initramfs "$inputs"
step_done "$(find "$ROOT" -type f | wc -l) files, $(du -h "$OUT" | cut -f1)"
