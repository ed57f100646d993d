#!/usr/bin/env bash
# mutate-run: the mutant loop of make mutate. Takes a seed no earlier run
# drew (MUTATE_SEED empty: the next one of the registry
# selftests/results/mutate-seeds, which it records; a used seed only with
# MUTATE_REUSE_SEED=1, and then the score is an "after" one), classes out
# the mutants that do not build and those on lines that make coverage
# never ran (no boot for them), draws a sample of MUTATE_MAX of the
# others stratified by file and operator, then boots the schemata kernel
# again and again through scripts/run-qemu.sh, each boot with
# qemu/mutate-init as /init and a plan of up to MUTATE_PER_BOOT mutants
# (scripts/coverage/mutate.py plan; one alone when it is judged again),
# MUTATE_JOBS guests at a time (default: the host's CPUs), until every
# mutant of the sample has its verdict; then writes the report
# (scripts/coverage/mutate.py report: the held-out or after score of the
# population with its 95 % interval) to $BUILD/mutate-report.md, the raw
# verdicts to selftests/results/mutate-verdicts-<seed>.tsv (an after
# round's to mutate-verdicts-<seed>-after.tsv), and a
# finished held-out round's score to the registry: those two files are
# committed.
#
# MUTATE_DEBUG=1 (its own BUILD, the Makefile's): the mutants of the
# debug operators (mutate-gen.py's kernel column) on the debug schemata
# kernel, kmemleak=on; the gate with DEBUG=1's command line.
#
# The verdicts are kept in $BUILD/results/<identity>.tsv, the identity
# being the kernel, the initramfs, the tests and how they are run: a run that is stopped
# goes on where it was (the same seed, still held out), and a change to
# any of them starts afresh. Kills carry over from an earlier results
# file of the same kernel only for an after round, by each mutant's full
# key (mutate.py carry).
# A new identity starts with two runs of the schemata kernel with no
# mutant selected. The gate: make qemu-test's own run of the default set
# (scripts/select-tests.sh, scripts/run-qemu.sh and scripts/verdict.sh in
# $BUILD/qemu-test): the kernel every mutant is judged on must pass the
# one verdict. Then the baseline, every test one by one under
# qemu/mutate-init: it must pass too, and its times order and limit the
# tests.
#
# Where this differs from make qemu-test, and why:
#   - the tests: the same selection records, one per area of
#     selftests/areas (select-tests.sh with T=<area>, GUEST_MODE=full, in
#     $BUILD/select-<area>), whose tests mutate.py splits into single
#     test_progs tests; a mutant is judged by its area's tests only.
#   - the guest: qemu/mutate-init, not qemu/init (rdinit=/mutate-init on
#     the command line comes after run-qemu.sh's rdinit=/init, and the
#     kernel takes the last): it runs the tests one at a time with a
#     mutant selected, stops at the first failure and reboots after a
#     kill. It carries every area's record and puts the mutant's area's
#     one at /etc/netkit-6.1/selection for each guest test, which reads
#     it as under qemu/init (selftests/guest/lib.sh: form and areas).
#   - the verdict: scripts/verdict.sh's mode mutate, in which a failure,
#     a timeout or kernel trouble is the expected outcome (a kill) rather
#     than the run's failure: the verdicts are per mutant
#     (scripts/coverage/mutate.py collect, from the MUT lines, the console
#     and run-qemu.sh's record $dir/qemu). Kernel trouble is lib.sh's
#     KERNEL_SPLAT_RE in both, in the guest too
#     (/etc/netkit-6.1/kernel-splat-re).
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"

