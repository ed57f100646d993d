#!/usr/bin/env bash
# verdict [RUN_DIR]: judge a guest run - the one place that does. Reads
# what the run left in RUN_DIR (default $RUN_DIR, else $BUILD/qemu-test):
#   selection    what was to run (scripts/select-tests.sh)
#   qemu         how QEMU ended (scripts/run-qemu.sh: finished, timeout,
#                boot-timeout)
#   console.log  the console
#   result       the guest's reports (qemu/init: NETKIT_TEST_PROGS,
#                NETKIT_GUEST, NETKIT_KMEMLEAK, NETKIT_INIT, NETKIT_DONE)
# and fails on: a run that timed out or did not finish, an error of /init
# (qemu/errors names them), a non-zero exit status of test_progs or of a
# guest test, a guest test that did not run, no test_progs Summary line
# (when test_progs ran), no test run at all, any failed or skipped test,
# any kernel panic, oops, BUG, WARN, lockdep or KASAN report on the
# console (also after a timeout), a module that failed to load or, on
# Debian's kernel, is missing, and a debug run without KASAN or kmemleak.
# It needs nothing else: a kept run directory is judged by hand the same
# way (scripts/verdict.sh <dir>). Prints what ran and, for a T= filter,
# what it left out of the default set.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

DIR=${1:-${RUN_DIR:-$BUILD/qemu-test}}
CONSOLE=$DIR/console.log
RESULT=$DIR/result

step verdict
for f in selection qemu console.log; do
	[ -f "$DIR/$f" ] || die "no $f in $DIR: not a run directory of scripts/run-qemu.sh; run: make qemu-test"
done
filter='' cut='' kernel=test debug='' test_progs='' guest_tests='' guest_smoke='' left_test_progs='' left_guest=''
# shellcheck source=/dev/null
. "$DIR/selection"
status=$(run_status "$DIR")
# The console is read as text whatever bytes it carries (the fuzzer of
# netkit_badinput names devices with any byte, the kernel logs them):
# every grep below takes -a.
log=$(tr -d '\r' <"$CONSOLE")
reports=$(tr -d '\r' <"$RESULT" 2>/dev/null || true)
problems=() guest_ok=()

# How the run ended. After a timeout the console is still read for kernel
# trouble below: a hang often follows an oops.
case $status in
finished) ;;
timeout | boot-timeout)
	what="the guest did not finish within $(sed -n 's/^timeout=//p' "$DIR/qemu")s (TIMEOUT)"
	[ "$status" = timeout ] ||
		what="/init did not start within $(sed -n 's/^boot_timeout=//p' "$DIR/qemu")s (BOOT_TIMEOUT)"
	problems+=("$status: $what; the last 30 console lines:"$'\n'"$(tail -n 30 <<<"$log")")
	;;
*) problems+=("run-qemu.sh left no status in $DIR/qemu") ;;
esac

# Kernel trouble, as printk formats it (lib.sh's KERNEL_SPLAT_RE: lines
# with the printk timestamp, as the console also carries test output).
# Covers oopses, WARN, KASAN/UBSAN reports, lockdep and RCU-lockdep splats
# ("WARNING: possible circular locking ...", "WARNING: suspicious RCU
# usage"), sleeping in atomic context, stalls and lockups.
oops=$(grep -a -nE "$KERNEL_SPLAT_RE" <<<"$log" || true)
[ -z "$oops" ] || problems+=("kernel reported problems on the console:"$'\n'"$(head -n 20 <<<"$oops")")

# Modules: none refused or tainting for its signature or symbol versions
# (lib.sh's MODULE_PROBLEM_RE; any kernel: the test kernel loads
# bpf_testmod.ko too); on Debian's kernel, every one of
# configs/debian.modules loaded.
modfail=$(grep -a -nE "$MODULE_PROBLEM_RE" <<<"$log" || true)
[ -z "$modfail" ] || problems+=("module loading problems on the console:"$'\n'"$(head -n 10 <<<"$modfail")")
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

