#!/usr/bin/env bash
# mutate-tree: the schemata kernel of make mutate, in a tree and build of
# its own. The applied series is checked out as a git worktree of TREE
# ($MUT_TREE, detached at refs/netkit/applied: TREE itself stays clean for
# make apply); scripts/coverage/mutate-gen.py lists every mutant of the files of
# configs/coverage.objects (the shared files only in the lines the series
# adds) into $BUILD/mutants.tsv and writes all of them into the worktree at
# once, each behind nk_mut(ID), and so the inline functions of the
# series' headers (MUT_HEADERS: their schemata reach every object that
# includes them). The kernel step then builds it with
# configs/mutate.config; a mutant that the compiler refuses (an error at
# one of its lines, or in a macro or header expanded there, from
# $BUILD/schemata-lines.tsv: mutate-gen.py nobuild) is listed in
# $BUILD/nobuild.tsv and left out, and the build is repeated until it
# passes. Then the selftests and the initramfs of that tree, as for the
# test kernel. One build serves every mutant.
#
# MUTATE_DEBUG=1 (the Makefile then sets BUILD, MUT_TREE and SEED_KBUILD
# to the debug ones): the same schemata on the debug kernel,
# configs/debug.config on top (KASAN, lockdep, PROVE_RCU, kmemleak), for
# the operators whose kill is a sanitizer's report (mutate-gen.py's
# kernel column "debug").
#
# The build is not a cold one. Run as root, it starts from a copy of the
# test kernel's objects (SEED_KBUILD, the Makefile passes the
# pipeline's) and runs in a private mount namespace in which each
# schemata file of the worktree is bind-mounted over the same file of
# TREE: kbuild sees the test kernel's tree at the test kernel's path,
# with the same command lines, and rebuilds the mutated files, the
# objects that read a symbol of configs/mutate.config, and the link. No
# other process sees the bind mounts; TREE itself is not written. Without
# root (or without a seed) it builds the worktree from scratch.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

: "${MUT_TREE:?MUT_TREE not set (the Makefile sets it)}"
: "${COV_BUILD:?COV_BUILD not set (the Makefile sets it)}"
OBJECTS=$TOP/configs/coverage.objects
KBUILD_OUT=$BUILD/kernel

step mutate-tree
[ -e "$TREE/.git" ] || die "no tree at $TREE; run: make apply"
applied=$(tree_git rev-parse -q --verify refs/netkit/applied) || die "$TREE has no applied series; run: make apply"
# The worktree's HEAD is one commit on top of the applied series, "make
# mutate: mutation schemata": the kernel step's inputs are the committed
# tree, so the schemata are committed (not on any branch) before it runs.
if [ ! -e "$MUT_TREE/.git" ]; then
	mkdir -p "$(dirname "$MUT_TREE")"
	run_logged "$LOG" git -C "$TREE" worktree add --detach "$MUT_TREE" "$applied"
	msg "worktree $MUT_TREE at $(git -C "$MUT_TREE" log -1 --format=%h)"
elif [ "$(git -C "$MUT_TREE" rev-parse HEAD)" != "$applied" ] &&
	[ "$(git -C "$MUT_TREE" rev-parse -q --verify HEAD^ || true)" != "$applied" ]; then
	# the series changed: the schemata start again from its files
	run_logged "$LOG" git -C "$MUT_TREE" checkout -q -f --detach "$applied"
	rm -f "$BUILD/nobuild.tsv"
	msg "worktree moved to the applied series $(git -C "$MUT_TREE" log -1 --format=%h)"
fi
# The files: "all" in full, "added" only where the series adds lines;
# then the headers the series adds, whose inline functions are mutated
# in full (the #if branches of the config: netkit.h has none with
# CONFIG_NETKIT=y).
MUT_HEADERS=(include/linux/bpf_mprog.h include/net/tcx.h include/net/netkit.h)
mapfile -t specs < <(awk '!/^[[:space:]]*(#|$)/ { f = $1; sub(/\.o$/, ".c", f); print ($2 == "added" ? f ":added" : f) }' "$OBJECTS")
specs+=("${MUT_HEADERS[@]}")
# #if branches are decided by the test config (the coverage build's, the
# same fragments but gcov): mutants in branches that are not built are
# not generated.
config=$COV_BUILD/kernel/.config
[ -f "$config" ] || die "$config not found; run: make coverage (make mutate needs its line data too)"
mkdir -p "$BUILD"
python3 "$TOP/scripts/coverage/mutate-gen.py" list --tree "$MUT_TREE" --rev "$applied" --config "$config" "${specs[@]}" \
	>"$BUILD/mutants.tsv" 2>>"$LOG" || fail_with_log "$LOG" "mutate-gen.py list" $?
[ -f "$BUILD/nobuild.tsv" ] || printf '# id\tfirst compiler error\n' >"$BUILD/nobuild.tsv"
step_done "$(($(wc -l <"$BUILD/mutants.tsv") - 1)) mutants in ${#specs[@]} files, worktree $MUT_TREE"

