#!/usr/bin/env bash
# check-configs: build the series under configurations other than the
# test kernel's and print a table, row -> result. Build only, nothing
# boots. Each row is the cheapest build that proves it:
#   test         the test kernel (make kernel, a dependency of this target)
#   debian       Debian's cloud config (the KCONFIG=debian kernel step:
#                vmlinux, modules, modpost), plus the series' objects
#                with W=1 under that config
#   ingress=.. act=..  NET_SCH_INGRESS n/m/y x NET_CLS_ACT n/y
#   bpf_syscall=n, netkit=n, jump_label=y, preempt: one symbol changed
#                on the test config; vmlinux and modules (modpost)
#   allmodconfig W=1  the series' objects only
# The test-config rows build in directories of their own under
# $CHECK_OUT: the first run builds each from scratch (~8 min a row here;
# a copy of the test kernel's build would not help: the tools' .cmd files
# name their directory, objtool is rebuilt and with it every object),
# later runs only what changed. A row whose .config comes out identical
# to an earlier row's (Kconfig dependencies) is reported as that row.
# A row fails on a build error, on a symbol its .config was meant to
# have and does not, on a symbol that must (not) be in System.map, on
# modpost's "undefined!", and on any warning at a line the series wrote
# (git blame against the base; warnings at lines of the base are counted,
# not failed).
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
CHECK_OUT=${CHECK_OUT:-$NETKIT_CACHE/check-configs}
JOBS=${JOBS:-$(nproc)}
# ROWS: only the rows whose names are listed (comma-separated); empty: all.
ROWS=${ROWS:-}

step check-configs
[ -f "$KBUILD_OUT/vmlinux" ] || die "no test kernel in $KBUILD_OUT; run: make kernel"
base_tag=$(tree_git describe --tags --abbrev=0 --match 'base-*' HEAD)
tree_git diff --quiet HEAD || die "$TREE has edits (git -C $TREE diff --stat); run: make reset-tree"
mkdir -p "$CHECK_OUT/logs"
# The series' C files, and the objects they build.
mapfile -t series_c < <(tree_git diff --name-only "$base_tag..HEAD" -- '*.c' ':!tools')
series_objs=("${series_c[@]/%.c/.o}")
mapfile -t series_files < <(tree_git diff --name-only "$base_tag..HEAD" -- ':!tools')

table=() failed=0
declare -A config_row=() config_result=()
row_wanted() { [ -z "$ROWS" ] || [[ ",$ROWS," == *",$1,"* ]]; }
# result NAME RESULT SECONDS NOTE: a line of the table.
result() {
	table+=("$(printf '%-22s %-6s %5ss  %s' "$1" "$2" "$3" "$4")")
	msg "$1: $2 ($3s) $4"
	[ "$2" != FAIL ] || failed=$((failed + 1))
}

