#!/usr/bin/env bash
# check-uapi: the netkit, tcx and bpf_mprog uapi of the patched tree must be
# mainline's. selftests/host/uapi_layout.c prints the values and offsets user
# space depends on; it is built against mainline's exported uapi headers
# (from Debian's linux-source-6.12), against the patched tree's and against
# the tree's tools/include/uapi copy, and the three outputs must agree.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

MAINLINE_TARBALL=${MAINLINE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
REF=$BUILD/uapi/mainline
OUT=$BUILD/uapi
SRC=$TOP/selftests/host/uapi_layout.c
NEWER=$TOP/selftests/host/uapi_layout.newer
OPTIONAL=(IFLA_NETKIT_SCRUB IFLA_NETKIT_HEADROOM)

step check-uapi
[ -r "$MAINLINE_TARBALL" ] ||
	die "$MAINLINE_TARBALL not found; install linux-source-6.12 (make deps)"
[ -d "$TREE/.git" ] || die "no tree at $TREE; run: make apply"
mkdir -p "$OUT"

# The exported uapi headers ('make headers', as user space sees them) of
# mainline, built once per tarball, and of the patched tree.
id=$(stat -c '%n %s %Y' "$MAINLINE_TARBALL")
if [ "$(stamp_read uapi-mainline)" != "$id" ] || [ ! -d "$REF/usr/include" ]; then
	rm -rf "$REF" "$OUT/linux-mainline"
	mkdir -p "$REF" "$OUT/linux-mainline"
	msg "exporting the uapi headers of $(basename "$MAINLINE_TARBALL")"
	run_logged "$LOG" tar -C "$OUT/linux-mainline" --strip-components=1 -xf "$MAINLINE_TARBALL"
	run_logged "$LOG" submake -C "$OUT/linux-mainline" O="$REF" ARCH=x86_64 headers
	rm -rf "$OUT/linux-mainline"
	stamp_write uapi-mainline "$id"
fi
run_logged "$LOG" submake -C "$TREE" O="$OUT/tree" ARCH=x86_64 headers

# build NAME UAPI_DIR...: compile and run uapi_layout against the given
# include directories, enabling the optional constants they define.
build() {
	local name=$1 defs=() sym
	shift
	for sym in "${OPTIONAL[@]}"; do
		grep -qw "$sym" "$1/linux/if_link.h" && defs+=("-DHAVE_$sym")
	done
	local inc=()
	for d in "$@"; do inc+=(-I "$d"); done
	run_logged "$LOG" gcc -Wall -Werror -o "$OUT/layout-$name" "${defs[@]}" "${inc[@]}" "$SRC"
	"$OUT/layout-$name" | LC_ALL=C sort >"$OUT/$name.txt"
}

build mainline "$REF/usr/include"
build tree "$OUT/tree/usr/include"
# As libbpf and the selftests include them: tools/include, then its uapi.
build tools "$TREE/tools/include/uapi" "$TREE/tools/include" "$OUT/tree/usr/include"

# What mainline defines after the reference tree, where the series has it.
cp "$OUT/mainline.txt" "$OUT/expected.txt"
while IFS= read -r line; do
	sym=${line%% =*}
	if grep -q "^$sym = " "$OUT/tree.txt" && ! grep -q "^$sym = " "$OUT/mainline.txt"; then
		printf '%s\n' "$line" >>"$OUT/expected.txt"
	fi
done < <(grep -v '^#' "$NEWER")
LC_ALL=C sort -o "$OUT/expected.txt" "$OUT/expected.txt"

fail=0
for side in tree tools; do
	if ! diff -u "$OUT/expected.txt" "$OUT/$side.txt" >"$OUT/$side.diff"; then
		printf 'uapi of the patched tree (%s) differs from mainline:\n' "$side" >&2
		cat "$OUT/$side.diff" >&2
		fail=1
	fi
done
[ "$fail" -eq 0 ] || die "uapi check failed; outputs in $OUT"
step_done "$(wc -l <"$OUT/tree.txt") values and offsets match mainline"
