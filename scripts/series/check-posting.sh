#!/usr/bin/env bash
# check-posting: the series reaches a reviewer intact both ways it is
# consumed besides our own apply step:
#  - the cover letter's shortlog, diffstat and count are current;
#  - 'git am --empty=drop' of the mbox (make mbox) on the pristine base, in
#    one call, gives exactly the tree of the applied series, and every
#    commit it makes ends with the sender's Signed-off-by. make check may
#    run where git config has no identity (CI), so this mbox is a test
#    mbox, made with the test sender below (MBOX_TEST_SENDER), in a file of
#    its own; make mbox refusing to run without an identity is checked too;
#  - 'quilt push -a' with QUILT_PATCHES=patches/ on the pristine base gives
#    exactly that tree too.
# Both run in a scratch worktree of $TREE ($CHECK_TREE) at the base tag.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=series-lib.sh
. "$(dirname "$0")/series-lib.sh"

CHECK_TREE=${CHECK_TREE:-$NETKIT_CACHE/check-worktree}
MBOX=${CHECK_MBOX:-$BUILD/check-posting-test.mbox}
# A test identity, never a person's: its address is under .invalid.
TEST_SENDER='make check test sender <check-posting@test-sender.invalid>'

"$(dirname "$0")/cover-letter.sh" --check
MBOX=$MBOX MBOX_TEST_SENDER=$TEST_SENDER "$(dirname "$0")/make-mbox.sh"

step check-posting
command -v quilt >/dev/null || die "quilt not installed; run: make deps"
need_applied
# make mbox without a sender identity (git config user.name/user.email
# empty, as on a fresh CI machine) must refuse, and write nothing.
noid=$BUILD/check-posting-noid.mbox
rm -f "$noid"
if env -u MBOX_TEST_SENDER MBOX="$noid" GIT_CONFIG_COUNT=2 \
	GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0= GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1= \
	"$(dirname "$0")/make-mbox.sh" >"$LOG.noid" 2>&1; then
	die "make mbox ran without a sender identity (git config user.name/email empty); output in $LOG.noid"
fi
grep -q "user.name or user.email is not set" "$LOG.noid" ||
	die "make mbox without a sender identity failed, but not with the message that asks for one; output in $LOG.noid"
[ ! -e "$noid" ] || die "make mbox without a sender identity left $noid behind"
cat "$LOG.noid" >>"$LOG"
rm -f "$LOG.noid"
msg "make mbox refuses to run without a sender identity"

base=$(base_tag)
want=$(tree_git rev-parse "$APPLIED_REF^{tree}")
n=$(series_patches | wc -l)

if [ ! -e "$CHECK_TREE/.git" ]; then
	run_logged "$LOG" git -C "$TREE" worktree prune
	run_logged "$LOG" git -C "$TREE" worktree add -f --detach "$CHECK_TREE" "$base"
fi
ct() { git -C "$CHECK_TREE" "$@"; }
pristine() {
	if [ -d "$(ct rev-parse --git-path rebase-apply)" ]; then
		ct am --abort >>"$LOG" 2>&1 || true
	fi
	run_logged "$LOG" ct reset -q --hard "$base"
	run_logged "$LOG" ct clean -q -f -d -x
}
# same_as_applied WHAT: the worktree's files (quilt's .pc removed first)
# must be the applied series' tree.
same_as_applied() {
	local got
	rm -rf "$CHECK_TREE/.pc"
	run_logged "$LOG" ct add -A -f .
	got=$(ct write-tree)
	if [ "$got" != "$want" ]; then
		ct diff --cached --stat "$APPLIED_REF" | tail -n 20 >&2
		die "$1 gives a tree that differs from the applied series (above); log: $LOG"
	fi
	msg "$1: the same tree as the applied series"
}

pristine
if ! ct am -q --empty=drop --committer-date-is-author-date "$MBOX" >>"$LOG" 2>&1; then
	tail -n 20 "$LOG" >&2
	die "git am $MBOX does not apply to $base in one call; log: $LOG"
fi
applied=$(ct rev-list --count "$base..HEAD")
[ "$applied" -eq "$n" ] || die "git am of $MBOX made $applied commits, the series has $n"
signed=$(ct log --format='%(trailers:key=Signed-off-by,valueonly,separator=%x2C)' "$base..HEAD" |
	awk -F, -v s="$TEST_SENDER" '$NF == s' | wc -l)
[ "$signed" -eq "$n" ] ||
	die "$signed of the $n commits that git am made from $MBOX end with the sender's Signed-off-by ($TEST_SENDER)"
bad_author=$(ct log --format='%an <%ae>' "$base..HEAD" | grep -Fxc "$SENDER_PLACEHOLDER" || true)
[ "$bad_author" -eq 0 ] ||
	die "$bad_author commits that git am made from $MBOX have the placeholder author '$SENDER_PLACEHOLDER'"
same_as_applied "git am --empty=drop $(basename "$MBOX")"
msg "every commit ends with the sender's Signed-off-by; no placeholder author"

pristine
if ! (cd "$CHECK_TREE" && QUILT_PATCHES=$TOP/patches QUILT_SERIES=series \
	quilt push -a -q --fuzz=0) >>"$LOG" 2>&1; then
	tail -n 20 "$LOG" >&2
	die "quilt push -a does not apply the series to $base; log: $LOG"
fi
pushed=$(cd "$CHECK_TREE" && QUILT_PATCHES=$TOP/patches quilt applied 2>/dev/null | wc -l)
[ "$pushed" -eq "$n" ] || die "quilt applied $pushed patches, the series has $n"
same_as_applied "quilt push -a"
pristine
step_done "cover letter current; mbox and quilt each apply $n patches"
