#!/usr/bin/env bash
# Builds Vship's library and vship-bench (scripts/peers/vship_bench.cpp) on
# the CPU machine, for scripts/device-peer-bench.sh to run on the device:
#   bash scripts/peers/build-vship-bench.sh VSHIP_SOURCE OUT [CUDA_ARCH]
# VSHIP_SOURCE: a checkout of github.com/Line-fr/Vship (not vendored here);
# CUDA_ARCH: sm_90 (the H200) unless given. Vship's own Makefile target
# `buildcuda` with -arch=native cannot run without a GPU, so the same nvcc
# line is used with the architecture named, and -O3 for the host code.
set -euo pipefail
SRC=$(cd "${1:?usage: $0 VSHIP_SOURCE OUT [CUDA_ARCH]}" && pwd)
OUT=${2:?usage: $0 VSHIP_SOURCE OUT [CUDA_ARCH]}
ARCH=${3:-sm_90}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$OUT"
"$NVCC" -x cu "$SRC/src/VshipLib.cpp" -O3 -std=c++17 -I "$SRC/include" -arch="$ARCH" -shared \
  -Xcompiler -fPIC -o "$OUT/libvship.so"
g++ -O2 -std=c++17 -Wall -I "$HERE/tools" -I "$SRC/src" -I /usr/local/cuda/include \
  "$HERE/scripts/peers/vship_bench.cpp" -L "$OUT" -lvship -L /usr/local/cuda/lib64 -lcudart_static \
  -ldl -lpthread -lrt -Wl,-rpath,'$ORIGIN' -o "$OUT/vship-bench"
echo "built $OUT/libvship.so and $OUT/vship-bench (Vship $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo 'source tree'), $ARCH)"
