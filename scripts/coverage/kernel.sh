#!/usr/bin/env bash
# coverage-kernel: the test kernel with gcov (make coverage), in its own
# BUILD: the kernel step (scripts/build-kernel.sh) with
# configs/coverage.config added and GCOV_PROFILE_<name>.o=y on kbuild's
# command line for every object of configs/coverage.objects. The tree's
# Makefiles stay as the series leaves them: the applied tree must stay
# clean (make apply refuses a dirty one), and a per-object variable on the
# command line needs no copy of the tree. Since kbuild matches such a
# variable by file name alone, the build is then checked to have profiled
# exactly the listed objects.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

OBJECTS=$TOP/configs/coverage.objects
KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}

mapfile -t objs < <(awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$OBJECTS")
[ "${#objs[@]}" -gt 0 ] || die "$OBJECTS lists no object"
vars=()
for o in "${objs[@]}"; do
	[ -f "$TREE/${o%.o}.c" ] || die "$OBJECTS: $o has no source ${o%.o}.c in $TREE"
	vars+=("GCOV_PROFILE_$(basename "$o")=y")
done
# No start from a copy of the test kernel's objects here (make mutate's
# schemata kernel does that): CONFIG_GCOV_KERNEL adds --no-unreachable to
# objtool's arguments, which are part of every object's command line, so
# kbuild rebuilds nearly all of them anyway (measured 2026-12-05).
KBUILD_VARS="${vars[*]}" EXTRA_CONFIGS="$TOP/configs/coverage.config ${EXTRA_CONFIGS:-}" \
	KBUILD_OUT="$KBUILD_OUT" "$TOP/scripts/build-kernel.sh"
[ -z "${CONFIG_ONLY:-}" ] || exit 0

step coverage-kernel
grep -qx 'CONFIG_GCOV_KERNEL=y' "$KBUILD_OUT/.config" ||
	die "CONFIG_GCOV_KERNEL is not set in $KBUILD_OUT/.config (configs/coverage.config)"
# The census: a .gcno for every listed object, none for any other.
mapfile -t got < <(cd "$KBUILD_OUT" && find . -name '*.gcno' -printf '%P\n' | sed 's/\.gcno$/.o/' | sort)
want=$(printf '%s\n' "${objs[@]}" | sort)
missing=$(comm -13 <(printf '%s\n' "${got[@]}") <(printf '%s\n' "$want"))
extra=$(comm -23 <(printf '%s\n' "${got[@]}") <(printf '%s\n' "$want"))
[ -z "$missing" ] || die "not profiled (no .gcno in $KBUILD_OUT): $(tr "\n" " " <<<"$missing"); not built in this config?"
# kbuild's per-object variable also profiles another object of the same
# file name (drivers/net/netdevsim/dev.o for net/core/dev.o, lib/syscall.o
# for kernel/bpf/syscall.o): harmless - the report reads only the listed
# objects' counters - and said.
[ -z "$extra" ] ||
	msg "also profiled, same file name as a listed object, not reported: $(tr "\n" " " <<<"$extra")"
step_done "${#objs[@]} objects profiled: ${objs[*]}"