: "${MUT_TREE:?MUT_TREE not set (the Makefile sets it)}"
: "${COV_BUILD:?COV_BUILD not set (the Makefile sets it)}"
MUTATE_SEED=${MUTATE_SEED:-}
MUTATE_MAX=${MUTATE_MAX:-300}
MUTATE_REUSE_SEED=${MUTATE_REUSE_SEED:-}
MUTATE_PER_BOOT=${MUTATE_PER_BOOT:-1}
MUTATE_JOBS=${MUTATE_JOBS:-$(nproc)}
KBUILD_OUT=$BUILD/kernel
BZ=$KBUILD_OUT/arch/x86/boot/bzImage
INITRD=$BUILD/initramfs.cpio
INFO=$COV_BUILD/coverage/series.info
EQUIV=$TOP/selftests/mutate-equivalent.txt
REGISTRY=$TOP/selftests/results/mutate-seeds
if [ "${MUTATE_DEBUG:-}" = 1 ]; then
	kind=debug
	# the mutant boots: kmemleak on (a warning is a splat the guest sees,
	# not a panic: the test that caused it is named); the gate: DEBUG=1's
	mut_cmdline='kmemleak=on'
	gate_env=(CMDLINE="${CMDLINE:+$CMDLINE }panic_on_warn=1 kmemleak=on" TIMEOUT=3600 BOOT_TIMEOUT=180)
	gate_debug=1
	# until /init: the debug kernel's, as make qemu-test DEBUG=1 allows it
	mut_boot_timeout=180
else
	kind=test mut_cmdline='' gate_env=() gate_debug='' mut_boot_timeout=120
fi

step mutate-run
for f in "$BZ" "$INITRD" "$BUILD/mutants.tsv"; do
	[ -f "$f" ] || die "$f not found; run: make mutate (it builds them)"
done

# need_coverage: make coverage's data, to draw a sample from (a round
# that goes on has its own). They decide which mutants are never
# executed: they must be of the applied series and of the tests that
# judge the mutants, the default set (the union of T=<area> over the
# areas).
need_coverage() {
	local cov_filter
	if [ ! -f "$INFO" ] ||
		[ "$(cat "$COV_BUILD/coverage/applied" 2>/dev/null)" != "$(tree_git rev-parse refs/netkit/applied)" ]; then
		die "a new sample needs make coverage's data of the applied series ($INFO); run: make coverage, then make mutate"
	fi
	cov_filter=$(
		filter=''
		# shellcheck source=/dev/null
		. "$COV_BUILD/coverage/selection" 2>/dev/null
		printf '%s' "$filter"
	)
	[ "$cov_filter" = "the default set" ] ||
		die "make coverage ran ${cov_filter:-an unknown selection} ($COV_BUILD/coverage/selection), not the default set; run: make coverage without T="
}

# The areas, in the order of selftests/areas, their registry (the first
# word of its lines; scripts/select-tests.sh checks the rest).
mapfile -t AREAS < <(sed 's/#.*//' "$TOP/selftests/areas" | awk 'NF && !seen[$1]++ { print $1 }')
[ "${#AREAS[@]}" -ne 0 ] || die "$TOP/selftests/areas lists no area"

# The tests of each area, as scripts/select-tests.sh selects them for
# T=<area> (every test_progs test and guest test of the area, in full),
# from the worktree's selftests: each area's selection record in
# $BUILD/select-<area>, whose tests mutate.py splits into single tests.
# TEST_ARGS and GUEST_TESTS (make's) would replace what T selects: not
# here.
area_tests() {
	local rec=$BUILD/select-$1
	env -u TEST_ARGS -u GUEST_TESTS T="$1" GUEST_MODE=full TREE="$MUT_TREE" RUN_DIR="$rec" \
		"$TOP/scripts/select-tests.sh" >>"$LOG"
	(
		test_progs='' guest_tests=''
		# shellcheck source=/dev/null
		. "$rec/selection"
		[ -z "$test_progs" ] || [ "${test_progs#-t }" != "$test_progs" ] ||
			die "$rec/selection: test_progs '$test_progs' is not one -t list"
		printf '%s;%s\n' "${test_progs#-t }" "$guest_tests"
	)
}
area_args=() records=()
for a in "${AREAS[@]}"; do
	terms=$(area_tests "$a")
	area_args+=(--area "$a=$terms")
	records+=("$BUILD/select-$a/selection")
done
python3 "$TOP/scripts/coverage/mutate.py" tests --tree "$MUT_TREE" "${area_args[@]}" >"$BUILD/tests.tsv"