# build_schemata: the kernel step on the worktree's committed schemata:
# over a copy of SEED_KBUILD in a namespace (above), or from scratch.
build_schemata() {
	local files
	if [ "$fast" = yes ]; then
		mapfile -t files < <(git -C "$MUT_TREE" diff --name-only "$applied" HEAD)
		# the kernel stamp follows TREE's HEAD, which the schemata do not
		# change: kbuild decides alone what to rebuild
		rm -f "$BUILD/stamps/kernel"
		# shellcheck disable=SC2016 # expanded by the inner bash
		unshare --mount --propagation private bash -c '
			set -e
			top=$1 mt=$2 t=$3; shift 3
			for f in "$@"; do mount --bind "$mt/$f" "$t/$f"; done
			exec "$top/scripts/build-kernel.sh"' bind "$TOP" "$MUT_TREE" "$TREE" "${files[@]}"
	else
		TREE=$MUT_TREE "$TOP/scripts/build-kernel.sh"
	fi
}
debug_config=''
[ "${MUTATE_DEBUG:-}" != 1 ] || debug_config=$TOP/configs/debug.config
export KBUILD_OUT EXTRA_CONFIGS="$TOP/configs/mutate.config $debug_config ${EXTRA_CONFIGS:-}"
fast=no
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && [ -n "${SEED_KBUILD:-}" ] &&
	[ -f "$SEED_KBUILD/arch/x86/boot/bzImage" ] &&
	[ "$(readlink -f "$SEED_KBUILD/source" 2>/dev/null)" = "$(readlink -f "$TREE")" ] &&
	[ "$(tree_git rev-parse HEAD)" = "$applied" ] && [ -z "$(tree_git status --porcelain -uno)" ]; then
	fast=yes
	if [ ! -f "$KBUILD_OUT/.netkit-seeded" ]; then
		rm -rf "$KBUILD_OUT"
		mkdir -p "$(dirname "$KBUILD_OUT")"
		cp -a --reflink=auto "$SEED_KBUILD" "$KBUILD_OUT"
		echo "$SEED_KBUILD" >"$KBUILD_OUT/.netkit-seeded"
		msg "$KBUILD_OUT from a copy of $SEED_KBUILD: the schemata build rebuilds what they change"
	fi
else
	msg "building the worktree from scratch (a seeded build needs root, unshare, SEED_KBUILD's bzImage and TREE clean at the applied series)"
	rm -f "$KBUILD_OUT/.netkit-seeded"
fi

# schemata: write them, build; on a compiler error at a mutant's lines,
# leave that mutant out and build again.
for round in $(seq 1 20); do
	skip=$(awk '!/^#/ { printf "%s,", $1 }' "$BUILD/nobuild.tsv")
	python3 "$TOP/scripts/coverage/mutate-gen.py" schemata --tree "$MUT_TREE" --rev "$applied" --config "$config" \
		--out "$MUT_TREE" --skip "$skip" "${specs[@]}" >"$BUILD/schemata-lines.tsv"
	# -f: Debian's top-level .gitignore ignores everything ("/*")
	git -C "$MUT_TREE" add -f -- "${specs[@]%:added}"
	tree=$(git -C "$MUT_TREE" write-tree)
	if [ "$(git -C "$MUT_TREE" rev-parse "HEAD^{tree}")" != "$tree" ]; then
		# the applied series' date and the harness's identity: the same
		# schemata make the same commit everywhere, and so the same build
		# timestamp (lib.sh kbuild_setup: the tree's last commit date),
		# which the kernel's banner and BTF carry
		commit=$(GIT_AUTHOR_NAME=$GIT_COMMITTER_NAME GIT_AUTHOR_EMAIL=$GIT_COMMITTER_EMAIL \
			GIT_AUTHOR_DATE="$(git -C "$MUT_TREE" log -1 --format=%cD "$applied")" \
			GIT_COMMITTER_DATE="$(git -C "$MUT_TREE" log -1 --format=%cD "$applied")" \
			git -C "$MUT_TREE" commit-tree "$tree" -p "$applied" -m "make mutate: mutation schemata")
		git -C "$MUT_TREE" reset -q --soft "$commit"
	fi
	rc=0
	build_schemata 2>"$BUILD/kernel-errors.txt" || rc=$?
	cat "$BUILD/kernel-errors.txt" >&2
	[ "$rc" -ne 0 ] || break
	log=$BUILD/logs/kernel.log
	# the errors -> the mutants at their lines in the schemata files (at
	# TREE's path in the namespace, the worktree's otherwise), or at the
	# lines of the notes of the macro expansion or include they are in
	new=$(python3 "$TOP/scripts/coverage/mutate-gen.py" nobuild --lines "$BUILD/schemata-lines.tsv" \
		--log "$log" "$MUT_TREE" "$TREE" | sort -u)
	if [ -z "$new" ]; then
		die "the schemata kernel failed to build, not at a mutant's line; see $log"
	fi
	if grep -q '^none' <<<"$new"; then
		grep '^none' <<<"$new" | cut -f2- | head -n 5 >&2
		die "compiler errors outside every mutant's lines (a generator bug?); see $log and $BUILD/schemata-lines.tsv"
	fi
	awk -F'\t' '!seen[$1]++' <<<"$new" >>"$BUILD/nobuild.tsv"
	msg "round $round: $(cut -f1 <<<"$new" | sort -u | wc -l) mutants do not build; building again without them"
done
[ "$rc" -eq 0 ] || die "the schemata kernel still fails after 20 rounds; see $BUILD/logs/kernel.log"
grep -q '^CONFIG_GCOV_KERNEL=y' "$KBUILD_OUT/.config" && die "the schemata kernel has gcov on; it must not"
grep -qw netkit_mutant "$KBUILD_OUT/System.map" || die "no netkit_mutant in $KBUILD_OUT/System.map: the schemata are not built in"
TREE=$MUT_TREE KBUILD_OUT=$KBUILD_OUT "$TOP/scripts/build-selftests.sh"
TREE=$MUT_TREE KBUILD_OUT=$KBUILD_OUT "$TOP/scripts/make-initramfs.sh"
