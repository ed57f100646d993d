#!/usr/bin/env bash
# initramfs: a busybox-static cpio with Debian's dash as /bin/sh,
# qemu/init, test_progs and every file it loads, the tree's bpftool and
# Debian's ip/tc (tc_netkit runs ip through system() and checks its exit
# codes: busybox ip will not do), the
# project's guest tests (selftests/guest), their helpers and the registry
# of the areas (selftests/areas), plus the shared libraries all of them
# need. For a cross ARCH (arm64) the Debian programs and libraries are the
# target's, from the sysroot of make deps ARCH=<arch> (lib.sh's
# ARCH_SYSROOT), and the libraries are found by their ELF NEEDED entries
# (initramfs-lib.sh).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=initramfs-lib.sh
. "$(dirname "$0")/initramfs-lib.sh"

SELFTESTS=$TREE/tools/testing/selftests/bpf
KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
# make deb tests the package: its initramfs is written elsewhere, with the
# modules of the unpacked .deb (MODULES_ROOT).
ROOT=${INITRAMFS_ROOT:-$BUILD/initramfs}
OUT=${INITRAMFS:-$BUILD/initramfs.cpio}
STAMP=${INITRAMFS_STAMP:-initramfs}
# KCONFIG=debian: the kernel's modules (as modules_install or the package
# put them), Debian's kmod to load them, and the list /init loads.
MODULES_ROOT=${MODULES_ROOT:-$BUILD/modules}

step initramfs
[ -x "$SELFTESTS/test_progs" ] || die "$SELFTESTS/test_progs not built; run: make selftests"

initramfs_host_tools
# Debian's tools the tests run: ip and tc (tc_netkit checks their exit
# codes), ethtool and iptables-legacy (xdp_synproxy, bpf_nf) and bash
# (test_bprm_opts execs /bin/bash).
iproute=()
for t in ip tc ethtool xtables-legacy-multi bash; do
	if [ -n "$ARCH_SYSROOT" ]; then
		p=
		for d in /usr/sbin /usr/bin /sbin /bin; do
			p=$(sysroot_file "$d/$t") && break
		done
		[ -n "$p" ] || die "'$t' not found in $ARCH_SYSROOT; run: make deps ARCH=$ARCH"
	else
		p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$t" || true)
		[ -n "$p" ] || die "'$t' not found; install iproute2 ethtool iptables bash (make deps)"
	fi
	iproute+=("$(readlink -f "$p")")
done
# Loaded with dlopen(), so ldd does not name them: iptables' extensions,
# and libgcc_s, which glibc needs for pthread_exit (bpf_iter, map_lock
# and spinlock abort without it, taking test_progs down).
xtables=/usr/lib/$ARCH_TRIPLET/xtables
if [ -n "$ARCH_SYSROOT" ]; then
	libgcc_s=$(sysroot_file "/lib/$ARCH_TRIPLET/libgcc_s.so.1" || true)
else
	libgcc_s=$(gcc -print-file-name=libgcc_s.so.1)
fi
libgcc_s=$(readlink -f "$libgcc_s")
[ -d "$ARCH_SYSROOT$xtables" ] || die "$ARCH_SYSROOT$xtables not found; install iptables (make deps${ARCH_SYSROOT:+ ARCH=$ARCH})"
[ -f "$libgcc_s" ] || die "libgcc_s.so.1 not found (${ARCH_SYSROOT:-gcc -print-file-name})"

# What the guest runs from the selftests directory: the runner, the BPF
# objects and helpers tests open by name, and the module.
payload=()
for f in "$SELFTESTS"/{test_progs,*.bpf.o,bpf_testmod.ko,urandom_read,liburandom_read.so} \
	"$SELFTESTS"/{xdp_synproxy,sign-file,*.sh,progs/btf_dump_test_case_*.c}; do
	[ -f "$f" ] && payload+=("${f#"$SELFTESTS"/}")
done
bpftool=$SELFTESTS/tools/sbin/bpftool

