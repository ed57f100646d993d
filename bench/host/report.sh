#!/usr/bin/env bash
# bench-report: turn the bench guest's console ($BENCH_OUT/console.log,
# default $BUILD/bench/$BENCH) and raw port (raw.log next to it) into the
# tables (markdown and CSV) and the chart (gnuplot PNG and SVG) there,
# with bench/host/report.py; print the tables and the paths. Fails, naming it,
# when a topology passed no traffic or a tool failed, when a scale run is
# missing, when the guest did not finish or exited non-zero. Kernel
# trouble on the console fails the run before, in scripts/verdict.sh's
# bench mode (bench/host/run.sh).
set -euo pipefail
# shellcheck source=../../scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"
# shellcheck source=../modes.sh
. "$TOP/bench/modes.sh"

bench_mode
LOGDIR=$BUILD/bench/logs
BENCH_DIR=${BENCH_OUT:-$BUILD/bench/$MODE}
CONSOLE=$BENCH_DIR/console.log
RAW=$BENCH_DIR/raw.log

step bench-report
[ -f "$CONSOLE" ] || die "no console log at $CONSOLE; run: make bench BENCH=$MODE"
command -v python3 >/dev/null || die "python3 not found; run: scripts/install-deps.sh bench"
rc=0
# make bench-kernels prints one table of all its kernels (bench-compare):
# there each kernel's own tables only go to its bench.md. (Not through
# >/dev/stdout: when make's output is a file, that opens it anew and
# truncates what the earlier steps wrote.)
if [ "$MODE" = kernels ]; then
	python3 "$TOP/bench/host/report.py" "$CONSOLE" "$RAW" "$BENCH_DIR" 2>"$LOG" >/dev/null || rc=$?
else
	python3 "$TOP/bench/host/report.py" "$CONSOLE" "$RAW" "$BENCH_DIR" 2>"$LOG" || rc=$?
fi
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
