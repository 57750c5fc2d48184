#!/usr/bin/env bash
# GPU checks of the ssim2compare element and of the ssim2 tool's video mode,
# run on the device machine from the repository root against a build carried
# from the CPU machine (nothing is built there).
#   bash scripts/device-gst-suite.sh BUILD_DIR CLIPS_DIR
# BUILD_DIR holds gst/libgstssim2.so and tools/ssim2; CLIPS_DIR the inputs made
# by scripts/make-device-clips.sh on the CPU machine (H.264 clips, the CPU
# path's scores of them, still pairs). Needs the GStreamer kit (.gstkit, see
# ../shared/device/README.md). Logs go to $OUT (or /tmp/gst-suite); the last
# lines are a table; the exit status is 1 when a row says FAIL.
set -uo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR CLIPS_DIR}" && pwd)
CLIPS=$(cd "${2:?usage: $0 BUILD_DIR CLIPS_DIR}" && pwd)
LOG=${OUT:-/tmp}/gst-suite
mkdir -p "$LOG"
source .gstkit/env.sh >/dev/null
export GST_PLUGIN_PATH_1_0=$BUILD/gst
export LD_LIBRARY_PATH=$CLIPS/lib:${LD_LIBRARY_PATH:-}
declare -a ROWS=()
row() { ROWS+=("$(printf '| %-48s | %s |' "$1" "$2")"); echo "== $1: $2"; }
now() { date +%s.%N; }

# Max |a - b| over the "score" column of two CSV files with a header (the
# last column when no header names it).
compare_csv() {
  python3 - "$1" "$2" <<'PY'
import csv, sys
def scores(path):
    try:
        rows = [r for r in csv.reader(open(path)) if r and not r[0].startswith("#")]
    except OSError:
        return []
    col = -1
    for r in rows:
        if "score" in r:
            col = r.index("score")
            break
    return [float(r[col]) for r in rows if r[0].strip()[:1].isdigit()]
a, b = scores(sys.argv[1]), scores(sys.argv[2])
if not a or len(a) != len(b):
    print(f"FAIL: {len(a)} vs {len(b)} frames")
else:
    d = max(abs(x - y) for x, y in zip(a, b))
    print(f"{'ok' if d <= 1e-9 else 'FAIL'}: {len(b)} frames, max |diff| {d:.2g}")
PY
}

gst-inspect-1.0 ssim2compare >"$LOG/inspect.txt" 2>&1 && row "gst-inspect-1.0 ssim2compare" ok || row "gst-inspect-1.0 ssim2compare" FAIL

# 1. Zero-copy after nvh264dec, backend=cuda, against the CPU path's scores of
#    the same streams (avdec_h264 + backend=cpu on the CPU machine).
pair() {  # pair REF DIST CSV [CAPS]
  local caps=${4:-video/x-raw(memory:CUDAMemory)}
  GST_DEBUG=ssim2compare:4 gst-launch-1.0 -q \
    filesrc location="$1" ! h264parse ! nvh264dec ! "$caps" ! queue ! s.ref \
    filesrc location="$2" ! h264parse ! nvh264dec ! "$caps" ! queue ! s.dist \
    ssim2compare name=s backend=cuda stats-file="$3" ! fakesink sync=false
}
pair "$CLIPS/ref720.h264" "$CLIPS/dist720.h264" "$LOG/cuda720.csv" >"$LOG/cuda720.log" 2>&1
row "nvh264dec -> CUDA memory, backend=cuda vs cpu" "$(compare_csv "$CLIPS/cpu720.csv" "$LOG/cuda720.csv")"
row "  frames read in place / uploaded" "$(grep -o 'CUDA input:.*' "$LOG/cuda720.log" | tail -1)"
pair "$CLIPS/ref720.h264" "$CLIPS/dist720.h264" "$LOG/sys720.csv" "video/x-raw" >"$LOG/sys720.log" 2>&1
row "nvh264dec -> system memory (upload), backend=cuda" "$(compare_csv "$CLIPS/cpu720.csv" "$LOG/sys720.csv")"
row "  frames read in place / uploaded" "$(grep -o 'CUDA input:.*' "$LOG/sys720.log" | tail -1)"

