#!/usr/bin/env bash
# Soak test of the ssim2compare element: pushes FRAMES small frame pairs
# through it on the CPU backend and records the process's resident memory
# (VmRSS) from the start to the end, to show that memory stays flat.
#
#   scripts/soak-element.sh [FRAMES [WIDTHxHEIGHT]]      (defaults: 1000000 16x16)
#
# Environment: BUILD_DIR (default build), SAMPLE_S (seconds between samples,
# default 10), OUT (CSV of the samples, default soak-element.csv), FRAME_STEP
# (the element's frame-step, default 1: a larger step scores fewer pairs, so
# the summary's list of scores hardly grows; the control run for the RSS).
# Prints the RSS of the first sample (after the first second), the peak and
# the last sample, the frames scored (from the summary) and the wall time.
# Not run in CI: a million pairs take tens of minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."

FRAMES=${1:-1000000}
SIZE=${2:-16x16}
WIDTH=${SIZE%x*}
HEIGHT=${SIZE#*x}
BUILD_DIR=${BUILD_DIR:-build}
SAMPLE_S=${SAMPLE_S:-10}
OUT=${OUT:-soak-element.csv}
FRAME_STEP=${FRAME_STEP:-1}

if [ ! -e "$BUILD_DIR/gst/libgstssim2.so" ]; then
  echo "soak-element: $BUILD_DIR/gst/libgstssim2.so not found: build first (scripts/build.sh)" >&2
  exit 1
fi
export GST_PLUGIN_PATH_1_0="$PWD/$BUILD_DIR/gst"

caps="video/x-raw,format=I420,width=$WIDTH,height=$HEIGHT,framerate=30/1"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

start=$(date +%s)
# -m prints the summary message; the per-frame messages are off.
gst-launch-1.0 -m ssim2compare name=c backend=cpu post-messages=false \
  frame-step="$FRAME_STEP" ! fakesink sync=false \
  videotestsrc num-buffers="$FRAMES" pattern=smpte ! "$caps" ! c.ref \
  videotestsrc num-buffers="$FRAMES" pattern=snow ! "$caps" ! c.dist > "$log" 2>&1 &
pid=$!

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || true; }

echo "seconds,rss_kib" > "$OUT"
sleep 1
first=$(rss_kib "$pid")
peak=${first:-0}
last=$first
echo "1,$first" >> "$OUT"
while kill -0 "$pid" 2>/dev/null; do
  sleep "$SAMPLE_S"
  r=$(rss_kib "$pid")
  [ -n "$r" ] || break
  last=$r
  (( r > peak )) && peak=$r
  echo "$(( $(date +%s) - start )),$r" >> "$OUT"
done
rc=0
wait "$pid" || rc=$?
end=$(date +%s)

frames=$(grep -o 'frames=(guint64)[0-9]*' "$log" | tail -1 | sed 's/.*)//')
expected=$(( (FRAMES + FRAME_STEP - 1) / FRAME_STEP ))
echo "soak-element: $FRAMES pairs of ${WIDTH}x${HEIGHT} I420, CPU backend, frame-step $FRAME_STEP, exit status $rc"
echo "soak-element: scored frames (summary): ${frames:-none}"
echo "soak-element: wall time $(( end - start )) s"
echo "soak-element: RSS first sample ${first} KiB, peak ${peak} KiB, last sample ${last} KiB (samples in $OUT)"
[ "$rc" -eq 0 ] && [ "${frames:-0}" = "$expected" ]
