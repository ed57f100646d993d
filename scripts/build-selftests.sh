#!/usr/bin/env bash
# selftests: build test_progs (and with it the tree's bpftool and
# bpf_testmod.ko) from the patched tree, against the BTF of the kernel that
# the kernel step built - never the host's /sys/kernel/btf/vmlinux - and
# the project's guest helpers in selftests/ against its uapi headers.
#
# test_progs is built in the tree's own tools/testing/selftests/bpf: 6.1's
# Makefile cannot link urandom_read with an OUTPUT directory elsewhere
# (another ARCH has a tree of its own: scripts/arch-tree.sh).
#
# A cross build (ARCH=arm64) passes the selftests' Makefile ARCH and
# CROSS_COMPILE: it builds its host tools (bpftool's bootstrap, libbpf,
# resolve_btfids) with the host's gcc and the rest with the target's,
# linking the target's libraries of make deps ARCH=arm64. Its clang gets
# the target too, for what 6.1 links with it (urandom_read and its
# library; -target bpf comes last for the BPF objects, and mainline
# passes the same --target since 6.3). It does not build bpftool for the
# target (its tools/sbin/bpftool is the host's bootstrap): that is built
# here from tools/bpf/bpftool, against the same BTF.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
JOBS=${JOBS:-$(nproc)}
SELFTESTS=$TREE/tools/testing/selftests/bpf
VMLINUX=$KBUILD_OUT/vmlinux

step selftests
[ -f "$VMLINUX" ] || die "$VMLINUX not found; run: make kernel"
for tool in clang llc bpftool pahole; do
	command -v "$tool" >/dev/null || die "$tool not found; run: make deps"
done
command -v "$ARCH_CC" >/dev/null || die "$ARCH_CC not found; run: make deps ARCH=$ARCH"

# What the selftests see of the kernel is its BTF (vmlinux.h, and the base
# of bpf_testmod.ko's split BTF), its headers and its config (bpf_testmod
# is compiled against them). VMLINUX_BTF is therefore not vmlinux itself,
# whose mtime moves with every relink, but $BTF_FILE, its raw .BTF
# section, rewritten only when one of those three changed. A kernel change
# that leaves them alone (a comment, a function body) rebuilds nothing
# here; a change to the headers or config that leaves the BTF alone
# rebuilds only bpf_testmod.ko (vmlinux.h is then passed to make as
# up to date with -o, so no BPF object is rebuilt).
BTF_DIR=$BUILD/selftests-btf
BTF_FILE=$BTF_DIR/vmlinux.btf
VMLINUX_H=$SELFTESTS/tools/include/vmlinux.h
mkdir -p "$BTF_DIR"
"${ARCH_CROSS}objcopy" -O binary --only-section=.BTF "$VMLINUX" "$BTF_DIR/new.btf" ||
	die "cannot extract .BTF from $VMLINUX (CONFIG_DEBUG_INFO_BTF off?)"
[ -s "$BTF_DIR/new.btf" ] || die "$VMLINUX has an empty .BTF section"
btf_hash=$(sha256sum <"$BTF_DIR/new.btf" | cut -c1-16)
kernel_api=$(hash_of "$btf_hash" "$KBUILD_OUT/.config" \
	"$(tree_git rev-parse HEAD:include "HEAD:arch/$ARCH_SRC/include")")
if [ "$(stamp_read selftests-kernel-api)" != "$kernel_api" ] || [ ! -f "$BTF_FILE" ]; then
	mv -f "$BTF_DIR/new.btf" "$BTF_FILE"
	stamp_write selftests-kernel-api "$kernel_api"
else
	rm -f "$BTF_DIR/new.btf"
fi
# The objects live in the tree, which the normal and the DEBUG=1 build
# (another BUILD) share: what they were last built for is recorded in
# the tree, next to them, not in this BUILD's stamps.
BUILT_FOR=$SELFTESTS/.netkit-6.1-inputs
BUILT_BTF=$SELFTESTS/.netkit-6.1-btf
keep_h=()
if [ "$(cat "$BUILT_BTF" 2>/dev/null)" = "$btf_hash" ] && [ -f "$VMLINUX_H" ]; then
	keep_h=(-o "$VMLINUX_H")
