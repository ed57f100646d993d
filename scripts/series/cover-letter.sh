#!/usr/bin/env bash
# cover-letter: patches/0000-cover-letter.patch is the series' 0/N mail.
# Its headers and prose are written by hand; the subject's patch count, the
# shortlog and the diffstat below the prose are generated here from the
# applied series. 'cover-letter.sh' rewrites them; 'cover-letter.sh
# --check' fails when they are stale (make check runs that).
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=series-lib.sh
. "$(dirname "$0")/series-lib.sh"

mode=${1:-write}
step cover-letter
[ -f "$COVER" ] || die "$COVER not found"
need_applied
base=$(base_tag)
n=$(series_patches | wc -l)

# The prose ends before the shortlog's first "Author Name (count):" line,
# or, in a new cover letter, at a line '*** SHORTLOG ***'.
prose_end=$(grep -nE '^(\*\*\* SHORTLOG \*\*\*|[^ ].* \([0-9]+\):)$' "$COVER" | head -n 1 | cut -d: -f1)
[ -n "$prose_end" ] || die "$COVER: no shortlog ('Name (N):' line) or '*** SHORTLOG ***' marker after the prose"
new=$(mktemp)
trap 'rm -f "$new"' EXIT
{
	head -n $((prose_end - 1)) "$COVER" |
		sed -E "s/^(Subject: \[$SUBJECT_PREFIX) [0-9]+\/[0-9]+\]/\1 0\/$n]/"
	tree_git shortlog -w72,2,4 --no-merges "$base..$APPLIED_REF"
	tree_git diff --stat=78 --summary "$base" "$APPLIED_REF"
	printf '\nBase: Debian'"'"'s linux-source-6.1 tarball, tagged %s by make tree.\n' "$base"
} >"$new"

grep -qF "Subject: [$SUBJECT_PREFIX 0/$n] " "$new" ||
	die "$COVER: the Subject: must start with '[$SUBJECT_PREFIX 0/<N>]'"
if [ "$mode" = --check ]; then
	if ! diff -u "$COVER" "$new" >"$LOGDIR/cover-letter.diff"; then
		head -n 40 "$LOGDIR/cover-letter.diff" >&2
		die "$COVER is stale (the shortlog, diffstat or patch count differ from the applied series; diff in $LOGDIR/cover-letter.diff); run: make cover-letter"
	fi
	step_done "up to date: $n patches on $base"
else
	cp "$new" "$COVER"
	step_done "wrote $COVER: $n patches on $base"
fi
