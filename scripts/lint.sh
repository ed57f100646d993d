#!/usr/bin/env bash
# lint: shellcheck every shell script of the project.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

step lint
command -v shellcheck >/dev/null || die "shellcheck not installed; run: make deps"
cd "$TOP"
mapfile -t scripts < <(git ls-files -- 'scripts/*.sh' qemu/init .ci/run 'selftests/*.sh' 'bench/*.sh' bench/init)
shellcheck -x "${scripts[@]}"
step_done "${#scripts[@]} scripts clean"
