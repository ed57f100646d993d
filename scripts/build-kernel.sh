#!/usr/bin/env bash
# kernel: configure the tree and build the boot image (bzImage; ARCH=arm64:
# Image, cross-built), vmlinux (BTF for the selftests), modules and the
# exported uapi headers in $KBUILD_OUT, through ccache. KCONFIG chooses the
# configuration:
#   test    tinyconfig + TEST_FRAGMENTS + the selftests' config: the
#           project's test kernel, everything built in (DEBUG=1 adds
#           configs/debug.config; make bench-kernels builds mainline
#           6.12 this way, with configs/mainline.config added); another
#           ARCH adds its ARCH_FRAGMENTS last
#   debian  Debian's own cloud config (linux-config-6.1) + DEBIAN_FRAGMENTS,
#           trimmed to configs/debian.modules and
#           configs/debian-boot.modules (localmodconfig); its modules
#           installed into $BUILD/modules
# Every configs/*.config belongs to one of these lists (or to
# OTHER_FRAGMENTS, those the Makefile or a script adds through
# EXTRA_CONFIGS); a fragment in configs/ that none names stops the build,
# so that a new file is not silently left out.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
JOBS=${JOBS:-$(nproc)}
KCONFIG=${KCONFIG:-test}
read -r -a extra <<<"${EXTRA_CONFIGS:-}"
# The fragments of each kernel, in order ("selftests": the tree's
# tools/testing/selftests/bpf/config, or SELFTESTS_CONFIG when set: the
# BPF programs need the types it enables in vmlinux.h). The test kernel:
# ours, the selftests' config, then netkit and the fault injection the
# trust suite uses. Debian's: not the selftests' config, which would
# build Debian's modules in. OTHER_FRAGMENTS come through EXTRA_CONFIGS:
# debug.config with DEBUG=1; mainline.config for make bench-kernels'
# mainline kernel, the test kernel's fragments on 6.12 with the series'
# selftests config as SELFTESTS_CONFIG (configs/mainline.config says why).
TEST_FRAGMENTS=(vm.config bpf.config selftests netkit.config faultinject.config)
DEBIAN_FRAGMENTS=(debian.config faultinject.config)
# Also added through EXTRA_CONFIGS, each on top of TEST_FRAGMENTS: make
# coverage's gcov kernel (scripts/coverage/kernel.sh) and make mutate's
# schemata kernel (scripts/coverage/mutate-tree.sh).
OTHER_FRAGMENTS=(debug.config mainline.config coverage.config mutate.config)
# What a target architecture other than x86_64 needs on top of the test
# kernel's fragments, last so that it overrides what is x86's in them
# (configs/arm64.config: QEMU's virt machine, its console and result
# port; no ACPI, no 8250; configs/s390x.config: the s390-ccw-virtio
# machine's). x86_64 has none.
declare -A ARCH_FRAGMENTS=([arm64]=arm64.config [s390x]=s390x.config)
# Not this script's: make check-arches' fragment, on each architecture's
# defconfig (scripts/slow/check-arches.sh).
ARCHES_FRAGMENTS=(arches.config)
for f in "$TOP"/configs/*.config; do
	f=${f##*/}
	[[ " ${TEST_FRAGMENTS[*]} ${DEBIAN_FRAGMENTS[*]} ${OTHER_FRAGMENTS[*]} ${ARCH_FRAGMENTS[*]} ${ARCHES_FRAGMENTS[*]} " == *" $f "* ]] ||
		die "configs/$f is in no kernel's list: add it to TEST_FRAGMENTS, DEBIAN_FRAGMENTS, OTHER_FRAGMENTS, ARCH_FRAGMENTS or ARCHES_FRAGMENTS in scripts/build-kernel.sh (or remove it)"