# 2. cudaupload of still pairs of the test data, against the reference tool.
while IFS=, read -r name expected; do
  gst-launch-1.0 -q \
    filesrc location="$CLIPS/still/$name-ref.png" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! imagefreeze num-buffers=5 ! cudaupload ! s.ref \
    filesrc location="$CLIPS/still/$name-dist.png" ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! imagefreeze num-buffers=5 ! cudaupload ! s.dist \
    ssim2compare name=s backend=cuda alignment=sequence stats-file="$LOG/still-$name.csv" ! fakesink sync=false >"$LOG/still-$name.log" 2>&1
  got=$(awk -F, 'NR==1 {for (i = 1; i <= NF; i++) if ($i == "score") c = i} NR==2 && c {print $c}' "$LOG/still-$name.csv" 2>/dev/null)
  row "cudaupload $name (reference $expected)" "${got:-FAIL}"
done <"$CLIPS/still/expected.csv"

# 2b. The test data's reference clip itself (its first 10 frames as raw I420,
#     since NVDEC cannot read its 4:4:4 profile) through cudaupload, against
#     the distorted clip after nvh264dec: the reference tool's own scores.
if [ -f "$CLIPS/ref10.i420.gz" ]; then
  gunzip -c "$CLIPS/ref10.i420.gz" >/tmp/ref10.i420
  gst-launch-1.0 -q filesrc location=/tmp/ref10.i420 \
      ! rawvideoparse format=i420 width=1280 height=720 framerate=30/1 colorimetry=bt709 ! cudaupload ! s.ref \
    filesrc location="$CLIPS/dist720.h264" ! h264parse ! nvh264dec ! 'video/x-raw(memory:CUDAMemory)' ! s.dist \
    ssim2compare name=s backend=cuda alignment=sequence stats-file="$LOG/video10.csv" ! fakesink sync=false \
    >"$LOG/video10.log" 2>&1
  row "test clip frames 0-9, cuda vs video_scores.csv" "$(python3 - "$CLIPS/video_scores_10.csv" "$LOG/video10.csv" <<'PY'
import csv, sys
ref = [float(r[1]) for r in list(csv.reader(open(sys.argv[1])))[1:]]
rows = list(csv.reader(open(sys.argv[2])))
col = rows[0].index("score") if rows and "score" in rows[0] else -1
got = [float(r[col]) for r in rows[1:] if r and r[0][:1].isdigit()]
n = min(len(ref), len(got))
d = max(abs(a - b) for a, b in zip(ref[:n], got[:n])) if n else float("nan")
print(f"{'ok' if n == 10 and d <= 1e-3 else 'FAIL'}: {n} frames, max |diff| {d:.3g}")
PY
)"
fi

# 3. The tool's video mode (decodebin picks nvh264dec) against the CPU scores.
"$BUILD/tools/ssim2" --alignment sequence --csv "$LOG/tool720.csv" "$CLIPS/ref720.h264" "$CLIPS/dist720.h264" >"$LOG/tool720.log" 2>&1
row "ssim2 tool, video mode on the GPU" "$(compare_csv "$CLIPS/cpu720.csv" "$LOG/tool720.csv") ($(grep throughput "$LOG/tool720.log"))"

