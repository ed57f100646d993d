#!/usr/bin/env bash
# verdict: read the console log and the exit statuses the guest reported
# and decide. Fails on: no exit status, a non-zero exit status of
# test_progs or of a guest test, a guest test that did not run, no
# test_progs Summary line (when test_progs ran), no test run at all, any
# failed or skipped test, and any kernel panic, oops, BUG or WARN on the
# console. Prints what ran and, for a T= filter, what it left out of the
# default set (scripts/select-tests.sh resolves T and runs this script).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

CONSOLE=${CONSOLE:-$BUILD/console.log}
RESULT=${RESULT:-$BUILD/result}
TEST_ARGS=${TEST_ARGS-}
GUEST_TESTS=${GUEST_TESTS-}
RUN_TEST_PROGS=${RUN_TEST_PROGS:-yes}

step verdict
[ -f "$CONSOLE" ] || die "no console log at $CONSOLE; run: make qemu-test"
# The console is read as text whatever bytes it carries (the fuzzer of
# netkit_badinput names devices with any byte, the kernel logs them):
# every grep below takes -a.
log=$(tr -d '\r' <"$CONSOLE")
problems=() guest_ok=()

# Kernel trouble, as printk formats it: lines with the printk timestamp
# (the console also carries test output, which could quote these words).
# Covers oopses, WARN, KASAN/UBSAN reports, lockdep and RCU-lockdep splats
# ("WARNING: possible circular locking ...", "WARNING: suspicious RCU
# usage"), sleeping in atomic context, stalls and lockups.
oops=$(grep -a -nE '\[ *[0-9]+\.[0-9]+\] .*(Kernel panic - |BUG: |Oops: |WARNING: |-+\[ cut here \]-+|general protection fault|kernel BUG at|UBSAN: |KASAN: |rcu_.*detected stalls|soft lockup|hard LOCKUP|Call Trace:|scheduling while atomic|INFO: task .* blocked for more than)' <<<"$log" || true)
[ -z "$oops" ] || problems+=("kernel reported problems on the console:"$'\n'"$(head -n 20 <<<"$oops")")

# Modules: none refused or tainting for its signature or symbol versions
# (any kernel: the test kernel loads bpf_testmod.ko too); with
# KCONFIG=debian, every one of configs/debian.modules loaded.
modfail=$(grep -a -nE '\[ *[0-9]+\.[0-9]+\] .*(module verification failed|disagrees about version of symbol|Unknown symbol|no symbol version for|Invalid module format)' <<<"$log" || true)
[ -z "$modfail" ] || problems+=("module loading problems on the console:"$'\n'"$(head -n 10 <<<"$modfail")")
if [ "${KCONFIG:-test}" = debian ]; then
	loaded=$(sed -n 's/^netkit-6.1 guest: modules loaded: //p' <<<"$log" | tail -n 1)
	while read -r m; do
		[[ " $loaded " == *" $m "* ]] || problems+=("KCONFIG=debian: module $m not loaded in the guest (lsmod: ${loaded:-nothing})")
	done < <(grep -vE '^[[:space:]]*(#|$)' "$TOP/configs/debian.modules")
fi

# kmemleak: the guest's /init scans after the tests when the kernel has it
# (DEBUG=1). A debug run must show that KASAN and kmemleak were active.
leaks=$(sed -n 's/^NETKIT_KMEMLEAK n=\(-\{0,1\}[0-9]*\).*/\1/p' "$RESULT" 2>/dev/null | tail -n 1)
if [ -n "$leaks" ] && [ "$leaks" != 0 ]; then
	if [ "$leaks" -lt 0 ]; then
		problems+=("kmemleak was off at the end of the run (see the console)")
	else
		problems+=("kmemleak: $leaks unreferenced objects:"$'\n'"$(grep -a -A12 -m3 '^unreferenced object' <<<"$log")")
	fi
fi
if [ "${DEBUG:-}" = 1 ]; then
	grep -a -q 'KernelAddressSanitizer initialized' <<<"$log" ||
		problems+=("DEBUG=1 but the console does not show KASAN initialized")
	[ -n "$leaks" ] || problems+=("DEBUG=1 but the guest made no kmemleak scan")
fi

rc=$(sed -n 's/^NETKIT_RESULT rc=\([0-9]*\).*/\1/p' "$RESULT" 2>/dev/null | tail -n 1)
if [ -z "$rc" ]; then
	problems+=("the guest reported no exit status (crash or reboot before test_progs finished)")
