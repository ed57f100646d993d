#!/usr/bin/env bash
# check-arches: the series' objects compiled for the other architectures
# Debian ships 6.1 for (i386, armhf, arm64, ppc64el, s390x) with Debian's
# cross compilers, and their warnings compared with the base's for the
# same objects: a warning the series adds fails the check. Compiled, not
# linked; nothing boots.
#
# Per architecture, on the series (refs/netkit/applied, what make apply
# last applied; this script never applies) and on the base (the
# base-<version> tag below it): the architecture's defconfig plus
# configs/arches.config, make prepare, then
#   with W=1 the kernel objects KERNEL_OBJS and those of every .c file the
#       series changes outside tools/ (net/ethernet/eth.o); netkit.o,
#       mprog.o and tcx.o exist only on the series: their warnings are
#       all new;
#   libbpf's objects (tools/lib/bpf, libbpf.a) with its own flags, less
#       -Werror: a warning of libbpf's is counted like any other (in its
#       own build it is an error);
#   bpftool's objects with its own flags, on that libbpf; not linked, so
#       the host's libelf, zlib and libcap headers serve (the same on
#       every architecture, and the cross compilers search /usr/include
#       last); without the BPF skeletons (they need the target kernel's
#       BTF) and jit_disasm.c (the target's libbfd).
# A warning is compared by its file, function, flag and text, numbers
# left out (line numbers, frame sizes), as a multiset per file.
# ARCHES_BASE=lazy builds the base only where the series has warnings
# (with none, none is new): the table then shows "-" for the base.
#
# Everything lives in ARCHES_OUT: one worktree of TREE (linux/, checked
# out at the series or the base in turn, so that each architecture's
# build directory <arch>/kernel serves both and a switch rebuilds only
# what differs), the logs (logs/), each side's warnings
# (<arch>/series.warnings, <arch>/base.warnings), the new ones
# (<arch>/new.txt), the table (table.txt), a ccache and the stamps. A
# side is rebuilt when its inputs (its commit, the fragment, the
# defconfig, the compiler and binutils, the object list, this script)
# changed; an architecture whose inputs did not change and whose last
# run passed is skipped. ARCHES picks the architectures (comma-separated).
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

ARCHES_OUT=${ARCHES_OUT:-$NETKIT_CACHE/arches}
ARCHES=${ARCHES:-i386,armhf,arm64,ppc64el,s390x}
# always: the base is built for every architecture (its warnings in the
# table); lazy: only where the series has warnings.
ARCHES_BASE=${ARCHES_BASE:-always}
JOBS=${JOBS:-$(nproc)}
FRAGMENT=$TOP/configs/arches.config
HELPER=$TOP/scripts/slow/arch-warnings.py
WT=$ARCHES_OUT/linux
# The series' own objects and the core objects its headers reach; the
# series' other .c files are added below.
KERNEL_OBJS=(drivers/net/netkit.o kernel/bpf/mprog.o kernel/bpf/tcx.o net/sched/sch_ingress.o
	net/core/dev.o net/core/filter.o kernel/bpf/syscall.o net/core/rtnetlink.o)
LOGDIR=$ARCHES_OUT/logs
STAMPS=$ARCHES_OUT/stamps

# arch_info ARCH: kbuild's ARCH, the cross compiler's prefix, the defconfig.
arch_info() {
	case $1 in
	i386) echo i386 i686-linux-gnu- i386_defconfig ;;
	armhf) echo arm arm-linux-gnueabihf- multi_v7_defconfig ;;
	arm64) echo arm64 aarch64-linux-gnu- defconfig ;;
	ppc64el) echo powerpc powerpc64le-linux-gnu- ppc64le_defconfig ;;
	s390x) echo s390 s390x-linux-gnu- defconfig ;;
	*) return 1 ;;
	esac
}

step check-arches
total_start=$STEP_START
# A background job beside the pipeline's own builds: at least nice 10.
[ "$(nice)" -ge "${ARCHES_NICE:-10}" ] || renice -n "${ARCHES_NICE:-10}" -p $$ >/dev/null || true
export LC_ALL=C
export CCACHE_DIR=${ARCHES_CCACHE_DIR:-$ARCHES_OUT/ccache} CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
[ -d "$TREE/.git" ] || die "no tree at $TREE; run: make tree"
series=$(tree_git rev-parse -q --verify 'refs/netkit/applied^{commit}') ||
	die "no refs/netkit/applied in $TREE: the series was never applied; run: make apply"
base_tag=$(tree_git describe --tags --abbrev=0 --match 'base-*' "$series" 2>/dev/null) ||
	die "refs/netkit/applied ($(tree_git log -1 --format=%h "$series")) is not on a base-* tag of $TREE; run: make apply"
