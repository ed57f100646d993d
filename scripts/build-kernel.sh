#!/usr/bin/env bash
# kernel: configure the tree from configs/ on a tinyconfig base and build
# bzImage, vmlinux (BTF for the selftests), modules and the exported uapi
# headers in $KBUILD_OUT, through ccache.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
JOBS=${JOBS:-$(nproc)}
# Our fragments, then the selftests' own config (the BPF programs need the
# types it enables in vmlinux.h), then netkit and the fault injection the
# trust suite uses. EXTRA_CONFIGS adds more (DEBUG=1: configs/debug.config).
read -r -a extra <<<"${EXTRA_CONFIGS:-}"
FRAGMENTS=(
	"$TOP/configs/vm.config"
	"$TOP/configs/bpf.config"
	"$TREE/tools/testing/selftests/bpf/config"
	"$TOP/configs/netkit.config"
	"$TOP/configs/faultinject.config"
	"${extra[@]}"
)

export CCACHE_DIR=${CCACHE_DIR:-$NETKIT_CACHE/ccache}
# The build's identity is fixed, so that a relink makes the same image: the
# build number too, which kbuild otherwise counts up in .version on every
# link - and which is in linux_banner, whose char array's length is in the
# BTF: at #9 -> #10 the BTF changed and the selftests step recompiled its
# 498 BPF objects for a comment change (measured 2026-12-04).
export KBUILD_BUILD_USER=netkit KBUILD_BUILD_HOST=qemu KBUILD_BUILD_VERSION=1
KMAKE=(submake -C "$TREE" O="$KBUILD_OUT" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc")
# pahole's -j (which the tree's pahole-flags.sh passes to pahole >= 1.22)
# encodes BTF in threads and numbers the types in a different order on
# every link (measured with Debian's pahole 1.24). Without it, BTF only
# changes when the types do, and the selftests step can see that a kernel
# change left the BTF alone and rebuild nothing (scripts/build-selftests.sh).
# It costs ~3 s per vmlinux link.
if [ -x "$TREE/scripts/pahole-flags.sh" ] && command -v pahole >/dev/null; then
	pahole_flags=$(cd "$TREE" && PAHOLE=pahole scripts/pahole-flags.sh)
	pahole_flags=$(sed -E 's/(^| )-j( |$)/\1/; s/  +/ /g; s/^ | $//g' <<<"$pahole_flags")
	KMAKE+=(PAHOLE_FLAGS="$pahole_flags")
fi

step kernel
[ -e "$TREE/.git" ] || die "no tree at $TREE; run: make tree"
for f in "${FRAGMENTS[@]}"; do
	[ -f "$f" ] || die "config fragment $f not found"
done
command -v ccache >/dev/null || die "ccache not installed; run: make deps"
mkdir -p "$KBUILD_OUT" "$CCACHE_DIR"
KBUILD_BUILD_TIMESTAMP=$(git -C "$TREE" log -1 --format=%cD)
export KBUILD_BUILD_TIMESTAMP

# The kernel is built from everything in the tree but tools/ (libbpf,
# bpftool and the selftests, which the selftests step builds): a patch
# that only touches tools/ does not relink the kernel.
kernel_src=$(tree_git ls-tree HEAD | grep -vP '\ttools$' | sha256sum)
inputs=$(hash_of "$0" "$kernel_src" "${KMAKE[*]}" "${FRAGMENTS[@]}")
if [ "$(stamp_read kernel)" = "$inputs" ] && [ -f "$KBUILD_OUT/arch/x86/boot/bzImage" ]; then
	step_done "unchanged: $(cat "$KBUILD_OUT/include/config/kernel.release")"
	exit 0
fi
stamp_clear kernel

# The .config is regenerated from scratch (kbuild then rebuilds only what
# the symbols that actually changed affect) whenever what it is made of
# changed: the fragments, the tree's Kconfig files and version, this
# script. A patch that changes only code keeps it (saves ~25 s).
config_inputs=$(hash_of "$0" "${KMAKE[*]}" "${FRAGMENTS[@]}" \
	"$(tree_git ls-files -s -- '*Kconfig*' Makefile arch/x86/configs kernel/configs | sha256sum)")
if [ "$(stamp_read kernel-config)" = "$config_inputs" ] && [ -f "$KBUILD_OUT/.config" ]; then
	msg "config unchanged (fragments, Kconfig files): keeping $KBUILD_OUT/.config"
else
	stamp_clear kernel-config
	run_logged "$LOG" "${KMAKE[@]}" tinyconfig
	run_logged "$LOG" "$TREE/scripts/kconfig/merge_config.sh" -m -O "$KBUILD_OUT" \
		"$KBUILD_OUT/.config" "${FRAGMENTS[@]}"
	run_logged "$LOG" "${KMAKE[@]}" olddefconfig

	# Every option our fragments ask for must have survived olddefconfig. A
	# symbol this tree does not define (CONFIG_NETKIT before the series adds
	# it) is reported, not fatal; the selftests' config is checked as advice.
	unmet=() absent=()
	for f in "${FRAGMENTS[@]}"; do
		while IFS= read -r line; do
			if [[ "$line" =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
				sym=${BASH_REMATCH[1]}
				grep -qE "^$sym=" "$KBUILD_OUT/.config" || continue
			else
				sym=${line%%=*}
				grep -qxF "$line" "$KBUILD_OUT/.config" && continue
			fi
			have=$(grep -E "^$sym=" "$KBUILD_OUT/.config" || echo unset)
			if ! git -C "$TREE" grep -qE "^[[:space:]]*(menu)?config ${sym#CONFIG_}\$" -- '*Kconfig*'; then
				absent+=("$sym")
			elif [[ "$f" == "$TOP"/* ]]; then
				unmet+=("$line (have: $have, from $(basename "$f"))")
			else
				msg "note: the selftests' config asks for '$line', have: $have"
			fi
		done < <(grep -E '^CONFIG_[A-Za-z0-9_]+=|^# CONFIG_[A-Za-z0-9_]+ is not set' "$f")
	done
	[ "${#absent[@]}" -eq 0 ] || msg "not defined in this tree, skipped: ${absent[*]}"
	if [ "${#unmet[@]}" -ne 0 ]; then
		printf '  %s\n' "${unmet[@]}" >&2
		die "the config fragments ask for options that olddefconfig dropped (above): a missing dependency? see $KBUILD_OUT/.config"
	fi
	stamp_write kernel-config "$config_inputs"
fi

run_progress "$LOG" "kernel build" "${KMAKE[@]}" -j"$JOBS" all headers
stamp_write kernel "$inputs"
step_done "$(cat "$KBUILD_OUT/include/config/kernel.release"), log $LOG"
