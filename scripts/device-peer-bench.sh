#!/usr/bin/env bash
# Us against a GPU peer in one device call (docs/PERFORMANCE.md, "Against
# Vship"): ssim2-bench and vship-bench on the same pictures (tools/
# bench_common.h), interleaved, on the device machine from the repository root:
#   bash scripts/device-peer-bench.sh BUILD VSHIP_BUILD [SECONDS]
# BUILD: a build carried from the CPU machine (tools/ssim2-bench); VSHIP_BUILD:
# the output of scripts/peers/build-vship-bench.sh. Both from 8-bit RGB in
# pinned host memory (ssim2-bench's host-pinned mode; Vship takes host frames
# only); ssim2-bench's device-resident rows are printed beside them. Logs go
# to $OUT (or /tmp/peer-bench); the last lines are a table.
set -uo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD VSHIP_BUILD [SECONDS]}" && pwd)
VSHIP=$(cd "${2:?usage: $0 BUILD VSHIP_BUILD [SECONDS]}" && pwd)
SECONDS_EACH=${3:-1}
LOG=${OUT:-/tmp}/peer-bench
mkdir -p "$LOG"
SIZES=1920x1080,3840x2160
for run in 1 2; do
  "$BUILD/tools/ssim2-bench" --seconds "$SECONDS_EACH" --sizes $SIZES --engines 1,3,4 --no-cpu \
    >"$LOG/ssim2-$run.txt" 2>&1 || echo "ssim2-bench failed (run $run)"
  "$VSHIP/vship-bench" --seconds "$SECONDS_EACH" --sizes $SIZES --threads 1,3,4 \
    >"$LOG/vship-$run.txt" 2>&1 || { echo "vship-bench failed (run $run)"; tail -3 "$LOG/vship-$run.txt"; }
done
grep -h '^DEVICE' "$LOG/ssim2-1.txt" | head -1
grep -h -E '^(VSHIP-SCORE|VSHIP-MEM)' "$LOG/vship-1.txt"
grep -h -E '^MEM ' "$LOG/ssim2-1.txt"
echo
echo "| size | streams | ssim2 host-pinned | Vship (pinned host frames) | ssim2 / Vship | ssim2 device-resident |"
echo "|---|---|---|---|---|---|"
for size in ${SIZES//,/ }; do
  for t in 1 3 4; do
    ours=$(awk -v s="$size" -v t="$t" '$1 == "BENCH" && $2 == s && $3 == t && $4 == "host-pinned" {printf "%s%.0f", sep, $5; sep=" / "}' "$LOG"/ssim2-*.txt)
    dev=$(awk -v s="$size" -v t="$t" '$1 == "BENCH" && $2 == s && $3 == t && $4 == "device" {printf "%s%.0f", sep, $5; sep=" / "}' "$LOG"/ssim2-*.txt)
    theirs=$(awk -v s="$size" -v t="$t" '$1 == "VSHIP" && $2 == s && $3 == t {printf "%s%.0f", sep, $4; sep=" / "}' "$LOG"/vship-*.txt)
    ratio=$(cat "$LOG"/ssim2-*.txt "$LOG"/vship-*.txt | awk -v s="$size" -v t="$t" '
      $1 == "BENCH" && $2 == s && $3 == t && $4 == "host-pinned" {o += $5; no++}
      $1 == "VSHIP" && $2 == s && $3 == t {v += $4; nv++}
      END {if (no && nv && v) printf "%.2fx", (o / no) / (v / nv)}')
    echo "| $size | $t | ${ours:--} | ${theirs:--} | ${ratio:--} | ${dev:--} |"
  done
done
