#!/usr/bin/env bash
# select-tests.sh: resolve once what make qemu-test runs - the test_progs
# arguments and the guest tests - from T, TEST_ARGS, GUEST_TESTS,
# GUEST_MODE and CUT, and write it to the run's selection record,
# $RUN_DIR/selection. run-qemu.sh carries that file into the guest as it
# is (/etc/netkit-6.1/selection, which /init and the guest tests read) and
# verdict.sh reads it back: nothing else resolves T.
#
# The record is one 'name=value' line per fact, quoted for sh:
#   filter           what was asked: "T=..." or "the default set"
#   cut              full, netkit, or the last patch applied (CUT=tcx/0006)
#   kernel, debug    KCONFIG (test or debian) and DEBUG (1 or empty)
#   test_progs       the test_progs arguments; empty: test_progs does not run
#   guest_tests      the guest tests, in their order
#   guest_smoke      those of them that run in their smoke form
#   areas            the areas selected (a guest test of several areas runs
#                    the part of the areas selected)
#   left_test_progs  what the filter left out of the default set, for the
#   left_guest       verdict's "left out" line
#
# Every guest test, selftests/guest/<name>.sh, declares the area(s) it
# tests in a header line of its own:
#
#     # area: netkit tcx
#
# The areas are those of selftests/areas, their registry: each with its
# test_progs tests and the folders of patches/series whose cuts have it.
# T is a comma-separated list of terms; each term is
#   - a guest test's name: that guest test;
#   - an area's name: the area's test_progs tests and its guest tests;
#   - anything else: a test_progs -t term, passed on as it is, which also
#     selects the guest tests of the areas of the test_progs tests it
#     matches (test_progs' rule: the test part, before any '/', matches a
#     test whose name contains it; the tree's prog_tests/*.c name the tests),
#     e.g. T=tc_netkit: test_progs' tc_netkit_* and the netkit guest tests.
# A term that selects nothing is an error. Without T, the default set: the
# default test_progs terms and every guest test. TEST_ARGS, when set, is
# the whole test_progs argument list instead of what T selects for it;
# GUEST_TESTS, when set, the guest tests (empty: none). A selection without
# any test_progs term does not run test_progs (an empty test_progs).
#
# The guest tests run in the order of their "# order: N" header lines
# (default 50; ties by name): today's tests from netkit_stats (10) to
# tcx_qdisc (70), a test that may wedge the kernel last (90).
#
# A guest test may have a smoke form, declared by a header line that says
# what it leaves out ("# smoke: ..."; guest_smoke names it). With
# GUEST_MODE=auto (the default), the guest tests that a test_progs term
# brings along run in their smoke form - the edit-test loop of
# T=tc_netkit - and those of the default set, named in T or selected by an
# area run in full; GUEST_MODE=full or smoke sets the form of all.
#
# A guest test of several areas (mprog_linkrace: netkit and tcx) runs the
# part of the areas that T selected (areas; T=tc_netkit: netkit, so
# mprog_linkrace races netkit devices only).
#
# CUT: the series up to a point, in the cut's own tree (the Makefile):
# netkit, the netkit-only cut (up to the last followup/ patch), or a
# patch (CUT=tcx/0006: up to and including it, what make check-positions
# runs). Its default set is the test_progs tests of the areas its kernel
# has (those with a folder of patches/series that the cut applies) that
# its tree has.
# "--list" prints the guest tests with their areas and smoke forms,
# "--default" the default test_progs terms.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

GUEST_DIR=$TOP/selftests/guest
AREAS_FILE=$TOP/selftests/areas
SERIES=$TOP/patches/series

