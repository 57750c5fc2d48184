#!/usr/bin/env bash
# `ssim2 monitor` on the GPU machine: the CUDA backend behind the monitor's
# live pipelines, judged from its own /metrics.
#
#   bash scripts/device-monitor-check.sh BUILD CLIPS [SECONDS]
#
# BUILD holds tools/ssim2 (and core/ for libssim2); CLIPS is the folder of
# scripts/make-device-clips.sh (ref-monitor.mkv, dist-monitor.mkv: 20 s).
# Run it after `source .gstkit/env.sh` (../shared/device/README.md), with
# CLIPS/lib (the libraries the tool needs besides GStreamer) on
# LD_LIBRARY_PATH.
#
# The monitor scores the distorted 720p clip against its reference as one
# rendition (files play at the pace of their timestamps and reopen at their
# end) with --backend cuda. Every second the script reads /metrics; it stops
# once 100 frames are scored or after SECONDS (default 60), sends SIGTERM and
# prints one row per check:
#   - ssim2_info says backend="cuda";
#   - frames were scored, and the latest score is a number in (0, 100];
#   - the monitor exits 0 on SIGTERM.
# Exit status: 0 when every check passed, 1 otherwise. Not a test of CI (it
# needs a GPU); the scores themselves are checked against the CPU by
# device-gst-suite.sh.
set -uo pipefail
BUILD=${1:?usage: $0 BUILD CLIPS [SECONDS]}
CLIPS=${2:?usage: $0 BUILD CLIPS [SECONDS]}
LIMIT=${3:-60}
OUT=${OUT:-/tmp}/monitor-check
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$BUILD/core${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BUILD/tools/ssim2" monitor --ref "$CLIPS/ref-monitor.mkv" --dist "hd=$CLIPS/dist-monitor.mkv" \
  --backend cuda --listen "127.0.0.1:$PORT" --log-dir "$OUT" >"$OUT/monitor.log" 2>&1 &
PID=$!

# One sample of a metric series ("" when absent).
sample() {
  grep -F "$1 " "$OUT/metrics.txt" 2>/dev/null | head -1 | awk '{print $NF}'
}

scored=0
for _ in $(seq "$LIMIT"); do
  sleep 1
  kill -0 "$PID" 2>/dev/null || break
  python3 -c "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:$PORT/metrics', timeout=5).read().decode())" \
    >"$OUT/metrics.txt" 2>/dev/null || continue
  scored=$(sample 'ssim2_frames_total{rendition="hd",result="scored"}')
  scored=${scored%.*}
  [ "${scored:-0}" -ge 100 ] && break
done
kill -TERM "$PID" 2>/dev/null
wait "$PID"
rc=$?

fail=0
row() {  # row NAME OK(0/1) DETAIL
  if [ "$2" = 0 ]; then echo "| $1 | ok: $3 |"; else echo "| $1 | FAIL: $3 |"; fail=1; fi
}
echo "| monitor check (CUDA) | result |"
echo "|---|---|"
info=$(grep '^ssim2_info' "$OUT/metrics.txt" 2>/dev/null)
[[ "$info" == *'backend="cuda"'* ]]; row "backend" $? "${info:-no ssim2_info}"
score=$(sample 'ssim2_score{rendition="hd"}')
python3 -c "import sys; v=float(sys.argv[1]); sys.exit(0 if 0 < v <= 100 else 1)" "${score:-nan}" 2>/dev/null \
  && [ "${scored:-0}" -gt 0 ]
row "scored" $? "${scored:-0} frames, latest score ${score:-none}"
[ "$rc" = 0 ]; row "SIGTERM" $? "exit $rc"
[ "$fail" = 0 ] || tail -20 "$OUT/monitor.log"
exit "$fail"
