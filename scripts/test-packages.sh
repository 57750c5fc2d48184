#!/usr/bin/env bash
# Builds the Debian packages (debian/) and tests them as a user gets them:
#
#   sudo scripts/test-packages.sh [--cuda]
#
# 1. dpkg-buildpackage -us -uc -b in a copy of the checkout (tracked and new
#    files; --cuda: the build profile pkg.gst-ssim2.cuda, nvcc from
#    /usr/local/cuda), then lintian (its errors fail the run; warnings and
#    notes are printed). The packages are kept in build-packages/.
# 2. A clean Debian 12 chroot: a minbase debootstrap cached in
#    $SSIM2_CHROOT_CACHE (default /var/tmp/gst-ssim2-chroot) with the
#    downloaded .debs, and for each run an overlay on top of it that is thrown
#    away at the end.
# 3. There the four packages are installed with their Depends only; the tool
#    scores pairs of the test data (as scores.csv says) and finds its man page.
#    Then GStreamer's tools and base/good plugins are added, gst-inspect-1.0
#    finds ssim2compare in the system plugin directory, and a gst-launch-1.0
#    pipeline scores videotestsrc frames against a down- and up-scaled copy:
#    its score must be below 100 and equal the installed tool's score of the
#    same frames saved as PNG.
#
# Runs as root on Debian with debootstrap, debhelper and lintian
# (scripts/install-deps.sh). Exit status: 0 when all checks passed, 1 when a
# check or the package build failed, 2 when it cannot run (one line says why).
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$(pwd)
TESTDATA=$(cd .. && pwd)/shared/testdata
CACHE=$(realpath -m "${SSIM2_CHROOT_CACHE:-/var/tmp/gst-ssim2-chroot}")
OUT="$SRC/build-packages"
SUITE=bookworm
PROFILE=()
if [ "${1:-}" = --cuda ]; then
  PROFILE=(-Ppkg.gst-ssim2.cuda)
  shift
