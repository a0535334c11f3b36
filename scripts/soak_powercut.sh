#!/usr/bin/env bash
# Power-cut soak: the power-cut test (tests/crash/test_powercut.c) with many
# more rounds than make check runs (24). Usage: scripts/soak_powercut.sh
# [ROUNDS (default 400)] [BUILD (default build)]. Exit 0 when every round kept
# every acknowledged row and the store opened and checked clean.
set -euo pipefail
rounds=${1:-400}
build=${2:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$build/tests/test_powercut" ] || make -C "$here" build >/dev/null
RK_POWERCUT_SHIM=$(realpath "$build/tests/librk_powercut_shim.so") \
	RK_POWERCUT_ROUNDS=$rounds "$build/tests/test_powercut"
