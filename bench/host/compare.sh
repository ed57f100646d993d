#!/usr/bin/env bash
# bench-compare: the one table of make bench-kernels. bench/host/compare.py
# reads the reports of the kernels' runs ($BENCH_OUT/<kernel>, written by
# bench/host/report.sh) and the run before each ($BENCH_OUT/<kernel>-
# previous), and writes bench.md and bench-kernels.csv to $BENCH_OUT;
# prints the tables and the paths.
set -euo pipefail
# shellcheck source=../../scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

: "${BENCH_OUT:?BENCH_OUT not set (the Makefile sets it)}"
: "${BENCH_KERNELS:?BENCH_KERNELS not set (the Makefile sets it)}"
LOGDIR=$BUILD/bench/logs

step bench-compare
read -r -a kernels <<<"$BENCH_KERNELS"
for k in "${kernels[@]}"; do
	[ -f "$BENCH_OUT/$k/bench-units.csv" ] ||
		die "no instruction table of $k at $BENCH_OUT/$k/bench-units.csv; run: make bench-kernels BENCH_KERNELS=$k"
done
rc=0
python3 "$TOP/bench/host/compare.py" "$BENCH_OUT" "${kernels[@]}" 2>"$LOG" || rc=$?
echo
msg "tables: $BENCH_OUT/bench.md"
msg "CSV:    $BENCH_OUT/bench-kernels.csv"
for k in "${kernels[@]}"; do
	msg "$k's own report: $BENCH_OUT/$k/bench.md"
done
if [ "$rc" -ne 0 ]; then
	cat "$LOG" >&2
	die "bench-compare failed (exit $rc); log: $LOG"
fi
step_done "${#kernels[@]} kernels: ${kernels[*]}"
