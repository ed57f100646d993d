#!/usr/bin/env bash
# lint: shellcheck every shell script of the project; every guest test
# has a valid '# area:' header (scripts/select-tests.sh).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

step lint
command -v shellcheck >/dev/null || die "shellcheck not installed; run: make deps"
cd "$TOP"
mapfile -t scripts < <(git ls-files -- 'scripts/*.sh' qemu/init qemu/mutate-init qemu/gcov-dump qemu/debian/stage.sh qemu/debian/netkit-stage .ci/run 'selftests/*.sh' 'bench/*.sh' bench/guest/init)
shellcheck -x "${scripts[@]}"
# Every guest test declares its areas (and a valid order) in its header.
scripts/select-tests.sh --list >/dev/null
step_done "${#scripts[@]} scripts clean, guest test headers valid"
