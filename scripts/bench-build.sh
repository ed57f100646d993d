#!/usr/bin/env bash
# bench-build: compile what the bench guest runs that is ours: the BPF
# programs of the two BPF topologies (bench/*.bpf.c, clang -target bpf
# against the vmlinux.h and libbpf headers the selftests step generated
# from the built kernel's BTF) and the loader bench/nkbench.c (static,
# against the patched tree's libbpf and the kernel's uapi headers), into
# $BUILD/bench/bin. Reads the kernel and selftests outputs, writes nothing
# outside $BUILD/bench.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
SELFTESTS=$TREE/tools/testing/selftests/bpf
BENCH_DIR=$BUILD/bench
LOGDIR=$BENCH_DIR/logs
STAMPS=$BENCH_DIR/stamps
OUT=$BENCH_DIR/bin

VMLINUX_H=$SELFTESTS/tools/include/vmlinux.h
BPF_INC=$SELFTESTS/tools/include
LIBBPF_A=$SELFTESTS/tools/build/libbpf/libbpf.a
UAPI=$KBUILD_OUT/usr/include

step bench-build
[ -f "$VMLINUX_H" ] || die "$VMLINUX_H not found; run: make selftests"
[ -f "$BPF_INC/bpf/bpf_helpers.h" ] || die "$BPF_INC/bpf/bpf_helpers.h not found; run: make selftests"
[ -f "$LIBBPF_A" ] || die "$LIBBPF_A not found; run: make selftests"
[ -f "$UAPI/linux/bpf.h" ] || die "$UAPI/linux/bpf.h not found; run: make kernel"
grep -q BPF_NETKIT_PEER "$UAPI/linux/bpf.h" ||
	die "$UAPI/linux/bpf.h has no BPF_NETKIT_PEER: the kernel was built without the series"
for tool in clang gcc; do
	command -v "$tool" >/dev/null || die "$tool not found; run: make deps"
done

bpf_srcs=("$TOP"/bench/*.bpf.c)
inputs=$(hash_of "$0" "${bpf_srcs[@]}" "$TOP/bench/nkbench.c" "$VMLINUX_H" "$LIBBPF_A" \
	"$UAPI/linux/bpf.h" "$UAPI/linux/if_link.h" "$(clang --version | head -n 1)" \
	"$(gcc --version | head -n 1)")
if [ "$(stamp_read bench-build)" = "$inputs" ] && [ -x "$OUT/nkbench" ]; then
	step_done "unchanged: $(find "$OUT" -type f | wc -l) files in $OUT"
	exit 0
fi
stamp_clear bench-build

rm -rf "$OUT"
mkdir -p "$OUT"
for src in "${bpf_srcs[@]}"; do
	obj=$OUT/$(basename "$src" .c).o
	run_logged "$LOG" clang -O2 -g -Wall -Werror -target bpf -mcpu=v3 \
		-I "$BPF_INC" -c "$src" -o "$obj"
done
run_logged "$LOG" gcc -O2 -Wall -Wextra -Werror -static \
	-I "$BPF_INC" -I "$UAPI" -o "$OUT/nkbench" "$TOP/bench/nkbench.c" \
	"$LIBBPF_A" -lelf -lz -lzstd
stamp_write bench-build "$inputs"
step_done "${#bpf_srcs[@]} BPF objects and nkbench in $OUT"
