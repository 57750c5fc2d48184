#!/usr/bin/env bash
# Makes the inputs of scripts/device-gst-suite.sh on the CPU machine: the
# device's GStreamer kit has NVDEC but no software H.264 decoder, and NVDEC
# cannot read the 4:4:4 reference clip of the test data.
#   scripts/make-device-clips.sh OUT_DIR [BUILD_DIR]
# - ref720.h264: the test data's reference clip re-encoded (High profile, QP 4)
# - dist720.h264: the test data's distorted clip (already High profile)
# - cpu720.csv: the CPU path's per-frame scores of that pair (avdec_h264)
# - ref1080/dist1080.h264: a generated 1080p pair (4 Mbit/s vs 0.6 Mbit/s)
# - still/: two PNG pairs of the test data and the reference tool's scores
# - ref10.i420.gz: the first 10 decoded frames of the test data's reference
#   clip (raw I420, for cudaupload; compared with video_scores.csv)
# - dist10.i420.gz: the first 10 frames of dist720.h264 decoded on the CPU
# - ref-monitor/dist-monitor.mkv: a generated 720p pair of 20 s in Matroska
#   (timestamps, so that `ssim2 monitor` plays them at their pace) for
#   device-monitor-check.sh
# - lib/: libjpeg.so.62 and libsoup-3.0 with its dependencies (the tool needs
#   them; the device image and the GStreamer kit lack them)
set -euo pipefail
OUTDIR=${1:?usage: $0 OUT_DIR [BUILD_DIR]}
BUILD=$(cd "${2:-build}" && pwd)
T=$(cd "$(dirname "$0")/../../shared/testdata" && pwd)
mkdir -p "$OUTDIR/still" "$OUTDIR/lib"
cd "$OUTDIR"
enc() { gst-launch-1.0 -q "$@"; }
enc filesrc location=$T/video/reference.mkv ! matroskademux ! avdec_h264 ! videoconvert ! video/x-raw,format=I420 \
  ! x264enc pass=quant quantizer=4 key-int-max=30 ! video/x-h264,profile=high ! h264parse \
  ! video/x-h264,stream-format=byte-stream ! filesink location=ref720.h264
enc filesrc location=$T/video/distorted.mkv ! matroskademux ! h264parse ! video/x-h264,stream-format=byte-stream \
  ! filesink location=dist720.h264
GST_PLUGIN_PATH_1_0=$BUILD/gst enc filesrc location=ref720.h264 ! h264parse ! avdec_h264 ! queue ! s.ref \
  filesrc location=dist720.h264 ! h264parse ! avdec_h264 ! queue ! s.dist \
  ssim2compare name=s backend=cpu stats-file=$PWD/cpu720.csv ! fakesink sync=false
for q in "ref1080 4000" "dist1080 600"; do
  set -- $q
  enc videotestsrc pattern=ball num-buffers=300 ! video/x-raw,width=1920,height=1080,framerate=30/1,format=I420 \
    ! x264enc bitrate=$2 speed-preset=veryfast key-int-max=60 ! video/x-h264,profile=high ! h264parse \
    ! video/x-h264,stream-format=byte-stream ! filesink location=$1.h264
done
: >still/expected.csv
for pair in astronaut_256x256/jpeg_q30 seeding_1920x1080/jpeg_q10 chelsea_127x255/noise_s5; do
  id=${pair%%/*}; name=${pair//\//-}
  cp "$T/images/$id/reference.png" "still/$name-ref.png"
  cp "$T/images/$pair.png" "still/$name-dist.png"
  echo "$name,$(grep "images/$pair.png" "$T/scores.csv" | cut -d, -f5)" >>still/expected.csv
done
enc filesrc location=$T/video/reference.mkv ! matroskademux ! avdec_h264 ! video/x-raw,format=I420 \
  ! filesink location=ref30.i420
head -c $((1280 * 720 * 3 / 2 * 10)) ref30.i420 | gzip -6 >ref10.i420.gz
rm ref30.i420
# The distorted clip decoded in software (avdec_h264) for the device's
# default-pipeline rows, which must not contain an NVIDIA element.
enc filesrc location=dist720.h264 ! h264parse ! avdec_h264 ! video/x-raw,format=I420 \
  ! filesink location=dist30.i420
head -c $((1280 * 720 * 3 / 2 * 10)) dist30.i420 | gzip -6 >dist10.i420.gz
rm dist30.i420
head -11 "$T/video_scores.csv" >video_scores_10.csv
for q in "ref-monitor 6000" "dist-monitor 800"; do
  set -- $q
  enc videotestsrc pattern=ball num-buffers=600 ! video/x-raw,width=1280,height=720,framerate=30/1,format=I420 \
    ! x264enc bitrate=$2 speed-preset=ultrafast key-int-max=60 ! h264parse ! matroskamux \
    ! filesink location=$1.mkv
done
for lib in libjpeg.so.62 libsoup-3.0.so.0 libnghttp2.so.14 libpsl.so.5 libbrotlidec.so.1 \
    libbrotlicommon.so.1 libsqlite3.so.0; do
  cp -L "/usr/lib/x86_64-linux-gnu/$lib" lib/
done