done
# fragments NAME...: their paths.
fragments() {
	local f
	for f in "$@"; do
		if [ "$f" = selftests ]; then
			printf '%s\n' "${SELFTESTS_CONFIG:-$TREE/tools/testing/selftests/bpf/config}"
		else
			printf '%s\n' "$TOP/configs/$f"
		fi
	done
}
case $KCONFIG in
test)
	# EXTRA_CONFIGS adds more (DEBUG=1: configs/debug.config).
	mapfile -t FRAGMENTS < <(fragments "${TEST_FRAGMENTS[@]}")
	FRAGMENTS+=("${extra[@]}")
	[ -z "${ARCH_FRAGMENTS[$ARCH]:-}" ] || FRAGMENTS+=("$TOP/configs/${ARCH_FRAGMENTS[$ARCH]}")
	base_config=tinyconfig
	;;
debian)
	[ "$ARCH" = x86_64 ] || die "KCONFIG=debian is Debian's amd64 config: ARCH=x86_64 only, not $ARCH"
	mapfile -t FRAGMENTS < <(fragments "${DEBIAN_FRAGMENTS[@]}")
	FRAGMENTS+=("${extra[@]}")
	base_config=$(debian_config cloud-amd64)
	# The tests' modules and those a real boot of the package needs.
	MODULE_LISTS=("$TOP/configs/debian.modules" "$TOP/configs/debian-boot.modules")
	;;
*) die "KCONFIG must be test or debian, not '$KCONFIG'" ;;
esac

kbuild_setup "$KBUILD_OUT"

step kernel
[ -e "$TREE/.git" ] || die "no tree at $TREE; run: make tree"
for f in "${FRAGMENTS[@]}"; do
	[ -f "$f" ] || die "config fragment $f not found"
done
command -v ccache >/dev/null || die "ccache not installed; run: make deps"
command -v "$ARCH_CC" >/dev/null || die "$ARCH_CC not installed; run: make deps ARCH=$ARCH"
mkdir -p "$KBUILD_OUT" "$CCACHE_DIR"

# The kernel is built from everything in the tree but tools/ (libbpf,
# bpftool and the selftests, which the selftests step builds): a patch
# that only touches tools/ does not relink the kernel. (The apply step
# refuses a tree with uncommitted edits.) The stamp also holds the image
# it was written with: an image built by hand in the build directory (a
# planted slip, say) is not taken for this one.
kernel_src=$(tree_git ls-tree HEAD | grep -vP '\ttools$' | sha256sum)
inputs=$(hash_of "$0" "$kernel_src" "${KMAKE[*]}" "${FRAGMENTS[@]}" "$base_config" ${MODULE_LISTS[@]+"${MODULE_LISTS[@]}"})
image_sum() { sha256sum "$KBUILD_OUT/$ARCH_IMAGE" 2>/dev/null | cut -d' ' -f1; }
stamp=$(stamp_read kernel)
if [ -f "$KBUILD_OUT/$ARCH_IMAGE" ] && [ "$stamp" = "$inputs $(image_sum)" ]; then
	step_done "unchanged: $(cat "$KBUILD_OUT/include/config/kernel.release")"
	exit 0
fi
if [ -f "$KBUILD_OUT/$ARCH_IMAGE" ] && [ "${stamp% *}" = "$inputs" ]; then
	# (kbuild would keep it: it is newer than everything it is made of)
	msg "$KBUILD_OUT/$ARCH_IMAGE is not the image this step built from these inputs: building it again"
	rm -f "$KBUILD_OUT/$ARCH_IMAGE"
fi
stamp_clear kernel

# The .config is regenerated from scratch (kbuild then rebuilds only what
# the symbols that actually changed affect) whenever what it is made of
# changed: the fragments, the tree's Kconfig files and version, this
# script. A patch that changes only code keeps it (saves ~25 s).
config_inputs=$(hash_of "$0" "${KMAKE[*]}" "${FRAGMENTS[@]}" "$base_config" ${MODULE_LISTS[@]+"${MODULE_LISTS[@]}"} \
	"$(tree_git ls-files -s -- '*Kconfig*' Makefile "arch/$ARCH_SRC/configs" kernel/configs | sha256sum)")
if [ "$(stamp_read kernel-config)" = "$config_inputs" ] && [ -f "$KBUILD_OUT/.config" ]; then
	msg "config unchanged (fragments, Kconfig files): keeping $KBUILD_OUT/.config"
