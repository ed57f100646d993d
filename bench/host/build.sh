#!/usr/bin/env bash
# bench-build: compile what the bench guest runs that is ours, for the
# kernel of $BUILD/kernel and from its tree $TREE (the series, or make
# bench-kernels' base and mainline), into $BUILD/bench/bin:
#   - vmlinux.h from that kernel's BTF (bpftool btf dump), and the tree's
#     own libbpf (tools/lib/bpf: libbpf.a and its headers) in
#     $BUILD/bench/libbpf;
#   - the BPF programs of bench/*.bpf.c (clang -target bpf) against them;
#     netkit_*.bpf.c only where the kernel has netkit (CONFIG_NETKIT);
#   - the loader and load generator bench/guest/nkbench.c, static, against the
#     kernel's uapi headers and that libbpf, with NKBENCH_NETKIT,
#     NKBENCH_TCX and NKBENCH_HEADROOM where the uapi has netkit, tcx links
#     and netkit's IFLA_NETKIT_HEADROOM.
# Reads the kernel build and the tree, writes nothing outside $BUILD/bench.
set -euo pipefail
# shellcheck source=../../scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
JOBS=${JOBS:-$(nproc)}
BENCH_DIR=$BUILD/bench
LOGDIR=$BENCH_DIR/logs
STAMPS=$BENCH_DIR/stamps
OUT=$BENCH_DIR/bin
LIBBPF=$BENCH_DIR/libbpf
INC=$LIBBPF/root/include
UAPI=$KBUILD_OUT/usr/include

step bench-build
[ -f "$KBUILD_OUT/vmlinux" ] || die "$KBUILD_OUT/vmlinux not found; run: make kernel"
[ -f "$UAPI/linux/bpf.h" ] || die "$UAPI/linux/bpf.h not found; run: make kernel"
[ -f "$TREE/tools/lib/bpf/Makefile" ] || die "no libbpf in $TREE/tools/lib/bpf; run: make tree"
for tool in clang gcc bpftool; do
	command -v "$tool" >/dev/null || die "$tool not found; run: make deps"
done

# The tree's libbpf, built out of the tree.
libbpf_inputs=$(hash_of "$0" "$(tree_git rev-parse HEAD:tools)" "$(gcc --version | head -n 1)")
if [ "$(stamp_read bench-libbpf)" != "$libbpf_inputs" ] || [ ! -f "$LIBBPF/libbpf.a" ]; then
	stamp_clear bench-libbpf
	rm -rf "$LIBBPF"
	mkdir -p "$LIBBPF"
	run_logged "$LOG" submake -C "$TREE/tools/lib/bpf" -j"$JOBS" OUTPUT="$LIBBPF/" \
		DESTDIR="$LIBBPF/root" prefix= "$LIBBPF/libbpf.a" install_headers
	stamp_write bench-libbpf "$libbpf_inputs"
	msg "libbpf of $TREE built in $LIBBPF"
fi

# vmlinux.h of this kernel, rewritten only when it changed.
mkdir -p "$INC"
bpftool btf dump file "$KBUILD_OUT/vmlinux" format c >"$INC/vmlinux.h.new" 2>>"$LOG" ||
	die "bpftool cannot dump the BTF of $KBUILD_OUT/vmlinux (CONFIG_DEBUG_INFO_BTF off?); see $LOG"
if cmp -s "$INC/vmlinux.h.new" "$INC/vmlinux.h"; then
	rm -f "$INC/vmlinux.h.new"
else
	mv -f "$INC/vmlinux.h.new" "$INC/vmlinux.h"
fi

bpf_srcs=()
for src in "$TOP"/bench/guest/*.bpf.c; do
	# netkit's own program (SEC("netkit/peer"), NETKIT_PASS) needs netkit.
	case ${src##*/} in netkit_*) grep -qx 'CONFIG_NETKIT=y' "$KBUILD_OUT/.config" || continue ;; esac
	bpf_srcs+=("$src")
done
defs=()
grep -qw BPF_NETKIT_PEER "$UAPI/linux/bpf.h" && defs+=(-DNKBENCH_NETKIT)
grep -qw BPF_TCX_INGRESS "$UAPI/linux/bpf.h" && defs+=(-DNKBENCH_TCX)
grep -qw IFLA_NETKIT_HEADROOM "$UAPI/linux/if_link.h" && defs+=(-DNKBENCH_HEADROOM)

inputs=$(hash_of "$0" "${bpf_srcs[@]}" "$TOP/bench/guest/nkbench.c" "$INC/vmlinux.h" "$LIBBPF/libbpf.a" \
	"$UAPI/linux/bpf.h" "$UAPI/linux/if_link.h" "${defs[*]}" "$(clang --version | head -n 1)" \
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
		-I "$INC" -c "$src" -o "$obj"
done
run_logged "$LOG" gcc -O2 -Wall -Wextra -Werror -static "${defs[@]}" \
	-I "$INC" -I "$UAPI" -o "$OUT/nkbench" "$TOP/bench/guest/nkbench.c" \
	"$LIBBPF/libbpf.a" -lelf -lz -lzstd
stamp_write bench-build "$inputs"
step_done "${#bpf_srcs[@]} BPF objects and nkbench${defs[*]:+ (${defs[*]})} in $OUT"
