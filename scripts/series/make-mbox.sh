#!/usr/bin/env bash
# mbox: the series as one mail thread, $BUILD/netkit-6.1.mbox: the cover
# letter as [PATCH netkit-6.1 0/N], then every patch of patches/series in order as
# [PATCH netkit-6.1 n/N] (SUBJECT_PREFIX in series-lib.sh), each In-Reply-To and References the cover letter, each
# keeping its own From: and Date: (the mainline author and author date).
# 'git am --empty=drop' applies it in one call (the cover letter has no
# diff; b4 skips it by itself).
#
# The files in patches/ carry no sign-off of whoever sends the series:
# that is the sender's own statement (the Developer's Certificate of
# Origin), so it is added here, from 'git config user.name' and
# 'user.email': the sender's Signed-off-by ends every patch's message, the
# cover letter gets the sender's From:, and the 6.1-only patches, which
# have no mainline author, get the sender as their From: (in place of the
# placeholder they carry, also in the cover letter's shortlog). Without a
# configured identity, or with an address under a reserved domain
# (example, invalid, test, localhost), that no real sender has, it refuses.
#
# MBOX_TEST_SENDER='Name <address@invalid>' makes a test mbox instead,
# signed off by that test identity (make check uses it to prove that the
# thread applies where git config is unset, as in CI); its address must be
# under .invalid, so that a test mbox cannot reach anyone.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=series-lib.sh
. "$(dirname "$0")/series-lib.sh"

MBOX=${MBOX:-$BUILD/netkit-6.1.mbox}

step mbox
[ -f "$COVER" ] || die "$COVER not found"
mapfile -t patches < <(series_patches)
n=${#patches[@]}
[ "$n" -gt 0 ] || die "$SERIES lists no patches"

if [ -n "${MBOX_TEST_SENDER:-}" ]; then
	sender=$MBOX_TEST_SENDER
	if ! check_sender "$sender" || [[ $sender != *@*.invalid\> && $sender != *@invalid\> ]]; then
		die "MBOX_TEST_SENDER='$sender' must be 'Name <address>' with an address under .invalid (a test identity that cannot be mailed)"
	fi
	what="a TEST mbox, signed off by the test sender $sender: not for posting"
else
	name=$(git -C "$TOP" config user.name || true)
	email=$(git -C "$TOP" config user.email || true)
	if [ -z "$name" ] || [ -z "$email" ]; then
		die "make mbox adds the sender's Signed-off-by to every patch and the cover letter's From:, taken from git config, but user.name or user.email is not set; set them to your own identity first:
  git config user.name 'Your Name'; git config user.email '<your address>'"
	fi
	sender="$name <$email>"
	check_sender "$sender" ||
		die "git config user.name/user.email give '$sender', which is not 'Name <address>'"
	domain=${email##*@}
	domain=${domain,,}
	case .$domain in
	*.example | *.invalid | *.test | *.localhost | *.example.com | *.example.net | *.example.org)
		die "git config user.email is '$email': an address under a reserved domain (RFC 2606) is nobody's, so it cannot sign off the series; set your own identity with git config user.name/user.email"
		;;
	esac
	what="signed off by $sender"
fi
[ "$sender" != "$SENDER_PLACEHOLDER" ] || die "the sender cannot be the placeholder '$SENDER_PLACEHOLDER'"

# Message-Ids are derived from the series' content and the sender, so the
# same series always gives the same thread and a changed one a new thread.
id=$(cd "$TOP/patches" && { cat "$COVER" "${patches[@]}"; printf '%s\n' "$sender"; } | sha256sum | cut -c1-12)
msgid() { printf '<netkit-6.1-%s-%d@localhost>' "$id" "$1"; }

# mail I: stdin, a mail as sent, with the subject numbered I/N and the
# thread headers added at the end of its header block.
mail() {
	local i=$1
	awk -v i="$i" -v n="$n" -v mid="$(msgid "$i")" -v root="$(msgid 0)" -v pfx="$SUBJECT_PREFIX" '
		hdr && index($0, "Subject: [" pfx) == 1 {
			sub(/^Subject: \[[^]]*\]/, "Subject: [" pfx " " i "/" n "]")
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
	' || die "mail $i: no 'Subject: [$SUBJECT_PREFIX...]' header"
	printf '\n'
}

# cover: the cover letter with the sender's From: after its first line and
# the sender's name in place of the placeholder in its shortlog.
cover() {
	! grep -q '^From: ' "$COVER" ||
		die "$COVER has a From: header; the sender's is added by make mbox, remove it"
	awk -v sender="$sender" -v phn="$SENDER_PLACEHOLDER_NAME" '
		NR == 1 { print; print "From: " sender; next }
		index($0, phn " (") == 1 && $0 ~ /\([0-9]+\):$/ {
			name = sender
			sub(/ <[^>]*>$/, "", name)
			$0 = name substr($0, length(phn) + 1)
		}
		{ print }
	' "$COVER"
}

mkdir -p "$(dirname "$MBOX")"
{
	cover | mail 0
	for i in "${!patches[@]}"; do
		mail_as_sent "$TOP/patches/${patches[$i]}" "$sender" | mail $((i + 1))
	done
} >"$MBOX.tmp"
mv "$MBOX.tmp" "$MBOX"
step_done "$((n + 1)) mails (cover letter and $n patches), $what: $MBOX"
