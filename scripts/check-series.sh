#!/usr/bin/env bash
# check-series: host-side checks of patches/series, run after the apply step
# has shown that the series applies to the pristine base with git am.
#
#  - every patch is a git format-patch mail: From <sha> line, From:, Date:,
#    Subject: [PATCH...], a 'commit <sha> upstream.' reference (or, for a
#    patch that only 6.1 needs, '(6.1 only)' at the end of the subject and
#    a '[ 6.1 only: ... ]' note), a Signed-off-by, a '---' separator and a
#    diff;
#  - scripts/checkpatch.pl --strict reports nothing, except message types a
#    patch explains below its '---' line as
#        checkpatch: TYPE[,TYPE...]: why
#    (those types, and only for that patch, are passed to --ignore).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

SERIES=${SERIES:-$TOP/patches/series}

step check-series
[ -x "$TREE/scripts/checkpatch.pl" ] || die "no tree at $TREE; run: make tree"
mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES")

failed=0 bad=0
report() {
	printf '  %s: %s\n' "$1" "$2" >&2
	bad=1
}

for p in "${patches[@]}"; do
	f="$(dirname "$SERIES")/$p"
	bad=0
	head -n 1 "$f" | grep -qE '^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$' ||
		report "$p" "first line is not a git format-patch 'From <sha> ...' line"
	for h in From Date Subject; do
		grep -qE "^$h: " "$f" || report "$p" "no $h: header"
	done
	grep -qE '^Subject: \[PATCH[^]]*\] ' "$f" || report "$p" "Subject: has no [PATCH] prefix"
	# The message is everything before the first '---' line.
	body=$(sed -n '/^$/,/^---$/p' "$f")
	# A backport names its mainline commit; a patch that exists only for
	# 6.1 says so in its subject and in a '[ 6.1 only: why ]' note.
	if grep -qE '^Subject: .*\(6\.1 only\)$' <<<"$(sed -n '/^Subject: /,/^$/p' "$f" | sed -e ':a;N;$!ba;s/\n / /g')"; then
		grep -qE '^\[ 6\.1 only: ' <<<"$body" ||
			report "$p" "a '(6.1 only)' patch needs a '[ 6.1 only: ... ]' note in its message"
		! grep -qE '^commit [0-9a-f]{40} upstream\.$' <<<"$body" ||
			report "$p" "a '(6.1 only)' patch cannot name an upstream commit"
	else
		grep -qE '^commit [0-9a-f]{40} upstream\.$' <<<"$body" ||
			report "$p" "no 'commit <40-hex sha> upstream.' line in the message (or '(6.1 only)' in the subject)"
	fi
	grep -qE '^Signed-off-by: .+ <.+@.+>$' <<<"$body" || report "$p" "no Signed-off-by"
	grep -qE '^diff --git ' "$f" || report "$p" "no diff"

	# Exceptions explained below the '---' (before the diff).
	notes=$(sed -n '/^---$/,/^diff --git /p' "$f")
	ignore=$(sed -nE 's/^checkpatch: ([A-Z_,]+): .+/\1/p' <<<"$notes" | paste -sd, -)
	# checkpatch's SPDX check runs python3 with Debian's python3-ply and
	# python3-git, so Debian's python3 must come first in PATH.
	out=$(cd "$TREE" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict --show-types --no-summary \
		${ignore:+--ignore "$ignore"} -q "$f" 2>&1) || true
	if [ -n "$out" ]; then
		report "$p" "checkpatch --strict${ignore:+ (ignoring $ignore)}:"
		while IFS= read -r line; do printf '      %s\n' "$line"; done <<<"$out" >&2
	fi
	if [ "$bad" -eq 0 ]; then
		msg "ok $p${ignore:+ (checkpatch exceptions: $ignore)}"
	else
		failed=$((failed + 1))
	fi
done

[ "$failed" -eq 0 ] || die "$failed of ${#patches[@]} patches have problems (above)"
step_done "${#patches[@]} patches"