# The identity of a round: what its verdicts depend on. The kernel's
# inputs - the schemata worktree's tree (which holds the tree's selftests
# too) and the kernel's .config (which names the compiler, assembler,
# linker and pahole with their versions) -, what the initramfs holds
# (mutate.py manifest: without times and module signatures), the tests,
# and the harness that judges (selftests/areas: which area's tests judge
# a mutant, by its file; qemu/mutate-init, mutate.py and the splat
# pattern), and how a mutant's guest runs (run-qemu.sh DESCRIBE=1: the
# kernel command line, the CPUs and memory, the boot's limit). Inputs and contents, not the bzImage's and the
# cpio's bytes: kbuild makes a new module signing key for every build,
# which the bzImage carries and bpf_testmod.ko is signed with, so no two
# builds match byte for byte, and a round stopped on one machine could
# never go on on another (below: the round kept in the repository).
# The parts, one a line, go into the round's directory too, so that a
# build elsewhere that does not match can say which part differs.
python3 "$TOP/scripts/coverage/mutate.py" manifest "$INITRD" >"$BUILD/initramfs.manifest"
printf '%s %s\n' >"$BUILD/identity.parts" \
	kernel-tree "$(git -C "$MUT_TREE" rev-parse 'HEAD^{tree}')" \
	kernel-config "$(hash_of "$KBUILD_OUT/.config")" \
	initramfs "$(hash_of "$BUILD/initramfs.manifest")" \
	tests "$(hash_of "$BUILD/tests.tsv" "${records[@]}" "$TOP/selftests/areas")" \
	harness "$(hash_of "$TOP/qemu/mutate-init" "$TOP/scripts/coverage/mutate.py" "$KERNEL_SPLAT_RE")" \
	guest "$(VERDICT=mutate RUN_DIR="$BUILD" CMDLINE="${CMDLINE:+$CMDLINE }$mut_cmdline" \
		BOOT_TIMEOUT="$mut_boot_timeout" DESCRIBE=1 "$TOP/scripts/run-qemu.sh" | sha256sum | cut -c1-16)"