fi

STMAKE=(submake -C "$SELFTESTS" -j"$JOBS" VMLINUX_BTF="$BTF_FILE" KDIR="$KBUILD_OUT")
cross=()
tcc=("$ARCH_CC")
if [ -n "$ARCH_CROSS" ]; then
	# The target's -dev packages are in the sysroot of make deps
	# ARCH=<arch> (not installed): its headers before the host's, its
	# libraries to link against - for gcc and for what the Makefile
	# links with clang (urandom_read and its library: LDFLAGS). The
	# host tools' links see the same -L and skip the target's
	# libraries as incompatible.
	sr=$ARCH_SYSROOT
	[ -f "$sr/usr/include/libelf.h" ] || die "no libelf.h in $sr; run: make deps ARCH=$ARCH"
	# shellcheck disable=SC2054 # the linker option has commas
	sysroot_ld=(-L"$sr/usr/lib/$ARCH_TRIPLET" -L"$sr/lib/$ARCH_TRIPLET"
		-Wl,-rpath-link,"$sr/usr/lib/$ARCH_TRIPLET:$sr/lib/$ARCH_TRIPLET")
	tcc+=(-isystem "$sr/usr/include/$ARCH_TRIPLET" -isystem "$sr/usr/include" "${sysroot_ld[@]}")
	cross=(ARCH="$ARCH_KBUILD" CROSS_COMPILE="$ARCH_CROSS" CC="${tcc[*]}" LDFLAGS="${sysroot_ld[*]}"
		CLANG="clang --target=$ARCH_TRIPLET")
	STMAKE+=("${cross[@]}")
