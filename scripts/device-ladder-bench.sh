#!/usr/bin/env bash
# Ladder throughput on the GPU: a 1080p reference and 4 renditions in CUDA
# memory (videotestsrc ! cudaupload; two renditions made at 1280x720 and
# 960x540 and upscaled by cudascale, as a real ladder is), scored
#   - by one ssim2compare with the rendition pads dist, dist_1..dist_3 (each
#     reference frame prepared once), and
#   - by 4 ssim2compare elements behind a tee of the reference (each one
#     prepares the reference again),
# on the same streams, in one run. Prints rendition frames per second of each
# and their ratio, plus the rate of the sources alone (no scoring), the
# ceiling of both. Run on the device machine from the repository root against
# a build carried from the CPU machine:
#   bash scripts/device-ladder-bench.sh BUILD [FRAMES]
# Needs the GStreamer kit (.gstkit, see ../shared/device/README.md). Logs go
# to $OUT (or /tmp/ladder-bench). BACKEND=cpu runs the same pipelines in
# system memory (videoscale method=bilinear, backend=cpu) to try the script
# on a machine without a GPU.
set -uo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD [FRAMES]}" && pwd)
FRAMES=${2:-600}
LOG=${OUT:-/tmp}/ladder-bench
mkdir -p "$LOG"
if [ -f .gstkit/env.sh ]; then source .gstkit/env.sh >/dev/null; fi
export GST_PLUGIN_PATH_1_0=$BUILD/gst GST_DEBUG_NO_COLOR=1

BACKEND=${BACKEND:-cuda}
REF_CAPS="video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1"
if [ "$BACKEND" = cpu ]; then
  UPLOAD=identity SCALE="videoscale method=bilinear" MEM_1080="video/x-raw,width=1920,height=1080"
else
  UPLOAD=cudaupload SCALE=cudascale MEM_1080="video/x-raw(memory:CUDAMemory),width=1920,height=1080"
fi
# The renditions: the size each is made at (upscaled to 1080p when smaller).
SIZES=(1920x1080 1920x1080 1280x720 960x540)
PADS=(dist dist_1 dist_2 dist_3)

