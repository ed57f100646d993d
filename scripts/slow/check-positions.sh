#!/usr/bin/env bash
# check-positions: the tests at the positions of the series, not only at
# its end. For each patch of POSITIONS whose change can alter a test
# result - the kernel, libbpf or the selftests; not bpftool alone, which
# no test_progs test runs - 'make qemu-test CUT=<patch>' applies the
# series up to that patch in the cut's tree (NETKIT_CACHE/cut, built
# incrementally from one position to the next) and runs the cut's default
# test_progs set there: tc_netkit and tc_redirect, and from tcx/ on
# tc_opts and tc_links where the tree has them. Guest tests are left out
# (T and GUEST_TESTS can change that; the end of the series runs them in
# make qemu-test), and so are the project's guest helpers (GUEST_HELPERS=no):
# they are written against the uapi of the whole followup/ group (scrub,
# headroom), which a position before followup/0019 does not have. Each run is kept in $BUILD/positions/<patch>/, which
# scripts/verdict.sh can judge again, and the table goes to
# $BUILD/positions/table.md. Fails if any position failed.
#
# POSITIONS: FROM..TO, two patches of patches/series (default
# followup/0011..the last patch), or a comma-separated list of patches,
# run in the order given (from the end backwards, say, when the walk
# starts from a build of the whole series: each step then rebuilds less).
# POSITIONS_IN=main walks in the pipeline's own tree and build instead of
# the cut's: no cold build of a second tree, and the next make qemu-test
# of the whole series rebuilds what the walk changed.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

SERIES=${SERIES:-$TOP/patches/series}
OUT=$BUILD/positions
mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES")
ids=("${patches[@]%%-*}")

step check-positions
range=${POSITIONS:-followup/0011..${ids[-1]}}
selected=()
if [[ $range == *..* ]]; then
	from=${range%%..*} to=${range##*..} on=
	for id in "${ids[@]}"; do
		[ "$id" != "$from" ] || on=1
		[ -z "$on" ] || selected+=("$id")
		[ "$id" != "$to" ] || break
	done
	if [ -z "$on" ] || [ "${selected[-1]}" != "$to" ]; then
		die "POSITIONS=$range: $from and $to must be patches of $SERIES, in that order"
	fi
else
	IFS=, read -r -a selected <<<"$range"
	for id in "${selected[@]}"; do
		[[ " ${ids[*]} " == *" $id "* ]] || die "POSITIONS: $id is not a patch of $SERIES"
	done
fi

# what_changes PATCHFILE: kernel, libbpf, selftests or bpftool (the parts
# the patch touches), space-separated.
what_changes() {
	sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$1" | while read -r f; do
		case $f in
		tools/bpf/bpftool/*) echo bpftool ;;
		tools/lib/bpf/* | tools/include/*) echo libbpf ;;
		tools/testing/selftests/bpf/*) echo selftests ;;
		tools/*) echo tools ;;
		*) echo kernel ;;
		esac
	done | sort -u | paste -sd' ' -
}

case ${POSITIONS_IN:-cut} in
cut) where=() ;;
main) where=(TREE="$TREE" BUILD="$BUILD" AM_TREE="${AM_TREE:-$NETKIT_CACHE/am-worktree}") ;;
*) die "POSITIONS_IN must be cut or main, not '$POSITIONS_IN'" ;;
esac

mkdir -p "$OUT"
table=$OUT/table.md
{
	printf '| position | changes | test_progs | result | wall |\n'
	printf '|---|---|---|---|---|\n'
} >"$table"
failed=() ran=0
for id in "${selected[@]}"; do
	for p in "${patches[@]}"; do [[ $p != "$id"-* ]] || break; done
	changes=$(what_changes "$(dirname "$SERIES")/$p")
	if [ "$changes" = bpftool ]; then
		msg "$id: bpftool only, no test_progs test runs it: not run"
		printf '| %s | %s | - | not run: bpftool only | - |\n' "$id" "$changes" >>"$table"
		continue
	fi
	run=$OUT/$id
	rm -rf "$run"
	mkdir -p "$run"
	t0=$(date +%s)
	msg "$id ($changes): make qemu-test CUT=$id ... (log $run/make.log)"
	rc=0
	# The cut's own make (its TREE, BUILD and AM_TREE, unless
	# POSITIONS_IN=main), this run directory.
	# Without guest tests, no guest helpers either (see above).
	helpers=yes
	[ -n "${GUEST_TESTS-}" ] || helpers=no
	env -u TREE -u BUILD -u AM_TREE -u RUN_DIR GUEST_HELPERS="$helpers" \
		make --no-print-directory -C "$TOP" qemu-test \
		CUT="$id" RUN_DIR="$run" GUEST_TESTS="${GUEST_TESTS-}" "${where[@]}" >"$run/make.log" 2>&1 || rc=$?
	secs=$(($(date +%s) - t0))
	ran=$((ran + 1))
	summary=$(tr -d '\r' <"$run/console.log" 2>/dev/null | grep -E '^Summary: ' | tail -n 1 || true)
	args=$(sed -n "s/^test_progs='\(.*\)'$/\1/p" "$run/selection" 2>/dev/null || true)
	args="\`${args:-none}\`"
	if [ "$rc" -eq 0 ]; then
		result=pass
	else
		result="FAIL (make exit $rc: $run/make.log)"
		failed+=("$id")
	fi
	msg "$id ($changes): ${summary:-no Summary line}: $result, ${secs}s"
	printf '| %s | %s | %s: %s | %s | %ss |\n' "$id" "$changes" "$args" "${summary#Summary: }" "$result" "$secs" >>"$table"
done
msg "table: $table"
cat "$table"
[ "${#failed[@]}" -eq 0 ] || die "${#failed[@]} of $ran positions failed: ${failed[*]} (each run: $OUT/<patch>/make.log)"
step_done "$ran positions passed, $((${#selected[@]} - ran)) not run (bpftool only)"