identity=$(hash_of "$BUILD/identity.parts")
# a round in the repository that the registry still judges on another
# identity: say which parts differ before mutate.py seed abandons it
for d in "$TOP"/selftests/results/mutate-round-*; do
	[ -f "$d/identity.parts" ] || continue
	if [ "$(awk -F'\t' -v s="${d##*-}" -v k="$kind" '!/^#/ && $1 == s && $3 == k { print $6 }' "$REGISTRY")" = judging ] &&
		[ "$(cat "$d/identity" 2>/dev/null)" != "$identity" ]; then
		msg "the round of seed ${d##*-} ($d) was judged on identity $(cat "$d/identity"), this build is $identity;" \
			"parts that differ: $(diff "$d/identity.parts" "$BUILD/identity.parts" | sed -n 's/^> \([^ ]*\) .*/\1/p' | tr '\n' ' ')" \
			"(initramfs: diff $d/initramfs.manifest $BUILD/initramfs.manifest)"
	fi
done
kernel_id=$(sha256sum "$BZ" | cut -c1-16)

# The seed: held out unless MUTATE_REUSE_SEED=1 asks for a used one.
seed_phase=$(python3 "$TOP/scripts/coverage/mutate.py" seed --registry "$REGISTRY" --seed "$MUTATE_SEED" \
	--reuse "$MUTATE_REUSE_SEED" --identity "$identity" --kernel "$kind" --max "$MUTATE_MAX" --date "$(date -u +%F)") ||
	die "no seed for this run (above)"
read -r seed phase <<<"$seed_phase"
held_out=$(awk -F'\t' -v s="$seed" '!/^#/ && $1 == s { print $6 }' "$REGISTRY")
msg "seed $seed: $phase$([ "$phase" = held-out ] || printf ' (its held-out score: %s)' "$held_out")"

results=$BUILD/results/$identity.tsv
mkdir -p "$BUILD/results"

# A held-out round in the repository, selftests/results/mutate-round-<seed>/:
# its identity (and its parts, and the initramfs's manifest), sample and
# strata from the draw, and its verdicts so far (the results file, copied
# after every boot). Committed with the registry line that says
# "judging", it carries a stopped round to another machine (or a clean
# cache): there, with the same identity, the round goes on with its own
# sample and verdicts, without make coverage (the Makefile then makes
# only the coverage kernel's .config, which mutate-gen.py reads). Removed
# when the round ends (its verdicts are then in mutate-verdicts-<seed>.tsv)
# or is abandoned.
round=$TOP/selftests/results/mutate-round-$seed
for d in "$TOP"/selftests/results/mutate-round-*; do
	if [ ! -d "$d" ] || [ "$d" = "$round" ]; then continue; fi
	other=$(awk -F'\t' -v s="${d##*-}" '!/^#/ && $1 == s { print $6 }' "$REGISTRY")
	if [ "$other" != judging ]; then
		rm -rf "$d"
		msg "$d removed: the registry has its seed ${d##*-} ${other:-not at all}, no longer being judged"
	fi
done
# a round that stopped before any mutant was judged takes a new identity
# (mutate.py seed): its directory goes, and the sample is drawn again
if [ "$phase" = held-out ] && [ -f "$round/sample.tsv" ] &&
	[ "$(cat "$round/identity" 2>/dev/null)" != "$identity" ] &&
	[ "$(awk -F'\t' -v s="$seed" '!/^#/ && $1 == s { print $5 }' "$REGISTRY")" = "$identity" ]; then
	msg "seed $seed: no mutant of its round had been judged on identity $(cat "$round/identity" 2>/dev/null || echo '?'); drawn again on $identity"
	rm -rf "$round"
fi
restore=''
if [ "$phase" = held-out ] && [ -f "$round/sample.tsv" ]; then
	[ "$(cat "$round/identity" 2>/dev/null)" = "$identity" ] ||
		die "$round is of identity $(cat "$round/identity" 2>/dev/null || echo '(none)'), this build's is $identity, though the registry says the round goes on with it; $round and $REGISTRY do not belong together (committed apart?)"
	cp "$round/sample.tsv" "$round/strata.tsv" "$BUILD/"
	if [ -f "$round/results.tsv" ] && [ ! -f "$results" ]; then
		restore=$round/results.tsv
	fi
else
	need_coverage
	python3 "$TOP/scripts/coverage/mutate.py" sample --mutants "$BUILD/mutants.tsv" --nobuild "$BUILD/nobuild.tsv" \
		--info "$INFO" --seed "$seed" --max "$MUTATE_MAX" --kernel "$kind" --strata "$BUILD/strata.tsv" >"$BUILD/sample.tsv"
	if [ "$phase" = held-out ]; then
		rm -rf "$round"
		mkdir -p "$round"
		printf '%s\n' "$identity" >"$round/identity"
		cp "$BUILD/identity.parts" "$BUILD/initramfs.manifest" "$BUILD/sample.tsv" "$BUILD/strata.tsv" "$round/"
	fi
fi
# An after score compares with the held-out one only on the same
# mutants: say whether the sample drawn again is the held-out round's
# (by the mutants' keys; make coverage's data decide which mutants are
# executed, so tests that reach more lines can change the draw).
held_verdicts=$TOP/selftests/results/mutate-verdicts-$seed.tsv
if [ "$phase" = after ] && [ -f "$held_verdicts" ]; then
	read -r n_same n_new < <(awk -F'\t' '
		FNR == NR { if (!/^#/ && $1 != "id") held[$2] = 1; next }
		FNR > 1 && $9 == "run" { if ($13 in held) s++; else n++ }
		END { print s + 0, n + 0 }' "$held_verdicts" "$BUILD/sample.tsv")
	if [ "$n_new" -eq 0 ]; then
		msg "seed $seed: the after sample is the held-out round's ($n_same mutants, the same keys as $(basename "$held_verdicts"))"
	else
		msg "seed $seed: the after sample differs from the held-out round's: $n_new of $((n_same + n_new)) mutants are not in $(basename "$held_verdicts") (make coverage classed them otherwise since; make -o coverage mutate keeps the data the held-out round drew from)"
	fi
fi
# save_round: the verdicts so far into the round's directory, the copy
# and its rename both under the lock collect writes them with (the
# guests' workers save at once: a rename outside it found the other's
# file gone, and its worker stopped)
save_round() {
	[ "$phase" = held-out ] && [ -d "$round" ] || return 0
	# shellcheck disable=SC2016 # expanded by the inner sh
	flock "$results.lock" sh -c 'cp "$1" "$2.new" && mv "$2.new" "$2"' sh \
		"$results" "$round/results.tsv"
}
if [ ! -f "$results" ]; then
	# The gate: make qemu-test on the schemata kernel, no mutant selected.
	gate=$BUILD/qemu-test
	msg "the gate: make qemu-test's default set on the schemata kernel, no mutant selected ($gate)"
	# (DEBUG=1 on the debug kernel: the verdict then wants KASAN and a
	# kmemleak scan, as make qemu-test DEBUG=1's)
	env -u TEST_ARGS -u GUEST_TESTS T='' GUEST_MODE=auto DEBUG="$gate_debug" \
		TREE="$MUT_TREE" RUN_DIR="$gate" "$TOP/scripts/select-tests.sh"
	env "${gate_env[@]}" RUN_DIR="$gate" BZIMAGE="$BZ" INITRAMFS="$INITRD" KBUILD_OUT="$KBUILD_OUT" \
		"$TOP/scripts/run-qemu.sh"
	"$TOP/scripts/verdict.sh" "$gate" ||
		die "the schemata kernel with no mutant selected fails make qemu-test's verdict (run directory $gate): no mutant can be judged on it"
	: >"$results.new"
	if [ -n "$restore" ]; then
		# the round's verdicts first, then this machine's header
		cp "$restore" "$results.new"
		msg "seed $seed: the round goes on from $round: $(awk -F'\t' '!/^#/ && $1 != 0 && $2 != "test" { v[$1] = 1 } END { print length(v) }' "$results.new") mutants with a verdict so far, on $(grep -c '^# make mutate verdicts' "$results.new") machine(s) or caches before this one"
	fi
	printf '# make mutate verdicts: kernel %s, initramfs %s, %s\n' \
		"$kernel_id" "$(sha256sum "$INITRD" | cut -c1-16)" "$(date -u +%F)" >>"$results.new"
	cp "$BUILD/tests.tsv" "$BUILD/results/$identity.tests"
	# An after round on the same kernel with other tests: a mutant that
	# was killed stays killed when it is the same mutant (its key: file,
	# line, operator, text, the file's blob) and its killing test is still
	# there; the rest runs again (after a new baseline). A held-out round
	# carries nothing: its verdicts are all of this suite.
	prev=$(grep -l "^# make mutate verdicts: kernel $kernel_id," "$BUILD"/results/*.tsv 2>/dev/null |
		xargs -r ls -t | head -n 1 || true)
	# A new machine has no results of its own: the seed's committed
	# verdicts stand in when they were judged on this series (the mutant
	# keys then decide, mutant by mutant).
	committed=$TOP/selftests/results/mutate-verdicts-$seed.tsv
	if [ -z "$prev" ] && [ -f "$committed" ]; then
		series=$(head -n 1 "$committed" | sed -n 's/.*, series \([0-9a-f]\{7,\}\)$/\1/p')
		if [ -n "$series" ] && [ "$(tree_git rev-parse -q --verify "$series^{commit}" || true)" = \
			"$(tree_git rev-parse refs/netkit/applied)" ]; then
			prev=$committed
		fi
	fi
	if [ "$phase" = after ] && [ -n "$prev" ]; then
		python3 "$TOP/scripts/coverage/mutate.py" carry --prev "$prev" --name "$(basename "$prev" .tsv)" \
			--mutants "$BUILD/mutants.tsv" --tests "$BUILD/tests.tsv" >>"$results.new"
		msg "from $(basename "$prev"), judged on this kernel: $(grep -vc '^#' "$results.new" || true) killed mutants carried over, the rest runs"
	fi
	mv "$results.new" "$results"
fi
n_run=$(awk -F'\t' 'NR > 1 && $9 == "run"' "$BUILD/sample.tsv" | wc -l)
msg "sample (seed $seed, $phase, MUTATE_MAX=$MUTATE_MAX, $kind kernel): $n_run mutants to run, drawn from" \
	"$(awk -F'\t' 'NR > 1 { n += $3 } END { print n + 0 }' "$BUILD/strata.tsv") executed;" \
	"$(awk -F'\t' 'NR > 1 { n += $5 } END { print n + 0 }' "$BUILD/strata.tsv") do not build," \
	"$(awk -F'\t' 'NR > 1 { n += $4 } END { print n + 0 }' "$BUILD/strata.tsv") never executed by make coverage; verdicts in $results"

# guest_loop SLOT SLOTS [MAX]: boot the schemata kernel again and again,
# each boot with the next plan of guest SLOT of SLOTS (mutate.py plan
# --slot: every SLOTS-th mutant to run), until the slot has none left or
# after MAX boots; the number of boots in $BUILD/boot-SLOT.count. With no
# baseline yet, the plan is the baseline.
guest_loop() {
	local slot=$1 slots=$2 max=${3:-0} dir=$BUILD/boot-$1 boot=0 plan cmdline limit done_n
	while [ "$max" -eq 0 ] || [ "$boot" -lt "$max" ]; do
		rm -rf "$dir"
		mkdir -p "$dir/root/etc/netkit-6.1"
		printf '%s\n' "$KERNEL_SPLAT_RE" >"$dir/root/etc/netkit-6.1/kernel-splat-re"
		for a in "${AREAS[@]}"; do
			cp "$BUILD/select-$a/selection" "$dir/root/etc/netkit-6.1/selection-$a"
		done
		plan=$(python3 "$TOP/scripts/coverage/mutate.py" plan --sample "$BUILD/sample.tsv" --results "$results" \
			--tests "$BUILD/tests.tsv" --per-boot "$MUTATE_PER_BOOT" --dir "$dir" --slot "$slot" --slots "$slots" \
			--cmdline "$mut_cmdline")
		[ "$plan" != "done" ] || break
		IFS=$'\t' read -r cmdline limit <<<"$plan"
		cp "$dir/plan" "$dir/root/etc/netkit-6.1/mutate-plan"
		cp "$dir/tests" "$dir/root/etc/netkit-6.1/mutate-tests"
		install -m 0755 "$TOP/qemu/mutate-init" "$dir/root/mutate-init"
		boot=$((boot + 1))
		echo "$boot" >"$BUILD/boot-$slot.count"
		# the boot's id in the verdicts (mutate.py collect reads it)
		printf 's%s-g%s-b%s-%s\n' "$seed" "$slot" "$boot" "$(date -u +%Y%m%dT%H%M%S)" >"$dir/boot-id"
		done_n=$(awk -F'\t' '!/^#/ && $1 != 0 && $2 != "test" { v[$1] = $2 }
			END { for (i in v) if (v[i] !~ /^(retry|confirm|survived-shared)$/) n++; print n + 0 }' "$results")
		msg "guest $slot boot $boot ($(($(date +%s) - t0))s, $done_n of $n_run done): mutants $(cut -d' ' -f1 "$dir/plan" | tr '\n' ' ')"
		# The project's one boot path and verdict: a run directory of
		# run-qemu.sh's (console.log, result, its record qemu) with the
		# guest's files of $dir/root instead of a selection record, judged
		# by scripts/verdict.sh in its mode mutate, which hands the boot's
		# status and console to mutate.py collect for each mutant's verdict
		# (guests that run at once append to the same results file, under
		# its lock). run-qemu.sh fails only when QEMU could not run.
		VERDICT=mutate VERDICT_ARGS="$BUILD/sample.tsv $results" GUEST_ROOT=dir EXTRA_ROOT="$dir/root" \
			BOOT_STEP=mutate-boot-$slot RUN_DIR="$dir" BZIMAGE="$BZ" INITRAMFS="$INITRD" \
			CMDLINE="${CMDLINE:+$CMDLINE }$cmdline" TIMEOUT="$limit" BOOT_TIMEOUT="$mut_boot_timeout" KBUILD_OUT="$KBUILD_OUT" \
			"$TOP/scripts/run-qemu.sh" >"$dir/run-qemu.log" 2>&1 ||
			die "guest $slot boot $boot: run-qemu.sh failed (QEMU could not run, or exited with an error); see $dir/run-qemu.log"
		"$TOP/scripts/verdict.sh" "$dir" >"$dir/verdict.log" 2>&1 ||
			die "guest $slot boot $boot: no verdict; see $dir/verdict.log, $dir/console.log and $dir/result"
		save_round
		# the last boot's files stay for a look; a boot with a crash is kept,
		# and so is one in which a test failed without reaching its mutant
		# (no verdict: the mutant is judged again, and the failure is a
		# flaky check or a harness fault to look at)
		if grep -qaE 'Kernel panic|blocked for more than|soft lockup' "$dir/console.log"; then
			keep_boot "$dir" "$BUILD/boot-crash-$slot-$boot"
		fi
		if awk -F'\t' -v b="$(cat "$dir/boot-id")" '!/^#/ && $6 == b && $2 == "retry" { f = 1 } END { exit !f }' \
			"$results"; then
			keep_boot "$dir" "$BUILD/boot-retry-$slot-$boot"
			msg "guest $slot boot $boot: a test failed without reaching its mutant (judged again); the boot is kept in $BUILD/boot-retry-$slot-$boot (console.log, result)"
		fi
	done
}

# keep_boot DIR DEST: a boot's files kept for a look, without boot.cpio
# (run-qemu.sh's copy of the whole initramfs)
keep_boot() {
	rm -rf "$2" && cp -a "$1" "$2"
	rm -f "$2/boot.cpio"
}

# The baseline first (one guest), then MUTATE_JOBS guests at a time:
# each QEMU is one vCPU, one host CPU (TCG); the verdicts do not depend on
# how many run beside it (each test's limit is 4x its baseline time).
t0=$(date +%s)
rm -f "$BUILD"/boot-*.count
if ! awk -F'\t' '$1 == 0 && $2 == "survived" { found = 1 } END { exit !found }' "$results"; then
	msg "the baseline: every test once with no mutant selected"
	guest_loop 0 1 1
	mv "$BUILD/boot-0.count" "$BUILD/boot-baseline.count"
fi
# A guest's loop that stops says so at once: its slot's mutants wait for
# the next make mutate, and the run would otherwise go on at a fraction
# of its speed without a word until the others finish.
pids=()
for slot in $(seq 0 $((MUTATE_JOBS - 1))); do
	(
		# (a stop asked for - SIGINT, SIGTERM: 130, 143 - is no failure)
		trap 'rc=$?; case $rc in 0 | 130 | 143) ;; *) msg "guest $slot: its loop stopped (exit $rc, see above); its mutants wait for the next make mutate, the other guests go on" ;; esac' EXIT
		guest_loop "$slot" "$MUTATE_JOBS"
	) &
	pids+=("$!")
done
rc=0
for pid in "${pids[@]}"; do
	wait "$pid" || rc=1
done
[ "$rc" -eq 0 ] || die "a guest's loop stopped (above); the verdicts so far are in $results, a new make mutate goes on from there"
boot=$(cat "$BUILD"/boot-*.count 2>/dev/null | awk '{ n += $1 } END { print n + 0 }')
secs=$(($(date +%s) - t0))
report=$BUILD/mutate-report.md
# an after round's verdicts go beside the held-out round's, not over them
verdicts=$TOP/selftests/results/mutate-verdicts-$seed$([ "$phase" = held-out ] || echo -after).tsv
python3 "$TOP/scripts/coverage/mutate.py" report --sample "$BUILD/sample.tsv" --results "$results" --equivalent "$EQUIV" \
	--strata "$BUILD/strata.tsv" --seed "$seed" --phase "$phase" --kernel "$kind" --held-out "$held_out" \
	--verdicts "$verdicts" --registry "$REGISTRY" \
	--title "make mutate, $(date -u +%F), seed $seed ($phase), MUTATE_MAX=$MUTATE_MAX, $kind kernel, series $(tree_git log -1 --format=%h refs/netkit/applied)" >"$report"
if [ "$boot" -gt 0 ]; then
	printf '\n%s boots in %s s this run\n' "$boot" "$secs" >>"$report"
fi
# a finished held-out round has its score in the registry: its verdicts
# are in $verdicts, its directory goes
if [ -d "$round" ] && [ "$phase" = held-out ] &&
	[ "$(awk -F'\t' -v s="$seed" '!/^#/ && $1 == s { print $6 }' "$REGISTRY")" != judging ]; then
	rm -rf "$round"
	msg "the round of seed $seed is over: $round removed (commit $verdicts and $REGISTRY)"
fi
grep -E '^(mutate:|\*\*(HELD OUT|AFTER)\*\*)' "$report"
step_done "$boot boots, $secs s; report $report; raw verdicts $verdicts (commit it with selftests/results/mutate-seeds)"