# warning_lines LOG: the file:line of every compiler warning in LOG, once.
warning_lines() {
	grep -a -oE '^[^ :]+\.[ch]:[0-9]+:[0-9]+: warning:' "$1" | cut -d: -f1,2 | sort -u || true
}
# series_warnings LOG: the compiler's warnings in LOG at lines the series
# wrote (git blame: not from the base), one line each.
series_warnings() {
	local file line path
	while IFS=: read -r file line; do
		path=${file#"$TREE"/}
		if printf '%s\n' "${series_files[@]}" | grep -qxF "$path" &&
			! tree_git blame -s -L "$line,$line" "$base_tag..HEAD" -- "$path" | grep -q '^\^'; then
			grep -a -m1 -F "$file:$line:" "$1"
		fi
	done < <(warning_lines "$1")
}
# base_warnings LOG SERIES_WARNINGS: how many warnings are at the base's lines.
base_warnings() {
	echo $(($(warning_lines "$1" | grep -c . || true) - $(grep -c . <<<"$2" || true)))
}

# check_build NAME LOG DIR SECONDS [SYMBOL|!SYMBOL ...]: judge a finished
# build: modpost, the series' warnings, System.map.
check_build() {
	local name=$1 log=$2 dir=$3 secs=$4 s problems=() warn note
	shift 4
	if [ ! -f "$log" ]; then
		result "$name" FAIL "$secs" "no build log at $log (built by an older harness? rebuild)"
		return 1
	fi
	! grep -a -q 'undefined!' "$log" || problems+=("modpost: $(grep -a -m1 'undefined!' "$log")")
	warn=$(series_warnings "$log")
	[ -z "$warn" ] || problems+=("warning at a line of the series: $(head -n 1 <<<"$warn")")
	for s in "$@"; do
		if [[ $s == !* ]]; then
			! grep -qE " ${s#!}\$" "$dir/System.map" || problems+=("${s#!} in System.map")
		else
			grep -qE " $s\$" "$dir/System.map" || problems+=("$s not in System.map")
		fi
	done
	if [ "${#problems[@]}" -ne 0 ]; then
		result "$name" FAIL "$secs" "${problems[*]}; log $log"
		return 1
	fi
	note="$(grep -cE '^ +CC' "$log" || true) compiled; "
	if grep -a -qE '^ +MODPOST' "$log"; then
		note+="modpost clean"
	else
		note+="up to date, modpost did not run in this build"
	fi
	base_warn=$(base_warnings "$log" "$warn")
	[ "$base_warn" -eq 0 ] || note+="; $base_warn warnings at lines of the base"
	result "$name" pass "$secs" "$note${*:+; System.map: $*}"
}

# config_row NAME "EXPECT..." [SYMBOL|!SYMBOL ...] -- CONFIG ARGS...: the
# test config with scripts/config ARGS, which must give the EXPECT
# values (SYM=y|m|n), built as vmlinux and modules in its own directory.
config_row() {
	# The directory without '=' and ',' (the tools' Makefiles cannot
	# take them in a path).
	local name=$1 expect=$2 dir=$CHECK_OUT/${1//[=,]/-} log=$CHECK_OUT/logs/${1//[=,]/-}.log
	local t0 e sym val have rc=0
	local syms=()
	shift 2
	while [ "$1" != -- ]; do
		syms+=("$1")
		shift
	done
	shift
	row_wanted "$name" || return 0
	t0=$(date +%s)
	: >"$log"
	mkdir -p "$dir"
	cp "$KBUILD_OUT/.config" "$dir/.config"
	"$TREE/scripts/config" --file "$dir/.config" "$@"
	kbuild_setup "$dir"
	run_logged "$log" "${KMAKE[@]}" olddefconfig
	for e in $expect; do
		sym=CONFIG_${e%=*} val=${e#*=}
		have=$(sed -nE "s/^$sym=(.*)/\1/p" "$dir/.config")
		if [ "${have:-n}" != "$val" ]; then
			result "$name" FAIL "$(($(date +%s) - t0))" "asked $sym=$val, olddefconfig gave ${have:-n}"
			return 0
		fi
	done
	# What Kconfig did not give as asked (the row's expectations say it
	# must not, e.g. NET_SCH_INGRESS without NET_CLS_ACT).
	local hash changed=() op
	while [ "$#" -ge 2 ]; do
		op=$1 sym=CONFIG_$2 val=
		shift 2
		case $op in --enable) val=y ;; --module) val=m ;; --disable) val=n ;; *) continue ;; esac
		have=$(sed -nE "s/^$sym=(.*)/\1/p" "$dir/.config")
		[ "${have:-n}" = "$val" ] || changed+=("asked $sym=$val, Kconfig gave ${have:-n}")
	done
	hash=$(grep -E '^CONFIG_' "$dir/.config" | sha256sum | cut -c1-16)
	if [ -n "${config_row[$hash]:-}" ]; then
		result "$name" "${config_result[$hash]}" 0 "${changed[*]:+${changed[*]}: }the same .config as ${config_row[$hash]}"
		return 0
	fi
	config_row[$hash]=$name
	"${KMAKE[@]}" -j"$JOBS" vmlinux modules >>"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		result "$name" FAIL "$(($(date +%s) - t0))" "$(grep -a -m1 -E 'error:|ERROR:|undefined reference|Error [0-9]+' "$log"); log $log"
		config_result[$hash]=FAIL
		return 0
	fi
	# Judged by the last build that did something: an up-to-date rerun
	# would otherwise hide the warnings and modpost findings of the build
	# that made the objects.
	if grep -a -qE '^ +(CC|LD|MODPOST)' "$log" || [ ! -f "$dir/netkit-last-build.log" ]; then
		cp "$log" "$dir/netkit-last-build.log"
	fi
	if check_build "$name" "$dir/netkit-last-build.log" "$dir" "$(($(date +%s) - t0))" "${syms[@]}"; then
		config_result[$hash]=pass
	else
		config_result[$hash]=FAIL
	fi
}

# objects_w1 NAME CONFIG: the series' objects with W=1 under CONFIG (a
# .config file, or allmodconfig), in a directory of their own.
objects_w1() {
	local name=$1 dir=$CHECK_OUT/$1 log=$CHECK_OUT/logs/$1.log t0 rc=0 warn
	row_wanted "$name" || return 0
	t0=$(date +%s)
	: >"$log"
	mkdir -p "$dir"
	kbuild_setup "$dir"
	if [ "$2" = allmodconfig ]; then
		run_logged "$log" "${KMAKE[@]}" allmodconfig
	else
		cp "$2" "$dir/.config"
	fi
	# Not -Werror (allmodconfig sets WERROR): W=1 warnings are counted and
	# attributed below, not fatal to the base's code.
	"$TREE/scripts/config" --file "$dir/.config" --disable WERROR
	run_logged "$log" "${KMAKE[@]}" olddefconfig
	# A single object target also runs kbuild's prepare (headers, objtool).
	# Modular objects (sch_ingress under allmodconfig) build the same way.
	rm -f "${series_objs[@]/#/$dir/}"
	"${KMAKE[@]}" -j"$JOBS" W=1 "${series_objs[@]}" >>"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		result "$name" FAIL "$(($(date +%s) - t0))" "$(grep -a -m1 -E 'error:|Error [0-9]+' "$log"); log $log"
		return 0
	fi
	warn=$(series_warnings "$log")
	if [ -n "$warn" ]; then
		result "$name" FAIL "$(($(date +%s) - t0))" "W=1 warning at a line of the series: $(head -n 1 <<<"$warn"); log $log"
	else
		result "$name" pass "$(($(date +%s) - t0))" "${#series_objs[@]} objects, no W=1 warning at the series' lines ($(base_warnings "$log" "") at the base's)"
	fi
}