# The project's guest tests and helpers (not in the base kernel's
# initramfs of make regress: GUEST_HELPERS=no), and the registry of the
# areas, /etc/netkit-6.1/areas: a guest test run by hand, without a
# selection record, runs every area's part (selftests/guest/lib.sh).
guest=() areas=()
if [ "${GUEST_HELPERS:-yes}" != no ]; then
	areas=("$TOP/selftests/areas")
	guest=("$TOP"/selftests/guest/*.sh "$BUILD"/guest/netkit-* "$BUILD"/guest/mprog-*)
	[ ! -x "$BUILD/guest/tcx-attach" ] || guest+=("$BUILD"/guest/tcx-*)
	[ -x "$BUILD/guest/netkit-pair" ] || die "$BUILD/guest has no helpers; run: make selftests"
fi
modules=()
if [ "${KCONFIG:-test}" = debian ]; then
	release=$(cat "$KBUILD_OUT/include/config/kernel.release")
	moddir=$MODULES_ROOT/lib/modules/$release
	[ -f "$moddir/modules.dep" ] || die "$moddir/modules.dep not found; run: make kernel KCONFIG=debian"
	kmod=$(command -v kmod || true)
	[ -n "$kmod" ] || die "kmod not found; run: make deps"
	# The list without its comments; each must be in the kernel's modules.
	mapfile -t modules < <(debian_modules)
	for m in "${modules[@]}"; do
		grep -qE "(^|/)$m\.ko(\.[a-z]+)?:" "$moddir/modules.dep" ||
			die "module $m (configs/debian.modules) is not in $moddir"
	done
fi
inputs=$(hash_of "$0" "$TOP/scripts/initramfs-lib.sh" "$TOP/qemu/init" "$TOP/qemu/errors" "$busybox" "$dash" "${iproute[@]}" \
	"$libgcc_s" "$(ls -l "$ARCH_SYSROOT$xtables")" "${guest[@]}" "${areas[@]}" \
	"$(cd "$SELFTESTS" && stat -c '%n %s %Y' "${payload[@]}")" \
	"$(stat -c '%s %Y' "$bpftool")" "${modules[*]}" "$(sha256sum "$KBUILD_OUT/certs/signing_key.x509" 2>/dev/null)" \
	"$([ "${#modules[@]}" -eq 0 ] || find "$moddir" -type f -printf '%P %s %T@\n' | sort)")
if [ "$(stamp_read "$STAMP")" = "$inputs" ] && [ -f "$OUT" ]; then
	step_done "unchanged: $(du -h "$OUT" | cut -f1)"
	exit 0
fi
stamp_clear "$STAMP"

# /mnt: the selftests' cgroup helpers mount cgroup2 at /mnt/cgroup-test-work-dir.
initramfs_skeleton "$ROOT" "$TOP/qemu/init" etc/netkit-6.1 mnt selftests/bpf/progs selftests/netkit-6.1
install -m 0644 "$TOP/qemu/errors" "$ROOT/etc/netkit-6.1/errors"
[ "${#areas[@]}" -eq 0 ] || install -m 0644 "${areas[0]}" "$ROOT/etc/netkit-6.1/areas"
for p in "${iproute[@]}"; do
	install -m 0755 "$p" "$ROOT/usr/sbin/$(basename "$p")"
done
mv "$ROOT/usr/sbin/bash" "$ROOT/bin/bash"
for t in iptables-legacy ip6tables-legacy; do
	ln -s xtables-legacy-multi "$ROOT/usr/sbin/$t"
done
mkdir -p "$ROOT$(dirname "$xtables")" "$ROOT/lib/$ARCH_TRIPLET"
cp -a "$ARCH_SYSROOT$xtables" "$ROOT$xtables"
cp -L "$libgcc_s" "$ROOT/lib/$ARCH_TRIPLET/libgcc_s.so.1"
install -m 0755 "$bpftool" "$ROOT/usr/sbin/bpftool"
# core_reloc_btfgen runs ./bpftool from the selftests directory.
ln -s /usr/sbin/bpftool "$ROOT/selftests/bpf/bpftool"
for f in "${guest[@]}"; do
	case $f in
	*.sh) install -m 0755 "$f" "$ROOT/selftests/netkit-6.1/" ;;
	*) install -m 0755 "$f" "$ROOT/usr/sbin/" ;;
	esac
done
(cd "$SELFTESTS" && cp --parents -a "${payload[@]}" "$ROOT/selftests/bpf/")
if [ "${#modules[@]}" -ne 0 ]; then
	mkdir -p "$ROOT/lib/modules"
	cp -a "$moddir" "$ROOT/lib/modules/"
	# Debian's modprobe and lsmod, ahead of busybox's in PATH; the
	# kernel's own requests (request_module) run /sbin/modprobe.
	install -m 0755 "$kmod" "$ROOT/usr/sbin/kmod"
	for t in modprobe lsmod insmod rmmod modinfo; do
		ln -sf kmod "$ROOT/usr/sbin/$t"
	done
	ln -sf ../usr/sbin/kmod "$ROOT/sbin/modprobe"
	printf '%s\n' "${modules[*]}" >"$ROOT/etc/netkit-6.1/modules"
	msg "modules for /init to load: ${modules[*]} ($(find "$moddir" -name '*.ko*' | wc -l) in lib/modules/$release)"
fi
# test_progs loads bpf_testmod.ko. A kernel with CONFIG_MODULE_SIG (the
# selftests' config asks for it; Debian's has it) taints itself for an
# unsigned module and the verdict refuses that: it is signed with the
# kernel's build key and hash, like the kernel's own modules.
testmod=$ROOT/selftests/bpf/bpf_testmod.ko
if [ -f "$testmod" ] && grep -qx 'CONFIG_MODULE_SIG=y' "$KBUILD_OUT/.config"; then
	sig_hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$KBUILD_OUT/.config")
	[ -f "$KBUILD_OUT/certs/signing_key.pem" ] ||
		die "$KBUILD_OUT/certs/signing_key.pem not found (CONFIG_MODULE_SIG_KEY); run: make kernel"
	run_logged "$LOG" "$KBUILD_OUT/scripts/sign-file" "$sig_hash" "$KBUILD_OUT/certs/signing_key.pem" \
		"$KBUILD_OUT/certs/signing_key.x509" "$testmod"
	msg "bpf_testmod.ko signed with the kernel's key ($sig_hash)"
fi
initramfs_pack "$ROOT" "$OUT"
stamp_write "$STAMP" "$inputs"
step_done "$(find "$ROOT" -type f | wc -l) files, $(du -h "$OUT" | cut -f1)"
