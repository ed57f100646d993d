#!/usr/bin/env bash
# mbox: the series as one mail thread, $BUILD/netkit-6.1.mbox: the cover
# letter as [PATCH 6.1 0/N], then every patch of patches/series in order as
# [PATCH 6.1 n/N], each In-Reply-To and References the cover letter, each
# keeping its own From: and Date: (the mainline author and author date).
# 'git am --empty=drop' applies it in one call (the cover letter has no
# diff; b4 skips it by itself).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=series-lib.sh
. "$(dirname "$0")/series-lib.sh"

MBOX=${MBOX:-$BUILD/netkit-6.1.mbox}

step mbox
[ -f "$COVER" ] || die "$COVER not found"
mapfile -t patches < <(series_patches)
n=${#patches[@]}
[ "$n" -gt 0 ] || die "$SERIES lists no patches"
# Message-Ids are derived from the series' content, so the same series
# always gives the same thread and a changed one a new thread.
id=$(cd "$TOP/patches" && cat "$COVER" "${patches[@]}" | sha256sum | cut -c1-12)
msgid() { printf '<netkit-6.1-%s-%d@localhost>' "$id" "$1"; }

# mail I FILE: FILE with the subject numbered I/N and the thread headers
# added at the end of its header block.
mail() {
	local i=$1 f=$2
	awk -v i="$i" -v n="$n" -v mid="$(msgid "$i")" -v root="$(msgid 0)" '
		hdr && /^Subject: \[PATCH 6\.1[^]]*\]/ {
			sub(/^Subject: \[PATCH 6\.1[^]]*\]/, "Subject: [PATCH 6.1 " i "/" n "]")
			numbered = 1
		}
		hdr && /^$/ {
			print "Message-Id: " mid
			if (i > 0) {
				print "In-Reply-To: " root
				print "References: " root
			}
			hdr = 0
		}
		{ print }
		NR == 1 { hdr = 1 }
		END { if (!numbered) exit 3 }
	' "$f" || die "$f: no 'Subject: [PATCH 6.1...]' header"
	printf '\n'
}

mkdir -p "$(dirname "$MBOX")"
{
	mail 0 "$COVER"
	for i in "${!patches[@]}"; do
		mail $((i + 1)) "$TOP/patches/${patches[$i]}"
	done
} >"$MBOX.tmp"
mv "$MBOX.tmp" "$MBOX"
step_done "$((n + 1)) mails (cover letter and $n patches): $MBOX"