# 3b. What users run by default: pipelines without any NVIDIA element (the
#     CUDA library's allocator is then only set up if the element does it),
#     default properties (backend=auto) and backend=cuda, each against
#     backend=cpu on the same frames, which must agree to the printed digits.
default_pair() {  # default_pair NAME BACKEND SRC_REF SRC_DIST: stats in $LOG/default-NAME-BACKEND.csv
  local name=$1 backend=$2 out="$LOG/default-$1-$2"
  local prop="backend=$backend"
  [ "$backend" = default ] && prop=""
  # shellcheck disable=SC2086
  eval "GST_DEBUG=ssim2compare:4 gst-launch-1.0 -q $3 ! s.ref $4 ! s.dist ssim2compare name=s alignment=sequence $prop stats-file=$out.csv ! fakesink sync=false" \
    >"$out.log" 2>&1
  echo $?
}
default_row() {  # default_row NAME SRC_REF SRC_DIST
  local cpu_rc auto_rc cuda_rc
  cpu_rc=$(default_pair "$1" cpu "$2" "$3")
  auto_rc=$(default_pair "$1" default "$2" "$3")
  cuda_rc=$(default_pair "$1" cuda "$2" "$3")
  local ran_on
  ran_on=$(grep -o 'backend: [a-z]*' "$LOG/default-$1-default.log" | tail -1)
  row "default $1: auto (exit $auto_rc, ${ran_on:-backend unknown})" "$(compare_csv "$LOG/default-$1-cpu.csv" "$LOG/default-$1-default.csv")"
  row "default $1: cuda (exit $cuda_rc)" "$(compare_csv "$LOG/default-$1-cpu.csv" "$LOG/default-$1-cuda.csv")"
  [ "$cpu_rc" = 0 ] || row "default $1: cpu" "FAIL (exit $cpu_rc)"
}
for size in ${DEFAULT_MATRIX_SIZES:-1280x720 3840x2160 7680x4320}; do
  w=${size%x*}; h=${size#*x}
  n=3; [ "$w" -gt 4000 ] && n=2
  for fmt in RGBA I420 NV12 P010_10LE; do
    caps="video/x-raw,format=$fmt,width=$w,height=$h,framerate=30/1"
    default_row "videotestsrc-$fmt-$size" \
      "videotestsrc pattern=pinwheel num-buffers=$n ! $caps" \
      "videotestsrc pattern=pinwheel horizontal-speed=3 num-buffers=$n ! $caps"
  done
done
# 3a'. Odd sizes in system memory, the element's own way to the GPU: every
#      format the element accepts at odd width and height, and the 4:2:0
#      formats at each odd/even mix (I420 of odd height once scored wrong on
#      the GPU), backend=cuda against backend=cpu.
odd_row() {  # odd_row FORMAT WxH
  local caps="video/x-raw,format=$1,width=${2%x*},height=${2#*x},framerate=30/1" cpu_rc cuda_rc
  local name="odd-$1-$2"
  cpu_rc=$(default_pair "$name" cpu "videotestsrc pattern=pinwheel num-buffers=2 ! $caps" \
    "videotestsrc pattern=pinwheel horizontal-speed=3 num-buffers=2 ! $caps")
  cuda_rc=$(default_pair "$name" cuda "videotestsrc pattern=pinwheel num-buffers=2 ! $caps" \
    "videotestsrc pattern=pinwheel horizontal-speed=3 num-buffers=2 ! $caps")
  row "system memory $1 $2: cuda (exit $cuda_rc) vs cpu (exit $cpu_rc)" \
    "$(compare_csv "$LOG/default-$name-cpu.csv" "$LOG/default-$name-cuda.csv")"
}
for fmt in ${ODD_FORMATS:-RGB RGBA BGRA RGBx BGRx I420 NV12 Y444 I420_10LE P010_10LE}; do
  for size in 1919x1079 33x17; do odd_row "$fmt" "$size"; done
done
for fmt in I420 I420_10LE NV12 P010_10LE; do
  for size in 1920x1079 1919x1080 1921x1081 641x361; do odd_row "$fmt" "$size"; done
done
while IFS=, read -r name expected; do
  default_row "pngdec-$name" \
    "filesrc location=$CLIPS/still/$name-ref.png ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! imagefreeze num-buffers=2" \
    "filesrc location=$CLIPS/still/$name-dist.png ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! imagefreeze num-buffers=2"
  row "  pngdec-$name auto vs reference $expected" "$(compare_csv <(printf 'index,score\n0,%s\n' "$expected") <(grep -v '^#' "$LOG/default-pngdec-$name-default.csv" | head -2) | sed 's/1 frames, //')"
done <"$CLIPS/still/expected.csv"
if [ -f "$CLIPS/ref10.i420.gz" ] && [ -f "$CLIPS/dist10.i420.gz" ]; then
  # Frames decoded in software on the CPU machine (avdec_h264), carried raw.
  gunzip -c "$CLIPS/dist10.i420.gz" >/tmp/dist10.i420
  [ -f /tmp/ref10.i420 ] || gunzip -c "$CLIPS/ref10.i420.gz" >/tmp/ref10.i420
  raw="rawvideoparse format=i420 width=1280 height=720 framerate=30/1 colorimetry=bt709"
  default_row "software-h264-raw-I420" "filesrc location=/tmp/ref10.i420 ! $raw" "filesrc location=/tmp/dist10.i420 ! $raw"
fi
# 3c. A ladder: one element with four rendition pads (each reference frame
#     prepared once, SetReference + ComputeWithReference), backend=cuda
#     against backend=cpu on the same frames, row by row (pad, index).
ladder_run() {  # ladder_run BACKEND CSV
  local caps="video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1"
  local p="ssim2compare name=c alignment=sequence backend=$1 stats-file=$2 ! fakesink sync=false"
  p="$p videotestsrc pattern=pinwheel num-buffers=8 ! $caps ! queue ! c.ref"
  local k=0
  for pad in dist dist_1 dist_2 dist_3; do
    k=$((k + 1))
    p="$p videotestsrc pattern=pinwheel horizontal-speed=$k num-buffers=8 ! $caps ! queue ! c.$pad"
  done
  eval "gst-launch-1.0 -q $p" >"$2.log" 2>&1
  echo $?
}
lcpu=$(ladder_run cpu "$LOG/ladder-cpu.csv")
lcuda=$(ladder_run cuda "$LOG/ladder-cuda.csv")
row "ladder 1080p, 4 pads: cuda (exit $lcuda) vs cpu (exit $lcpu)" "$(python3 - "$LOG/ladder-cpu.csv" "$LOG/ladder-cuda.csv" <<'PY'
import csv, sys
def rows(path):
    try:
        lines = [l for l in open(path) if not l.startswith("#")]
    except OSError:
        return {}
    return {(r.get("source", ""), r["index"]): float(r["score"]) for r in csv.DictReader(lines)}
a, b = rows(sys.argv[1]), rows(sys.argv[2])
pads = sorted({k[0] for k in a})
if not a or a.keys() != b.keys():
    print(f"FAIL: {len(a)} vs {len(b)} rows")
else:
    d = max(abs(a[k] - b[k]) for k in a)
    print(f"{'ok' if d <= 1e-9 else 'FAIL'}: {len(a)} rows over pads {','.join(pads)}, max |diff| {d:.2g}")
PY
)"