# One frame per source repeated by imagefreeze: videotestsrc draws only ~275
# 1080p frames/s on the device's CPU, which would bound every pipeline. By
# default the frame is uploaded (and scaled) once and imagefreeze repeats the
# CUDA buffer, so that the sources cost next to nothing and the pipelines
# measure the scoring; UPLOAD_EACH=1 repeats it in system memory and uploads
# every frame (cudaupload then bounds the sources at ~2,500-3,500 rendition
# frames/s). The caps after cudaupload keep the frames in CUDA memory: without
# them cudaupload passes system memory through (the element accepts both) and
# the element uploads each frame itself.
freeze="imagefreeze num-buffers=$FRAMES"
# frame SOURCE UPLOAD: one frame from SOURCE, uploaded by UPLOAD, repeated.
frame() {
  if [ "${UPLOAD_EACH:-0}" = 1 ]; then echo "$1 ! $freeze ! $2"; else echo "$1 ! $2 ! $freeze"; fi
}
src() {  # src WxH: a rendition in CUDA memory at 1080p
  local w=${1%x*} h=${1#*x} up="$UPLOAD"
  [ "$1" = 1920x1080 ] || up="$up ! $SCALE"
  frame "videotestsrc num-buffers=1 pattern=ball ! video/x-raw,format=NV12,width=$w,height=$h,framerate=30/1" "$up ! $MEM_1080"
}
ref_src() { frame "videotestsrc num-buffers=1 pattern=pinwheel ! $REF_CAPS" "$UPLOAD ! $MEM_1080"; }

one_element() {
  local p="ssim2compare name=c backend=$BACKEND post-messages=false ! fakesink sync=false $(ref_src) ! queue ! c.ref"
  for i in 0 1 2 3; do p="$p $(src "${SIZES[$i]}") ! queue ! c.${PADS[$i]}"; done
  echo "$p"
}
single_pair() {  # the first rendition alone: one ssim2compare, ref and dist
  echo "ssim2compare name=c backend=$BACKEND post-messages=false ! fakesink sync=false $(ref_src) ! queue ! c.ref $(src "${SIZES[0]}") ! queue ! c.dist"
}
tee_elements() {
  local p="$(ref_src) ! tee name=t"
  for i in 0 1 2 3; do
    p="$p t. ! queue ! c$i.ref $(src "${SIZES[$i]}") ! queue ! c$i.dist ssim2compare name=c$i backend=$BACKEND post-messages=false ! fakesink sync=false"
  done
  echo "$p"
}
sources_only() {
  local p="$(ref_src) ! fakesink sync=false"
  for i in 0 1 2 3; do p="$p $(src "${SIZES[$i]}") ! fakesink sync=false"; done
  echo "$p"
}

# run NAME PIPELINE: prints the exit status, the wall seconds of the whole
# gst-launch, the seconds it spent PLAYING (its "Execution ended after"),
# the frames scored (sum of the summaries' frames) and the CPU seconds (user
# + system) it used; its log goes to $LOG/NAME.log. The element's INFO log
# says whether the frames were read in place or uploaded.
#
# The rates are taken over the PLAYING time: the wall time also holds about
# two seconds of start-up (CUDA initialisation, loading the plugins, making
# the scorers and prerolling), the same for every pipeline, which a monitor
# running for hours never sees again and which would shrink every ratio.
run() {
  local t0 t1 cpu
  t0=$(date +%s.%N)
  local TIMEFORMAT='%U %S'
  # shellcheck disable=SC2086
  cpu=$( { time GST_DEBUG=ssim2compare:4 gst-launch-1.0 -m $2 >"$LOG/$1.log" 2>&1; } 2>&1 )
  local rc=$?
  t1=$(date +%s.%N)
  local scored playing
  scored=$(grep -o 'ssim2-summary, frames=(guint64)[0-9]*' "$LOG/$1.log" | grep -o '[0-9]*$' | awk '{n += $1} END {print n + 0}')
  playing=$(grep -o 'Execution ended after [0-9:.]*' "$LOG/$1.log" | awk '{split($4, t, ":"); printf "%.3f", t[1] * 3600 + t[2] * 60 + t[3]}')
  echo "$rc $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') ${playing:-0} $scored $(echo "$cpu" | awk '{printf "%.1f", $1 + $2}')"
}

# The first gst-launch of a fresh machine builds the plugin registry: not
# part of any measurement.
gst-inspect-1.0 ssim2compare >/dev/null 2>&1
read -r rc_s wall_s play_s _ cpu_s <<<"$(run sources "$(sources_only)")"
read -r rc_1 wall_1 play_1 scored_1 cpu_1 <<<"$(run one-element "$(one_element)")"
read -r rc_4 wall_4 play_4 scored_4 cpu_4 <<<"$(run four-elements "$(tee_elements)")"
read -r rc_p wall_p play_p scored_p cpu_p <<<"$(run single-pair "$(single_pair)")"

want=$((4 * FRAMES))
rate() { awk -v n="$1" -v t="$2" 'BEGIN {if (t > 0) printf "%.1f", n / t; else print "-"}'; }
row() { printf '| %-40s | %6s | %8s | %9s | %12s | %6s |\n' "$@"; }
row "1080p ref + 4, $BACKEND, upload each=${UPLOAD_EACH:-0}" "frames" "wall s" "playing s" "rend. fps" "CPU s"
row "----" "----" "----" "----" "----" "----"
row "sources only (rc $rc_s)" "$want" "$wall_s" "$play_s" "$(rate $want "$play_s")" "$cpu_s"
row "one element, 4 rendition pads (rc $rc_1)" "$scored_1" "$wall_1" "$play_1" "$(rate "$scored_1" "$play_1")" "$cpu_1"
row "4 elements behind a tee (rc $rc_4)" "$scored_4" "$wall_4" "$play_4" "$(rate "$scored_4" "$play_4")" "$cpu_4"
row "one element, ref and dist only (rc $rc_p)" "$scored_p" "$wall_p" "$play_p" "$(rate "$scored_p" "$play_p")" "$cpu_p"
grep -ho 'CUDA input: .*' "$LOG/one-element.log" "$LOG/four-elements.log" | sort | uniq -c
# Where each element's thread spent its time (mostly waiting for scores:
# the GPU is the bound; little: the thread is).
for name in one-element four-elements single-pair; do
  grep -o '<c[0-9]*> aggregator thread: .*' "$LOG/$name.log" | sed "s/^/      $name /"
done
ratio() { awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN {if (b > 0 && c > 0) printf "%.2f", (a / b) / (c / d); else print "-"}'; }
echo "one element / 4 elements: $(ratio "$scored_1" "$play_1" "$scored_4" "$play_4")x rendition frames per second while playing; $(ratio "$scored_1" "$wall_1" "$scored_4" "$wall_4")x over the whole run, start-up included ($want expected scored in each)"
if [ "$scored_1" != "$want" ] || [ "$scored_4" != "$want" ]; then
  echo "FAIL: not every rendition frame was scored (logs in $LOG)"
  exit 1
fi
