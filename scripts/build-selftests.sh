#!/usr/bin/env bash
# selftests: build test_progs (and with it the tree's bpftool and
# bpf_testmod.ko) from the patched tree, against the BTF of the kernel that
# the kernel step built - never the host's /sys/kernel/btf/vmlinux - and
# the project's guest helpers in selftests/ against its uapi headers.
#
# test_progs is built in the tree's own tools/testing/selftests/bpf: 6.1's
# Makefile cannot link urandom_read with an OUTPUT directory elsewhere.
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

STMAKE=(submake -C "$SELFTESTS" -j"$JOBS" VMLINUX_BTF="$VMLINUX" KDIR="$KBUILD_OUT")
head=$(git -C "$TREE" rev-parse HEAD)
inputs=$(hash_of "$0" "$head" "${STMAKE[*]}" "$(stat -c '%s %Y' "$VMLINUX")" \
	"$TOP"/selftests/netkit-*.c)
if [ "$(stamp_read selftests)" = "$inputs" ] && [ -x "$SELFTESTS/test_progs" ]; then
	step_done "unchanged"
	exit 0
fi
stamp_clear selftests

mkdir -p "$BUILD/guest"
for src in "$TOP"/selftests/netkit-*.c; do
	run_logged "$LOG" gcc -O2 -Wall -Wextra -Werror -static -I "$KBUILD_OUT/usr/include" \
		-o "$BUILD/guest/$(basename "$src" .c)" "$src"
done
run_progress "$LOG" "test_progs build" "${STMAKE[@]}" "$SELFTESTS/test_progs"
[ -x "$SELFTESTS/tools/sbin/bpftool" ] ||
	die "the selftests build did not produce tools/sbin/bpftool; see $LOG"
stamp_write selftests "$inputs"
step_done "$(find "$SELFTESTS" -maxdepth 1 -name '*.bpf.o' | wc -l) BPF objects, log $LOG"
