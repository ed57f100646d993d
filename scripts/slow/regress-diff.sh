#!/usr/bin/env bash
# regress-diff: compare the base and the patched run of make regress, test
# by test and subtest by subtest: what newly fails, what newly passes, what
# vanished, and new kernel splats. Ends in one line, "regress: N new
# failures", and fails if N > 0.
set -euo pipefail
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=regress-lib.sh
. "$(dirname "$0")/regress-lib.sh"

OUT=$BUILD/regress
step regress-diff
for side in base patched; do
	"$TOP/scripts/verdict.sh" "$OUT/$side" >/dev/null 2>&1 ||
		die "the $side run in $OUT/$side does not pass scripts/verdict.sh $OUT/$side; run: make regress"
done

# results CONSOLE: "name<TAB>OK|FAIL|SKIP" for every test and subtest line
# of test_progs ("#12 name:OK", "#12/3 name/sub:FAIL", "... (SKIP: 1/4)").
results() {
	tr -d '\r' <"$1" | sed -nE 's@^#[0-9]+(/[0-9]+)?[[:space:]]+(.+):(OK|FAIL|SKIP)( \(SKIP: [0-9]+/[0-9]+\))?$@\2\t\3@p' |
		sort -t "$(printf '\t')" -k1,1 -u
}
# splats CONSOLE: the kernel's own problem reports (lib.sh's
# KERNEL_SPLAT_RE, as the verdict scans them), without line numbers,
# timestamps and addresses, one per line.
splats() {
	kernel_splats "$1" | sed -E 's/^[0-9]+://; s/^.*\[ *[0-9]+\.[0-9]+\] //; s/0x[0-9a-f]+/ADDR/g; s/[0-9]+ PID: [0-9]+/N/g' | sort -u
}

results "$OUT/base/console.log" >"$OUT/base.results"
results "$OUT/patched/console.log" >"$OUT/patched.results"
join -t "$(printf '\t')" -a1 -a2 -e NONE -o 0,1.2,2.2 "$OUT/base.results" "$OUT/patched.results" >"$OUT/joined"

newfail=$(awk -F'\t' '$3 == "FAIL" && $2 != "FAIL" && $2 != "NONE"' "$OUT/joined")
newpass=$(awk -F'\t' '$2 == "FAIL" && $3 == "OK"' "$OUT/joined")
newskip=$(awk -F'\t' '$2 == "OK" && $3 == "SKIP"' "$OUT/joined")
vanished=$(awk -F'\t' '$2 != "NONE" && $3 == "NONE"' "$OUT/joined")
added=$(awk -F'\t' '$2 == "NONE" && $3 != "NONE"' "$OUT/joined")
both_fail=$(awk -F'\t' '$2 == "FAIL" && $3 == "FAIL"' "$OUT/joined")
new_splats=$(comm -13 <(splats "$OUT/base/console.log") <(splats "$OUT/patched/console.log"))

show() { # show TITLE LINES
	local n=0
	[ -z "$2" ] || n=$(wc -l <<<"$2")
	printf '%s: %s\n' "$1" "$n"
	[ -z "$2" ] || awk -F'\t' '{ printf "    %-60s base %-5s patched %s\n", $1, $2, $3 }' <<<"$2"
}
for side in base patched; do
	printf '%-8s %s (%s)\n' "$side" "$(grep -E '^Summary:' <(tr -d '\r' <"$OUT/$side/console.log") | tail -n 1)" \
		"$(sed -n 's/.*Linux \([^ ,]*\),.*/\1/p' <(tr -d '\r' <"$OUT/$side/console.log") | head -n 1)"
done
show "newly failing (a regression unless explained)" "$newfail"
show "newly skipped" "$newskip"
show "vanished (ran on the base, not on the patched kernel)" "$vanished"
show "newly passing" "$newpass"
show "only on the patched kernel" "$added"
show "failing on both (not the series' doing)" "$both_fail"
nsplat=0
[ -z "$new_splats" ] || nsplat=$(wc -l <<<"$new_splats")
printf 'kernel splats on the patched console that the base did not have: %s\n' "$nsplat"
[ -z "$new_splats" ] || printf '    %s\n' "$new_splats"

# New failures: tests that fail or skip where the base passed, tests that
# vanished, and new splats. Counted by test (a failing subtest fails its
# test too); the lists above name the subtests.
n=0
for part in "$newfail" "$newskip" "$vanished"; do
	n=$((n + $(awk -F'\t' 'NF && $1 !~ /\//' <<<"$part" | wc -l)))
done
n=$((n + nsplat))
msg "details: $OUT/{base,patched}/console.log, $OUT/joined"
echo "regress: $n new failures"
[ "$n" -eq 0 ] || die "make regress found $n new failures (above)"
step_done "no new failures"
