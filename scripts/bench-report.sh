#!/usr/bin/env bash
# bench-report: turn the bench guest's console ($BUILD/bench/$BENCH/
# console.log) and raw port (raw.log next to it) into the tables (markdown
# and CSV) and the chart (gnuplot PNG and SVG) in $BUILD/bench/$BENCH
# (BENCH=full or smoke), with bench/report.py;
# print the tables and the paths. Fails, naming it, when a topology passed
# no traffic or a tool failed, when a scale run is missing, when the guest
# did not finish or exited non-zero, and on kernel trouble on the console.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

BENCH=${BENCH:-full}
case $BENCH in full | smoke) ;; *) die "BENCH must be full or smoke, not '$BENCH'" ;; esac
LOGDIR=$BUILD/bench/logs
BENCH_DIR=$BUILD/bench/$BENCH
CONSOLE=$BENCH_DIR/console.log
RAW=$BENCH_DIR/raw.log

step bench-report
[ -f "$CONSOLE" ] || die "no console log at $CONSOLE; run: make bench BENCH=$BENCH"
command -v python3 >/dev/null || die "python3 not found; run: scripts/install-deps.sh bench"
rc=0
python3 "$TOP/bench/report.py" "$CONSOLE" "$RAW" "$BENCH_DIR" 2>"$LOG" || rc=$?
echo
msg "tables:    $BENCH_DIR/bench.md"
msg "CSV:       $BENCH_DIR/bench-summary.csv $BENCH_DIR/bench-ratios.csv"
msg "           $BENCH_DIR/bench-scale.csv $BENCH_DIR/bench-rounds.csv"
[ ! -f "$BENCH_DIR/bench-units.csv" ] || msg "instructions per unit: $BENCH_DIR/bench-units.csv"
[ ! -f "$BENCH_DIR/bench-profile.csv" ] || msg "instruction profile:   $BENCH_DIR/bench-profile.csv"
msg "chart:     $BENCH_DIR/bench.png $BENCH_DIR/bench.svg"
msg "raw tool output and counters: $RAW"
if [ "$rc" -ne 0 ]; then
	cat "$LOG" >&2
	grep -E '^NKBENCH error' "$CONSOLE" | tr -d '\r' >&2 || true
	die "bench failed (report exit $rc); guest console: $CONSOLE"
fi
step_done "all topologies measured"
