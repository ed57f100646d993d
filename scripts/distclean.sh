#!/usr/bin/env bash
# distclean: remove what the harness keeps in $NETKIT_CACHE - the unpacked
# tree, the worktrees the series is applied in (make apply's, make check's,
# check-bisect's) and make mutate's, the build directories (the normal one,
# DEBUG=1's, KCONFIG=debian's, check-configs', check-arches', the cut's, the
# base's of make regress, 6.12's of make mainline-kernel, make coverage's
# and make mutate's (MUTATE_DEBUG=1's too), ARCH=arm64's and ARCH=s390x's
# with their worktrees and sysroots), the Debian 12 image of make
# deb-install-test and the ccache - one known path at a time, never the
# directory wholesale.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

step distclean
if [ -d "$TREE/.git" ] && [ ! -f "$TREE/.git/netkit-tarball" ]; then
	die "$TREE was not made by this harness; not removing it"
fi
for d in "$BUILD" "$NETKIT_CACHE/build-debug" "$NETKIT_CACHE/build-debian" \
	"$NETKIT_CACHE/check-configs" "${ARCHES_OUT:-$NETKIT_CACHE/arches}" "$NETKIT_CACHE/cut" "$NETKIT_CACHE/cut-netkit" "$NETKIT_CACHE/base" \
	"$NETKIT_CACHE/am-worktree" "$NETKIT_CACHE/check-worktree" "${BISECT_TREE:-$NETKIT_CACHE/bisect-worktree}" \
	"$NETKIT_CACHE/mainline" "${COV_BUILD:-$NETKIT_CACHE/build-coverage}" \
	"${MUT_BUILD:-$NETKIT_CACHE/build-mutate}" "${MUT_TREE:-$NETKIT_CACHE/mutate/linux}" \
	"$NETKIT_CACHE/build-mutate-debug" "$NETKIT_CACHE/mutate-debug/linux" "$NETKIT_CACHE/debian12" \
	"$NETKIT_CACHE/build-arm64" "$NETKIT_CACHE/arm64" "$NETKIT_CACHE/build-s390x" "$NETKIT_CACHE/s390x" \
	"$TREE" "$NETKIT_CACHE/ccache"; do
	[ -e "$d" ] || continue
	msg "removing $d"
	rm -rf "$d"
done
rmdir "$NETKIT_CACHE/mutate" "$NETKIT_CACHE/mutate-debug" "$NETKIT_CACHE" 2>/dev/null || true
step_done "done"
