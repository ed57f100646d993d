#!/usr/bin/env bash
# verdict [RUN_DIR]: judge a guest run - the one place that does, for
# every guest of the project. Reads what scripts/run-qemu.sh left in
# RUN_DIR (default $RUN_DIR, else $BUILD/qemu-test): its record (qemu:
# how QEMU ended, which mode judges the run, where the console and the
# result port went), the console and the guest's reports.
#
# Every mode fails on: a run that timed out, did not reach its boot mark
# or stopped stuck (the last 30 console lines are shown), and any kernel
# panic, oops, BUG, WARN, lockdep, KASAN or UBSAN report on the console
# (lib.sh's KERNEL_SPLAT_RE) - also after a timeout, whose console often
# holds the oops that caused it - and modules refused or tainting for
# their signature or symbol versions (MODULE_PROBLEM_RE). Then the mode:
#
#   tests    make qemu-test's guest (qemu/init; also make deb, make
#            coverage, make mutate's gate): what the selection record
#            asked for ran; a non-zero exit status of test_progs or of a
#            guest test, a guest test that did not run, no Summary line,
#            no test at all, a failed or skipped test, an error of /init
#            (qemu/errors), a KCONFIG=debian module not loaded, kmemleak's
#            objects, a DEBUG=1 run without KASAN or kmemleak
#   debian   one stage of make deb-install-test (VERDICT_ARGS: the
#            stage): its final status, every check of qemu/debian/expect
#            reported and none failed; the kernel's journal scanned like
#            the console
#   bench    make bench's guest: the guest's exit status; the numbers are
#            bench/host/report.sh's
#   regress  one side of make regress: test_progs ran to its Summary;
#            failed tests and kernel trouble of a finished run are listed,
#            and scripts/slow/regress-diff.sh judges them against the base
#   mutate   one boot of make mutate's mutant loop (VERDICT_ARGS: its
#            sample and results files): here a failure, a timeout or
#            kernel trouble is a mutant's kill, not the run's failure, so
#            the common checks above are facts handed with the console to
#            scripts/coverage/mutate.py collect, which records a verdict
#            per mutant; the run fails only when no verdict can be had
#
# It needs nothing but the directory: a kept run is judged by hand the
# same way (scripts/verdict.sh <dir>). Prints what ran and, for a T=
# filter, what it left out of the default set.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

DIR=${1:-$RUN_DIR}
[ -f "$DIR/qemu" ] || die "no record qemu in $DIR: not a run directory of scripts/run-qemu.sh; run: make qemu-test"
record() { sed -n "s/^$1=//p" "$DIR/qemu" | tail -n 1; }
mode=$(record verdict)
mode=${mode:-tests}
mode_args=$(record verdict_args)
CONSOLE=$(record console)
RESULT=$(record result)
CONSOLE=${CONSOLE:-$DIR/console.log}
RESULT=${RESULT:-$DIR/result}

step verdict
[ -f "$CONSOLE" ] || die "no console $CONSOLE of the run in $DIR"
status=$(record status)
# The console and the reports are read as text whatever bytes they carry
# (the fuzzer of netkit_badinput names devices with any byte, the kernel
# logs them): every grep below takes -a.
log=$(tr -d '\r' <"$CONSOLE")
reports=$(tr -d '\r' <"$RESULT" 2>/dev/null || true)
problems=()
# What a mode says about the run besides its problems, one line each.
facts=()

# How the run ended. After a timeout the console is still read for
# kernel trouble below: a hang often follows an oops. (A mutant boot's
# end is a fact for its mutants' verdicts: judge_mutate.)
judge_status() {
	local what
	case $status in
	finished) ;;
	timeout | boot-timeout | stuck)
		case $status in
		timeout) what="the guest did not finish within $(record timeout)s$(record limits)" ;;
		boot-timeout) what="the guest's boot mark did not come within $(record boot_timeout)s$(record limits)" ;;
		stuck) what="the boot could not go on: $(record stop_line)" ;;
		esac
		problems+=("$status: $what; the last 30 console lines:"$'\n'"$(tail -n 30 <<<"$log")")
		;;
	*) problems+=("run-qemu.sh left no status in $DIR/qemu") ;;
	esac
}
[ "$mode" = mutate ] || judge_status

