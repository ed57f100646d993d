#!/usr/bin/env bash
# mutate-run: the mutant loop of make mutate. Draws the sample
# (MUTATE_SEED, MUTATE_MAX) from $BUILD/mutants.tsv, classes out the
# mutants that do not build and those on lines that make coverage never
# ran (no boot for them), then boots the schemata kernel again and again
# through scripts/run-qemu.sh, each boot with qemu/mutate-init as /init and
# a plan of up to MUTATE_PER_BOOT mutants (scripts/mutate.py plan), until
# every mutant of the sample has its verdict; then writes the report
# (scripts/mutate.py report) to $BUILD/mutate-report.md.
#
# The verdicts are kept in $BUILD/results/<identity>.tsv, the identity
# being the kernel, the initramfs and the tests: a run that is stopped
# goes on where it was, and a change to any of them starts afresh.
# The first boot of a new identity is the baseline, every test with no
# mutant selected: it must pass, and its times order and limit the tests.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

: "${MUT_TREE:?MUT_TREE not set (the Makefile sets it)}"
: "${COV_BUILD:?COV_BUILD not set (the Makefile sets it)}"
MUTATE_SEED=${MUTATE_SEED:-1}
MUTATE_MAX=${MUTATE_MAX:-240}
MUTATE_PER_BOOT=${MUTATE_PER_BOOT:-10}
KBUILD_OUT=$BUILD/kernel
BZ=$KBUILD_OUT/arch/x86/boot/bzImage
INITRD=$BUILD/initramfs.cpio
INFO=$COV_BUILD/coverage/series.info
EQUIV=$TOP/selftests/mutate-equivalent.txt

step mutate-run
for f in "$BZ" "$INITRD" "$BUILD/mutants.tsv" "$INFO"; do
	[ -f "$f" ] || die "$f not found; run: make mutate (it builds them) after make coverage"
done
[ "$(cat "$COV_BUILD/coverage/applied" 2>/dev/null)" = "$(tree_git rev-parse refs/netkit/applied)" ] ||
	die "the coverage data are not of the applied series; run: make coverage"

# The tests of each area, as scripts/select-tests.sh selects them for
# T=netkit and T=tcx (every test_progs test and guest test of the area,
# in full), one by one.
# shellcheck disable=SC2016 # expanded by the shell select-tests.sh runs
show='printf "%s;%s\n" "${TEST_ARGS#-t }" "$GUEST_TESTS"'
nk=$(T=netkit GUEST_MODE=full "$TOP/scripts/select-tests.sh" sh -c "$show")
tx=$(T=tcx GUEST_MODE=full "$TOP/scripts/select-tests.sh" sh -c "$show")
python3 "$TOP/scripts/mutate.py" tests --tree "$MUT_TREE" --netkit "$nk" --tcx "$tx" >"$BUILD/tests.tsv"

python3 "$TOP/scripts/mutate.py" sample --mutants "$BUILD/mutants.tsv" --nobuild "$BUILD/nobuild.tsv" \
	--info "$INFO" --seed "$MUTATE_SEED" --max "$MUTATE_MAX" >"$BUILD/sample.tsv"
