#!/usr/bin/env bash
# abi-report: what the series does to the module ABI of a distribution
# kernel. Configures the unpatched base (BASE_TREE) and the applied series
# (TREE) alike with Debian's own config for the tree's version (package
# linux-config-<major>.<minor>, flavour ABI_FLAVOUR, CONFIG_MODVERSIONS=y),
# builds the objects of ABI_TARGETS in both with kbuild's own genksyms step
# (KBUILD_SYMTYPES=1 keeps the .symtypes) and compares the symbol CRCs that
# modpost would write into Module.symvers, export by export
# (scripts/slow/abi-report.py). Slow (two partial distribution builds, 47 min
# on 2 cores for the default targets); not part of make test. Output in
# $BUILD/abi: report.txt, crcs.tsv, and the two build directories (kept,
# so that a second run only rebuilds what changed).
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

: "${BASE_TREE:?BASE_TREE not set (the Makefile sets it)}"
# amd64: the config of linux-image-amd64, Debian's default kernel.
ABI_FLAVOUR=${ABI_FLAVOUR:-amd64}
# Every object under net/ and kernel/bpf/, the objects of drivers/net/
# itself that export symbols and that Debian builds (veth.o exports
# none), and mm/ as a control away from the network code.
ABI_TARGETS=${ABI_TARGETS:-net/ kernel/bpf/ \
drivers/net/tun.o drivers/net/tap.o drivers/net/macvlan.o drivers/net/macsec.o \
drivers/net/geneve.o drivers/net/loopback.o drivers/net/net_failover.o \
drivers/net/mii.o drivers/net/mdio.o mm/}
OUT=$BUILD/abi
read -r -a targets <<<"$ABI_TARGETS"

step abi-report
[ -e "$TREE/.git" ] || die "no tree at $TREE; run: make apply"
[ -e "$BASE_TREE/.git" ] || die "no base tree at $BASE_TREE; run: make abi-report (it creates it)"
for c in python3 dpkg-query xz; do
	command -v "$c" >/dev/null || die "$c not found; run: make deps"
done
base_tag=$(tree_git describe --tags --abbrev=0 --match 'base-*' base)
[ "$(git -C "$BASE_TREE" rev-parse HEAD)" = "$(tree_git rev-parse "$base_tag^{commit}")" ] ||
	die "$BASE_TREE is not at $base_tag; run: make abi-report (scripts/prepare-base-tree.sh says how to fix it)"
[ "$(tree_git rev-list --count "$base_tag..HEAD")" -gt 0 ] ||
	die "$TREE has no patches on $base_tag; run: make apply"
tree_git diff --quiet HEAD || die "$TREE has edits (git -C $TREE diff --stat); run: make reset-tree"
mkdir -p "$OUT"

# Debian's config for this version: the package linux-config-6.1 (make
# deps installs it) holds the config of every flavour.
config=$(debian_config "$ABI_FLAVOUR")
version=$(sed -nE 's/^(VERSION|PATCHLEVEL|SUBLEVEL) = ([0-9]+)$/\2/p' "$TREE/Makefile" | paste -sd.)
pkg=linux-config-${version%.*}
pkgver=$(dpkg-query -W -f='${Version}' "$pkg")
[[ "$pkgver" == "$version"-* ]] ||
	warn "the config is $pkg $pkgver's, the tree is $version: olddefconfig fills in the difference"
msg "config: $pkg $pkgver, config.amd64_none_$ABI_FLAVOUR"

# configure SIDE SRC [scripts/config ARGS]: Debian's config, without its
# signing keys (not needed for objects), through olddefconfig.
configure() {
	local side=$1 src=$2 out=$OUT/$1
	shift 2
	mkdir -p "$out"
	xz -dc "$config" >"$out/debian.config.new"
	"$src/scripts/config" --file "$out/debian.config.new" \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" "$@"
	if cmp -s "$out/debian.config.new" "$out/debian.config" && [ -f "$out/.config" ]; then
		rm "$out/debian.config.new"
		return
	fi
	mv "$out/debian.config.new" "$out/debian.config"
	cp "$out/debian.config" "$out/.config"
	run_logged "$LOG" submake -C "$src" O="$out" ARCH=x86_64 olddefconfig
}
configure base "$BASE_TREE"
# The series' driver, as a distribution enabling it would (it exports
# nothing, so it does not move a CRC); its other symbol, NET_XGRESS, is
# selected by BPF_SYSCALL.
configure patched "$TREE" --enable NETKIT

# Both .configs must differ only in symbols that the series adds.
added=() other=()
while read -r sym; do
	if git -C "$BASE_TREE" grep -qE "^[[:space:]]*(menu)?config ${sym#CONFIG_}\$" -- '*Kconfig*'; then
		other+=("$sym")
	else
		added+=("$(grep -E "^$sym=" "$OUT/patched/.config" || echo "$sym unset")")
	fi
done < <(diff <(grep -E '^CONFIG_' "$OUT/base/.config" | sort) \
	<(grep -E '^CONFIG_' "$OUT/patched/.config" | sort) |
	sed -nE 's/^[<>] (CONFIG_[A-Za-z0-9_]+)=.*/\1/p' | sort -u)
[ "${#other[@]}" -eq 0 ] ||
	die "the base and the series' .config differ in ${other[*]} (not the series' own symbols): compare $OUT/base/.config and $OUT/patched/.config"
grep -qx 'CONFIG_MODVERSIONS=y' "$OUT/patched/.config" ||
	die "CONFIG_MODVERSIONS is not set in $OUT/patched/.config: no CRCs to compare"
msg "the .configs differ only in the series' own symbols: ${added[*]:-none}"

for side in base patched; do
	src=$BASE_TREE
	[ "$side" = base ] || src=$TREE
	run_progress "$LOGDIR/abi-$side.log" "$side build" \
		submake -C "$src" O="$OUT/$side" ARCH=x86_64 -j"$JOBS" KBUILD_SYMTYPES=1 "${targets[@]}"
done

rc=0
python3 "$TOP/scripts/slow/abi-report.py" "$OUT/base" "$OUT/patched" "$OUT/crcs.tsv" "${targets[@]}" \
	>"$OUT/report.body" 2>>"$LOG" || rc=$?
[ "$rc" -le 1 ] || fail_with_log "$LOG" "scripts/slow/abi-report.py" "$rc"
{
	printf 'ABI report, %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
	printf 'base:   %s (%s)\n' "$base_tag" "$(git -C "$BASE_TREE" rev-parse --short=12 HEAD)"
	printf 'series: %s, %s patches on %s\n' "$(tree_git rev-parse --short=12 HEAD)" \
		"$(tree_git rev-list --count "$base_tag..HEAD")" "$base_tag"
	printf 'config: Debian %s %s, config.amd64_none_%s (CONFIG_MODVERSIONS=y), signing keys cleared;\n' \
		"$pkg" "$pkgver" "$ABI_FLAVOUR"
	printf '        the series adds %s\n' "${added[*]:-nothing}"
	printf 'built:  %s\n' "$ABI_TARGETS"
	printf 'CRCs:   the #SYMVER lines genksyms writes into each object'"'"'s .cmd file (modpost'"'"'s input)\n\n'
	cat "$OUT/report.body"
} >"$OUT/report.txt"
rm -f "$OUT/report.body"
cat "$OUT/report.txt"
[ "$rc" -eq 0 ] || die "some CRC changes have no cause in the .symtypes (listed above); see $OUT/report.txt"
summary=$(grep -E '^[0-9]+ objects export symbols' "$OUT/report.txt")
step_done "$summary; report $OUT/report.txt"
