#!/usr/bin/env bash
# base-tree: the unpatched base for make regress, a git worktree of TREE
# checked out at the base-* tag, in BASE_TREE. Created once; afterwards
# only checked (it must still be the base, without edits).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

: "${BASE_TREE:?BASE_TREE not set (the Makefile sets it)}"

step base-tree
[ -d "$TREE/.git" ] || die "no tree at $TREE; run: make tree"
base=$(tree_git describe --tags --abbrev=0 --match 'base-*' base)
if [ ! -e "$BASE_TREE/.git" ]; then
	[ ! -e "$BASE_TREE" ] || die "$BASE_TREE exists but is not a worktree of $TREE; remove it"
	mkdir -p "$(dirname "$BASE_TREE")"
	run_logged "$LOG" git -C "$TREE" worktree add --detach "$BASE_TREE" "$base"
fi
head=$(git -C "$BASE_TREE" rev-parse HEAD)
[ "$head" = "$(tree_git rev-parse "$base^{commit}")" ] ||
	die "$BASE_TREE is at $head, not at $base; run: git -C $BASE_TREE checkout --detach $base"
git -C "$BASE_TREE" diff --quiet HEAD ||
	die "$BASE_TREE has edits (git -C $BASE_TREE diff --stat); reset it: git -C $BASE_TREE reset --hard $base"
step_done "$base at $BASE_TREE"
