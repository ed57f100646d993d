#!/usr/bin/env bash
# check-series: host-side checks of patches/series, run after the apply step
# has shown that the series applies to the pristine base with git am.
#
#  - every patch is a git format-patch mail: From <sha> line, From:, Date:,
#    Subject: [PATCH...], a 'commit <sha> upstream.' reference (or, for a
#    patch that only 6.1 needs, '(6.1 only)' at the end of the subject and
#    a '[ 6.1 only: ... ]' note), a '---' separator and a diff;
#  - sign-offs: a backport carries its mainline author's From: and the
#    mainline trailers, a Signed-off-by among them; a 6.1-only patch has
#    the sender placeholder as its From: and no Signed-off-by. No file
#    carries the sign-off of whoever sends the series: make mbox adds it;
#    no From: or trailer names an address under a reserved domain
#    (example, invalid, test, localhost), which is nobody's;
#  - the message body stands under the mainline author's name, so outside
#    its '[ ... ]' notes it must not refer to the series (a patch by number
#    such as tcx/0001, "this series", "patch 3/7", "the next patch"), and a
#    backport's body must not talk about 6.1, the backport, mainline or
#    upstream: all that goes into its '[ 6.1 backport: ... ]' note;
#  - a mainline commit carried in more than one patch (its 'commit <sha>
#    upstream.' line in several) says so where a reviewer looks first: each
#    of those patches' first note opens with
#        [ 6.1 backport: partial backport: the <part> of <sha>; the rest is in <patch>[, <patch>...]
#    naming exactly the other patches that carry it; a note that opens like
#    that anywhere else must name its own commit and patches whose message
#    mentions that commit;
#  - any partial carry of a mainline commit, carried in one patch or in
#    several, opens its first note with '[ 6.1 backport: partial backport:'.
#    A note that speaks of one (PARTIAL_WORDS_RE: "partial", "only the
#    <...> hunk/part/half", "the <...> hunk is carried", "is not carried")
#    is taken to describe one;
#  - scripts/checkpatch.pl --strict, run on each mail as make mbox sends it
#    (with a test sender's sign-off), reports nothing, except message types
#    a patch explains below its '---' line as
#        checkpatch: TYPE[,TYPE...]: why
#    (those types, and only for that patch, are passed to --ignore).
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=series-lib.sh
. "$(dirname "$0")/series-lib.sh"

# The sign-off checkpatch sees, as make mbox would add a sender's.
TEST_SENDER='make check test sender <check-series@test-sender.invalid>'
GROUP_RE='(prereq|netkit|followup|tcx)/[0-9]{4}'
# Outside the notes of any patch: references to the series itself.
SERIES_REF_RE='\b'"$GROUP_RE"'\b|\b(this|the) (patch )?series\b|\bpatch ?set\b|\bpatch(es)? [0-9]+/[0-9]+\b|\[PATCH|\b(previous|next|following|preceding|earlier|later) patch(es)?\b'
# Outside the notes of a backport: anything about 6.1 and the backport.
BACKPORT_RE='\b6\.1(\.[0-9y]+)?\b|\bbackport|\bmainline\b|\bupstream\b'
RESERVED_ID_RE='^[A-Za-z-]+: .*@([^ >]*\.)?(example|invalid|test|localhost|example\.(com|net|org))>$'
PARTIAL_WORDS_RE='\bpartial(ly)?\b|\bonly (the|its) [^;]{0,80}\b(hunks?|part|half)\b|\bhunks? (of [0-9a-f]{7,40} )?(is|are|was|were) carried\b|\b(is|are) not carried\b'
PARTIAL_RE='^\[ 6\.1 backport: partial backport: the (.+) of ([0-9a-f]{12,40}); the rest is in ('"$GROUP_RE"'((, | and )'"$GROUP_RE"')*)[.;,]'

# message_lines FILE: the message of a patch mail (from the blank line
# after its headers to the first '---' line), each line prefixed with
# 'P <line number>:' outside a '[ ... ]' note and 'N<k> <line number>:'
# inside the k-th note. A note opens with a line starting with '[ ' and
# closes with a line ending in ' ]'; an unclosed one is reported as 'U'.
message_lines() {
	awk '
		NR == 1 { hdr = 1; next }
		hdr { if ($0 == "") hdr = 0; next }
		/^---$/ { exit }
		!note && /^\[ / { note = 1; k++ }
		{ printf "%s %d:%s\n", (note ? "N" k : "P"), NR, $0 }
		note && /(^| )\]$/ { note = 0 }
		END { if (note) print "U" }
	' "$1"
}
# patch_id PATH: prereq/0001-foo.patch -> prereq/0001
patch_id() {
	local d=${1%%/*} b=${1#*/}
	printf '%s/%s\n' "$d" "${b:0:4}"
}

