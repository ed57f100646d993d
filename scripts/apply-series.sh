#!/usr/bin/env bash
# apply: reset to the base tag and apply patches/series with git am.
#
# The series is applied in a scratch worktree ($AM_TREE) that shares the
# repository with $TREE; $TREE is then checked out at the result. git only
# rewrites files whose content differs, so only the files a changed patch
# touches get new mtimes and the kernel build stays incremental.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

SERIES=${SERIES:-$TOP/patches/series}
AM_TREE=${AM_TREE:-$NETKIT_CACHE/am-worktree}
APPLIED_REF=refs/netkit/applied
# What the tree holds is shared by every BUILD (DEBUG=1 has its own), so
# this step keeps its stamps with the tree.
STAMPS=$TREE/.git/netkit-6.1-stamps

step apply
[ -d "$TREE/.git" ] || die "no tree at $TREE; run: make tree"
[ -f "$SERIES" ] || die "$SERIES not found"
base=$(tree_git describe --tags --abbrev=0 --match 'base-*' base)

# The patches listed in the series, in order ('#' starts a comment).
mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES")
# CUT=netkit: up to the last patch before patches/tcx/, the netkit-only
# cut; CUT=<patch> (tcx/0006): up to and including that patch.
case ${CUT:-} in
'') ;;
netkit) mapfile -t patches < <(printf '%s\n' "${patches[@]}" | sed '/^tcx\//,$d') ;;
prereq/* | netkit/* | followup/* | tcx/*)
	n=0
	for p in "${patches[@]}"; do
		n=$((n + 1))
		[[ $p != "$CUT"-* ]] || break
	done
	[[ ${patches[$((n - 1))]} == "$CUT"-* ]] || die "CUT=$CUT: no such patch in $SERIES"
	patches=("${patches[@]:0:n}")
	;;
*) die "CUT must be netkit, a patch (CUT=tcx/0006) or empty, not '$CUT'" ;;
esac
paths=()
for p in "${patches[@]}"; do
	f="$(dirname "$SERIES")/$p"
	[ -f "$f" ] || die "$SERIES lists '$p', but $f does not exist"
	paths+=("$f")
done

# $TREE must be exactly what the harness left there: a hand edit or a hand
# commit is reported, never silently overwritten.
dirty=$(tree_git status --porcelain --untracked-files=no)
if [ -n "$dirty" ]; then
	printf '%s\n' "$dirty" | head -n 20 >&2
	die "$TREE has uncommitted changes to tracked files (above); inspect with 'git -C $TREE diff', discard with 'git -C $TREE reset --hard' (or 'make reset-tree')"
fi
head=$(tree_git rev-parse HEAD)
applied=$(tree_git rev-parse -q --verify "$APPLIED_REF" || true)
if [ "$head" != "$(tree_git rev-parse "$base^{commit}")" ] && [ "$head" != "$applied" ]; then
	die "$TREE is at $(tree_git log -1 --format='%h %s' HEAD), which the harness did not apply; keep your work on a branch and run 'make reset-tree' to go back to the series"
fi

inputs=$(hash_of "$base" "${paths[@]}")
if [ "$(stamp_read apply)" = "$inputs" ] && [ "$head" = "$applied" ]; then
	step_done "unchanged: ${#patches[@]} patches on $base"
	exit 0
fi

if [ ! -e "$AM_TREE/.git" ]; then
	run_logged "$LOG" git -C "$TREE" worktree prune
	run_logged "$LOG" git -C "$TREE" worktree add -f --detach "$AM_TREE" "$base"
fi
am() { git -C "$AM_TREE" "$@"; }

# already_in_base FILE NAME: when the patch that git am could not apply
# applies in reverse, the tree already has its change: name that case and
# stop, instead of showing a conflict. A PREEMPT_RT tree is the known one:
# the 6.1-rt patch set carries prereq/0001 (ab5d47bd41b1) since
# 6.1.46-rt14. Returns when the patch is not in the tree.
already_in_base() {
	local sha rt
	am apply --check -R "$1" >/dev/null 2>&1 || return 0
	sha=$(sed -n 's/^commit \([0-9a-f]\{12\}\)[0-9a-f]* upstream\.$/\1/p' "$1" | head -n 1)
	rt=$(cat "$AM_TREE/localversion-rt" 2>/dev/null || true)
	cat >&2 <<-HINT
	$2 is already in the tree${sha:+ (mainline $sha)}: its change applies in reverse.
	${rt:+The tree carries the PREEMPT_RT patch set (localversion-rt: $rt), which has
	ab5d47bd41b1 ("bpf: Remove in_atomic() from bpf_link_put().") since 6.1.46-rt14.
	}Leave the patch out: comment out its line in patches/series (or pass
	SERIES=<a copy without it>) and run make apply again.
	HINT
	am am --abort >/dev/null 2>&1 || true
	die "apply stopped at $2: the tree already has it"
}
if [ -d "$(am rev-parse --git-path rebase-apply)" ]; then
	am am --abort >>"$LOG" 2>&1 || true
fi

# keys[i] names the series up to and including patch i (the base and the
# contents of patches 0..i). The last run recorded, for each position, its
# key and the commit it produced: the longest prefix whose key is
# unchanged is not applied again. Those commits are ancestors of
# $APPLIED_REF, so they cannot be garbage-collected.
keys=()
key=$(tree_git rev-parse "$base^{commit}")
for i in "${!paths[@]}"; do
	key=$(printf '%s %s\n' "$key" "$(sha256sum <"${paths[$i]}")" | sha256sum | cut -c1-40)
	keys[i]=$key
done
start=$base skip=0
if [ "$(tree_git rev-parse -q --verify "$APPLIED_REF" || true)" != "" ]; then
	mapfile -t recorded < <(stamp_read apply-prefix)
	for i in "${!keys[@]}"; do
		r=${recorded[$i]:-}
		[ "${r%% *}" = "${keys[$i]}" ] || break
		c=${r#* }
		tree_git merge-base --is-ancestor "$c" "$APPLIED_REF" 2>/dev/null || break
		start=$c skip=$((i + 1))
	done
fi
[ "$skip" -eq 0 ] || msg "patches 1-$skip unchanged since the last apply: starting after ${patches[$((skip - 1))]}"
run_logged "$LOG" am reset -q --hard "$start"
run_logged "$LOG" am clean -q -f -d -x

prefix=()
for ((i = 0; i < skip; i++)); do
	prefix+=("${recorded[$i]}")
done
# One git am for the rest: much faster than one call per patch. On a
# failure, the number of commits it made names the patch that failed.
rest=("${paths[@]:skip}")
n=${#patches[@]}
if [ "${#rest[@]}" -gt 0 ] &&
	! am am -q --committer-date-is-author-date "${rest[@]}" >"$LOG.am" 2>&1; then
	cat "$LOG.am" >>"$LOG"
	i=$((skip + $(am rev-list --count "$start..HEAD")))
	already_in_base "${paths[$i]}" "${patches[$i]}"
	printf '\n---- git am output ----\n' >&2
	cat "$LOG.am" >&2
	printf -- '----\n' >&2
	cat >&2 <<-HINT
	patch $((i + 1)) of $n does not apply: ${patches[$i]}
	  inspect:  cd $AM_TREE && git am --show-current-patch=diff && git status
	  fix:      edit patches/${patches[$i]} (or resolve in $AM_TREE and
	            'git format-patch -1' the result back into patches/)
	  reset:    git -C $AM_TREE am --abort   (the next 'make apply' also does this)
	HINT
	die "apply failed at ${patches[$i]}"
fi
cat "$LOG.am" >>"$LOG" 2>/dev/null || true
mapfile -t made < <(am rev-list --reverse "$start..HEAD")
[ "${#made[@]}" -eq "${#rest[@]}" ] ||
	die "git am made ${#made[@]} commits for ${#rest[@]} patches; see $LOG"
for i in "${!made[@]}"; do
	prefix+=("${keys[$((skip + i))]} ${made[$i]}")
done
rm -f "$LOG.am"

new=$(am rev-parse HEAD)
run_logged "$LOG" git -C "$TREE" update-ref "$APPLIED_REF" "$new"
changed=$(tree_git diff --name-only HEAD "$new" | wc -l)
run_logged "$LOG" git -C "$TREE" checkout -q --detach "$new"
stamp_write apply "$inputs"
stamp_write apply-prefix "$(printf '%s\n' "${prefix[@]}")"
step_done "$((n - skip)) of $n patches applied on $base, $changed files changed in $TREE"
