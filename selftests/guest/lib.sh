# shellcheck shell=sh
# Helpers of the guest tests, sourced by each first thing (and by
# qemu/debian/stage.sh). A test's standard output is one TAP 13 stream,
# as kselftest's (mainline's tools/testing/selftests/kselftest.h and
# kselftest/ktap_helpers.sh), so that kernel CI systems that read
# kselftest output read it too:
#   TAP version 13                    printed here, when sourced
#   ok N - DESCRIPTION                a check that passed (expect*)
#   not ok N - DESCRIPTION            one that failed; "# ..." lines under
#                                     it show what was found
#   ok N - DESCRIPTION # SKIP REASON  a check not made, and why (skip)
#   # ...                             anything else (diag, diag_lines,
#                                     diag_run: the helpers' output)
#   1..N                              the plan: after the last result (TAP
#                                     13 allows it there; the number of
#                                     checks of most tests varies at run
#                                     time), or first for a test that
#                                     knows it (tap_plan)
# A test ends with tap_finish, which prints the plan if it is still due
# and exits with kselftest's code.

# kselftest's exit codes. A test exits KSFT_FAIL if a check failed,
# KSFT_SKIP if it skipped all it had to check, else KSFT_PASS. No test
# expects a failure: XFAIL and XPASS are kselftest's, named only so that
# nothing else takes 2 and 3.
# shellcheck disable=SC2034 # XFAIL, XPASS: see above
readonly KSFT_PASS=0 KSFT_FAIL=1 KSFT_XFAIL=2 KSFT_XPASS=3 KSFT_SKIP=4

echo "TAP version 13"
# The counts of the results so far: all, passed, failed, skipped.
_tap_n=0 _tap_pass=0 _tap_fail=0 _tap_skip=0
# The N of tap_plan, if the test called it.
_tap_planned=
# The line diag_run's loop stops at (see there).
_tap_end="netkit-6.1 diag_run end $$"

# What make qemu-test selected (scripts/select-tests.sh wrote the record,
# /etc/netkit-6.1/selection in the guest): $smoke is 1 when this test runs
# in its smoke form, and in_areas AREA tells whether AREA was selected (a
# test of several areas runs the part of those). Run by hand without the
# record: the full form, every area (those of the registry, selftests/areas,
# which scripts/make-initramfs.sh installs as /etc/netkit-6.1/areas).
guest_smoke='' areas=$(awk '{ sub(/#.*/, "") } NF && !seen[$1]++ { printf "%s%s", sep, $1; sep = " " }' /etc/netkit-6.1/areas 2>/dev/null) || areas='netkit tcx'
# shellcheck source=/dev/null
[ ! -r /etc/netkit-6.1/selection ] || . /etc/netkit-6.1/selection
smoke=
case " $guest_smoke " in *" $(basename "$0" .sh) "*) smoke=1 ;; esac
in_areas() { case " $areas " in *" $1 "*) return 0 ;; esac; return 1; }

# _tap_line RESULT TEXT [DIRECTIVE]: the result line of the next number.
# TEXT is one line without "#", which would start a directive: newlines
# become spaces, "#" becomes "no.".
_tap_line() {
	_tap_n=$((_tap_n + 1))
	_t=$2
	case $_t in
	*'#'* | *'
'*) _t=$(printf '%s' "$_t" | tr '\n' ' ' | sed 's/#/no./g') ;;
	esac
	printf '%s %s - %s%s\n' "$1" "$_tap_n" "$_t" "${3:+ # $3}"
}
_tap_ok() {
	_tap_pass=$((_tap_pass + 1))
	_tap_line ok "$1"
}
_tap_not_ok() {
	_tap_fail=$((_tap_fail + 1))
	_tap_line 'not ok' "$1"
}

expect() { # expect DESCRIPTION STATUS
	if [ "$2" -eq 0 ]; then
		_tap_ok "$1"
	else
		_tap_not_ok "$1"
	fi
}

