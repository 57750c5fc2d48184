#!/usr/bin/env bash
# Configures (once) and builds gst-ssim2 in ./build, with the CUDA engine when
# nvcc is found in PATH or /usr/local/cuda/bin.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
BUILD=${BUILD_DIR:-build}
if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" "$@"
fi
ninja -C "$BUILD"