# (a) The test kernel, which make kernel built: its last build's log. A
# row below whose .config comes out the same is reported as this one.
if row_wanted test; then
	test_hash=$(grep -E '^CONFIG_' "$KBUILD_OUT/.config" | sha256sum | cut -c1-16)
	config_row[$test_hash]="test"
	if check_build test "$KBUILD_OUT/netkit-last-build.log" "$KBUILD_OUT" 0 netkit_xmit tcx_prog_attach; then
		config_result[$test_hash]=pass
	else
		config_result[$test_hash]=FAIL
	fi
fi

# (b) Debian's cloud config: the KCONFIG=debian kernel step (its own
# BUILD; warm after make qemu-test KCONFIG=debian), modpost from its
# build log, then the series' objects with W=1 under its .config.
if row_wanted debian || row_wanted debian-w1; then
	deb_build=$NETKIT_CACHE/build-debian
	t0=$(date +%s)
	rc=0
	BUILD=$deb_build KCONFIG=debian KBUILD_OUT=$deb_build/kernel EXTRA_CONFIGS='' \
		"$TOP/scripts/build-kernel.sh" >"$CHECK_OUT/logs/debian.log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		result debian FAIL "$(($(date +%s) - t0))" "$(grep -a -m1 -E 'ERROR: |error:|undefined!' "$deb_build/logs/kernel.log" ||
			grep -a -m1 -E '^error:' "$CHECK_OUT/logs/debian.log"); log $deb_build/logs/kernel.log"
	else
		if row_wanted debian; then
			check_build debian "$deb_build/kernel/netkit-last-build.log" "$deb_build/kernel" \
				"$(($(date +%s) - t0))" netkit_xmit tcx_prog_attach || true
		fi
		objects_w1 debian-w1 "$deb_build/kernel/.config"
	fi
fi

# (c) NET_SCH_INGRESS n/m/y x NET_CLS_ACT n/y. NET_SCH_INGRESS depends on
# NET_CLS_ACT: with act=n, m and y fall back to n (checked, then reported
# as the row they equal). tcx stays: BPF_SYSCALL selects NET_XGRESS.
config_row ingress=n,act=n "NET_SCH_INGRESS=n NET_CLS_ACT=n" tcx_prog_attach netkit_xmit -- \
	--disable NET_SCH_INGRESS --disable NET_CLS_ACT
config_row ingress=m,act=n "NET_SCH_INGRESS=n NET_CLS_ACT=n" -- --module NET_SCH_INGRESS --disable NET_CLS_ACT
config_row ingress=y,act=n "NET_SCH_INGRESS=n NET_CLS_ACT=n" -- --enable NET_SCH_INGRESS --disable NET_CLS_ACT
config_row ingress=n,act=y "NET_SCH_INGRESS=n NET_CLS_ACT=y" tcx_prog_attach -- --disable NET_SCH_INGRESS --enable NET_CLS_ACT
config_row ingress=m,act=y "NET_SCH_INGRESS=m NET_CLS_ACT=y" tcx_prog_attach '!ingress_init' -- \
	--module NET_SCH_INGRESS --enable NET_CLS_ACT
config_row ingress=y,act=y "NET_SCH_INGRESS=y NET_CLS_ACT=y" tcx_prog_attach ingress_init -- \
	--enable NET_SCH_INGRESS --enable NET_CLS_ACT
# (d) No bpf(): netkit and tcx go with it.
config_row bpf_syscall=n "BPF_SYSCALL=n NETKIT=n" '!netkit_xmit' '!tcx_prog_attach' '!bpf_mprog_attach' -- \
	--disable BPF_SYSCALL
# (e) tcx without netkit.
config_row netkit=n "NETKIT=n BPF_SYSCALL=y" '!netkit_xmit' tcx_prog_attach bpf_mprog_attach -- --disable NETKIT
# (f) Static keys that patch code (the test config has none: JUMP_LABEL=n).
config_row jump_label=y "JUMP_LABEL=y" -- --enable JUMP_LABEL
# (g) Full preemption (the test config is PREEMPT_NONE).
config_row preempt "PREEMPT=y PREEMPT_NONE=n" -- --disable PREEMPT_NONE --enable PREEMPT
# (h) Everything as modules, with W=1: the series' objects.
objects_w1 allmodconfig-w1 allmodconfig

printf '\n%-22s %-6s %6s  %s\n' config result time note
printf '%s\n' "${table[@]}"
[ "$failed" -eq 0 ] || die "$failed of ${#table[@]} configs failed (logs in $CHECK_OUT/logs)"
step_done "${#table[@]} configs pass; series objects: ${series_objs[*]}"