# The registry (its header says the format): AREAS the areas in its order,
# AREA_TESTS[area] the test_progs tests (names, or name prefixes: tc_netkit
# is tc_netkit_basic, tc_netkit_scrub, ...) that test it, AREA_FOLDERS[area]
# the folders of patches/series whose cuts have it. Every word list is
# kept with single spaces (--list prints the tests comma-separated).
AREAS=()
declare -A AREA_TESTS=() AREA_FOLDERS=()
read_areas() {
	local line n=0 w a f
	local -A seen=()
	[ -f "$AREAS_FILE" ] || die "$AREAS_FILE not found (the registry of the areas)"
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		read -r -a w <<<"${line%%#*}"
		[ "${#w[@]}" -ne 0 ] || continue
		a=${w[0]} f=${w[1]:-}
		[ "${#w[@]}" -ge 3 ] || die "selftests/areas:$n: want 'AREA FIELD WORD...', not '$line'"
		[[ $a =~ ^[a-z][a-z0-9_]*$ ]] || die "selftests/areas:$n: '$a' is no area name (lower case letters, digits and '_')"
		[ -z "${seen[$a $f]+x}" ] || die "selftests/areas:$n: area $a has its $f already"
		seen[$a $f]=1
		[ -n "${seen[$a]+x}" ] || AREAS+=("$a")
		seen[$a]=1
		case $f in
		folders) AREA_FOLDERS[$a]=${w[*]:2} ;;
		tests) AREA_TESTS[$a]=${w[*]:2} ;;
		files) ;; # make mutate's (scripts/coverage/mutate.py)
		*) die "selftests/areas:$n: unknown field '$f' (folders, tests or files)" ;;
		esac
	done <"$AREAS_FILE"
	[ "${#AREAS[@]}" -ne 0 ] || die "selftests/areas has no area"
	for a in "${AREAS[@]}"; do
		[ -n "${AREA_FOLDERS[$a]:-}" ] || die "selftests/areas: area $a has no folders (of patches/series, whose cuts have it)"
		AREA_TESTS[$a]=${AREA_TESTS[$a]:-}
	done
}
read_areas

# The folders of the patches of patches/series up to the end (full) or,
# CUT=netkit, up to the first patch of patches/tcx/, where
# scripts/apply-series.sh cuts the netkit-only cut; one a line.
series_folders() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e "${1:+/^$1\//,\$d}" -e 's|/.*||' "$SERIES" | sort -u
}

# The areas a cut's kernel has (CUT_AREAS, in the registry's order): those
# with a folder the cut applies (CUT=<folder>/<patch>: that folder's).
cut=${CUT:-full}
[ -f "$SERIES" ] || die "$SERIES not found"
case $cut in
full) folders=$(series_folders) ;;
netkit) folders=$(series_folders tcx) ;;
*/*) folders=${cut%%/*} ;;
*) die "CUT must be netkit, a patch (CUT=tcx/0006) or empty, not '$cut'" ;;
esac
folders=" ${folders//$'\n'/ } "
CUT_AREAS=
for a in "${AREAS[@]}"; do
	for f in ${AREA_FOLDERS[$a]}; do
		if [[ $folders == *" $f "* ]]; then
			CUT_AREAS+="${CUT_AREAS:+ }$a"
			break
		fi
	done
done
if [ -z "$CUT_AREAS" ]; then
	series_folders | grep -qxF "${cut%%/*}" ||
		die "CUT must be netkit, a patch (CUT=tcx/0006) or empty, not '$cut'"
	die "CUT=$cut: no area has patches/${cut%%/*}/ (the areas of a folder's cuts are in the folders lines of selftests/areas)"
fi

# The areas a guest test declares (its first "# area:" line).
areas_of() {
	local f=$GUEST_DIR/$1.sh a
	[ -f "$f" ] || die "no guest test $1 (selftests/guest/$1.sh)"
	a=$(sed -n 's/^# area:[[:space:]]*//p' "$f" | head -n 1)
	[ -n "$a" ] || die "selftests/guest/$1.sh declares no area: add a '# area: <area>...' header line (areas: ${AREAS[*]})"
	printf '%s\n' "$a"
}

# What a guest test's smoke form leaves out ("": it has none).
smoke_of() { sed -n 's/^# smoke:[[:space:]]*//p' "$GUEST_DIR/$1.sh" | head -n 1; }

# A guest test's place in the run ("# order: N", default 50).
order_of() {
	local o
	o=$(sed -n 's/^# order:[[:space:]]*//p' "$GUEST_DIR/$1.sh" | head -n 1)
	[[ ${o:-50} =~ ^[0-9]+$ ]] || die "selftests/guest/$1.sh: '# order: $o' is not a number"
	printf '%s\n' "${o:-50}"
}

# All guest tests of this cut, in their order: those with an area that the
# cut has (a test of netkit and tcx runs its netkit part on CUT=netkit).
guest_all() {
	local f t a ok areas order
	for f in "$GUEST_DIR"/*.sh; do
		t=$(basename "$f" .sh)
		[ "$t" != lib ] || continue
		areas=$(areas_of "$t") || exit 1
		order=$(order_of "$t") || exit 1
		ok=
		for a in $areas; do
			[ -n "${AREA_TESTS[$a]+x}" ] ||
				die "selftests/guest/$t.sh: unknown area '$a' (areas: ${AREAS[*]}; a new one goes into selftests/areas)"
			[[ " $CUT_AREAS " != *" $a "* ]] || ok=1
		done
		[ -z "$ok" ] || printf '%s %s\n' "$order" "$t"
	done | sort -k1,1n -k2,2 | cut -d' ' -f2
}

# The test_progs tests of the tree (as its Makefile lists them in tests.h).
tp_all() {
	local dir=$TREE/tools/testing/selftests/bpf/prog_tests
	[ -d "$dir" ] || die "no $dir; run: make apply"
	sed -n -E 's/^void (serial_)?test_([a-zA-Z0-9_]+)\((void)?\).*/\2/p' "$dir"/*.c | sort -u
}

