#!/usr/bin/env bash
# reset-tree: throw away hand edits and hand commits in $TREE and put it back
# at the series the harness last applied (or at the base tag).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

step reset-tree
[ -d "$TREE/.git" ] || die "no tree at $TREE"
target=$(tree_git rev-parse -q --verify refs/netkit/applied ||
	tree_git describe --tags --abbrev=0 --match 'base-*' base)
tree_git status --porcelain --untracked-files=no | head -n 20
run_logged "$LOG" tree_git reset -q --hard
run_logged "$LOG" tree_git checkout -q --detach "$target"
stamp_clear apply
step_done "$TREE at $(tree_git log -1 --format='%h %s' HEAD)"