# scan_kernel NAME TEXT [ALLOWED-RE]: kernel trouble and module problems
# in TEXT (a console, a journal), as printk formats them (lines with the
# printk timestamp, as a console also carries test output). Kernel
# trouble covers oopses, WARN, KASAN/UBSAN reports, lockdep and
# RCU-lockdep splats, sleeping in atomic context, stalls and lockups;
# lines of the module loader matching ALLOWED-RE are not problems.
# A regress run lists a finished run's trouble (SPLATS_ARE=facts).
scan_kernel() {
	local oops modp
	oops=$(grep -a -nE "$KERNEL_SPLAT_RE" <<<"$2" || true)
	if [ -n "$oops" ]; then
		if [ "${SPLATS_ARE:-problems}" = facts ] && [ "$status" = finished ]; then
			facts+=("kernel trouble on $1 ($(wc -l <<<"$oops") lines; regress-diff compares them with the base's):"$'\n'"$(head -n 20 <<<"$oops")")
		else
			problems+=("kernel reported problems on $1:"$'\n'"$(head -n 20 <<<"$oops")")
		fi
	fi
	modp=$(grep -a -nE "$MODULE_PROBLEM_RE" <<<"$2" || true)
	[ -z "${3:-}" ] || modp=$(grep -avE "$3" <<<"$modp" || true)
	[ -z "$modp" ] || problems+=("module loading problems on $1:"$'\n'"$(head -n 10 <<<"$modp")")
}