else
	stamp_clear kernel-config
	if [ "$base_config" = tinyconfig ]; then
		run_logged "$LOG" "${KMAKE[@]}" tinyconfig
	else
		msg "base config: $base_config"
		xz -dc "$base_config" >"$KBUILD_OUT/.config"
	fi
	run_logged "$LOG" "$TREE/scripts/kconfig/merge_config.sh" -m -O "$KBUILD_OUT" \
		"$KBUILD_OUT/.config" "${FRAGMENTS[@]}"
	run_logged "$LOG" "${KMAKE[@]}" olddefconfig
	if [ -n "${MODULE_LISTS[*]-}" ]; then
		# localmodconfig reads lsmod's format: a module name first on
		# a line. The lists' comments and blank lines are left out.
		lsmod=$KBUILD_OUT/netkit-lsmod
		{ echo Module; debian_modules; debian_boot_modules; } >"$lsmod"
		before=$(grep -c '=m$' "$KBUILD_OUT/.config")
		run_logged "$LOG" "${KMAKE[@]}" LSMOD="$lsmod" localmodconfig
		msg "trimmed to ${MODULE_LISTS[*]##*/}: $before modules -> $(grep -c '=m$' "$KBUILD_OUT/.config")"
	fi

	# Every option our fragments ask for must have survived olddefconfig. A
	# symbol this tree does not define (CONFIG_NETKIT before the series adds
	# it) is reported, not fatal; the selftests' config is checked as advice.
	# What counts for a symbol is what the last fragment that names it asks
	# (merge_config.sh's rule: configs/arm64.config turns off x86's ACPI).
	unmet=() absent=() order=()
	declare -A want=() want_from=()
	for f in "${FRAGMENTS[@]}"; do
		while IFS= read -r line; do
			if [[ "$line" =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
				sym=${BASH_REMATCH[1]}
			else
				sym=${line%%=*}
			fi
			[ -n "${want[$sym]+x}" ] || order+=("$sym")
			want[$sym]=$line want_from[$sym]=$f
		done < <(grep -E '^CONFIG_[A-Za-z0-9_]+=|^# CONFIG_[A-Za-z0-9_]+ is not set' "$f")
	done
	for sym in ${order[@]+"${order[@]}"}; do
		line=${want[$sym]} f=${want_from[$sym]}
		if [[ "$line" == "#"* ]]; then
			grep -qE "^$sym=" "$KBUILD_OUT/.config" || continue
		else
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
	done
	[ "${#absent[@]}" -eq 0 ] || msg "not defined in this tree, skipped: ${absent[*]}"
	if [ "${#unmet[@]}" -ne 0 ]; then
		printf '  %s\n' "${unmet[@]}" >&2
		die "the config fragments ask for options that olddefconfig dropped (above): a missing dependency? see $KBUILD_OUT/.config"
	fi
	stamp_write kernel-config "$config_inputs"
fi
# CONFIG_ONLY=1: the .config and no build (make mutate's round that goes
# on needs only the coverage kernel's config)
if [ -n "${CONFIG_ONLY:-}" ]; then
	step_done "config only: $KBUILD_OUT/.config"
	exit 0
fi

run_progress "$LOG" "kernel build" "${KMAKE[@]}" -j"$JOBS" all headers
# The last build's log stays with the build (the step's own log is
# rewritten by every run): make check-configs reads modpost's findings
# from it.
cp "$LOG" "$KBUILD_OUT/netkit-last-build.log"
if [ -n "${MODULE_LISTS[*]-}" ]; then
	# The modules as a package installs them (signed at install time by
	# MODULE_SIG_ALL; stripped of debug info, as Debian's are), for the
	# initramfs.
	rm -rf "$BUILD/modules"
	run_logged "$LOG" "${KMAKE[@]}" INSTALL_MOD_PATH="$BUILD/modules" INSTALL_MOD_STRIP=1 \
		DEPMOD=/sbin/depmod modules_install
	msg "modules installed: $(find "$BUILD/modules" -name '*.ko' | wc -l) in $BUILD/modules"
fi
stamp_write kernel "$inputs $(image_sum)"
step_done "$(cat "$KBUILD_OUT/include/config/kernel.release"), log $LOG"