step check-series
[ -x "$TREE/scripts/checkpatch.pl" ] || die "no tree at $TREE; run: make tree"
mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES")

failed=0 bad=0
report() {
	printf '  %s: %s\n' "$1" "$2" >&2
	bad=1
}

# Which patches carry each mainline commit ('commit <sha> upstream.').
declare -A carriers=() ids=()
for p in "${patches[@]}"; do
	ids[$(patch_id "$p")]=$p
	while read -r sha; do
		carriers[$sha]+="$(patch_id "$p") "
	done < <(message_lines "$(dirname "$SERIES")/$p" | sed -nE 's/^P [0-9]+:commit ([0-9a-f]{40}) upstream\.$/\1/p')
done

for p in "${patches[@]}"; do
	f="$(dirname "$SERIES")/$p"
	id=$(patch_id "$p")
	bad=0
	head -n 1 "$f" | grep -qE '^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$' ||
		report "$p" "first line is not a git format-patch 'From <sha> ...' line"
	for h in From Date Subject; do
		grep -qE "^$h: " "$f" || report "$p" "no $h: header"
	done
	grep -qF "Subject: [$SUBJECT_PREFIX] " "$f" || report "$p" "Subject: has no [$SUBJECT_PREFIX] prefix"
	msgl=$(message_lines "$f")
	[ "$(tail -n 1 <<<"$msgl")" != U ] || report "$p" "a '[ ' note in the message is not closed with ' ]'"
	# prose: the message outside its notes, as '<line number>:<text>'.
	prose=$(sed -n 's/^P //p' <<<"$msgl")
	prose_text=$(cut -d: -f2- <<<"$prose")
	# The message is everything before the first '---' line.
	body=$(sed -n '/^$/,/^---$/p' "$f")
	from=$(sed -n '/^From: /{N;s/\n / /;s/^From: //;s/\n.*//;p;q}' "$f")
	# A backport names its mainline commit; a patch that exists only for
	# 6.1 says so in its subject and in a '[ 6.1 only: why ]' note.
	only=0
	if grep -qE '^Subject: .*\(6\.1 only\)$' <<<"$(sed -n '/^Subject: /,/^$/p' "$f" | sed -e ':a;N;$!ba;s/\n / /g')"; then
		only=1
		grep -qE '^\[ 6\.1 only: ' <<<"$body" ||
			report "$p" "a '(6.1 only)' patch needs a '[ 6.1 only: ... ]' note in its message"
		! grep -qE '^commit [0-9a-f]{40} upstream\.$' <<<"$body" ||
			report "$p" "a '(6.1 only)' patch cannot name an upstream commit"
		[ "$from" = "$SENDER_PLACEHOLDER" ] ||
			report "$p" "a '(6.1 only)' patch has no mainline author: its From: must be the sender placeholder '$SENDER_PLACEHOLDER' (make mbox puts the sender there), not '$from'"
		! grep -qE '^Signed-off-by: ' <<<"$body" ||
			report "$p" "a '(6.1 only)' patch carries no Signed-off-by: the sender's is added by make mbox"
	else
		grep -qE '^commit [0-9a-f]{40} upstream\.$' <<<"$prose_text" ||
			report "$p" "no 'commit <40-hex sha> upstream.' line in the message, outside its notes (or '(6.1 only)' in the subject)"
		grep -qE '^Signed-off-by: .+ <.+@.+>$' <<<"$prose_text" || report "$p" "no mainline Signed-off-by"
		[ "$from" != "$SENDER_PLACEHOLDER" ] ||
			report "$p" "a backport's From: is its mainline author, not the sender placeholder"
	fi
	! grep -qF "$SENDER_PLACEHOLDER" <<<"$body" ||
		report "$p" "the sender placeholder is only a 6.1-only patch's From:, never in a message"
	# Nobody's identity: an address under a reserved domain (RFC 2606)
	# in a From: or trailer line, other than the placeholder.
	ids_bad=$(sed -n '1,/^---$/p' "$f" | grep -vxF "From: $SENDER_PLACEHOLDER" |
		grep -inE "$RESERVED_ID_RE" || true)
	if [ -n "$ids_bad" ]; then
		report "$p" "names an identity under a reserved domain, which is nobody's (line: text):"
		printf '%s\n' "$ids_bad" | sed 's/^/      /' >&2
	fi
	grep -qE '^diff --git ' "$f" || report "$p" "no diff"

	# Outside the notes: nothing about the series; in a backport, nothing
	# about 6.1 or the backport either.
	refs=$(grep -iE "$SERIES_REF_RE" <<<"$prose" | grep -vE '^[0-9]+:commit [0-9a-f]{40} upstream\.$' || true)
	if [ -n "$refs" ]; then
		report "$p" "refers to the series outside a '[ ... ]' note (line: text):"
		printf '%s\n' "$refs" | sed 's/^/      /' >&2
	fi
	if [ "$only" -eq 0 ]; then
		refs=$(grep -iE "$BACKPORT_RE" <<<"$prose" | grep -vE '^[0-9]+:commit [0-9a-f]{40} upstream\.$' || true)
		if [ -n "$refs" ]; then
			report "$p" "speaks of 6.1, the backport, mainline or upstream outside its '[ 6.1 backport: ... ]' note (line: text):"
			printf '%s\n' "$refs" | sed 's/^/      /' >&2
		fi
	fi

	# A commit carried in more than one patch: the partial-backport form
	# opens the first note, naming exactly the other carriers.
	note1=$(sed -n 's/^N1 [0-9]*://p' <<<"$msgl" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//')
	mine=$(sed -nE 's/^commit ([0-9a-f]{40}) upstream\.$/\1/p' <<<"$prose_text")
	for sha in $mine; do
		others=$(tr ' ' '\n' <<<"${carriers[$sha]}" | { grep -vxF -e "$id" -e '' || true; } | sort | paste -sd' ' -)
		[ -n "$others" ] || continue
		if [[ ! $note1 =~ $PARTIAL_RE ]] || [[ $sha != "${BASH_REMATCH[2]}"* ]]; then
			report "$p" "${sha:0:12} is carried in $others too: its first note must open with '[ 6.1 backport: partial backport: the <part> of ${sha:0:12}; the rest is in $others'"
			continue
		fi
		named=$(grep -oE "$GROUP_RE" <<<"${BASH_REMATCH[3]}" | sort | paste -sd' ' -)
		[ "$named" = "$others" ] ||
			report "$p" "its partial-backport note says the rest of ${sha:0:12} is in '$named', but the other patches carrying it are '$others'"
	done
	# Any partial carry: the first note says so first.
	notes_all=$(sed -n 's/^N[0-9]* [0-9]*://p' <<<"$msgl" | tr -s ' \n' '  ')
	if [[ $note1 != "[ 6.1 backport: partial backport:"* ]] &&
		words=$(grep -oiE "$PARTIAL_WORDS_RE" <<<"$notes_all" | head -n 1) && [ -n "$words" ]; then
		report "$p" "its notes describe a partial carry ('$words'): its first note must open with '[ 6.1 backport: partial backport: <what is carried>'"
	fi
	if [[ $note1 =~ $PARTIAL_RE ]]; then
		nsha=${BASH_REMATCH[2]} rest=${BASH_REMATCH[3]}
		grep -q "^$nsha" <<<"$mine" ||
			report "$p" "its partial-backport note names ${nsha}, which is not the commit it carries"
		while read -r r; do
			if [ "$r" = "$id" ] || [ -z "${ids[$r]:-}" ]; then
				report "$p" "its partial-backport note puts the rest of $nsha in $r, which is $([ "$r" = "$id" ] && echo "this patch" || echo "not in the series")"
			elif ! grep -q "${nsha:0:12}" <<<"$(message_lines "$(dirname "$SERIES")/${ids[$r]}")"; then
				report "$p" "its partial-backport note puts the rest of $nsha in $r, whose message does not mention ${nsha:0:12}"
			fi
		done < <(grep -oE "$GROUP_RE" <<<"$rest")
	fi

	# Exceptions explained below the '---' (before the diff).
	notes=$(sed -n '/^---$/,/^diff --git /p' "$f")
	ignore=$(sed -nE 's/^checkpatch: ([A-Z_,]+): .+/\1/p' <<<"$notes" | paste -sd, -)
	# checkpatch's SPDX check runs python3 with Debian's python3-ply and
	# python3-git, so Debian's python3 must come first in PATH. It reads
	# the mail as make mbox sends it, with a sender's sign-off.
	out=$(mail_as_sent "$f" "$TEST_SENDER" | (cd "$TREE" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict --show-types --no-summary \
		${ignore:+--ignore "$ignore"} -q - 2>&1)) || true
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