# ---- tests: the test guest of qemu/init --------------------------------
# The selection record says what was to run; qemu/init reports on the
# result port: NETKIT_TEST_PROGS, NETKIT_GUEST, NETKIT_KMEMLEAK,
# NETKIT_INIT, NETKIT_DONE.
judge_tests() {
	local t grc rc e meaning leaks loaded m summary passed=0 subtests=0 skipped failed
	[ -f "$DIR/selection" ] || die "no selection in $DIR: not a run of make qemu-test"
	filter='' cut='' kernel=test debug='' test_progs='' guest_tests='' guest_smoke='' left_test_progs='' left_guest=''
	# shellcheck source=/dev/null
	. "$DIR/selection"
	scan_kernel "the console" "$log"
	# On Debian's kernel every one of configs/debian.modules loaded.
	if [ "$kernel" = debian ]; then
		loaded=$(sed -n 's/^netkit-6.1 guest: modules loaded: //p' <<<"$log" | tail -n 1)
		while read -r m; do
			[[ " $loaded " == *" $m "* ]] || problems+=("KCONFIG=debian: module $m not loaded in the guest (lsmod: ${loaded:-nothing})")
		done < <(debian_modules)
	fi
	# /init's own errors, by the names of qemu/errors.
	while read -r e; do
		[ -n "$e" ] || continue
		meaning=$(sed -n "s/^$e	//p" "$TOP/qemu/errors")
		problems+=("the guest's /init stopped: $e: ${meaning:-(not in qemu/errors)}")
	done < <(sed -n 's/^NETKIT_INIT error=\([a-z-]*\).*/\1/p' <<<"$reports")
	if [ "$status" = finished ] && ! grep -qx NETKIT_DONE <<<"$reports" &&
		! grep -q '^NETKIT_INIT error=' <<<"$reports"; then
		problems+=("the guest did not report the end of its run (a crash or reboot before /init finished)")
	fi
	# kmemleak: /init scans after the tests when the kernel has it
	# (DEBUG=1). A debug run must show that KASAN and kmemleak were active.
	leaks=$(sed -n 's/^NETKIT_KMEMLEAK n=\(-\{0,1\}[0-9]*\).*/\1/p' <<<"$reports" | tail -n 1)
	if [ -n "$leaks" ] && [ "$leaks" != 0 ]; then
		if [ "$leaks" -lt 0 ]; then
			problems+=("kmemleak was off at the end of the run (see the console)")
		else
			problems+=("kmemleak: $leaks unreferenced objects:"$'\n'"$(grep -a -A12 -m3 '^unreferenced object' <<<"$log" || true)")
		fi
	fi
	[ -z "$leaks" ] || facts+=("kmemleak: $leaks unreferenced objects after the tests")
	if [ "$debug" = 1 ]; then
		grep -a -q 'KernelAddressSanitizer initialized' <<<"$log" ||
			problems+=("DEBUG=1 but the console does not show KASAN initialized")
		[ -n "$leaks" ] || problems+=("DEBUG=1 but the guest made no kmemleak scan")
	fi
	# The guest tests: each one's exit status (kselftest's codes) and its
	# failed checks (KTAP "not ok" lines).
	local guest_ok=() ran_guest=()
	for t in $guest_tests; do
		grc=$(sed -n "s/^NETKIT_GUEST $t rc=\([0-9]*\).*/\1/p" <<<"$reports" | tail -n 1)
		if [ -z "$grc" ]; then
			problems+=("guest test $t did not run")
			continue
		fi
		if [[ " $guest_smoke " == *" $t "* ]]; then ran_guest+=("$t (smoke)"); else ran_guest+=("$t"); fi
		case $grc in
		"$KSFT_PASS") guest_ok+=("$t") ;;
		"$KSFT_SKIP") problems+=("guest test $t skipped (exit $grc, KSFT_SKIP): a skip is a failure here:"$'\n'"$(grep -a -E '^ok [0-9]+ .*# SKIP' <<<"$log" | head -n 20 || true)") ;;
		*) problems+=("guest test $t failed (exit $grc):"$'\n'"$(grep -a -E '^(# )?not ok' <<<"$log" | head -n 20 || true)") ;;
		esac
	done
	summary=$(grep -a -E '^Summary: [0-9]+/[0-9]+ PASSED, [0-9]+ SKIPPED, [0-9]+ FAILED' <<<"$log" | tail -n 1 || true)
	if [ -z "$test_progs" ]; then
		[ -z "$summary" ] || problems+=("test_progs ran although the filter selected none of its tests")
		[ -n "$guest_tests" ] || problems+=("no test ran: the filter selected nothing")
		summary="Summary: test_progs not run ($filter selected none of its tests)"
	else
		rc=$(sed -n 's/^NETKIT_TEST_PROGS rc=\([0-9]*\).*/\1/p' <<<"$reports" | tail -n 1)
		if [ -z "$rc" ]; then
			problems+=("the guest reported no exit status of test_progs (a crash, reboot or timeout before it finished)")
		elif [ "$rc" -ne 0 ]; then
			problems+=("test_progs exited with status $rc")
		fi
		if [ -z "$summary" ]; then
			problems+=("no test_progs Summary line on the console")
		else
			read -r passed subtests skipped failed < <(sed -E 's/^Summary: ([0-9]+)\/([0-9]+) PASSED, ([0-9]+) SKIPPED, ([0-9]+) FAILED.*/\1 \2 \3 \4/' <<<"$summary")
			[ $((passed + skipped + failed)) -ne 0 ] ||
				problems+=("no test ran: the filter matched nothing ($test_progs)")
			[ "$skipped" -eq 0 ] || problems+=("$skipped skipped: a skip is a failure here")
			[ "$failed" -eq 0 ] || problems+=("$failed failed")
		fi
	fi
	bad=$(grep -a -E '^#[0-9]+(/[0-9]+)? +[^ ]+:(FAIL|SKIP)' <<<"$log" || true)
	# What ran: the test_progs tests the console lists (once each, though a
	# failed one is listed again at the end; a family of tests that share
	# their first two words as one entry), the guest tests; and what the
	# filter left out of the default set.
	local ran_tp ran_g
	ran_tp=$(sed -nE 's/^#[0-9]+ +([^ :/]+):(OK|FAIL|SKIP).*/\1/p' <<<"$log" |
		awk -F_ '!seen[$0]++ { k = NF > 2 ? $1 "_" $2 "_*" : $0; n[k]++; if (!(k in o)) o[k] = ++m }
			END { for (k in o) s[o[k]] = k; for (i = 1; i <= m; i++)
				printf "%s%s%s", (i > 1 ? ", " : ""), s[i], (n[s[i]] > 1 ? " (" n[s[i]] ")" : "") }')
	ran_g=$(printf '%s, ' "${ran_guest[@]}")
	ran_g=${ran_g%, }
	head_lines=("run: $DIR ($filter${cut:+, CUT=$cut}), $status"
		"ran: test_progs ${ran_tp:-none}; guest tests ${ran_g:-none}")
	[ "$filter" = "the default set" ] ||
		head_lines+=("left out by $filter: test_progs ${left_test_progs:-nothing}; guest tests ${left_guest:-none}")
	head_lines+=("${summary:-Summary: (none)}")
	[ "${#guest_ok[@]}" -eq 0 ] || facts+=("guest tests passed: ${guest_ok[*]}")
	if [ -z "$test_progs" ]; then
		pass_note="no test_progs, ${#guest_ok[@]} guest tests"
	else
		pass_note="$passed tests, $subtests subtests, ${#guest_ok[@]} guest tests"
	fi
}