identity=$(hash_of "$BZ" "$INITRD" "$BUILD/tests.tsv" "$TOP/qemu/mutate-init" "$TOP/scripts/mutate.py")
kernel_id=$(sha256sum "$BZ" | cut -c1-16)
results=$BUILD/results/$identity.tsv
mkdir -p "$BUILD/results"
if [ ! -f "$results" ]; then
	printf '# make mutate verdicts: kernel %s, initramfs %s, %s\n' \
		"$kernel_id" "$(sha256sum "$INITRD" | cut -c1-16)" "$(date -u +%F)" >"$results.new"
	cp "$BUILD/tests.tsv" "$BUILD/results/$identity.tests"
	# Same kernel, tests added or extended (the earlier tests are all
	# still there): a mutant that was killed stays killed, only the
	# survivors run again (after a new baseline).
	prev=$(grep -l "^# make mutate verdicts: kernel $kernel_id," "$BUILD"/results/*.tsv 2>/dev/null |
		xargs -r ls -t | head -n 1 || true)
	if [ -n "$prev" ] && [ -z "$(comm -23 <(sort "${prev%.tsv}.tests") <(sort "$BUILD/tests.tsv"))" ]; then
		awk -F'\t' -v from="$(basename "$prev" .tsv)" 'BEGIN { OFS = "\t" }
			!/^#/ && $1 != 0 && ($2 == "killed" || $2 == "timeout" || $2 == "crash") {
				$5 = ($5 == "" ? "" : $5 "; ") "carried over from " from; print }' "$prev" >>"$results.new"
		msg "the kernel of $(basename "$prev"): $(grep -vc '^#' "$results.new" || true) killed mutants carried over, the rest runs"
	fi
	mv "$results.new" "$results"
fi
n_run=$(awk -F'\t' 'NR > 1 && $9 == "run"' "$BUILD/sample.tsv" | wc -l)
msg "sample (MUTATE_SEED=$MUTATE_SEED, MUTATE_MAX=$MUTATE_MAX): $(($(wc -l <"$BUILD/sample.tsv") - 1)) mutants, $n_run to run," \
	"$(awk -F'\t' '$9 == "nobuild"' "$BUILD/sample.tsv" | wc -l) do not build," \
	"$(awk -F'\t' '$9 == "notexec"' "$BUILD/sample.tsv" | wc -l) never executed by make coverage; verdicts in $results"

boot=0 t0=$(date +%s)
while :; do
	dir=$BUILD/boot
	rm -rf "$dir"
	mkdir -p "$dir/root/etc/netkit-6.1"
	plan=$(python3 "$TOP/scripts/mutate.py" plan --sample "$BUILD/sample.tsv" --results "$results" \
		--tests "$BUILD/tests.tsv" --per-boot "$MUTATE_PER_BOOT" --dir "$dir")
	[ "$plan" != "done" ] || break
	IFS=$'\t' read -r cmdline limit <<<"$plan"
	cp "$dir/plan" "$dir/root/etc/netkit-6.1/mutate-plan"
	cp "$dir/tests" "$dir/root/etc/netkit-6.1/mutate-tests"
	install -m 0755 "$TOP/qemu/mutate-init" "$dir/root/mutate-init"
	boot=$((boot + 1))
	done_n=$(awk -F'\t' '!/^#/ && $1 != 0 && $2 != "test" && $2 != "retry" { print $1 }' "$results" | sort -u | wc -l)
	msg "boot $boot ($(($(date +%s) - t0))s, $done_n of $n_run done): mutants $(cut -d' ' -f1 "$dir/plan" | tr '\n' ' ')"
	rc=0
	BOOT_STEP=mutate-boot BZIMAGE="$BZ" INITRAMFS="$INITRD" CONSOLE="$dir/console" RESULT="$dir/result" \
		EXTRA_ROOT="$dir/root" RUN_TEST_PROGS=no GUEST_TESTS='' TEST_ARGS='' CMDLINE="${CMDLINE:+$CMDLINE }$cmdline" \
		TIMEOUT="$limit" BOOT_TIMEOUT=120 KBUILD_OUT="$KBUILD_OUT" \
		"$TOP/scripts/run-qemu.sh" >"$dir/run-qemu.log" 2>&1 || rc=$?
	python3 "$TOP/scripts/mutate.py" collect --sample "$BUILD/sample.tsv" --results "$results" --dir "$dir" --rc "$rc" ||
		die "boot $boot: no verdict; see $dir/run-qemu.log, $dir/console and $dir/result"
	# the last boot's files stay for a look; a boot with a crash is kept
	if grep -qaE 'Kernel panic|blocked for more than|soft lockup' "$dir/console"; then
		rm -rf "$BUILD/boot-crash-$boot" && cp -a "$dir" "$BUILD/boot-crash-$boot"
	fi
done
secs=$(($(date +%s) - t0))
report=$BUILD/mutate-report.md
python3 "$TOP/scripts/mutate.py" report --sample "$BUILD/sample.tsv" --results "$results" --equivalent "$EQUIV" \
	--title "make mutate, $(date -u +%F), MUTATE_SEED=$MUTATE_SEED MUTATE_MAX=$MUTATE_MAX, series $(tree_git log -1 --format=%h refs/netkit/applied)" >"$report"
if [ "$boot" -gt 0 ]; then
	printf '\n%s boots in %s s this run\n' "$boot" "$secs" >>"$report"
fi
grep '^mutate:' "$report"
step_done "$boot boots, $secs s; report $report"