elif [ "$rc" -eq 124 ] && [ "${KCONFIG:-test}" = debian ]; then
	problems+=("the guest could not load the modules of configs/debian.modules (modprobe; see the console)")
elif [ "$rc" -ne 0 ]; then
	problems+=("test_progs exited with status $rc")
fi

for t in $GUEST_TESTS; do
	grc=$(sed -n "s/^NETKIT_GUEST $t rc=\([0-9]*\).*/\1/p" "$RESULT" 2>/dev/null | tail -n 1)
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
if [ "$RUN_TEST_PROGS" = no ]; then
	[ -z "$summary" ] || problems+=("test_progs ran although the filter selected none of its tests")
	[ -n "$GUEST_TESTS" ] || problems+=("no test ran: the filter selected nothing")
	summary="Summary: test_progs not run (${SEL_FILTER:-the filter} selected none of its tests)"
elif [ -z "$summary" ]; then
	problems+=("no test_progs Summary line on the console")
else
	read -r passed subtests skipped failed < <(sed -E 's/^Summary: ([0-9]+)\/([0-9]+) PASSED, ([0-9]+) SKIPPED, ([0-9]+) FAILED.*/\1 \2 \3 \4/' <<<"$summary")
	if [ $((passed + skipped + failed)) -eq 0 ]; then
		problems+=("no test ran: the filter matched nothing (${TEST_ARGS:-})")
	fi
	[ "$skipped" -eq 0 ] || problems+=("$skipped skipped: a skip is a failure here")
	[ "$failed" -eq 0 ] || problems+=("$failed failed")
	: "$subtests"
fi

bad=$(grep -a -E '^#[0-9]+(/[0-9]+)? +[^ ]+:(FAIL|SKIP)' <<<"$log" || true)

# What ran: the test_progs tests the console lists (once each, though a
# failed one is listed again at the end; a family of tests that share
# their first two words as one entry), the guest tests; and
# what the filter left out of the default set.
ran_tp=$(sed -nE 's/^#[0-9]+ +([^ :/]+):(OK|FAIL|SKIP).*/\1/p' <<<"$log" |
	awk -F_ '!seen[$0]++ { k = NF > 2 ? $1 "_" $2 "_*" : $0; n[k]++; if (!(k in o)) o[k] = ++m }
		END { for (k in o) s[o[k]] = k; for (i = 1; i <= m; i++)
			printf "%s%s%s", (i > 1 ? ", " : ""), s[i], (n[s[i]] > 1 ? " (" n[s[i]] ")" : "") }')
ran_guest=()
for t in $GUEST_TESTS; do
	if grep -q "^NETKIT_GUEST $t rc=" "$RESULT" 2>/dev/null; then
		[[ " ${GUEST_SMOKE:-} " == *" $t "* ]] && t="$t (smoke)"
		ran_guest+=("$t")
	fi
done
ran_g=$(printf '%s, ' "${ran_guest[@]}")
ran_g=${ran_g%, }
printf 'ran: test_progs %s; guest tests %s\n' "${ran_tp:-none}" "${ran_g:-none}"
if [ -n "${SEL_FILTER:-}" ] && [ "$SEL_FILTER" != "the default set" ]; then
	printf 'left out by %s: test_progs %s; guest tests %s\n' "$SEL_FILTER" \
		"${SEL_LEFT_TP:-nothing}" "${SEL_LEFT_GUEST:-none}"
fi
printf '%s\n' "${summary:-Summary: (none)}"
[ -z "$leaks" ] || printf 'kmemleak: %s unreferenced objects after the tests\n' "$leaks"
[ "${#guest_ok[@]}" -eq 0 ] || printf 'guest tests passed: %s\n' "${guest_ok[*]}"
if [ "${#problems[@]}" -ne 0 ]; then
	[ -z "$bad" ] || printf '%s\n' "$bad" >&2
	printf '  - %s\n' "${problems[@]}" >&2
	die "qemu-test failed; console log: $CONSOLE"
fi
if [ "$RUN_TEST_PROGS" = no ]; then
	step_done "PASS (no test_progs, ${#guest_ok[@]} guest tests)"
else
	step_done "PASS ($passed tests, $subtests subtests, ${#guest_ok[@]} guest tests)"
fi
