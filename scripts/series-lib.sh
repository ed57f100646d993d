# shellcheck shell=bash
# Helpers for the scripts that read patches/series as a posting (cover
# letter, mbox, the posting checks). Sourced after lib.sh.

SERIES=${SERIES:-$TOP/patches/series}
COVER=${COVER:-$TOP/patches/0000-cover-letter.patch}
APPLIED_REF=refs/netkit/applied

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