# (appsrc pushes system memory exactly as filesrc ! rawvideoparse above does;
# the element's GstHarness tests in CI check that the element sets up the
# CUDA allocator itself.)

# 3d. alignment=content on CUDA memory: signatures on the device (in batches,
#     docs/ALIGNMENT.md). The clip pair decoded by NVDEC to raw NV12, the
#     distorted clip without its first 5 frames, both through cudaupload; every
#     scored frame must be paired with the reference frame 5 ahead and score
#     exactly what the hand-aligned run (alignment=sequence, the reference
#     without its first 5 frames too) gives that frame.
for c in ref dist; do
  gst-launch-1.0 -q filesrc location="$CLIPS/${c}720.h264" ! h264parse ! nvh264dec ! video/x-raw,format=NV12 \
    ! filesink location=/tmp/${c}720.nv12 >"$LOG/content-decode-$c.log" 2>&1
  dd if=/tmp/${c}720.nv12 of=/tmp/${c}720-late.nv12 bs=$((1280 * 720 * 3 / 2)) skip=5 status=none
done
raw_cuda() { echo "filesrc location=$1 ! rawvideoparse format=nv12 width=1280 height=720 framerate=30/1 ! cudaupload"; }
content_run() {  # REF DIST ALIGNMENT NAME
  eval "GST_DEBUG=ssim2compare:4 gst-launch-1.0 -q $(raw_cuda "$1") ! s.ref $(raw_cuda "$2") ! s.dist \
    ssim2compare name=s backend=cuda alignment=$3 stats-file=$LOG/$4.csv ! fakesink sync=false" >"$LOG/$4.log" 2>&1
}
content_run /tmp/ref720.nv12 /tmp/dist720-late.nv12 content content-cuda
content_run /tmp/ref720-late.nv12 /tmp/dist720-late.nv12 sequence content-hand
row "alignment=content, CUDA memory, offset +5" "$(python3 - "$LOG/content-hand.csv" "$LOG/content-cuda.csv" <<'PY'
import csv, sys
def rows(path):
    try:
        return list(csv.DictReader(l for l in open(path) if not l.startswith("#")))
    except OSError:
        return []