# ---- debian: one stage of make deb-install-test ------------------------
# The stage's report (qemu/debian/stage.sh on the result port): KTAP
# lines "ok N - <check>" / "not ok N - <check>" with "# ..." lines under
# a failed one, the kernel's journal between NETKIT_JOURNAL_BEGIN and
# NETKIT_JOURNAL_END, and last "NETKIT_STAGE <stage> rc=<n>".
judge_debian() {
	local stage=${mode_args%% *} expect=$TOP/qemu/debian/expect rc notok r nok allow journal
	[ -n "$stage" ] || die "a debian run names its stage in verdict_args ($DIR/qemu)"
	grep -q "^$stage	" "$expect" || die "no checks of stage $stage in $expect"
	allow=$(sed -n 's/^allow	//p' "$expect" | paste -sd'|')
	scan_kernel "the console" "$log" "$allow"
	journal=$DIR/journal.log
	sed -n '/^NETKIT_JOURNAL_BEGIN/,/^NETKIT_JOURNAL_END/p' <<<"$reports" >"$journal"
	scan_kernel "the kernel's journal ($journal)" "$(cat "$journal")" "$allow"
	reports=$(sed '/^NETKIT_JOURNAL_BEGIN/,/^NETKIT_JOURNAL_END/d' <<<"$reports")
	rc=$(sed -n "s/^NETKIT_STAGE $stage rc=\([0-9]*\).*/\1/p" <<<"$reports" | tail -n 1)
	if [ -z "$rc" ]; then
		problems+=("the stage reported no final status (it did not run to its end)")
	elif [ "$rc" -ne 0 ]; then
		problems+=("the stage's checks failed (rc=$rc)")
	fi
	# The failed checks with the lines they print under them.
	notok=$(awk '/^not ok/ { p = 1; print; next } p && /^(  |# )/ { print; next } { p = 0 }' <<<"$reports")
	[ -z "$notok" ] || problems+=("failed checks:"$'\n'"$notok")
	while IFS= read -r r; do
		grep -aqE "^(not )?ok( [0-9]+)? - $r" <<<"$reports" ||
			problems+=("the report has no check '$r' (qemu/debian/expect)")
	done < <(sed -n "s/^$stage	//p" "$expect")
	nok=$(grep -acE '^ok( [0-9]+)? - ' <<<"$reports" || true)
	[ "$nok" -gt 0 ] || problems+=("no check passed")
	head_lines=("run: $DIR (make deb-install-test, stage $mode_args), $status, the stage started after $(record booted)s")
	pass_note="$nok checks"
}

