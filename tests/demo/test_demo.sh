#!/usr/bin/env bash
# scripts/demo.sh on the build under test (DEMO_SKIP_BUILD=1): it prints the
# gst-launch line it runs with the element, the per-frame scores, the
# summary, what the mean means and where it was computed, and keeps its
# outputs in the folder it names at the end.
# Usage: test_demo.sh SOURCE_ROOT BUILD_ROOT
set -euo pipefail
src=$1 build=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

log="$out/demo.log"
DEMO_SKIP_BUILD=1 BUILD_DIR="$build" DEMO_DIR="$out/demo" "$src/scripts/demo.sh" >"$log" 2>&1 ||
  { cat "$log"; fail "demo.sh exited $?"; }
cat "$log"

grep -q '^  GST_PLUGIN_PATH=.* gst-launch-1.0 -m ssim2compare name=cmp .*stats-file=' "$log" ||
  fail "no gst-launch line with the element"
grep -q '^    filesrc location=.*reference.mkv ! decodebin ! cmp.ref \\$' "$log" ||
  fail "the gst-launch line lacks the reference branch"
# Its outputs, in the folder it names.
grep -qx "demo: outputs in $out/demo: .*" "$log" || fail "the output folder is not named"
for f in scores.csv summary.txt scores.svg gst-launch.log reference.mkv distorted.mkv; do
  [ -s "$out/demo/$f" ] || fail "$f missing or empty"
done
rows=$(grep -cv '^#' "$out/demo/scores.csv")
[ "$rows" = 91 ] || fail "scores.csv has $((rows - 1)) frames, expected 90"  # and its header
grep -q '<svg' "$out/demo/scores.svg" || fail "scores.svg is no SVG"
# The meaning line: the mean of the summary, placed on the README's scale.
mean=$(awk '$1 == "mean" { printf "%.2f", $2 }' "$out/demo/summary.txt")
grep -Eq "^meaning: mean $mean is (visually lossless|high quality|medium quality|low quality|very low quality)" "$log" ||
  fail "no meaning line for mean $mean"
# Where it was computed: the element's backend, and why the CPU when CUDA is built in.
backend=$(grep '^backend: ' "$log") || fail "no backend line"
if "$build/tools/ssim2" --version | grep -q '^CUDA engine: built in' &&
   [[ $backend != "backend: CUDA"* ]]; then
  [[ $backend == *"the CUDA engine is built in, but no GPU is usable here"* ]] ||
    fail "CPU backend in a CUDA build without saying why: $backend"
fi
[[ $backend =~ ^backend:\ (CPU|CUDA) ]] || fail "backend line: $backend"
echo "demo: all checks passed"
