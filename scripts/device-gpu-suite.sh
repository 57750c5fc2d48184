#!/usr/bin/env bash
# Runs the CUDA engine tests, compute-sanitizer (memcheck, racecheck, synccheck) and the
# benchmark on a GPU machine against a build made elsewhere (nothing is
# built here), then prints a short summary table.
#
#   bash scripts/device-gpu-suite.sh BUILD_DIR
#
# Run from the repository root. Logs go to $OUT (if set) or ./gpu-suite-logs.
# Test data: $SSIM2_TESTDATA, else shared/testdata, ../shared/testdata or the
# path compiled into the tests. The whole run stays under ~8 minutes: every
# step gets at most what is left of a 460 s budget. The `ssim2 --pairs` steps
# run the tool, which needs GLib/GStreamer and libsoup: `source .gstkit/env.sh`
# (../shared/device/README.md) and put the lib/ folder of
# scripts/make-device-clips.sh on LD_LIBRARY_PATH first.
set -u
BUILD=${1:?usage: $0 BUILD_DIR}
LOG=${OUT:-$PWD/gpu-suite-logs}
mkdir -p "$LOG"
START=$(date +%s)
BUDGET=460
SANITIZER=${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
command -v "$SANITIZER" >/dev/null 2>&1 || SANITIZER=$(command -v compute-sanitizer || echo "")

TESTDATA=${SSIM2_TESTDATA:-}
for d in shared/testdata ../shared/testdata; do
  if [ -z "$TESTDATA" ] && [ -f "$d/scores.csv" ]; then TESTDATA=$(cd "$d" && pwd); fi
done

declare -a NAMES RESULTS
# step NAME LIMIT_SECONDS COMMAND...: runs with a timeout, logs to $LOG/NAME.log
step() {
  local name=$1 limit=$2
  shift 2
  local left=$((BUDGET - ($(date +%s) - START)))
  if [ "$left" -le 5 ]; then
    NAMES+=("$name"); RESULTS+=("not run (time budget)")
    return
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local t0=$(date +%s)
  timeout "$limit" "$@" >"$LOG/$name.log" 2>&1
  local rc=$?
  local dt=$(($(date +%s) - t0))
  local what
  case $rc in
    0) what="PASS" ;;
    77) what="SKIP" ;;
    124) what="TIMEOUT after ${limit}s" ;;
    *) what="FAIL (exit $rc)" ;;
  esac
  NAMES+=("$name"); RESULTS+=("$what, ${dt}s")
  echo "== $name: $what (${dt}s)"
  if [ $rc -ne 0 ]; then tail -n 25 "$LOG/$name.log"; fi
}

echo "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 | tee "$LOG/nvidia-smi.txt"
nvidia-smi >>"$LOG/nvidia-smi.txt" 2>&1
echo "testdata: ${TESTDATA:-not found}"

T=$BUILD/tests/cuda
step layout 30 "$T/test_cuda_layout"
step stages 120 "$T/test_cuda_stages"
step formats 120 "$T/test_cuda_formats"
step signature 60 "$T/test_cuda_signature"
# EngineOptions::sequential_sums: the kernels against the loop, the engine's
# sub-scores against the CPU backend's, bit for bit.
step sequential-sums 120 "$T/test_cuda_sequential_sums"
# The CUDA cases of the core suites (their CPU cases run in CI).
step contract 60 "$BUILD/tests/test_scorer_contract" --gtest_filter='*/cuda'
if [ -n "$TESTDATA" ]; then
  step parity 240 env SSIM2_TESTDATA="$TESTDATA" "$BUILD/tests/test_parity" --gtest_filter='*/cuda'
else
  step parity 240 "$BUILD/tests/test_parity" --gtest_filter='*/cuda'
