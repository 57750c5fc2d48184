#!/usr/bin/env bash
# The test command: installs what is missing (install-deps.sh, a no-op when
# everything is there), builds (build.sh) and runs every test suite.
# GPU-only tests report SKIP (exit 77) on machines without a CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
meson test -C "${BUILD_DIR:-build}" --print-errorlogs "$@"
