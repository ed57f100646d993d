#!/usr/bin/env bash
# coverage-report: the gcov counters the coverage guest sent
# (scripts/coverage/run.sh, in RUN_DIR/result) of a run that passes
# scripts/verdict.sh, turned into line and branch coverage by
# Debian's lcov: the tracefile $BUILD/coverage/series.info, the HTML report
# $BUILD/coverage/html/index.html (genhtml) and the summary
# $BUILD/coverage/summary.md (scripts/coverage/summary.py): per file of
# configs/coverage.objects its lines and branches, for the shared files
# only the lines the series adds. Every line of netkit.c, mprog.c and tcx.c
# that did not run must be explained in selftests/coverage-unrun.txt; the
# step fails on one that is not, and writes the lines to explain to
# $BUILD/coverage/unrun-new.txt.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

KBUILD_OUT=${KBUILD_OUT:-$BUILD/kernel}
COV=$BUILD/coverage
RESULT=$RUN_DIR/result
OBJECTS=$TOP/configs/coverage.objects
UNRUN=$TOP/selftests/coverage-unrun.txt
GCOV_TOOL=gcov-$(gcc -dumpversion | cut -d. -f1)

step coverage-report
for t in lcov genhtml "$GCOV_TOOL"; do
	command -v "$t" >/dev/null || die "$t not found; run: scripts/install-deps.sh coverage"
done
[ -f "$RESULT" ] || die "$RESULT not found; run: make coverage"
# Only the counters of a run that passed (make coverage judged it just
# before; this also holds when the report is made again by hand).
"$TOP/scripts/verdict.sh" "$RUN_DIR" >/dev/null 2>&1 ||
	die "the run in $RUN_DIR does not pass scripts/verdict.sh $RUN_DIR: its counters do not count"
grep -q '^NETKIT_GCOV_END' "$RESULT" ||
	die "the guest sent no gcov counters on ttyS1 ($RESULT): does qemu/init still end with 'reboot -f' through PATH (qemu/gcov-dump as /usr/sbin/reboot)?"

# The archive between the markers, unpacked; the guest's paths are the
# build directory's (debugfs mirrors the object tree).
rm -rf "$COV/gcda" "$COV/data" "$COV/html"
mkdir -p "$COV/gcda" "$COV/data"
tr -d '\r' <"$RESULT" | sed -n '/^NETKIT_GCOV_BEGIN$/,/^NETKIT_GCOV_END$/p' | sed '1d;$d' |
	base64 -d | tar -xzf - -C "$COV/gcda" ||
	die "cannot unpack the gcov counters from $RESULT"
# Each profiled object's .gcno (from the build) with its .gcda (from the
# guest) in one directory tree for lcov.
mapfile -t objs < <(awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$OBJECTS")
for o in "${objs[@]}"; do
	b=${o%.o}
	gcda=$(find "$COV/gcda" -path "*${KBUILD_OUT}/$b.gcda" | head -n 1)
	[ -n "$gcda" ] || die "no counters for $o from the guest (was it built with gcov? see $COV/gcda)"
	mkdir -p "$COV/data/$(dirname "$b")"
	cp "$KBUILD_OUT/$b.gcno" "$COV/data/$b.gcno"
	cp "$gcda" "$COV/data/$b.gcda"
done
run_logged "$LOG" lcov --quiet --capture --rc lcov_branch_coverage=1 --gcov-tool "$GCOV_TOOL" \
	--directory "$COV/data" --output-file "$COV/all.info"
# The series' files: the profiled sources and the series' own headers
# (their inline functions, counted in every profiled object that uses
# them).
patterns=()
for o in "${objs[@]}"; do patterns+=("$TREE/${o%.o}.c"); done
patterns+=("$TREE/include/linux/bpf_mprog.h" "$TREE/include/net/tcx.h" "$TREE/include/net/netkit.h")
run_logged "$LOG" lcov --quiet --rc lcov_branch_coverage=1 --extract "$COV/all.info" "${patterns[@]}" \
	--output-file "$COV/series.info"
tree_git rev-parse refs/netkit/applied >"$COV/applied"
# What ran, for make mutate (its mutants on lines no test ran are not
# booted: that needs the default set's coverage).
cp "$RUN_DIR/selection" "$COV/selection"
run_logged "$LOG" genhtml --quiet --branch-coverage --legend --prefix "$TREE" \
	--title "netkit-6.1 series, make coverage ($(tree_git log -1 --format=%h refs/netkit/applied))" \
	--output-directory "$COV/html" "$COV/series.info"
rc=0
python3 "$TOP/scripts/coverage/summary.py" --tree "$TREE" --info "$COV/series.info" --objects "$OBJECTS" \
	--unrun "$UNRUN" --new "$COV/unrun-new.txt" >"$COV/summary.md" || rc=$?
cat "$COV/summary.md"
[ "$rc" -eq 0 ] || die "lines of netkit.c, mprog.c or tcx.c did not run and are not explained in selftests/coverage-unrun.txt: $COV/unrun-new.txt lists them (add each with its reason)"
step_done "HTML $COV/html/index.html, summary $COV/summary.md"
