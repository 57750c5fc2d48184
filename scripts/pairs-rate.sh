#!/usr/bin/env bash
# Pairs per second of `ssim2 --pairs` on the 1080p PNG pairs of the test data,
# against the decode-only rate of the same list, in one run (docs/BATCH.md):
#
#   bash scripts/pairs-rate.sh BUILD [REPEAT] [ssim2 options...]
#
# REPEAT (default 100) is how many times each pair appears in the list. The
# extra options go to every scoring run (e.g. --backend cpu). On a machine
# with two or more GPUs (nvidia-smi -L) it also runs --device 0 and
# --device all. Set TESTDATA to use another test data folder.
set -euo pipefail
BUILD=${1:?usage: pairs-rate.sh BUILD [REPEAT] [ssim2 options...]}
REPEAT=${2:-100}
shift $(( $# >= 2 ? 2 : 1 ))
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TESTDATA=${TESTDATA:-$ROOT/../shared/testdata}
SSIM2=$BUILD/tools/ssim2
[ -x "$SSIM2" ] || { echo "pairs-rate: $SSIM2 not found" >&2; exit 1; }
[ -d "$TESTDATA/images/seeding_1920x1080" ] || { echo "pairs-rate: no test data in $TESTDATA" >&2; exit 1; }

LIST=$(mktemp --suffix=.csv)
trap 'rm -f "$LIST"' EXIT
echo "reference,distorted" > "$LIST"
for _ in $(seq "$REPEAT"); do
  for d in jpeg_q10 jpeg_q30; do
    echo "$TESTDATA/images/seeding_1920x1080/reference.png,$TESTDATA/images/seeding_1920x1080/$d.png" >> "$LIST"
  done
done

# Runs ssim2 on the list, prints "pairs/s" from its summary line.
rate() {
  local err
  err=$("$SSIM2" --pairs "$LIST" "$@" 2>&1 >/dev/null | tail -n 1) || true
  case $err in
    *" pairs/s): "*" 0 failed") ;;
    *) echo "pairs-rate: ssim2 --pairs $* failed: $err" >&2; exit 1 ;;
  esac
  echo "$err" | sed -n 's/.*(\([0-9.]*\) pairs\/s).*/\1/p'
}

echo "pairs-rate: $((2 * REPEAT)) pairs of 1920x1080 PNG, $(nproc) cores, ssim2 options: ${*:-none}"
DECODE=$(rate --decode-only "$@")
SCORE=$(rate "$@")
echo
echo "| run | pairs/s | of decode-only |"
echo "|---|---|---|"
echo "| decode only | $DECODE | 100 % |"
echo "| scored (${*:-default options}) | $SCORE | $(awk -v a="$SCORE" -v b="$DECODE" 'BEGIN { printf "%.0f %%", 100 * a / b }') |"
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${GPUS:-0}" -ge 2 ]; then
  ONE=$(rate --device 0 "$@")
  ALL=$(rate --device all "$@")
  echo "| scored, --device 0 | $ONE | $(awk -v a="$ONE" -v b="$DECODE" 'BEGIN { printf "%.0f %%", 100 * a / b }') |"
  echo "| scored, --device all ($GPUS GPUs) | $ALL | $(awk -v a="$ALL" -v b="$DECODE" 'BEGIN { printf "%.0f %%", 100 * a / b }') |"
fi
