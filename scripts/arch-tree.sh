#!/usr/bin/env bash
# worktree: another ARCH's tree, a git worktree of the series' tree
# (SERIES_TREE, where make apply applies the series) checked out at the
# applied series, refs/netkit/applied. The selftests build in the tree
# (scripts/build-selftests.sh says why): a cross build of them in the
# series' own tree would overwrite x86_64's objects, so every other
# ARCH builds in a tree of its own ($TREE, default
# NETKIT_CACHE/<arch>/linux). git rewrites only the files that differ,
# so a changed patch rebuilds only what it touches.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

APPLIED_REF=refs/netkit/applied
SERIES_TREE=${SERIES_TREE:?the series\' tree (the Makefile sets it)}

step worktree
[ "$TREE" != "$SERIES_TREE" ] || die "ARCH=$ARCH builds in a tree of its own, but TREE is the series' tree $SERIES_TREE"
applied=$(git -C "$SERIES_TREE" rev-parse -q --verify "$APPLIED_REF^{commit}" || true)
[ -n "$applied" ] || die "$SERIES_TREE has no $APPLIED_REF; run: make apply"
if [ ! -e "$TREE/.git" ]; then
	[ ! -e "$TREE" ] || die "$TREE exists but is not a worktree of $SERIES_TREE; remove it"
	mkdir -p "$(dirname "$TREE")"
	run_logged "$LOG" git -C "$SERIES_TREE" worktree prune
	run_logged "$LOG" git -C "$SERIES_TREE" worktree add -f --detach "$TREE" "$applied"
	step_done "$TREE made at $(tree_git log -1 --format='%h %s')"
	exit 0
fi
[ "$(tree_git rev-parse --path-format=absolute --git-common-dir)" -ef "$(git -C "$SERIES_TREE" rev-parse --path-format=absolute --git-common-dir)" ] ||
	die "$TREE is not a worktree of $SERIES_TREE; remove it"
dirty=$(tree_git status --porcelain --untracked-files=no)
if [ -n "$dirty" ]; then
	printf '%s\n' "$dirty" | head -n 20 >&2
	die "$TREE has uncommitted changes to tracked files (above); discard them with 'git -C $TREE reset --hard'"
fi
if [ "$(tree_git rev-parse HEAD)" = "$applied" ]; then
	step_done "unchanged: $(tree_git log -1 --format='%h %s')"
	exit 0
fi
changed=$(tree_git diff --name-only HEAD "$applied" | wc -l)
run_logged "$LOG" tree_git checkout -q --detach "$applied"
step_done "$changed files changed in $TREE, now at $(tree_git log -1 --format='%h %s')"
