#!/usr/bin/env bash
# The tool's image mode on the GPU against the CPU, byte for byte: for every
# pair of the test data, `ssim2 --json` with --backend cuda (sequential sums,
# the image mode's default) and with --backend cpu must print the same JSON
# (the score's 17 digits and all 108 sub-scores), but for the two lines that
# name the backend. Exit 1 when one differs.
#
#   bash scripts/json-cuda-vs-cpu.sh BUILD_DIR TESTDATA_DIR
set -u
BUILD=${1:?usage: $0 BUILD_DIR TESTDATA_DIR}
DATA=${2:?usage: $0 BUILD_DIR TESTDATA_DIR}
if "$BUILD/tools/ssim2" --list-devices | grep -qi "^no CUDA device"; then
  echo "no CUDA device: nothing to compare"
  exit 77
fi
same=0
differ=0
while IFS=, read -r ref dist _; do
  [ "$ref" = reference ] && continue
  cpu=$("$BUILD/tools/ssim2" --backend cpu --json "$DATA/$ref" "$DATA/$dist" | grep -v '"backend')
  gpu=$("$BUILD/tools/ssim2" --backend cuda --json "$DATA/$ref" "$DATA/$dist" | grep -v '"backend')
  if [ -n "$cpu" ] && [ "$cpu" = "$gpu" ]; then
    same=$((same + 1))
  else
    differ=$((differ + 1))
    echo "differs: $ref $dist"
  fi
done <"$DATA/scores.csv"
echo "ssim2 --json, cuda against cpu: $same pairs print identically, $differ differ"
[ "$differ" -eq 0 ] && [ "$same" -gt 0 ]