fi
# HDR: the PQ/HLG pairs on the CPU path and the CUDA engine (the reference's
# digits, one-shot, cached and in batches). The CUDA engine's PQ/HLG planes
# against the CPU path's run in the stages step (HdrInputsConvertAsOnTheCpuPath).
step hdr 240 "$BUILD/tests/test_hdr_parity"
if [ -n "$SANITIZER" ]; then
  step memcheck-stages 90 "$SANITIZER" --tool memcheck --report-api-errors no --error-exitcode 1 "$T/test_cuda_stages" --quick
  step memcheck-formats 90 "$SANITIZER" --tool memcheck --report-api-errors no --error-exitcode 1 "$T/test_cuda_formats" --quick
  step memcheck-signature 60 "$SANITIZER" --tool memcheck --report-api-errors no --error-exitcode 1 "$T/test_cuda_signature"
  step memcheck-contract 90 "$SANITIZER" --tool memcheck --report-api-errors no --error-exitcode 1 "$BUILD/tests/test_scorer_contract" --gtest_filter='*/cuda'
  step memcheck-sequential-sums 90 "$SANITIZER" --tool memcheck --report-api-errors no --error-exitcode 1 "$T/test_cuda_sequential_sums" --quick
  step racecheck-sequential-sums 90 "$SANITIZER" --tool racecheck --error-exitcode 1 "$T/test_cuda_sequential_sums" --quick
  step racecheck-stages 120 "$SANITIZER" --tool racecheck --error-exitcode 1 "$T/test_cuda_stages" --quick
  # Barriers: a __syncthreads reached from different code paths of one block
  # (e.g. warp-specialised kernels) runs fine on the H200 but is undefined;
  # synccheck reports it as "Barrier error detected. Divergent thread(s)".
  step synccheck-stages 60 "$SANITIZER" --tool synccheck --error-exitcode 1 "$T/test_cuda_stages" --quick
  step synccheck-sequential-sums 60 "$SANITIZER" --tool synccheck --error-exitcode 1 "$T/test_cuda_sequential_sums" --quick
else
  NAMES+=("sanitizer"); RESULTS+=("compute-sanitizer not found")
fi
step bench 150 "$BUILD/tools/ssim2-bench" --seconds 1
# Content alignment's cost against the scoring time, CPU path and GPU path
# (the <= 3 % target; docs/PERFORMANCE.md).
step align-bench 60 "$BUILD/tools/ssim2-align-bench" --repeats 10
if [ -n "$TESTDATA" ]; then
  # ssim2 --pairs on the GPU: every row against the single-pair command, then
  # its rate against the decode-only rate (and --device all with two GPUs).
  step pairs-cli 120 python3 tests/cli/test_pairs_cli.py "$BUILD/tools/ssim2" "$TESTDATA"
  # The image mode's --json on the GPU (sequential sums) byte for byte the CPU's.
  step json-cuda-vs-cpu 120 bash scripts/json-cuda-vs-cpu.sh "$BUILD" "$TESTDATA"
  step pairs-rate 90 env TESTDATA="$TESTDATA" bash scripts/pairs-rate.sh "$BUILD" 200
fi

echo
echo "## GPU suite summary ($(($(date +%s) - START)) s)"
echo
echo "| step | result |"
echo "|---|---|"
for i in "${!NAMES[@]}"; do echo "| ${NAMES[$i]} | ${RESULTS[$i]} |"; done
if [ -f "$LOG/parity.log" ]; then
  echo
  grep -E "^(parity|features|scores) \(cuda\)" "$LOG/parity.log" || true
fi
if [ -f "$LOG/bench.log" ]; then
  echo
  echo "Benchmark (pairs/s; device-resident inputs unless named; see docs/PERFORMANCE.md):"
  echo
  sed -n '/^| size/,$p' "$LOG/bench.log"
  echo
  echo "Frame signatures of device-resident frames (content alignment, docs/ALIGNMENT.md):"
  echo
  grep '^SIGNATURE' "$LOG/bench.log" || true
fi
if [ -f "$LOG/align-bench.log" ]; then
  echo
  echo "Content alignment per frame pair against scoring (target <= 3 %; docs/PERFORMANCE.md):"
  echo
  grep '^ALIGNMENT' "$LOG/align-bench.log" || true
fi
if [ -f "$LOG/pairs-rate.log" ]; then
  echo
  echo "ssim2 --pairs, 1080p PNG pairs (see docs/PERFORMANCE.md):"
  echo
  sed -n '/^| run/,$p' "$LOG/pairs-rate.log"
fi
echo
echo "logs: $LOG"
for i in "${!RESULTS[@]}"; do
  case ${RESULTS[$i]} in PASS*|SKIP*) ;; *) exit 1 ;; esac
done
exit 0
