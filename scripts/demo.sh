#!/usr/bin/env bash
# One command from a fresh Debian 12 machine: installs the packages, builds
# gst-ssim2 (with the CUDA engine when nvcc is in /usr/local/cuda) and runs the
# ssim2compare element with gst-launch-1.0 on a built-in example: a generated
# clip (a moving zone plate, 640x360, 90 frames) against an x264-degraded copy
# of itself. It prints the gst-launch line it runs, the per-frame scores, the
# summary, what the numbers mean and where they were computed, and keeps every
# output in a folder that it names at the end.
#
# Arguments go to the first `meson setup` (scripts/build.sh), e.g. the quick
# CPU-only build: BUILD_DIR=build-cpu scripts/demo.sh -Dcuda=disabled -Dtests=disabled
# DEMO_DIR sets the output folder (default: a new one under /tmp).
# DEMO_SKIP_BUILD=1 uses the build in BUILD_DIR as it is (tests/demo runs the
# demo on the build under test that way).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${DEMO_SKIP_BUILD:-0}" != 1 ]; then
  scripts/install-deps.sh
  scripts/build.sh "$@"
fi
BUILD=${BUILD_DIR:-build}

out=${DEMO_DIR:-$(mktemp -d /tmp/ssim2-demo.XXXXXX)}
mkdir -p "$out"
clip() {  # clip ENCODER-SETTINGS OUTPUT
  gst-launch-1.0 -q videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 num-buffers=90 \
    ! video/x-raw,width=640,height=360,framerate=30/1,format=I420 \
    ! x264enc $1 ! matroskamux ! filesink location="$2"
}
echo "demo: generating the reference clip (lossless H.264) and an x264 copy at 150 kbit/s"
clip "pass=quant quantizer=0 speed-preset=ultrafast" "$out/reference.mkv"
clip "bitrate=150 speed-preset=medium" "$out/distorted.mkv"

# The element from the build tree; an installed plugin is found without this.
export GST_PLUGIN_PATH="$(cd "$BUILD/gst" && pwd)${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
launch=(gst-launch-1.0 -m ssim2compare name=cmp post-messages=false
        stats-file="$out/scores.csv" ! fakesink
        filesrc location="$out/reference.mkv" ! decodebin ! cmp.ref
        filesrc location="$out/distorted.mkv" ! decodebin ! cmp.dist)
echo
echo "demo: scoring every frame with the ssim2compare element:"
# One branch a line, words quoted where the shell needs it (not gst-launch's
# "!"), so that it can be pasted as it is.
quote() { [[ $1 =~ ^[][A-Za-z0-9_./:=,+!-]+$ ]] && printf '%s' "$1" || printf '%q' "$1"; }
shown="GST_PLUGIN_PATH=$(quote "$BUILD/gst")"
for word in "${launch[@]}"; do shown+=" $(quote "$word")"; done
echo "  $shown" | sed 's/ filesrc / \\\n    filesrc /g'

"${launch[@]}" >"$out/gst-launch.log" 2>&1 || {
  cat "$out/gst-launch.log" >&2
  echo "demo: gst-launch-1.0 failed (its output is above and in $out/gst-launch.log)" >&2
  exit 1
}

echo
echo "per-frame scores (the element's stats file):"
# Columns by name (docs/LOGS.md): frame, stream time in seconds, score.
awk -F, '/^#/ { next }
  !cols { for (i = 1; i <= NF; i++) col[$i] = i; cols = 1; printf "%-7s %-10s %s\n", "frame", "time", "score"; next }
  { printf "%-7s %-10.3f %s\n", $col["frame"], $col["stream_time"] / 1e9, $col["score"] }' "$out/scores.csv"

# The element's ssim2-summary message, as gst-launch -m printed it.
summary_message=$(grep -m1 'ssim2-summary' "$out/gst-launch.log" || true)
field() {  # field NAME: one field of the summary message, GStreamer's escapes removed
  sed -n "s/.*[ ,]$1=([a-z0-9]*)\(\"\([^\"\\\\]\|\\\\.\)*\"\|[^,;]*\).*/\1/p" <<<"$summary_message" |
    sed 's/^"\(.*\)"$/\1/; s/\\\(.\)/\1/g'
}
mean=$(field mean)
backend=$(field backend)

# The same comparison through the ssim2 tool, for its summary table and plot.
"$BUILD/tools/ssim2" --quiet "$out/reference.mkv" "$out/distorted.mkv" --plot "$out/scores.svg" \
  >"$out/summary.txt"
echo
echo "summary (ssim2 $out/reference.mkv $out/distorted.mkv):"
cat "$out/summary.txt"

echo
# What a mean means: the score table of README.md ("What the scores mean").
echo "$mean" | awk '{
  m = $1 + 0
  if (m >= 90) w = "visually lossless (90 and up)"
  else if (m >= 70) w = "high quality (70-90: artifacts hard to notice without the original)"
  else if (m >= 50) w = "medium quality (50-70)"
  else if (m >= 30) w = "low quality (30-50: artifacts are obvious)"
  else w = "very low quality (below 30)"
  printf "meaning: mean %.2f is %s, on SSIMULACRA 2.1'"'"'s scale where 100 is identical, 90 visually lossless, 70 high, 50 medium, 30 low quality\n", m, w
}'
engine=$("$BUILD/tools/ssim2" --version | sed -n 's/^CUDA engine: //p')
case "$backend" in
  CUDA*) echo "backend: $backend (the CUDA engine)" ;;
  *)
    if [[ $engine == built\ in* ]]; then
      echo "backend: $backend: the CUDA engine is built in, but no GPU is usable here, so the CPU scored (ssim2 --list-devices: $("$BUILD/tools/ssim2" --list-devices | head -n1))"
    else
      echo "backend: $backend: this build has no CUDA engine"
    fi ;;
esac
echo
echo "demo: outputs in $out: scores.csv (per frame), summary.txt, scores.svg (plot), gst-launch.log, the two clips"
