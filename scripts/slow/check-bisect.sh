#!/usr/bin/env bash
# check-bisect: every patch of patches/series must build at its position.
#
# Applies the series one patch at a time in a scratch worktree and, after
# each patch, builds what it touches: the kernel objects of changed .c
# files (and the core netkit/bpf objects when a header changed; netkit.o,
# mprog.o and tcx.o with W=1, which must not warn), libbpf and bpftool when the
# tools side changed, test_progs when the selftests changed. Uses the
# kernel step's .config, so run 'make kernel' first. Slow: this is for
# reviewers and for changing the series, not part of 'make test'.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

SERIES=${SERIES:-$TOP/patches/series}
WT=${BISECT_TREE:-$NETKIT_CACHE/bisect-worktree}
OUT=$BUILD/bisect
JOBS=${JOBS:-$(nproc)}
CORE_OBJS=(kernel/bpf/syscall.o kernel/bpf/mprog.o kernel/bpf/tcx.o drivers/net/netkit.o
	net/core/filter.o net/core/dev.o net/ethernet/eth.o net/sched/sch_ingress.o)
W1_OBJS=(drivers/net/netkit.o kernel/bpf/mprog.o kernel/bpf/tcx.o)

step check-bisect
[ -f "$BUILD/kernel/.config" ] || die "no kernel config in $BUILD/kernel; run: make kernel"
base=$(tree_git describe --tags --abbrev=0 --match 'base-*' base)
mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES")

if [ ! -e "$WT/.git" ]; then
	run_logged "$LOG" git -C "$TREE" worktree prune
	run_logged "$LOG" git -C "$TREE" worktree add -f --detach "$WT" "$base"
fi
wt() { git -C "$WT" "$@"; }
wt am --abort >/dev/null 2>&1 || true
run_logged "$LOG" wt reset -q --hard "$base"
run_logged "$LOG" wt clean -q -f -d -x
mkdir -p "$OUT/kernel"
cp "$BUILD/kernel/.config" "$OUT/kernel/.config"
export CCACHE_DIR=${CCACHE_DIR:-$NETKIT_CACHE/ccache}
KMAKE=(submake -C "$WT" O="$OUT/kernel" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc")

n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	t0=$(date +%s)
	run_logged "$LOG" wt am -q --committer-date-is-author-date "$(dirname "$SERIES")/$p"
	mapfile -t files < <(wt diff --name-only HEAD~1 HEAD)
	objs=() what=()
	tools_lib=0 tools_bpftool=0 tools_selftests=0 kconfig=0
	for f in "${files[@]}"; do
		case $f in
		tools/lib/bpf/*) tools_lib=1 ;;
		tools/bpf/bpftool/*) tools_bpftool=1 ;;
		tools/include/*) tools_lib=1 tools_bpftool=1 ;;
		tools/testing/selftests/bpf/*) tools_selftests=1 ;;
		*/Kconfig | */Makefile) kconfig=1 ;;
		include/*) objs+=("${CORE_OBJS[@]}") ;;
		*.c) objs+=("${f%.c}.o") ;;
		esac
	done
	if [ "$kconfig" -eq 1 ] || [ "${#objs[@]}" -gt 0 ]; then
		# olddefconfig drops CONFIG_NETKIT before the driver exists:
		# ask for it again at every position.
		cat "$TOP/configs/netkit.config" >>"$OUT/kernel/.config"
		run_logged "$LOG" "${KMAKE[@]}" olddefconfig
		# Only objects this configuration builds (netkit.o once it exists).
		mapfile -t objs < <(printf '%s\n' "${objs[@]}" | sort -u | while read -r o; do
			[ -f "$WT/${o%.o}.c" ] && printf '%s\n' "$o"
		done)
	fi
	if [ "${#objs[@]}" -gt 0 ]; then
		run_logged "$LOG" "${KMAKE[@]}" -j"$JOBS" "${objs[@]}"
		for o in "${W1_OBJS[@]}"; do
			[[ " ${objs[*]} " == *" $o "* ]] || continue
			rm -f "$OUT/kernel/$o"
			w1=$("${KMAKE[@]}" W=1 "$o" 2>&1) || fail_with_log "$LOG" "W=1 build of $o after $p" 1
			if grep -qE "${o%.o}\.[ch]:[0-9]+:[0-9]+: warning:" <<<"$w1"; then
				printf '%s\n' "$w1" >>"$LOG"
				die "W=1 warnings in $o after $p; see $LOG"
			fi
		done
		what+=("${#objs[@]} kernel objects")
	fi
	if [ "$tools_lib" -eq 1 ]; then
		mkdir -p "$OUT/libbpf"
		run_logged "$LOG" submake -C "$WT/tools/lib/bpf" -j"$JOBS" OUTPUT="$OUT/libbpf/"
		what+=(libbpf)
	fi
	if [ "$tools_bpftool" -eq 1 ]; then
		mkdir -p "$OUT/bpftool"
		run_logged "$LOG" submake -C "$WT/tools/bpf/bpftool" -j"$JOBS" OUTPUT="$OUT/bpftool/"
		what+=(bpftool)
	fi
	if [ "$tools_selftests" -eq 1 ]; then
		st=$WT/tools/testing/selftests/bpf
		run_logged "$LOG" submake -C "$st" -j"$JOBS" VMLINUX_BTF="$BUILD/kernel/vmlinux" \
			KDIR="$BUILD/kernel" "$st/test_progs"
		what+=(test_progs)
	fi
	msg "ok $n/${#patches[@]} $p: ${what[*]:-nothing to build} ($(($(date +%s) - t0))s)"
done
step_done "${#patches[@]} patches build at their positions"