hand = {r["frame"]: r["score"] for r in rows(sys.argv[1])}
got = rows(sys.argv[2])
misplaced = [r for r in got if int(r["ref_frame"]) != int(r["frame"]) + 5 or r["frame"] not in hand]
paired = [r for r in got if r not in misplaced]
same = sum(r["score"] == hand[r["frame"]] for r in paired)
diff = max((abs(float(r["score"]) - float(hand[r["frame"]])) for r in paired), default=0.0)
ok = hand and got and not misplaced and diff <= 1e-9 and len(got) >= 0.9 * len(hand)
print(f"{'ok' if ok else 'FAIL'}: {len(got)} of {len(hand)} frames scored, {len(misplaced)} misplaced, "
      f"{same} printed as by hand, max |diff| {diff:.2g}")
PY
)"
# Where the element computed the signatures (its INFO lines, once per path):
# CUDA memory on the device and never on the host; system memory (the same
# run without cudaupload) on the host.
signature_paths() {  # LOG WANT (device | host: for system memory)
  local device host
  device=$(grep -c 'frame signatures on the device' "$1")
  host=$(grep -o 'frame signatures on the host: .*' "$1" | sort -u | tr '\n' ';')
  if [ "$2" = device ] && [ "$device" -ge 1 ] && [ -z "$host" ]; then
    echo "ok: on the device"
  elif [ "$2" = host ] && [ "$device" -eq 0 ] && [ "$host" = "frame signatures on the host: the frames are in system memory;" ]; then
    echo "ok: ${host%;}"
  else
    echo "FAIL: want $2; device line(s): $device, host: ${host:-none}"
  fi
}
row "  CUDA memory: signatures on the device" "$(signature_paths "$LOG/content-cuda.log" device)"
# The same straight from NVDEC (decoders that make their CUDA context before
# the element starts).
GST_DEBUG=ssim2compare:4 gst-launch-1.0 -q \
  filesrc location="$CLIPS/ref720.h264" ! h264parse ! nvh264dec ! 'video/x-raw(memory:CUDAMemory)' ! queue ! s.ref \
  filesrc location="$CLIPS/dist720.h264" ! h264parse ! nvh264dec ! 'video/x-raw(memory:CUDAMemory)' ! queue ! s.dist \
  ssim2compare name=s backend=cuda alignment=content stats-file="$LOG/content-nvdec.csv" ! fakesink sync=false \
  >"$LOG/content-nvdec.log" 2>&1
row "  NVDEC CUDA memory: signatures on the device" "$(signature_paths "$LOG/content-nvdec.log" device)"
eval "GST_DEBUG=ssim2compare:4 gst-launch-1.0 -q $(raw_cuda /tmp/ref720.nv12 | sed 's/ ! cudaupload//') ! s.ref \
  $(raw_cuda /tmp/dist720-late.nv12 | sed 's/ ! cudaupload//') ! s.dist \
  ssim2compare name=s backend=cuda alignment=content stats-file=$LOG/content-system.csv ! fakesink sync=false" \
  >"$LOG/content-system.log" 2>&1
row "  system memory: signatures on the host" "$(signature_paths "$LOG/content-system.log" host)"

# 3e. HDR: the HDR10 (PQ) and HLG clips of tests/data/hdr (HEVC Main10) through
#     nvh265dec into the element in CUDA memory, and through the tool's video
#     mode, on the CUDA engine; each frame's score must print as libjxl's
#     ssimulacra2 printed it for the same decoded frames (video_scores.csv).
hdr_vs_reference() {  # hdr_vs_reference CLIP CSV
  python3 - "$1" "$2" tests/data/hdr/video_scores.csv <<'PY'
import csv, sys
clip, got_path, ref_path = sys.argv[1:4]
ref = [r["score"] for r in csv.DictReader(open(ref_path)) if r["clip"] == clip]
try:
    got = [float(r["score"]) for r in csv.DictReader(open(got_path))]
except (OSError, KeyError, ValueError):
    got = []
bad = [i for i, (a, b) in enumerate(zip(ref, got)) if f"{b:.8f}" != a]
ok = got and len(got) == len(ref) and not bad
print(f"{'ok' if ok else 'FAIL'}: {len(got)} of {len(ref)} frames, {len(bad)} print differently")
PY
}
for clip in hdr10 hlg; do
  GST_DEBUG=ssim2compare:4 gst-launch-1.0 -q \
    filesrc location="tests/data/hdr/video/$clip-reference.mkv" ! matroskademux ! h265parse ! nvh265dec \
      ! 'video/x-raw(memory:CUDAMemory)' ! queue ! s.ref \
    filesrc location="tests/data/hdr/video/$clip-distorted.mkv" ! matroskademux ! h265parse ! nvh265dec \
      ! 'video/x-raw(memory:CUDAMemory)' ! queue ! s.dist \
    ssim2compare name=s backend=cuda alignment=sequence stats-file="$LOG/hdr-$clip-element.csv" \
      ! fakesink sync=false >"$LOG/hdr-$clip-element.log" 2>&1
  row "$clip: nvh265dec -> CUDA memory, backend=cuda" "$(hdr_vs_reference "$clip" "$LOG/hdr-$clip-element.csv")"
  "$BUILD/tools/ssim2" --backend cuda --alignment sequence --csv "$LOG/hdr-$clip-tool.csv" \
    "tests/data/hdr/video/$clip-reference.mkv" "tests/data/hdr/video/$clip-distorted.mkv" \
    >"$LOG/hdr-$clip-tool.log" 2>&1
  row "$clip: ssim2 tool, video mode, backend cuda" "$(hdr_vs_reference "$clip" "$LOG/hdr-$clip-tool.csv")"