fi
# The project's helpers need the series' uapi; the base tree of make
# regress builds without them (GUEST_HELPERS=no).
# Their shared plumbing, selftests/lib/, is compiled once into a static
# library that every helper links.
helpers=() helper_lib=()
if [ "${GUEST_HELPERS:-yes}" != no ]; then
	helpers=("$TOP"/selftests/netkit-*.c "$TOP"/selftests/mprog-*.c)
	helper_lib=("$TOP"/selftests/lib/*.[ch])
	# The tcx helpers only where the tree carries tcx (not CUT=netkit).
	if grep -qw BPF_TCX_INGRESS "$TREE/include/uapi/linux/bpf.h"; then
		helpers+=("$TOP"/selftests/tcx-*.c)
	fi
fi
inputs=$(hash_of "$0" "$kernel_api" "$(tree_git rev-parse HEAD:tools)" "${STMAKE[*]}" \
	"${helpers[@]}" "${helper_lib[@]}")
if [ "$(cat "$BUILT_FOR" 2>/dev/null)" = "$inputs" ] && [ -x "$SELFTESTS/test_progs" ]; then
	step_done "unchanged: same BTF, headers, config and tools/"
	exit 0
fi
rm -f "$BUILT_FOR"

rm -rf "$BUILD/guest" "$BUILD/guest-lib"
mkdir -p "$BUILD/guest"
CFLAGS=(-O2 -Wall -Wextra -Werror -I "$KBUILD_OUT/usr/include")
libs=()
if [ "${#helpers[@]}" -ne 0 ]; then
	mkdir -p "$BUILD/guest-lib"
	objs=()
	for src in "$TOP"/selftests/lib/*.c; do
		objs+=("$BUILD/guest-lib/$(basename "$src" .c).o")
		run_logged "$LOG" "${tcc[@]}" "${CFLAGS[@]}" -c -o "${objs[-1]}" "$src"
	done
	libs=("$BUILD/guest-lib/libnetkit.a")
	run_logged "$LOG" "${ARCH_CROSS}ar" rcs "${libs[0]}" "${objs[@]}"
fi
for src in "${helpers[@]}"; do
	run_logged "$LOG" "${tcc[@]}" "${CFLAGS[@]}" -static \
		-o "$BUILD/guest/$(basename "$src" .c)" "$src" "${libs[@]}"
done
if [ "${#keep_h[@]}" -ne 0 ]; then
	msg "BTF unchanged ($btf_hash): vmlinux.h and the BPF objects stay"
else
	msg "BTF ${btf_hash}: vmlinux.h is regenerated"
	# make decides by mtime; the BTF file of another BUILD may be
	# older than what the tree holds, so make it the newest input.
	touch "$BTF_FILE"
fi
# The generated list of tests, prog_tests/tests.h, depends on the test
# files by mtime only: a test file that went away (make apply of an
# earlier position of the series, CUT=<patch>) leaves it listed, and
# test_progs refuses to run. Regenerated when it names other tests than
# the files define (the Makefile's own rule, by the same sed).
tests_h=$SELFTESTS/prog_tests/tests.h
if [ -f "$tests_h" ] && ! cmp -s <(grep '^DEFINE_TEST' "$tests_h") \
	<(sed -n -E 's/^void (serial_)?test_([a-zA-Z0-9_]+)\((void)?\).*/DEFINE_TEST(\2)/p' \
		"$SELFTESTS"/prog_tests/*.c | sort); then
	msg "prog_tests/tests.h names other tests than prog_tests/*.c define: regenerated"
	rm -f "$tests_h"
fi
# target_bpftool: the target's bpftool where a native build leaves it, its
# skeletons' vmlinux.h from the same BTF.
target_bpftool() {
	mkdir -p "$SELFTESTS/tools/build/bpftool-$ARCH"
	run_progress "$LOG" "bpftool build ($ARCH)" submake -C "$TREE/tools/bpf/bpftool" -j"$JOBS" "${cross[@]}" \
		VMLINUX_BTF="$BTF_FILE" OUTPUT="$SELFTESTS/tools/build/bpftool-$ARCH/" \
		prefix= DESTDIR="$SELFTESTS/tools" install-bin
}
if [ -n "$ARCH_QEMU_USER" ]; then
	# A target of the other byte order (s390x): 6.1's libbpf reads BPF
	# objects of its own byte order only ("unsupported byte order of ELF
	# file"), so the host's bpftool cannot link the selftests' objects
	# or generate their skeletons. The target's bpftool can: it is built
	# first and runs under QEMU's user-mode emulator with the sysroot's
	# libraries, as the Makefile's BPFTOOL (a wrapper, rewritten only
	# when it changes: the skeletons depend on it by mtime).
	command -v "$ARCH_QEMU_USER" >/dev/null || die "$ARCH_QEMU_USER not found; run: make deps ARCH=$ARCH"
	target_bpftool
	wrapper=$BUILD/bpftool-$ARCH_QEMU_USER
	printf '#!/bin/sh\nexec %s -L %s %s "$@"\n' "$ARCH_QEMU_USER" "$ARCH_SYSROOT" "$SELFTESTS/tools/sbin/bpftool" \
		>"$wrapper.new"
	chmod +x "$wrapper.new"
	if cmp -s "$wrapper.new" "$wrapper"; then rm -f "$wrapper.new"; else mv -f "$wrapper.new" "$wrapper"; fi
	"$wrapper" version >>"$LOG" 2>&1 || fail_with_log "$LOG" "the target's bpftool under $ARCH_QEMU_USER" 1
	STMAKE+=(BPFTOOL="$wrapper")
fi
run_progress "$LOG" "test_progs build" "${STMAKE[@]}" "${keep_h[@]}" "$SELFTESTS/test_progs"
[ "${#cross[@]}" -eq 0 ] || [ -n "$ARCH_QEMU_USER" ] || target_bpftool
[ -x "$SELFTESTS/tools/sbin/bpftool" ] ||
	die "the selftests build did not produce tools/sbin/bpftool; see $LOG"
# Every program the guest runs is the target's.
for f in test_progs tools/sbin/bpftool; do
	machine=$(readelf -h "$SELFTESTS/$f" | sed -n 's/^ *Machine: *//p')
	[[ $machine == *"$ARCH_ELF"* ]] || die "$SELFTESTS/$f is built for '$machine', not $ARCH"
done
printf '%s\n' "$btf_hash" >"$BUILT_BTF"
printf '%s\n' "$inputs" >"$BUILT_FOR"
rebuilt=$(grep -cE '^ +CLNG-BPF' "$LOG" || true)
step_done "$rebuilt BPF objects compiled, $(find "$SELFTESTS" -maxdepth 1 -name '*.bpf.o' | wc -l) in all, log $LOG"