# kmemleak: the guest's /init scans after the tests when the kernel has it
# (DEBUG=1). A debug run must show that KASAN and kmemleak were active.
leaks=$(sed -n 's/^NETKIT_KMEMLEAK n=\(-\{0,1\}[0-9]*\).*/\1/p' <<<"$reports" | tail -n 1)
if [ -n "$leaks" ] && [ "$leaks" != 0 ]; then
	if [ "$leaks" -lt 0 ]; then
		problems+=("kmemleak was off at the end of the run (see the console)")
	else
		problems+=("kmemleak: $leaks unreferenced objects:"$'\n'"$(grep -a -A12 -m3 '^unreferenced object' <<<"$log")")
	fi
fi
if [ "$debug" = 1 ]; then
	grep -a -q 'KernelAddressSanitizer initialized' <<<"$log" ||
		problems+=("DEBUG=1 but the console does not show KASAN initialized")
	[ -n "$leaks" ] || problems+=("DEBUG=1 but the guest made no kmemleak scan")
fi

for t in $guest_tests; do
	grc=$(sed -n "s/^NETKIT_GUEST $t rc=\([0-9]*\).*/\1/p" <<<"$reports" | tail -n 1)
	if [ -z "$grc" ]; then
		problems+=("guest test $t did not run")
	elif [ "$grc" -ne 0 ]; then
		problems+=("guest test $t failed (exit $grc):"$'\n'"$(grep -a -E '^not ok' <<<"$log" | head -n 20)")
	else
		guest_ok+=("$t")
	fi
done

summary=$(grep -a -E '^Summary: [0-9]+/[0-9]+ PASSED, [0-9]+ SKIPPED, [0-9]+ FAILED' <<<"$log" | tail -n 1 || true)
passed=0 subtests=0
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
ran_tp=$(sed -nE 's/^#[0-9]+ +([^ :/]+):(OK|FAIL|SKIP).*/\1/p' <<<"$log" |
	awk -F_ '!seen[$0]++ { k = NF > 2 ? $1 "_" $2 "_*" : $0; n[k]++; if (!(k in o)) o[k] = ++m }
		END { for (k in o) s[o[k]] = k; for (i = 1; i <= m; i++)
			printf "%s%s%s", (i > 1 ? ", " : ""), s[i], (n[s[i]] > 1 ? " (" n[s[i]] ")" : "") }')
ran_guest=()
for t in $guest_tests; do
	if grep -q "^NETKIT_GUEST $t rc=" <<<"$reports"; then
		[[ " $guest_smoke " == *" $t "* ]] && t="$t (smoke)"
		ran_guest+=("$t")
	fi
done
ran_g=$(printf '%s, ' "${ran_guest[@]}")
ran_g=${ran_g%, }
printf 'run: %s (%s%s), %s\n' "$DIR" "$filter" "${cut:+, CUT=$cut}" "$status"
printf 'ran: test_progs %s; guest tests %s\n' "${ran_tp:-none}" "${ran_g:-none}"
[ "$filter" = "the default set" ] ||
	printf 'left out by %s: test_progs %s; guest tests %s\n' "$filter" \
		"${left_test_progs:-nothing}" "${left_guest:-none}"
printf '%s\n' "${summary:-Summary: (none)}"
[ -z "$leaks" ] || printf 'kmemleak: %s unreferenced objects after the tests\n' "$leaks"
[ "${#guest_ok[@]}" -eq 0 ] || printf 'guest tests passed: %s\n' "${guest_ok[*]}"
if [ "${#problems[@]}" -ne 0 ]; then
	[ -z "$bad" ] || printf '%s\n' "$bad" >&2
	printf '  - %s\n' "${problems[@]}" >&2
	die "qemu-test failed; console log: $CONSOLE"
fi
if [ -z "$test_progs" ]; then
	step_done "PASS (no test_progs, ${#guest_ok[@]} guest tests)"
else
	step_done "PASS ($passed tests, $subtests subtests, ${#guest_ok[@]} guest tests)"
fi