expect_ge() { # expect_ge DESCRIPTION VALUE MINIMUM
	if [ -n "$2" ] && [ "$2" -ge "$3" ]; then
		_tap_ok "$1 ($2 >= $3)"
	else
		_tap_not_ok "$1 (${2:-no value}, expected >= $3)"
	fi
}

expect_match() { # expect_match DESCRIPTION EXTENDED-REGEX TEXT
	if printf '%s\n' "$3" | grep -qE "$2"; then
		_tap_ok "$1"
	else
		_tap_not_ok "$1"
		printf '%s\n' "$3" | sed 's/^/# got: /'
	fi
}

# skip DESCRIPTION REASON: a check this run does not make, and why:
# "ok N - DESCRIPTION # SKIP REASON". A skip without a reason is the
# test's own bug and fails.
skip() {
	_r=$(printf '%s' "$2" | tr '\n' ' ')
	if [ -n "$_r" ]; then
		_tap_skip=$((_tap_skip + 1))
		_tap_line ok "$1" "SKIP $_r"
	else
		_tap_not_ok "$1 (skipped without a reason)"
	fi
}

# start_ready OUT COMMAND [ARG...]: COMMAND in the background, its
# standard output to OUT and its error to OUT.err; returns once it has
# said "ready" on its error (a counter whose socket is bound: netkit-tap),
# or after 5 s. Its pid is in $ready_pid, for wait.
start_ready() {
	_out=$1
	shift
	rm -f "$_out.err"
	"$@" >"$_out" 2>"$_out.err" &
	ready_pid=$!
	_i=0
	while ! grep -qx ready "$_out.err" 2>/dev/null && [ "$_i" -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

# diag TEXT...: a diagnostic line, "# TEXT".
diag() {
	printf '# %s\n' "$*"
}

# diag_lines: standard input as diagnostic lines, "# " before each line
# that does not start with "#" already, each as it comes. A loop of the
# shell's read, not a filter program: read takes no more than a line from
# a pipe, where awk or sed may wait for a buffer's worth (diag_run).
diag_lines() {
	while IFS= read -r _l || [ -n "$_l" ]; do
		_tap_diag "$_l"
	done
}
_tap_diag() {
	case $1 in
	'#'*) printf '%s\n' "$1" ;;
	*) printf '# %s\n' "$1" ;;
	esac
}

# diag_run COMMAND [ARG...]: COMMAND's output (standard output and error)
# as diagnostic lines (diag_lines) as it comes; COMMAND's exit status. The
# C helpers print their own "ok - ..."/"not ok - ..." lines, which would
# be results of this test without numbers; as "# ok - ..." they stay in
# the log and the test makes its own check of the helper's status (as
# mainline's kselftest runner prefixes a test's output with "# "). The
# loop stops at a line printed after COMMAND ended, not at the end of the
# pipe: a process COMMAND leaves behind with the pipe open (a thread
# stuck in the kernel: mprog-linkrace's wedged case) cannot hold up the
# test. Without that line (the pipe's writer killed) the status is 1, a
# failure.
diag_run() {
	{
		"$@" 2>&1
		printf '%s %s\n' "$_tap_end" "$?"
	} | (
		while IFS= read -r _l; do
			case $_l in
			*"$_tap_end "*)
				# after COMMAND's last line, or after the end
				# of it if that had no newline
				[ -z "${_l%%"$_tap_end "*}" ] || _tap_diag "${_l%%"$_tap_end "*}"
				exit "${_l##*"$_tap_end "}"
				;;
			esac
			_tap_diag "$_l"
		done
		exit 1
	)
}

# tap_plan N: the plan first, for a test that knows it makes N checks.
# KTAP wants it there (mainline's KTAP parser, tools/testing/kunit, reads
# no plan at the end); TAP 13 allows it at the end too, where tap_end
# prints it for a test that calls no tap_plan.
tap_plan() {
	_tap_planned=$1
	echo "1..$1"
}