base=$(tree_git rev-parse "$base_tag^{commit}")
case $ARCHES_BASE in always | lazy) ;; *) die "ARCHES_BASE is always or lazy, not '$ARCHES_BASE'" ;; esac
IFS=, read -r -a arches <<<"$ARCHES"
for a in "${arches[@]}"; do
	arch_info "$a" >/dev/null || die "ARCHES: unknown architecture '$a' (i386, armhf, arm64, ppc64el, s390x)"
	read -r _ cross _ <<<"$(arch_info "$a")"
	command -v "${cross}gcc" >/dev/null || die "${cross}gcc not found; run: scripts/install-deps.sh arches"
done
mkdir -p "$ARCHES_OUT" "$LOGDIR"
exec 9>"$ARCHES_OUT/lock"
flock -n 9 || die "another make check-arches is running in $ARCHES_OUT"
# The series' C files outside tools/ (eth.c): their objects too.
mapfile -t series_c < <(tree_git diff --name-only "$base" "$series" -- '*.c' ':!tools')
for c in "${series_c[@]}"; do
	[[ " ${KERNEL_OBJS[*]} " == *" ${c%.c}.o "* ]] || KERNEL_OBJS+=("${c%.c}.o")
done
msg "base $base_tag, series $(tree_git log -1 --format='%h (%s)' "$series")"
msg "kernel objects: ${KERNEL_OBJS[*]}"

# side_key ARCH SIDE COMMIT: what a side's warnings depend on.
side_key() {
	local karch cross defconfig
	read -r karch cross defconfig <<<"$(arch_info "$1")"
	hash_of "$0" "$HELPER" "$FRAGMENT" "$1" "$2" "$3" "$karch" "$defconfig" \
		"$("${cross}gcc" --version | head -n 1)" "$("${cross}ld" --version | head -n 1)" \
		"${KERNEL_OBJS[*]}"
}

# checkout COMMIT: the worktree at COMMIT, without edits (it is this
# script's own: what is in it otherwise is discarded).
checkout() {
	if [ ! -e "$WT/.git" ]; then
		msg "worktree $WT at $(tree_git log -1 --format=%h "$1")"
		run_logged "$LOG" git -C "$TREE" worktree add -f --detach "$WT" "$1"
		return
	fi
	if [ "$(git -C "$WT" rev-parse HEAD)" != "$1" ] || [ -n "$(git -C "$WT" status --porcelain)" ]; then
		msg "worktree $WT to $(tree_git log -1 --format=%h "$1")"
		run_logged "$LOG" git -C "$WT" checkout -q -f --detach "$1"
		run_logged "$LOG" git -C "$WT" clean -q -f -d -x
	fi
}