# ---- bench: make bench's guest (bench/guest/init) ----------------------
# Its exit status comes on the result port as NKBENCH_RESULT rc=N, after
# the tools' raw output.
judge_bench() {
	local rc
	scan_kernel "the console" "$log"
	rc=$(sed -n 's/^NKBENCH_RESULT rc=\([0-9]*\).*/\1/p' <<<"$reports" | tail -n 1)
	if [ -z "$rc" ]; then
		problems+=("the bench guest reported no exit status (a crash, reboot or timeout before it finished)")
	elif [ "$rc" -ne 0 ]; then
		problems+=("the bench guest exited with status $rc; the last 15 lines of its own on the console:"$'\n'"$(grep -avE '^\[ *[0-9]+\.[0-9]+\] ' <<<"$log" | tail -n 15 || true)")
	fi
	head_lines=("run: $DIR (bench${mode_args:+ $mode_args}), $status")
	pass_note="the bench guest ran to its end; $(grep -ac '^NKBENCH ' <<<"$log" || true) NKBENCH lines"
}

# ---- regress: one side of make regress ---------------------------------
# The same test guest as tests, with regress.list's test_progs set: its
# failures are the comparison's to judge, not this verdict's.
judge_regress() {
	local rc summary
	SPLATS_ARE=facts scan_kernel "the console" "$log"
	rc=$(sed -n 's/^NETKIT_TEST_PROGS rc=\([0-9]*\).*/\1/p' <<<"$reports" | tail -n 1)
	[ -n "$rc" ] || problems+=("the guest reported no exit status of test_progs (a crash, reboot or timeout before it finished)")
	summary=$(grep -a -E '^Summary: [0-9]+/[0-9]+ PASSED' <<<"$log" | tail -n 1 || true)
	[ -n "$summary" ] || problems+=("no test_progs Summary line on the console")
	head_lines=("run: $DIR (make regress, $mode_args), $status" "${summary:-Summary: (none)}")
	pass_note="test_progs ran to its Summary${rc:+ (exit $rc)}; the failures are regress-diff's to compare"
}

# ---- mutate: one boot of make mutate ----------------------------------
judge_mutate() {
	local sample results out
	read -r sample results <<<"$mode_args"
	{ [ -f "$sample" ] && [ -f "$results" ]; } || die "a mutate run names its sample and results files in verdict_args ($DIR/qemu)"
	if out=$(flock "$results.lock" python3 "$TOP/scripts/coverage/mutate.py" collect --sample "$sample" \
		--results "$results" --dir "$DIR" --status "$status" --splat-re "$KERNEL_SPLAT_RE" 2>&1); then
		facts+=("$out")
	else
		problems+=("mutate.py collect found no verdict for this boot:"$'\n'"$out")
	fi
	head_lines=("run: $DIR (make mutate, mutants $(cut -d' ' -f1 "$DIR/plan" 2>/dev/null | tr '\n' ' ' || true)), $status")
	pass_note="each mutant of the boot has its verdict in $results"
}

head_lines=() pass_note='' bad=''
case $mode in
tests) judge_tests ;;
debian) judge_debian ;;
bench) judge_bench ;;
regress) judge_regress ;;
mutate) judge_mutate ;;
*) die "$DIR/qemu: unknown verdict mode '$mode' (tests, debian, bench, regress, mutate)" ;;
esac

printf '%s\n' "${head_lines[@]}"
[ "${#facts[@]}" -eq 0 ] || printf '%s\n' "${facts[@]}"
if [ "${#problems[@]}" -ne 0 ]; then
	[ -z "$bad" ] || printf '%s\n' "$bad" >&2
	printf '  - %s\n' "${problems[@]}" >&2
	die "$mode run failed${mode_args:+ ($mode_args)}: $DIR; console: $CONSOLE"
fi
step_done "PASS ($pass_note)"