# tp_match TERM: the tree's test_progs tests that -t TERM runs.
tp_match() {
	local test=${1%%/*} t
	for t in "${TP_TESTS[@]}"; do
		# shellcheck disable=SC2053 # test_progs' '*' globs, on purpose
		[[ $t == *$test* ]] && printf '%s\n' "$t"
	done
	return 0
}

# The areas of a test_progs test.
tp_areas() {
	local a n
	for a in "${AREAS[@]}"; do
		for n in ${AREA_TESTS[$a]}; do
			if [ "$1" = "$n" ] || [[ $1 == "$n"_* ]]; then
				printf '%s\n' "$a"
				break
			fi
		done
	done
}

# left_out DEFAULT SELECTED: the default terms' tests that are not
# selected, a term whose tests are all left out by its name and count.
left_out() {
	local term t n left out=()
	local -A sel=()
	for t in $2; do sel[$t]=1; done
	for term in ${1//,/ }; do
		n=0 left=()
		while read -r t; do
			[ -n "$t" ] || continue
			n=$((n + 1))
			[ -n "${sel[$t]+x}" ] || left+=("$t")
		done < <(tp_match "$term")
		if [ "${#left[@]}" -eq "$n" ] && [ "$n" -gt 1 ]; then
			out+=("$term ($n tests)")
		elif [ "${#left[@]}" -ne 0 ]; then
			out+=("${left[@]}")
		fi
	done
	printf '%s' "${out[*]}"
}

list_guest() {
	local t a sm
	printf '%-20s %5s  %s\n' "guest test" "order" "areas (their test_progs tests); smoke form"
	for t in $(guest_all); do
		printf '%-20s %5s ' "$t" "$(order_of "$t")"
		for a in $(areas_of "$t"); do
			printf ' %s (%s)' "$a" "${AREA_TESTS[$a]// /,}"
		done
		sm=$(smoke_of "$t")
		printf '%s\n' "${sm:+; smoke: $sm}"
	done
}

# The default test_progs terms: the tests of the cut's areas that its tree
# has (a cut before tc_opts.c has no tc_opts). Without the tree: all.
default_terms() {
	local a n terms=()
	for a in $CUT_AREAS; do
		for n in ${AREA_TESTS[$a]}; do
			if [ "${#TP_TESTS[@]}" -eq 0 ] || [ -n "$(tp_match "$n")" ]; then
				terms+=("$n")
			fi
		done
	done
	(IFS=,; printf '%s\n' "${terms[*]}")
}

TP_TESTS=()
case ${1:-} in
--list)
	guest_all >/dev/null
	list_guest
	exit 0
	;;
--default)
	[ ! -d "$TREE/tools/testing/selftests/bpf/prog_tests" ] || mapfile -t TP_TESTS < <(tp_all)
	default_terms
	exit 0
	;;
'') ;;
*) die "usage: $0 [--list | --default]" ;;
esac
SELECTION=$RUN_DIR/selection

# (The checks of guest_all and tp_all would not stop this shell from a
# process substitution: run them here first.)
guest_all >/dev/null
tp_all >/dev/null
mapfile -t GUEST_ALL < <(guest_all)
# shellcheck disable=SC2034 # read through tp_match
mapfile -t TP_TESTS < <(tp_all)
default_t=$(default_terms)
[ -n "$default_t" ] || die "CUT=$cut: the tree has none of the areas' test_progs tests (${CUT_AREAS})"
filter=${T:-}
tp_terms=() guest=()
# gsel[test]: full (named, by an area, the default set) or along (brought
# along by a test_progs term).
declare -A gsel=()
# asel[area]: the areas T selected, whose part of a guest test runs.
declare -A asel=()
add_guest() { # add_guest TEST full|along
	[ -n "${gsel[$1]+x}" ] || guest+=("$1")
	[ "${gsel[$1]:-}" = full ] || gsel[$1]=$2
}
add_area() { # add_area AREA full|along
	local t a
	asel[$1]=1
	for t in "${GUEST_ALL[@]}"; do
		for a in $(areas_of "$t"); do
			[ "$a" != "$1" ] || add_guest "$t" "$2"
		done
	done
}

if [ -z "$filter" ]; then
	IFS=, read -r -a tp_terms <<<"$default_t"
	for t in "${GUEST_ALL[@]}"; do
		add_guest "$t" full
	done
	for a in $CUT_AREAS; do asel[$a]=1; done
else
	IFS=, read -r -a terms <<<"$filter"
	for term in "${terms[@]}"; do
		[ -n "$term" ] || continue
		if [[ " ${GUEST_ALL[*]} " == *" $term "* ]]; then
			add_guest "$term" full
			for a in $(areas_of "$term"); do
				[[ " $CUT_AREAS " != *" $a "* ]] || asel[$a]=1
			done
		elif [ -f "$GUEST_DIR/$term.sh" ]; then
			die "T=$filter: guest test $term is not part of CUT=$cut (its areas: $(areas_of "$term"))"
		elif [ -n "${AREA_TESTS[$term]+x}" ]; then
			[[ " $CUT_AREAS " == *" $term "* ]] ||
				die "T=$filter: area $term is not part of CUT=$cut"
			read -r -a more <<<"${AREA_TESTS[$term]}"
			tp_terms+=("${more[@]}")
			add_area "$term" full
		else
			matched=$(tp_match "$term")
			[ -n "$matched" ] ||
				die "T=$filter: '$term' is no test_progs test of the tree, no guest test and no area (guest tests: ${GUEST_ALL[*]}; areas: $CUT_AREAS)"
			tp_terms+=("$term")
			for a in $(for t in $matched; do tp_areas "$t"; done | sort -u); do
				add_area "$a" along
			done
		fi
	done
fi

# What T selected for test_progs, and what it leaves out of the default.
tp_list=$(IFS=,; printf '%s' "${tp_terms[*]}")
selected=$(for term in "${tp_terms[@]}"; do tp_match "$term"; done | sort -u)
left_tp=$(left_out "$default_t" "$selected")
if [ "${TEST_ARGS+x}" ]; then
	[ -n "$TEST_ARGS" ] || die "TEST_ARGS is empty: to run no test_progs test, choose guest tests only (T=<guest test>)"
	test_progs=$TEST_ARGS
	left_tp="(TEST_ARGS given)"
elif [ -n "$tp_list" ]; then
	test_progs="-t $tp_list"
else
	test_progs=
fi

if [ "${GUEST_TESTS+x}" ]; then
	for t in $GUEST_TESTS; do
		[ -f "$GUEST_DIR/$t.sh" ] || die "GUEST_TESTS: no selftests/guest/$t.sh"
	done
	guest_tests=$GUEST_TESTS
else
	guest_tests=${guest[*]}
fi
# The smoke forms: of the tests T brought along (auto), of all (smoke).
mode=${GUEST_MODE:-auto}
case $mode in auto | full | smoke) ;; *) die "GUEST_MODE must be auto, full or smoke, not '$mode'" ;; esac
smoke=()
for t in $guest_tests; do
	[ -n "$(smoke_of "$t")" ] || continue
	if [ "$mode" = smoke ] || { [ "$mode" = auto ] && [ "${gsel[$t]:-}" = along ]; }; then
		smoke+=("$t")
	fi
done
left=()
for t in "${GUEST_ALL[@]}"; do
	[[ " $guest_tests " == *" $t "* ]] || left+=("$t")
done
# and the parts of the selected tests whose areas T did not select
areas=$(printf '%s\n' "${!asel[@]}" | sort | tr '\n' ' ')
for t in $guest_tests; do
	part=()
	for a in $(areas_of "$t"); do
		[[ " $CUT_AREAS " != *" $a "* ]] || [ -n "${asel[$a]+x}" ] || part+=("$a")
	done
	[ "${#part[@]}" -eq 0 ] || left+=("$t's ${part[*]} part")
done
[ -n "$test_progs$guest_tests" ] || die "T=$filter selects no test_progs test and no guest test"

# The record, each value quoted for sh (a ' inside becomes '\'').
put() { printf "%s='%s'\n" "$1" "${2//\'/\'\\\'\'}"; }
mkdir -p "$RUN_DIR"
{
	printf '# What make qemu-test runs, resolved once by scripts/select-tests.sh.\n'
	put filter "${filter:+T=$filter}"
	put cut "$cut"
	put kernel "${KCONFIG:-test}"
	put debug "${DEBUG:-}"
	put test_progs "$test_progs"
	put guest_tests "$guest_tests"
	put guest_smoke "${smoke[*]}"
	put areas "${areas% }"
	put left_test_progs "$left_tp"
	put left_guest "${left[*]}"
} >"$SELECTION"
sed -i "s/^filter=''\$/filter='the default set'/" "$SELECTION"
msg "selection: $SELECTION"
