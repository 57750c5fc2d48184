#!/usr/bin/env bash
# Builds gst-ssim2 against GStreamer 1.26 (Debian 13, trixie) and runs its
# GStreamer suites (meson suites gst and video) there, twice: with the CUDA
# engine (nvcc from the host's /usr/local/cuda, read-only) and without
# (-Dcuda=disabled, no CUDA toolkit in sight). Only the targets of those
# suites are built, and their warnings are errors (-Dwerror=true).
#
#   sudo scripts/test-gst-1.26.sh
#
# Runs as root on a Debian machine with debootstrap. The chroot is made once
# with debootstrap from the Debian archive that apt uses here and is kept in
# $GST126_ROOT (default /var/tmp/gst-ssim2-trixie) with its build folders and
# ccache, so that a later run only rebuilds what changed. The checkout and
# ../shared (the test data) are bind-mounted read-only; the builds and tests
# run as an unprivileged user of the chroot (some tests check permission
# errors). Remove $GST126_ROOT to start from scratch. The chroot itself
# (debootstrap, mounts undone on exit, a clean environment) is
# scripts/lib-chroot.sh, shared with scripts/test-packages.sh.
# Exit status: 0 when every test passed or skipped, 1 when a build or a test
# failed, 2 when it cannot run (one line on stderr says why).
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$(pwd)
SHARED=$(cd .. && pwd)/shared
ROOT=$(realpath -m "${GST126_ROOT:-/var/tmp/gst-ssim2-trixie}")
SUITE=trixie
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
# One architecture is enough to check that the kernels build with trixie's
# compiler; the default list (five) would multiply nvcc's time by five.
CUDA_OPTIONS="-Dcuda=enabled -Dcuda-archs=75"

CHROOT_NAME=test-gst-1.26
# shellcheck source=scripts/lib-chroot.sh
. scripts/lib-chroot.sh
log() { echo "== $CHROOT_NAME: $*"; }

[ "$(id -u)" = 0 ] || chroot_die "needs root (debootstrap, chroot, mount): run it with sudo"
[ -d "$SHARED/testdata" ] || chroot_die "no test data at $SHARED/testdata (the checkout's ../shared)"
USE_CUDA=1
if [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
  [ "${GST126_REQUIRE_CUDA:-0}" = 1 ] && chroot_die "no nvcc in $CUDA_HOME/bin (GST126_REQUIRE_CUDA=1)"
  echo "$CHROOT_NAME: no nvcc in $CUDA_HOME/bin: the CUDA build is left out" >&2
  USE_CUDA=0
fi

# One run at a time on a chroot.
mkdir -p "$(dirname "$ROOT")"
exec 9>"$ROOT.lock"
flock -n 9 || chroot_die "another run holds $ROOT.lock"

# 1. The base system with what scripts/install-deps.sh lists and ccache for
#    the rebuilds: made once, the packages installed again when that list
#    changes. The builds run as the chroot's user `builder`.
# shellcheck disable=SC2046  # one package a word
chroot_base "$SUITE" "$ROOT" $(scripts/install-deps.sh --list) ccache
chroot_mount_system "$ROOT"
chroot_bind "$SRC" "$ROOT/src/gst-ssim2" ro
chroot_bind "$SHARED" "$ROOT/src/shared" ro
chroot_run "$ROOT" id builder >/dev/null 2>&1 || chroot_run "$ROOT" useradd --create-home builder
CHROOT_ENV=(PATH=/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
            CCACHE_DIR=/home/builder/ccache)
log "GStreamer $(chroot_run "$ROOT" pkg-config --modversion gstreamer-1.0), $(chroot_run "$ROOT" gcc --version | head -n1)"

# 2. The two builds and their tests, as the chroot's user. A build folder is
#    configured again from scratch when its options change. meson test would
#    build every target first; the suites' own targets come from meson's
#    introspection files instead.
status=0
build_and_test() {  # NAME MESON_OPTIONS
  local dir=/home/builder/build-$1 options=$2
  log "build $1: meson setup -Dwerror=true $options"
  # shellcheck disable=SC2016,SC2086  # $ expanded in the chroot; options split
  if ! chroot_run --user builder "$ROOT" sh -c '
      set -e
      dir=$1; shift
      cd /src/gst-ssim2
      if [ ! -f "$dir/build.ninja" ] || [ "$(cat "$dir.options" 2>/dev/null)" != "$*" ]; then
        rm -rf "$dir"
        meson setup "$dir" -Dwerror=true "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; exit 1; }
        echo "$*" >"$dir.options"
      fi
      ninja -C "$dir" build.ninja  # meson regenerates it (and its introspection) when a meson.build changed
      targets=$(python3 - "$dir" gst video <<"PY"
import json, os, sys
info = os.path.join(sys.argv[1], "meson-info")
suites = set(sys.argv[2:])
targets = {t["id"]: t for t in json.load(open(os.path.join(info, "intro-targets.json")))}
ids = {d for t in json.load(open(os.path.join(info, "intro-tests.json")))
       if suites & {s.split(":")[-1] for s in t["suite"]} for d in t["depends"]}
print(" ".join(sorted(os.path.relpath(f, sys.argv[1]) for i in ids for f in targets[i]["filename"])))
PY
      )
      ninja -C "$dir" $targets
      meson test -C "$dir" --no-rebuild --print-errorlogs --suite gst --suite video' sh "$dir" $options; then
    echo "$CHROOT_NAME: build $1 FAILED" >&2
    status=1
  fi
}
if [ "$USE_CUDA" = 1 ]; then
  chroot_bind "$(readlink -f "$CUDA_HOME")" "$ROOT/usr/local/cuda" ro
  build_and_test cuda "$CUDA_OPTIONS"
  chroot_unmount_last  # the CPU build sees no CUDA toolkit
fi
build_and_test cpu -Dcuda=disabled
if [ "$status" = 0 ]; then log "all passed"; else log "FAILED"; fi
exit "$status"
