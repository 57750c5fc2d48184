#!/usr/bin/env bash
# GPU checks of the ssim2compare element, run on the device machine from the
# repository root with a build carried from the CPU machine (nothing is built
# there). Needs the GStreamer kit (.gstkit, see ../shared/device/README.md)
# and the clips made by scripts/make-device-clips.sh (.devrun/).
#   bash scripts/device-gst-suite.sh BUILD_DIR
# Writes logs to $OUT when set and ends with a table.
set -uo pipefail
BUILD=${1:-build}
CLIPS=${CLIPS:-.devrun}
LOG=${OUT:-/tmp}/gst-suite
mkdir -p "$LOG"
source .gstkit/env.sh
export GST_PLUGIN_PATH_1_0=$PWD/$BUILD/gst
declare -a ROWS=()
row() { ROWS+=("$(printf '%-46s %s' "$1" "$2")"); }

gst-inspect-1.0 ssim2compare >"$LOG/inspect.txt" 2>&1 && row "gst-inspect ssim2compare" ok || row "gst-inspect ssim2compare" FAIL

# 1. backend=cuda, zero-copy after nvh264dec, against the CPU path's scores of
#    the same streams (decoded by avdec_h264 on the CPU machine).
run_pair() {  # $1 ref clip, $2 dist clip, $3 csv out, $4 extra element props
  gst-launch-1.0 -q filesrc location="$1" ! h264parse ! nvh264dec ! queue ! s.ref \
    filesrc location="$2" ! h264parse ! nvh264dec ! queue ! s.dist \
    ssim2compare name=s backend=cuda stats-file="$3" $4 ! fakesink sync=false
}
if run_pair $CLIPS/ref720.h264 $CLIPS/dist720.h264 "$LOG/cuda720.csv" "" >"$LOG/cuda720.log" 2>&1; then
  md=$(python3 - "$CLIPS/cpu720.csv" "$LOG/cuda720.csv" <<'PY'
import csv, sys
def scores(p):
    rows = [r for r in csv.reader(open(p)) if r and r[0][0].isdigit()]
    return [float(r[-1]) if len(r) < 3 else float(r[1]) for r in rows]
a, b = scores(sys.argv[1]), scores(sys.argv[2])
print(f"{len(b)} frames, max |cuda-cpu| {max(abs(x-y) for x,y in zip(a,b)):.3g}" if len(a)==len(b) and a else f"frame counts {len(a)} vs {len(b)}")
PY
)
  row "nvh264dec zero-copy, backend=cuda vs cpu" "$md"
else
  row "nvh264dec zero-copy, backend=cuda vs cpu" "FAIL (see cuda720.log)"
fi

# 2. cudaupload from system memory: a still pair of the test data, against the
#    reference tool's score.
if [ -d shared/testdata ] || [ -d "$CLIPS/still" ]; then :; fi
for pair in astronaut_256x256/jpeg_q30 seeding_1920x1080/jpeg_q10; do
  d=${pair%%/*}
  ref=$CLIPS/still/$d-reference.png; dist=$CLIPS/still/$(echo $pair | tr / -).png
  [ -f "$ref" ] || continue
  gst-launch-1.0 -q filesrc location="$ref" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! imagefreeze num-buffers=20 ! cudaupload ! s.ref \
    filesrc location="$dist" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! imagefreeze num-buffers=20 ! cudaupload ! s.dist \
    ssim2compare name=s backend=cuda alignment=sequence stats-file="$LOG/still-$d.csv" ! fakesink sync=false >"$LOG/still-$d.log" 2>&1 \
    && row "cudaupload $pair" "$(tail -n +2 "$LOG/still-$d.csv" | head -1)" || row "cudaupload $pair" FAIL
done

# 3. Throughput at 1080p: NVDEC alone, then NVDEC + ssim2compare on both pads.
for i in $(seq 10); do cat $CLIPS/ref1080.h264; done >/tmp/ref1080x10.h264
for i in $(seq 10); do cat $CLIPS/dist1080.h264; done >/tmp/dist1080x10.h264
t0=$(date +%s.%N)
gst-launch-1.0 -q filesrc location=/tmp/ref1080x10.h264 ! h264parse ! nvh264dec ! queue ! fakesink sync=false \
  filesrc location=/tmp/dist1080x10.h264 ! h264parse ! nvh264dec ! queue ! fakesink sync=false >"$LOG/dec1080.log" 2>&1
t1=$(date +%s.%N)
run_pair /tmp/ref1080x10.h264 /tmp/dist1080x10.h264 "$LOG/cuda1080.csv" "" >"$LOG/cuda1080.log" 2>&1
t2=$(date +%s.%N)
frames=$(($(wc -l <"$LOG/cuda1080.csv") - 1))
row "1080p decode only (2 x nvh264dec)" "$(python3 -c "print(f'{3000/($t1-$t0):.0f} pairs/s')")"
row "1080p decode + ssim2compare cuda" "$(python3 -c "print(f'{$frames} frames, {$frames/($t2-$t1):.0f} pairs/s')")"

echo
echo "== ssim2compare on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) =="
printf '%s\n' "${ROWS[@]}"
