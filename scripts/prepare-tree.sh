#!/usr/bin/env bash
# tree: unpack Debian's linux-source-6.1 tarball into $TREE as a git
# repository whose first commit is tagged base-<kernelversion>.
#
# The tree lives outside the checkout. It is created once; later runs only
# check that it still matches the tarball it was made from. TREE_SERIES
# (default 6.1) is the kernel series the tarball must hold: make
# bench-kernels unpacks linux-source-6.12 the same way, as mainline.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

series=${TREE_SERIES:-6.1}

step tree
[ -r "$LINUX_TARBALL" ] ||
	die "$LINUX_TARBALL not found; install it with: apt-get install linux-source-$series (or run: make deps)"

tarball_id=$(stat -c '%n %s %Y' "$LINUX_TARBALL")

if [ -d "$TREE/.git" ]; then
	made_from=$(cat "$TREE/.git/netkit-tarball" 2>/dev/null || true)
	base=$(tree_git describe --tags --abbrev=0 --match 'base-*' base 2>/dev/null || true)
	[ -n "$base" ] ||
		die "$TREE has no base-* tag: not a tree made by this harness; remove it (make distclean) or set TREE="
	if [ "$made_from" != "$tarball_id" ]; then
		die "$TREE was made from '$made_from' but $LINUX_TARBALL is now '$tarball_id' (a new $series sublevel?); run 'make distclean' to unpack the new one"
	fi
	step_done "$base at $TREE"
	exit 0
fi

[ ! -e "$TREE" ] || die "$TREE exists but is not a git tree; remove it or set TREE="

mkdir -p "$(dirname "$TREE")"
tmp="$TREE.unpack.$$"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"
msg "unpacking $LINUX_TARBALL"
tar -C "$tmp" --strip-components=1 -xf "$LINUX_TARBALL"
ver=$(submake -s -C "$tmp" kernelversion)
[[ "$ver" == "$series".* ]] || die "$LINUX_TARBALL holds Linux $ver, expected $series.y"

msg "importing Linux $ver into git"
date="$(date -u -d "@$(stat -c %Y "$tmp/Makefile")" '+%Y-%m-%d %H:%M:%S +0000')"
export GIT_AUTHOR_NAME="Debian linux-source-$series" GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org"
export GIT_AUTHOR_DATE="$date" GIT_COMMITTER_DATE="$date"
run_logged "$LOG" git -C "$tmp" init -q -b base
run_logged "$LOG" git -C "$tmp" config core.autocrlf false
# Debian's top-level .gitignore ignores everything ("/*"): force-add.
run_logged "$LOG" git -C "$tmp" add -f -A .
run_logged "$LOG" git -C "$tmp" commit -q -m "Linux $ver from $(basename "$LINUX_TARBALL")" -m "$tarball_id"
run_logged "$LOG" git -C "$tmp" tag "base-$ver"
printf '%s\n' "$tarball_id" >"$tmp/.git/netkit-tarball"
mv "$tmp" "$TREE"
trap - EXIT
step_done "base-$ver at $TREE"
