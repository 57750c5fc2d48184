#!/usr/bin/env bash
# Device memory of the CUDA engine and its speed (docs/PERFORMANCE.md, "Device
# memory"), run on the device machine from the repository root against a
# build carried from the CPU machine (nothing is built there):
#   bash scripts/device-memory-bench.sh BUILD [BEFORE_BUILD] [FRAMES]
# 1. ssim2-bench at 1080p and 4K with 1 and 4 engines: the MEM lines (one
#    engine after its first pair) and the speed, of BUILD and, when given, of
#    BEFORE_BUILD (a build of the commit before, for the same session);
#    then BUILD with --memory-limit just below what one scale group needs at
#    4K, which blurs scale 0 before the smaller scales (the speed it costs).
# 2. The 4K ladder in one element: a 3840x2160 reference and 4 renditions in
#    CUDA memory (videotestsrc ! cudaupload, each frame uploaded once and
#    repeated by imagefreeze), one ssim2compare backend=cuda: the element's
#    INFO line "scorer memory N bytes (second engine M)" at the end (the
#    second engine at most a quarter of the rest) and nvidia-smi's peak
#    memory.used during the run (the device's whole use: element, upload
#    pools, CUDA contexts), against the targets (2.0 GB and 3 GB).
# 3. The same ladder under memory-limit: 2.0 GB (the lanes in two scale
#    groups, every lane and the second engine kept), 1.0 GB (it must warn, say
#    what it gave up and score what the unlimited run scores) and 1 MB (an
#    error that names the limit). Each ladder run's rendition frames/s is
#    4 x FRAMES over its wall time (start-up included: compare runs of one
#    call, not absolute rates).
# ONLY_ELEMENT=1 leaves out 1.
# Needs the GStreamer kit (.gstkit, see ../shared/device/README.md) for 2 and
# 3. Logs go to $OUT (or /tmp/memory-bench); the last lines are a table.
set -uo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD [BEFORE_BUILD] [FRAMES]}" && pwd)
BEFORE=${2:-}
[ -n "$BEFORE" ] && [ "$BEFORE" != - ] && BEFORE=$(cd "$BEFORE" && pwd) || BEFORE=
FRAMES=${3:-300}
LOG=${OUT:-/tmp}/memory-bench
mkdir -p "$LOG"
declare -a ROWS=()
row() { ROWS+=("$(printf '| %-58s | %s |' "$1" "$2")"); echo "== $1: $2"; }
GB() { awk -v b="$1" 'BEGIN {printf "%.2f GB", b / 1e9}'; }

# 1. The engine alone.
if [ "${ONLY_ELEMENT:-0}" != 1 ]; then
bench() {  # bench NAME BUILD [ARGS...]
  local name=$1 build=$2
  shift 2
  "$build/tools/ssim2-bench" --seconds 1 --sizes 1920x1080,3840x2160 --engines 1,4 --no-cpu "$@" \
    >"$LOG/bench-$name.txt" 2>&1
  echo "-- ssim2-bench, $name ($build)"
  grep -E '^(MEM|LIMITS) ' "$LOG/bench-$name.txt"
  sed -n '/^| size/,$p' "$LOG/bench-$name.txt"
}
bench after "$BUILD"
[ -n "$BEFORE" ] && bench before "$BEFORE"
for size in 1920x1080 3840x2160; do
  row "MEM $size (bytes/px, one engine after a pair)" \
    "$(awk -v s="$size" '$1 == "MEM" && $2 == s {print $4}' "$LOG/bench-after.txt")$( [ -n "$BEFORE" ] && awk -v s="$size" '$1 == "MEM" && $2 == s {print " (before: " $4 ")"}' "$LOG/bench-before.txt")"
done
# A limit that makes a 4K engine take two scale groups: below a pair's
# working memory with one group plus the cache (MEM line + 40 B/px), above two
# groups' (68 + 40 B/px). Batches then have no room for lanes either.
mem4k=$(awk '$1 == "MEM" && $2 == "3840x2160" {print $3}' "$LOG/bench-after.txt")
if [ -n "$mem4k" ]; then
  limit=$((mem4k + 30 * 3840 * 2160))
  "$BUILD/tools/ssim2-bench" --seconds 1 --sizes 3840x2160 --engines 1,4 --no-cpu \
    --memory-limit "$limit" >"$LOG/bench-two-groups.txt" 2>&1
  echo "-- ssim2-bench 4K, two scale groups"
  grep -E '^(MEM|LIMITS) ' "$LOG/bench-two-groups.txt"
  sed -n '/^| size/,$p' "$LOG/bench-two-groups.txt"
fi
fi

# 2. and 3. The 4K ladder in one element.
if [ ! -f .gstkit/env.sh ]; then
  row "4K ladder" "skipped: no .gstkit"
