#!/usr/bin/env bash
# Fuzzes the ssim2 tool's image loader: builds tests/fuzz/fuzz_image_loader
# with clang, AddressSanitizer and UndefinedBehaviorSanitizer in ./build-fuzz
# (once) and runs it for SECONDS (default 60) from the seed corpus in
# tests/fuzz/seeds. New inputs go to a temporary folder; a finding stops the
# run with the sanitizer's report, the crashing input is left in ./build-fuzz
# (crash-*), and the script exits non-zero.
#
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${FUZZ_BUILD_DIR:-build-fuzz}
# Every object gets libFuzzer's coverage instrumentation (fuzzer-no-link),
# so that the loader's branches guide the mutations; UBSan findings abort.
flags="-fsanitize=fuzzer-no-link -fno-sanitize-recover=all"
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$build" -Dfuzz=true -Dcuda=disabled -Dgst=disabled \
    -Dtests=disabled -Dbuildtype=debugoptimized -Db_sanitize=address,undefined \
    -Db_lundef=false -Dcpp_args="$flags" -Dc_args="$flags"
fi
ninja -C "$build" tests/fuzz/fuzz_image_loader
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$build"
./tests/fuzz/fuzz_image_loader -max_total_time="$seconds" -max_len=65536 -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 "$corpus" ../tests/fuzz/seeds
