#!/usr/bin/env bash
# bench-deps: install the Debian packages 'make bench' needs on top of the
# pipeline's (scripts/install-deps.sh): the load generators and perf copied
# into the bench guest, gnuplot for the chart. Only missing packages are
# installed; without apt-get, or without root/sudo, they are named and the
# step fails.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

PACKAGES=(iperf3 sockperf linux-perf gnuplot-nox python3)
LOGDIR=$BUILD/bench/logs

step bench-deps
missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed ||
		missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
	step_done "all ${#PACKAGES[@]} packages present"
	exit 0
fi

msg "missing: ${missing[*]}"
command -v apt-get >/dev/null ||
	die "apt-get not found; install these packages by hand: ${missing[*]}"

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null ||
		die "not root and no sudo; as root run: apt-get install ${missing[*]}"
	SUDO=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
run_logged "$LOG" "${SUDO[@]}" apt-get update -q
run_logged "$LOG" "${SUDO[@]}" apt-get install -y -q \
	--no-install-recommends "${missing[@]}"
step_done "installed ${#missing[@]} packages"
