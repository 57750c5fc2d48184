#!/usr/bin/env bash
# One command from a fresh Debian 12 machine: installs the packages, builds
# gst-ssim2 (with the CUDA engine when nvcc is in /usr/local/cuda) and scores
# a built-in example: a generated clip (a moving zone plate, 640x360, 90
# frames) against an x264-degraded copy of itself, through the ssim2compare
# element, printing the per-frame scores and the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
BUILD=${BUILD_DIR:-build}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clip() {  # clip ENCODER-SETTINGS OUTPUT
  gst-launch-1.0 -q videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 num-buffers=90 \
    ! video/x-raw,width=640,height=360,framerate=30/1,format=I420 \
    ! x264enc $1 ! matroskamux ! filesink location="$2"
}
echo "demo: generating the reference clip (lossless H.264) and an x264 copy at 150 kbit/s"
clip "pass=quant quantizer=0 speed-preset=ultrafast" "$work/reference.mkv"
clip "bitrate=150 speed-preset=medium" "$work/distorted.mkv"

echo "demo: scoring every frame with ssim2compare ($BUILD/tools/ssim2)"
"$BUILD/tools/ssim2" "$work/reference.mkv" "$work/distorted.mkv" --csv "$work/scores.csv" \
  --plot "$work/scores.svg" >"$work/summary.txt"
echo
echo "per-frame scores:"
# Columns by name (docs/LOGS.md): frame, stream time in seconds, score.
awk -F, '/^#/ { next }
  !cols { for (i = 1; i <= NF; i++) col[$i] = i; cols = 1; printf "%-7s %-10s %s\n", "frame", "time", "score"; next }
  { printf "%-7s %-10.3f %s\n", $col["frame"], $col["stream_time"] / 1e9, $col["score"] }' "$work/scores.csv"
echo
echo "summary:"
cat "$work/summary.txt"
