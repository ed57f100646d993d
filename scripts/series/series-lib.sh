# shellcheck shell=bash
# Helpers for the scripts that read patches/series as a posting (cover
# letter, mbox, the posting checks). Sourced after lib.sh.

SERIES=${SERIES:-$TOP/patches/series}
COVER=${COVER:-$TOP/patches/0000-cover-letter.patch}
APPLIED_REF=refs/netkit/applied
# The subject prefix of every mail: the project's name, not a bare kernel
# version, since '[PATCH 6.1]' reads as a submission to the 6.1 stable
# tree, which takes neither a new driver nor new uapi nor a module ABI
# change. The series is for distribution and vendor 6.1 trees.
# shellcheck disable=SC2034 # used by the scripts that source this file
SUBJECT_PREFIX='PATCH netkit-6.1'

# series_patches: the patch paths relative to patches/, in series order.
series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES"
}

# base_tag: the base-<version> tag the series applies to.
base_tag() {
	tree_git describe --tags --abbrev=0 --match 'base-*' base
}

# need_applied: the tree must hold the applied series of this checkout
# (the apply step's stamp and ref), else the shortlog would be stale.
need_applied() {
	tree_git rev-parse -q --verify "$APPLIED_REF" >/dev/null ||
		die "the series is not applied in $TREE; run: make apply"
}

# The From: of a patch that exists only for 6.1 ('(6.1 only)' in its
# subject): it has no mainline author, its author is whoever sends the
# series. The file carries this placeholder, never a name; make mbox puts
# the sender in its place (and in the cover letter's shortlog).
SENDER_PLACEHOLDER_NAME='Sender of the 6.1 series'
SENDER_PLACEHOLDER="$SENDER_PLACEHOLDER_NAME <sender@invalid>"

# check_sender 'Name <address>': the form a sender identity must have.
check_sender() {
	local re='^[^<>@]*[^<>@ ] <[^<>@ ]+@[^<>@ ]+>$'
	[[ $1 =~ $re ]]
}

# mail_as_sent FILE SENDER: the patch mail FILE as SENDER posts it: the
# placeholder From: of a 6.1-only patch becomes SENDER, and the message
# (everything before the first '---' line) ends with SENDER's
# Signed-off-by, unless it already does.
mail_as_sent() {
	awk -v sender="$2" -v ph="$SENDER_PLACEHOLDER" '
		NR == 1 { hdr = 1; print; next }
		hdr && $0 == "From: " ph { print "From: " sender; next }
		hdr && /^$/ { hdr = 0; print; prev = ""; next }
		!hdr && !signed && /^---$/ {
			if (prev != "Signed-off-by: " sender) {
				if (prev != "" && prev !~ /^[A-Za-z][A-Za-z0-9-]*: /)
					print ""
				print "Signed-off-by: " sender
			}
			signed = 1
		}
		{ print; prev = $0 }
		END { if (!signed) exit 3 }
	' "$1" || die "$1: no '---' line after the message"
}