# tap_end: the plan after the last result (unless tap_plan printed it),
# kselftest's totals line, and in $ksft_rc the exit status they call for:
# KSFT_FAIL if a check failed, if none was made (a test that checks
# nothing is broken) or if the test made other than the N checks of its
# tap_plan; KSFT_SKIP if every check was skipped; else KSFT_PASS. For a
# script that prints more after its results (qemu/debian/stage.sh: the
# kernel's journal); a test ends with tap_finish.
tap_end() {
	if [ -n "$_tap_planned" ]; then
		[ "$_tap_n" -eq "$_tap_planned" ] ||
			echo "# Planned tests != run tests ($_tap_planned != $_tap_n)"
	else
		[ "$_tap_n" -gt 0 ] || _tap_not_ok "the test made a check"
		echo "1..$_tap_n"
	fi
	echo "# Totals: pass:$_tap_pass fail:$_tap_fail xfail:0 xpass:0 skip:$_tap_skip error:0"
	if [ "$_tap_fail" -gt 0 ] || [ "$_tap_n" -ne "${_tap_planned:-$_tap_n}" ]; then
		ksft_rc=$KSFT_FAIL
	elif [ "$_tap_pass" -eq 0 ]; then
		ksft_rc=$KSFT_SKIP
	else
		ksft_rc=$KSFT_PASS
	fi
}

# tap_finish: the end of a test: tap_end, then exit with $ksft_rc.
tap_finish() {
	tap_end
	exit "$ksft_rc"
}

# pair_to_netns NETNS DEV PEER PREFIX: move PEER, the other end of DEV's
# pair, into NETNS, bring both ends up and address DEV PREFIX.1/24 and
# PEER PREFIX.2/24 (PREFIX is the first three octets, e.g. 10.97.0).
pair_to_netns() {
	ip link set "$3" netns "$1" &&
		ip link set "$2" up &&
		ip addr add "$4.1/24" dev "$2" &&
		ip -n "$1" link set "$3" up &&
		ip -n "$1" addr add "$4.2/24" dev "$3"
}

# wedged REASON: the kernel can no longer run tests (a task holds rtnl
# forever, say): /init runs no further guest test and says why.
wedged() {
	echo "$1" >/run/netkit-6.1-wedged
}

# expect_no_splat MARKER REGEX DESCRIPTION: the kernel log from the line
# MARKER (which the test wrote to /dev/kmsg at its start) on still holds
# that line and has no line matching REGEX; the matches, with 20 lines of
# context, are shown under the check otherwise.
expect_no_splat() {
	_log=$(dmesg | sed -n "\|$1|,\$p")
	[ -n "$_log" ]
	expect "the kernel log still holds the start marker" $?
	_bad=$(printf '%s\n' "$_log" | grep -E -A20 "$2")
	[ -z "$_bad" ]
	expect "$3" $?
	[ -z "$_bad" ] || printf '%s\n' "$_bad" | head -n 80 | sed 's/^/# dmesg: /'
}

# cycles_ok WHAT N CMD...: CMD, a helper's "cycles" of N (netkit-devstate,
# tcx-attach: "... grew_most=CACHE grew_by=K"), ran, and no slab cache
# grew by N / 2 objects or more: an object left behind by each cycle would
# be N.
cycles_ok() {
	_what=$1 _n=$2
	shift 2
	_out=$("$@")
	expect "$* ran ($_out)" $?
	_grew=$(printf '%s\n' "$_out" | sed -n 's/.* grew_by=\([0-9]*\)$/\1/p')
	_most=$(printf '%s\n' "$_out" | sed -n 's/.* grew_most=\([^ ]*\) .*/\1/p')
	[ -n "$_grew" ] && [ "$_grew" -lt $((_n / 2)) ]
	expect "$_n $_what cycles: no slab cache has $((_n / 2)) more objects in use (most: ${_most:-?} +${_grew:-?})" $?
}