# configure ARCH SIDE OUT KMAKE...: the defconfig plus the fragment in
# OUT; every value the fragment asks for must hold (on the base, a
# symbol its Kconfig does not define is dropped).
configure() {
	local arch=$1 side=$2 out=$3 line sym have unmet=() absent=()
	shift 3
	local defconfig
	read -r _ _ defconfig <<<"$(arch_info "$arch")"
	run_logged "$LOG" "$@" "$defconfig"
	run_logged "$LOG" "$WT/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$FRAGMENT"
	run_logged "$LOG" "$@" olddefconfig
	while IFS= read -r line; do
		if [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
			sym=${BASH_REMATCH[1]}
			grep -qE "^$sym=" "$out/.config" || continue
		else
			sym=${line%%=*}
			! grep -qxF "$line" "$out/.config" || continue
		fi
		have=$(grep -E "^$sym=" "$out/.config" || echo unset)
		if [ "$side" = base ] && ! git -C "$WT" grep -qE "^[[:space:]]*(menu)?config ${sym#CONFIG_}\$" -- '*Kconfig*'; then
			absent+=("${sym#CONFIG_}")
		else
			unmet+=("$line (have: $have)")
		fi
	done < <(grep -E '^CONFIG_[A-Za-z0-9_]+=|^# CONFIG_[A-Za-z0-9_]+ is not set' "$FRAGMENT")
	[ "${#absent[@]}" -eq 0 ] || msg "$arch $side: not in the base's Kconfig, dropped: ${absent[*]}"
	[ "${#unmet[@]}" -eq 0 ] || die "$arch $side: configs/arches.config asks for what olddefconfig dropped: ${unmet[*]}; see $out/.config"
}

# compiled LOG [DIR]: how many objects LOG compiled (into DIR).
compiled() { grep -cE "^ +CC( \\[M\\])? +${2:-}" "$1" || true; }
# count WARNINGS: how many warnings an extract holds.
count() { grep -c . "$1" || true; }

# build_side ARCH SIDE KEY: the side's objects for ARCH (the worktree is
# at the side's commit), their warnings in ARCHES_OUT/ARCH/SIDE.warnings.
# False if something did not build (its log's tail printed).
build_side() {
	local arch=$1 side=$2 key=$3 karch cross
	read -r karch cross _ <<<"$(arch_info "$arch")"
	local dir=$ARCHES_OUT/$arch
	local out=$dir/kernel lout=$dir/libbpf/ bout=$dir/bpftool/
	local klog=$LOGDIR/$arch-$side-kernel.log llog=$LOGDIR/$arch-$side-libbpf.log blog=$LOGDIR/$arch-$side-bpftool.log
	local kmake=(submake -C "$WT" O="$out" ARCH="$karch" CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" HOSTCC="ccache gcc")
	# libbpf's -Werror left out (CFLAGS_REMOVE of its objects' group), so
	# that a warning of its stops neither it nor bpftool, which builds on
	# it: counted as a warning, it fails the check all the same.
	local tools=(ARCH="$karch" CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" CFLAGS_REMOVE_libbpf=-Werror)
	local objs=() o bobjs=() rc=0
	step "$arch-$side"
	stamp_clear "arches-$arch-$side"
	rm -f "$dir/$side".*
	mkdir -p "$out"
	: >"$klog"
	: >"$llog"
	: >"$blog"
	(configure "$arch" "$side" "$out" "${kmake[@]}") || return 1
	(PROGRESS_RE='^ +(CC|AS|LD|HOSTCC|GEN|VDSO)' run_progress "$LOG" "$arch $side: prepare" \
		"${kmake[@]}" -j"$JOBS" W=1 prepare) || return 1
	for o in "${KERNEL_OBJS[@]}"; do
		[ ! -f "$WT/${o%.o}.c" ] || objs+=("$o")
	done
	rm -f "${objs[@]/#/$out/}"
	(run_progress "$klog" "$arch $side: ${#objs[@]} kernel objects (W=1)" \
		"${kmake[@]}" -k -j"$JOBS" -Otarget W=1 "${objs[@]}") || rc=1
	# libbpf as bpftool builds it, then bpftool's objects on that libbpf.
	rm -rf "$lout"
	mkdir -p "$lout"
	(run_progress "$llog" "$arch $side: libbpf" submake -C "$WT/tools/lib/bpf" -k -j"$JOBS" -Otarget \
		"${tools[@]}" OUTPUT="$lout" DESTDIR="${lout%/}" prefix= "${lout}libbpf.a" install_headers) || rc=1
	mkdir -p "$bout"
	rm -f "$bout"*.o "$bout"*.d
	for o in "$WT"/tools/bpf/bpftool/*.c; do
		o=${o##*/}
		[ "$o" = jit_disasm.c ] || bobjs+=("$bout${o%.c}.o")
	done
	bobjs+=("${bout}disasm.o")
	(run_progress "$blog" "$arch $side: bpftool" submake -C "$WT/tools/bpf/bpftool" -k -j"$JOBS" -Otarget \
		"${tools[@]}" OUTPUT="$bout" LIBBPF_OUTPUT="$lout" VMLINUX_BTF= feature-libcap=1 "${bobjs[@]}") || rc=1
	{
		python3 "$HELPER" extract "$klog" "$out" "$WT=" "$out="
		python3 "$HELPER" extract "$llog" "$WT/tools/lib/bpf" "$WT=" "${lout%/}=libbpf"
		# (libbpf's objects: from its own log.)
		python3 "$HELPER" extract "$blog" "$WT/tools/bpf/bpftool" "$WT=" "${bout%/}=bpftool" "${lout%/}=libbpf" |
			grep -v '^libbpf/' || true
	} >"$dir/$side.warnings"
	printf '%s+%s+%s\n' "$(compiled "$klog")" "$(compiled "$llog")" "$(compiled "$blog" "$bout")" >"$dir/$side.objects"
	[ "$rc" -eq 0 ] || return 1
	stamp_write "arches-$arch-$side" "$key"
	step_done "$(cat "$dir/$side.objects") objects (kernel+libbpf+bpftool), $(grep -c . "$dir/$side.warnings" || true) warnings"
}

# side_current ARCH SIDE: true if the side's warnings are those of its
# current inputs (its stamp).
side_current() {
	local k=key_$2
	k=${k}[$1]
	[ "$(stamp_read "arches-$1-$2")" = "${!k}" ] && [ -f "$ARCHES_OUT/$1/$2.warnings" ]
}
# arch_key ARCH: the architecture's stamp: both sides' inputs and the mode.
arch_key() { hash_of "${key_base[$1]}" "${key_series[$1]}" "$ARCHES_BASE"; }
# build_all SIDE COMMIT ARCH...: the worktree at COMMIT, the side of each ARCH.
build_all() {
	local side=$1 commit=$2 a t0 k
	shift 2
	checkout "$commit"
	for a in "$@"; do
		t0=$(date +%s)
		k=key_$side
		k=${k}[$a]
		build_side "$a" "$side" "${!k}" || failed_side[$a]+="$side "
		secs[$a]=$((${secs[$a]:-0} + $(date +%s) - t0))
	done
}

# The series first, then the base where it is needed (lazy: only where
# the series has warnings; with none, none can be new).
declare -A key_base=() key_series=() failed_side=() secs=()
todo=() run=() rows=() new_lines=()
for a in "${arches[@]}"; do
	key_base[$a]=$(side_key "$a" base "$base")
	key_series[$a]=$(side_key "$a" series "$series")
	if [ "$(stamp_read "arches-$a")" = "$(arch_key "$a")" ] && [ -f "$ARCHES_OUT/$a/row" ]; then
		rows+=("$(cat "$ARCHES_OUT/$a/row")  (unchanged: the row of the run that built it)")
		continue
	fi
	run+=("$a")
	side_current "$a" series || todo+=("$a")
done
[ "${#todo[@]}" -eq 0 ] || build_all series "$series" "${todo[@]}"
todo=()
for a in "${run[@]}"; do
	side_current "$a" base && continue
	if [ "$ARCHES_BASE" = lazy ] && { [ -n "${failed_side[$a]:-}" ] || [ ! -s "$ARCHES_OUT/$a/series.warnings" ]; }; then
		continue
	fi
	todo+=("$a")
done
[ "${#todo[@]}" -eq 0 ] || build_all base "$base" "${todo[@]}"

# The table: per architecture, the objects and warnings of each side and
# the series' new warnings ("-": not built).
STEP_NAME=check-arches STEP_START=$total_start
failed=0
for a in "${run[@]}"; do
	d=$ARCHES_OUT/$a
	show() { if [ -f "$d/$1" ]; then "${@:2}" "$d/$1"; else echo -; fi; }
	: >"$d/new.txt"
	if [ -f "$d/series.warnings" ]; then
		if side_current "$a" base; then
			python3 "$HELPER" new "$d/base.warnings" "$d/series.warnings" >"$d/new.txt"
		else
			# No base: every warning is new (lazy: there are none).
			python3 "$HELPER" new /dev/null "$d/series.warnings" >"$d/new.txt"
		fi
	fi
	n_new=$(grep -c . "$d/new.txt" || true)
	result=pass
	note=
	if [ -n "${failed_side[$a]:-}" ]; then
		result=FAIL note="  build failed: ${failed_side[$a]% } (logs $LOGDIR/$a-*)"
	elif [ "$n_new" -ne 0 ]; then
		result=FAIL
	fi
	side_current "$a" base || rm -f "$d/base.objects" "$d/base.warnings"
	row=$(printf '%-8s %9s / %-9s %6s %7s %5s  %-6s %5ss' "$a" "$(show base.objects cat)" \
		"$(show series.objects cat)" "$(show base.warnings count)" \
		"$(show series.warnings count)" "$n_new" "$result" "${secs[$a]:-0}")
	rows+=("$row$note")
	while IFS= read -r l; do
		new_lines+=("$a: $l")
	done <"$d/new.txt"
	if [ "$result" = pass ]; then
		printf '%s\n' "$row" >"$d/row"
		stamp_write "arches-$a" "$(arch_key "$a")"
	else
		rm -f "$d/row"
		stamp_clear "arches-$a"
		failed=$((failed + 1))
	fi
done

{
	printf '\n%-8s %-21s %6s %7s %5s  %-6s %6s\n' arch 'objects (base/series)' base series new result time
	printf '%s\n' "${rows[@]}"
	printf '(objects: kernel+libbpf+bpftool compiled; base, series: their compiler warnings; -: not built%s)\n' \
		"$([ "$ARCHES_BASE" = always ] || echo ', ARCHES_BASE=lazy: the series has none')"
	if [ "${#new_lines[@]}" -gt 0 ]; then
		printf '\nNew warnings (object: warning):\n'
		printf '  %s\n' "${new_lines[@]}"
	fi
} | tee "$ARCHES_OUT/table.txt"
[ "$failed" -eq 0 ] || die "$failed of ${#arches[@]} architectures failed: ${#new_lines[@]} new warnings (above; $ARCHES_OUT/<arch>/new.txt), logs in $LOGDIR"
step_done "${#arches[@]} architectures, no new warning ($ARCHES_OUT/table.txt)"