fi
[ $# -eq 0 ] || { echo "usage: $0 [--cuda]" >&2; exit 2; }

CHROOT_NAME=test-packages
# shellcheck source=scripts/lib-chroot.sh
. scripts/lib-chroot.sh

log() { echo "== test-packages: $*"; }
fail() { echo "test-packages: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || chroot_die "needs root (debootstrap, chroot, mount): run it with sudo"
for tool in dpkg-buildpackage dh lintian debootstrap; do
  command -v "$tool" >/dev/null || chroot_die "$tool not found: run scripts/install-deps.sh"
done
[ -f "$TESTDATA/scores.csv" ] || chroot_die "no test data at $TESTDATA (the checkout's ../shared)"

mkdir -p "$CACHE"
exec 9>"$CACHE/lock"
flock -n 9 || chroot_die "another run holds $CACHE/lock"
WORK=$(mktemp -d "$CACHE/run.XXXXXX")
CHROOT_REMOVE+=("$WORK")
SECONDS=0

# 1. The packages, built in a folder of the same name every time and with
#    this machine's ccache (debhelper gives the build a HOME of its own), so
#    that a second run compiles only what changed.
log "dpkg-buildpackage -us -uc -b${PROFILE[*]:+ ${PROFILE[*]}} (log: $OUT/build.log)"
BUILD="$CACHE/package-build"
rm -rf --one-file-system "$BUILD"
mkdir -p "$BUILD/gst-ssim2" "$OUT"
git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$BUILD/gst-ssim2"
if command -v ccache >/dev/null; then
  CCACHE_DIR=$(ccache --get-config cache_dir)
  export CCACHE_DIR
fi
if ! (cd "$BUILD/gst-ssim2" && dpkg-buildpackage -us -uc -b "${PROFILE[@]}") >"$OUT/build.log" 2>&1; then
  tail -n 30 "$OUT/build.log" >&2
  fail "dpkg-buildpackage failed (log: $OUT/build.log)"
fi
rm -f "$OUT"/*.deb "$OUT"/*.changes "$OUT"/*.buildinfo
cp "$BUILD"/*.deb "$BUILD"/*.changes "$BUILD"/*.buildinfo "$OUT/"
rm -rf --one-file-system "$BUILD"
ls "$OUT"/*.deb
log "packages built in ${SECONDS} s"
log "lintian"
lintian --fail-on error "$OUT"/*.changes || fail "lintian reports errors"

# 2. The chroot: cached base, throw-away overlay, cached downloads.
build_s=$SECONDS
chroot_base "$SUITE" "$CACHE/$SUITE"
ROOT="$WORK/root"
chroot_overlay "$CACHE/$SUITE" "$ROOT"
chroot_mount_system "$ROOT"
mkdir -p "$CACHE/apt-archives/partial" "$CACHE/apt-lists/partial"
chroot_bind "$CACHE/apt-archives" "$ROOT/var/cache/apt/archives"
chroot_bind "$CACHE/apt-lists" "$ROOT/var/lib/apt/lists"
log "chroot ready in $((SECONDS - build_s)) s"
chroot_run "$ROOT" apt-get update -qq || chroot_die "apt-get update in the chroot failed"

# 3. The packages with their Depends only.
mkdir -p "$ROOT/tmp/debs" "$ROOT/tmp/t"
for deb in "$OUT"/*.deb; do
  case $deb in *-dbgsym_*) ;; *) cp "$deb" "$ROOT/tmp/debs/" ;; esac
done
log "installing $(cd "$ROOT/tmp/debs" && echo *.deb)"
chroot_run "$ROOT" sh -c 'apt-get install -y -qq --no-install-recommends /tmp/debs/*.deb >/dev/null' ||
  fail "the packages do not install in a clean $SUITE"

# The tool: pairs of the test data, scored as scores.csv says (the printed
# digits), and its man page.
checked=0
for pair in astronaut_256x256/jpeg_q60 gravel_64x64/webp_q50; do
  ref="images/${pair%/*}/reference.png"
  dist="images/$pair.png"
  want=$(awk -F, -v r="$ref" -v d="$dist" '$1 == r && $2 == d { print $5 }' "$TESTDATA/scores.csv")
  [ -n "$want" ] || chroot_die "scores.csv has no row for $ref,$dist"
  cp "$TESTDATA/$ref" "$ROOT/tmp/t/ref.png"
  cp "$TESTDATA/$dist" "$ROOT/tmp/t/dist.png"
  got=$(chroot_run "$ROOT" ssim2 /tmp/t/ref.png /tmp/t/dist.png) || fail "ssim2 $ref $dist failed"
  [ "$got" = "$want" ] || fail "installed ssim2 scores $dist $got, scores.csv says $want"
  checked=$((checked + 1))
done
log "installed ssim2: $checked pairs scored as scores.csv says"
chroot_run "$ROOT" dpkg -L ssim2-tools | grep -qx /usr/share/man/man1/ssim2.1.gz ||
  fail "ssim2-tools has no /usr/share/man/man1/ssim2.1.gz"

# The element, from the system plugin directory with a fresh registry.
chroot_run "$ROOT" sh -c 'apt-get install -y -qq --no-install-recommends gstreamer1.0-tools \
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good >/dev/null' || chroot_die "GStreamer's tools do not install"
inspect=$(chroot_run "$ROOT" gst-inspect-1.0 ssim2compare) || fail "gst-inspect-1.0 ssim2compare failed"
# Debian 12 merges /lib into /usr/lib: GStreamer may name either.
grep -Eq "Filename +(/usr)?/lib/[^/]+/gstreamer-1.0/libgstssim2.so" <<<"$inspect" ||
  fail "gst-inspect-1.0 ssim2compare does not name the packaged plugin:
$inspect"
log "gst-inspect-1.0 finds ssim2compare in $(grep -Eo '(/usr)?/lib/[^ ]+libgstssim2.so' <<<"$inspect")"

# One frame and a down- and up-scaled copy, each saved as PNG beside the
# element: the element's score is the tool's score of the PNGs.
frame=(videotestsrc num-buffers=1 pattern=smpte ! 'video/x-raw,format=RGB,width=128,height=96')
launch=$(chroot_run "$ROOT" gst-launch-1.0 -m ssim2compare name=c backend=cpu ! fakesink \
  "${frame[@]}" ! tee name=r  r. ! queue ! c.ref  r. ! queue ! pngenc ! filesink location=/tmp/t/frame.png \
  "${frame[@]}" ! videoscale ! video/x-raw,width=48,height=36 ! videoscale ! video/x-raw,width=128,height=96 \
    ! tee name=d  d. ! queue ! c.dist  d. ! queue ! pngenc ! filesink location=/tmp/t/scaled.png 2>&1) ||
  fail "the gst-launch-1.0 pipeline failed:
$launch"
scores=$(grep -Eo 'ssim2, score=\(double\)[-0-9.e+]+' <<<"$launch" | sed 's/.*)//') || true
[ "$(wc -w <<<"$scores")" = 1 ] || fail "want one ssim2 message with a score, got: [$scores]
$launch"
element=$(printf '%.8f' "$scores")
tool=$(chroot_run "$ROOT" ssim2 /tmp/t/frame.png /tmp/t/scaled.png) || fail "ssim2 on the saved frames failed"
[ "$element" = "$tool" ] || fail "ssim2compare scores $element, the tool scores the same frames $tool"
awk -v s="$element" 'BEGIN { exit !(s < 100) }' || fail "a scaled copy scores $element (want below 100)"
log "gst-launch-1.0: ssim2compare scores the scaled frame $element, as the installed tool"
log "all checks passed in ${SECONDS} s (packages ${build_s} s, chroot and checks $((SECONDS - build_s)) s)"