done

# 4. Errors: a device that does not exist.
gst-launch-1.0 videotestsrc num-buffers=2 ! video/x-raw,width=64,height=64 ! s.ref videotestsrc num-buffers=2 ! video/x-raw,width=64,height=64 ! s.dist \
  ssim2compare name=s backend=cuda cuda-device-id=7 ! fakesink >"$LOG/baddevice.log" 2>&1
row "backend=cuda cuda-device-id=7" "exit $? : $(grep -m1 -o 'ERROR.*' "$LOG/baddevice.log" | cut -c1-90)"

# 5. Throughput at 1080p: NVDEC on both pads alone, then with ssim2compare.
for i in $(seq 10); do cat "$CLIPS/ref1080.h264"; done >/tmp/ref1080x10.h264
for i in $(seq 10); do cat "$CLIPS/dist1080.h264"; done >/tmp/dist1080x10.h264
t0=$(now)
gst-launch-1.0 -q filesrc location=/tmp/ref1080x10.h264 ! h264parse ! nvh264dec ! 'video/x-raw(memory:CUDAMemory)' ! queue ! fakesink sync=false \
  filesrc location=/tmp/dist1080x10.h264 ! h264parse ! nvh264dec ! 'video/x-raw(memory:CUDAMemory)' ! queue ! fakesink sync=false >"$LOG/dec1080.log" 2>&1
t1=$(now)
pair /tmp/ref1080x10.h264 /tmp/dist1080x10.h264 "$LOG/cuda1080.csv" >"$LOG/cuda1080.log" 2>&1
t2=$(now)
frames=$(($(grep -c '^[0-9]' "$LOG/cuda1080.csv") ))
row "1080p, 2 x nvh264dec only (3000 frames each)" "$(python3 -c "print(f'{3000/($t1-$t0):.0f} frames/s per stream')")"
row "1080p, 2 x nvh264dec + ssim2compare cuda" "$(python3 -c "print(f'{$frames} pairs scored, {$frames/($t2-$t1):.0f} pairs/s')")"

# 6. A ladder's throughput: one element with four rendition pads against
# four elements behind a tee (scripts/device-ladder-bench.sh; the figure and
# its history are in docs/PERFORMANCE.md). Reported, not judged.
OUT=$LOG bash scripts/device-ladder-bench.sh "$BUILD" 3000 >"$LOG/ladder-bench.txt" 2>&1
row "ladder 1080p + 4 throughput (exit $?)" "$(grep -o '^one element / 4 elements: [0-9.x-]*' "$LOG/ladder-bench.txt" | cut -d: -f2) while playing; rendition frames/s $(grep -E '^\| (one element, 4|4 elements)' "$LOG/ladder-bench.txt" | awk -F'|' '{gsub(/ /, "", $6); printf "%s%s", sep, $6; sep=" vs "}')"

echo
echo "## ssim2compare on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%F)"
echo
echo "| check | result |"
echo "|---|---|"
printf '%s\n' "${ROWS[@]}"
! printf '%s\n' "${ROWS[@]}" | grep -q FAIL