else
  source .gstkit/env.sh >/dev/null
  export GST_PLUGIN_PATH_1_0=$BUILD/gst GST_DEBUG_NO_COLOR=1
  gst-inspect-1.0 ssim2compare >/dev/null 2>&1  # the registry, outside the runs
  CAPS="video/x-raw,format=NV12,width=3840,height=2160,framerate=30/1"
  MEM="video/x-raw(memory:CUDAMemory)"
  src() {  # src PATTERN
    echo "videotestsrc num-buffers=1 pattern=$1 ! $CAPS ! cudaupload ! $MEM ! imagefreeze num-buffers=$FRAMES"
  }
  ladder() {  # ladder EXTRA_PROPERTIES
    local p="ssim2compare name=c backend=cuda $1 ! fakesink sync=false $(src pinwheel) ! queue ! c.ref"
    local pads=(dist dist_1 dist_2 dist_3) patterns=(ball snow smpte zone-plate)
    for i in 0 1 2 3; do p="$p $(src "${patterns[$i]}") ! queue ! c.${pads[$i]}"; done
    echo "$p"
  }
  idle=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 | head -1)
  run_ladder() {  # run_ladder NAME EXTRA_PROPERTIES: rc, scorer bytes, peak MiB, second engine bytes, rendition frames/s
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 -lms 50 \
      >"$LOG/$1.smi" 2>/dev/null &
    local smi=$!
    local t0 t1
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    GST_DEBUG=ssim2compare:4 gst-launch-1.0 -m $(ladder "$2") >"$LOG/$1.log" 2>&1
    local rc=$?
    t1=$(date +%s.%N)
    kill "$smi" 2>/dev/null
    wait "$smi" 2>/dev/null
    local bytes peak second
    bytes=$(grep -o 'scorer memory [0-9]*' "$LOG/$1.log" | tail -1 | grep -o '[0-9]*$')
    second=$(grep -o 'second engine [0-9]*' "$LOG/$1.log" | tail -1 | grep -o '[0-9]*$')
    peak=$(sort -n "$LOG/$1.smi" | tail -1)
    echo "$rc ${bytes:-0} ${peak:-0} ${second:-0} $(awk -v n="$FRAMES" -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", 4 * n / (b - a)}')"
  }
  # The scores of every frame of every pad, as sorted "pad frame score" lines.
  scores() {
    python3 - "$LOG/$1.log" <<'PY'
import re, sys
rows = []
for line in open(sys.argv[1], errors="replace"):
    if "ssim2, " not in line:
        continue
    fields = dict(re.findall(r"(\w+)=\([a-z0-9]+\)([^,;]+)", line.split("ssim2, ", 1)[1]))
    if "score" in fields:
        rows.append(f"{fields.get('pad')} {fields.get('frame')} {fields['score']}")
print("\n".join(sorted(rows)))
PY
  }

  read -r rc bytes peak second rate <<<"$(run_ladder ladder4k "")"
  row "4K ladder (ref + 4), one element: rc" "$rc, $(grep -c 'ssim2, ' "$LOG/ladder4k.log") scores, $rate rendition frames/s"
  row "  scorer memory (INFO line; target <= 2.0 GB)" "$(GB "$bytes")"
  row "  of which the second engine (target <= a quarter of the rest)" "$(GB "$second") ($(awk -v s="$second" -v b="$bytes" 'BEGIN {if (b > s) printf "%.1f %% of the rest", 100 * s / (b - s)}'))"
  row "  device peak, nvidia-smi (target <= 3 GB)" "${peak} MiB ($(awk -v p="$peak" -v i="$idle" 'BEGIN {printf "%d MiB above the idle %d", p - i, i}'))"
  grep -o 'scorer for .*' "$LOG/ladder4k.log" | head -1 | sed 's/^/      /'

  read -r rc bytes peak second rate <<<"$(run_ladder ladder4k-2gb "memory-limit=2000000000")"
  same=$([ "$(scores ladder4k)" = "$(scores ladder4k-2gb)" ] && [ -n "$(scores ladder4k)" ] && echo "same scores" || echo "FAIL: scores differ")
  row "  memory-limit=2 GB: rc, scorer memory, second engine, peak" "$rc, $(GB "$bytes"), $(GB "$second"), $peak MiB"
  row "  memory-limit=2 GB: rendition frames/s, scores" "$rate, $same"
  grep -o 'Scoring more slowly under memory-limit.*' "$LOG/ladder4k-2gb.log" | sed 's/^/      /'

  read -r rc bytes peak _ rate <<<"$(run_ladder ladder4k-limited "memory-limit=1000000000")"
  warned=$(grep -c 'WARNING.*memory-limit' "$LOG/ladder4k-limited.log")
  same=$([ "$(scores ladder4k)" = "$(scores ladder4k-limited)" ] && [ -n "$(scores ladder4k)" ] && echo "same scores" || echo "FAIL: scores differ")
  row "  memory-limit=1 GB: rc, scorer memory, peak, rendition frames/s" "$rc, $(GB "$bytes"), $peak MiB, $rate"
  row "  memory-limit=1 GB: warning, scores" "$([ "$warned" -gt 0 ] && echo warned || echo "FAIL: no warning"), $same"
  grep -o 'Scoring more slowly under memory-limit.*' "$LOG/ladder4k-limited.log" | sed 's/^/      /'

  read -r rc _ _ <<<"$(run_ladder ladder4k-tiny "memory-limit=1000000")"
  error=$(grep -o 'memory-limit=1000000 is too small.*' "$LOG/ladder4k-tiny.log" | head -1)
  row "  memory-limit=1 MB: an error naming the limit" "$([ "$rc" != 0 ] && [ -n "$error" ] && echo ok || echo "FAIL (rc $rc)")"
  [ -n "$error" ] && echo "      $error"
fi

echo
echo "| check | result |"
echo "|---|---|"
printf '%s\n' "${ROWS[@]}"
