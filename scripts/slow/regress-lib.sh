# shellcheck shell=bash
# Helpers of make regress, sourced by regress-run.sh and regress-diff.sh.

REGRESS_LIST=${REGRESS_LIST:-$TOP/selftests/regress.list}

# regress_args: test_progs arguments from the list: "-d" with the tests
# marked "!" (excluded, the reason on the same line), and "-a" with the
# tests named on lines of their own, if any (otherwise all tests run).
# Comments start with '#'.
regress_args() {
	local allow deny
	[ -f "$REGRESS_LIST" ] || die "$REGRESS_LIST not found"
	allow=$(sed -e 's/#.*//' "$REGRESS_LIST" | awk 'NF && $1 !~ /^!/ { print $1 }' | paste -sd,)
	deny=$(sed -e 's/#.*//' "$REGRESS_LIST" | awk 'NF && $1 ~ /^!/ { print substr($1, 2) }' | paste -sd,)
	[ -n "$allow$deny" ] || die "$REGRESS_LIST selects nothing"
	printf -- '%s%s\n' "${allow:+-a $allow }" "${deny:+-d $deny}"
}
