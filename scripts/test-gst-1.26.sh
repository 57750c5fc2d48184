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
# errors). Remove $GST126_ROOT to start from scratch.
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
CUDA_OPTIONS="-Dcuda=enabled -Dgpu_archs=75"

die() { echo "test-gst-1.26: $*" >&2; exit 2; }
log() { echo "== test-gst-1.26: $*"; }

# The Debian archive apt uses here (deb822 "URIs:" or one-line "deb" entries),
# else deb.debian.org.
debian_mirror() {
  local url
  url=$(grep -hsE '^[[:space:]]*(URIs:|deb[[:space:]])' /etc/apt/sources.list /etc/apt/sources.list.d/* |
        grep -oE 'https?://[^[:space:]]+/debian/?([[:space:]]|$)' | head -n1 | tr -d '[:space:]')
  echo "${url:-http://deb.debian.org/debian}"
}
MIRROR=${DEBIAN_MIRROR:-$(debian_mirror)}

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount): run it with sudo"
command -v debootstrap >/dev/null || die "debootstrap not found: apt-get install debootstrap"
[ -d "$SHARED/testdata" ] || die "no test data at $SHARED/testdata (the checkout's ../shared)"
USE_CUDA=1
if [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
  [ "${GST126_REQUIRE_CUDA:-0}" = 1 ] && die "no nvcc in $CUDA_HOME/bin (GST126_REQUIRE_CUDA=1)"
  echo "test-gst-1.26: no nvcc in $CUDA_HOME/bin: the CUDA build is left out" >&2
  USE_CUDA=0
fi

# One run at a time on a chroot.
mkdir -p "$(dirname "$ROOT")"
exec 9>"$ROOT.lock"
flock -n 9 || die "another run holds $ROOT.lock"

# On any exit: end what still runs inside the chroot (a build of an
# interrupted run), then unmount what this run mounted, in reverse order.
MOUNTS=()
# shellcheck disable=SC2317  # called from the trap
stop_chroot_processes() {
  local p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] && kill -TERM "${p#/proc/}" 2>/dev/null
  done
  return 0
}
# shellcheck disable=SC2317  # called from the trap
cleanup() {
  stop_chroot_processes
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}" ||
      echo "test-gst-1.26: could not unmount ${MOUNTS[i]}" >&2
  done
  MOUNTS=()
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# bind SOURCE TARGET [ro]
bind() {
  mkdir -p "$2"
  mount --bind "$1" "$2"
  MOUNTS+=("$2")
  if [ "${3:-}" = ro ]; then mount -o remount,bind,ro "$2"; fi
}
unmount_last() {
  umount "${MOUNTS[-1]}"
  unset 'MOUNTS[-1]'
}
mount_all() {
  mkdir -p "$ROOT/proc" "$ROOT/sys"
  mount -t proc proc "$ROOT/proc" && MOUNTS+=("$ROOT/proc")
  mount -t sysfs sysfs "$ROOT/sys" && MOUNTS+=("$ROOT/sys")
  bind /dev "$ROOT/dev"
  bind /dev/pts "$ROOT/dev/pts"
  bind "$SRC" "$ROOT/src/gst-ssim2" ro
  bind "$SHARED" "$ROOT/src/shared" ro
}
# A leftover mount inside $ROOT (a run killed with SIGKILL) would let rm -rf
# reach the host's files: refuse instead.
assert_unmounted() {
  if findmnt -rno TARGET | grep -q "^$ROOT/"; then
    die "mounts left inside $ROOT (see findmnt): unmount them first"
  fi
}
reach_archive() {
  wget -q -T 20 -t 2 --spider "$MIRROR/dists/$SUITE/InRelease" ||
    die "cannot reach the Debian archive at $MIRROR (dists/$SUITE/InRelease): no network?"
}
# [--user] COMMAND...: runs in the chroot with a clean environment, as root
# or as the chroot's user. In the background, so that the traps run at once
# when a signal comes (bash runs them only after a foreground command ends).
in_root() {
  local user=(--userspec=0:0) home=/root
  if [ "$1" = --user ]; then shift; user=(--userspec=builder:builder); home=/home/builder; fi
  chroot "${user[@]}" "$ROOT" /usr/bin/env -i HOME="$home" LC_ALL=C.UTF-8 \
    PATH=/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    DEBIAN_FRONTEND=noninteractive CCACHE_DIR=/home/builder/ccache "$@" &
  wait $!
}

# 1. The base system, once.
assert_unmounted
if [ ! -f "$ROOT/.debootstrap-done" ]; then
  reach_archive
  rm -rf --one-file-system "$ROOT"
  log "debootstrap $SUITE from $MIRROR into $ROOT"
  debootstrap --variant=minbase --components=main "$SUITE" "$ROOT" "$MIRROR" >"$ROOT.debootstrap.log" 2>&1 ||
    { tail -n 20 "$ROOT.debootstrap.log" >&2; echo "test-gst-1.26: debootstrap failed (log: $ROOT.debootstrap.log)" >&2; exit 2; }
  touch "$ROOT/.debootstrap-done"
fi

# 2. The packages: what scripts/install-deps.sh lists, and ccache for the
#    rebuilds. Installed again when that list changes.
PACKAGES="$(scripts/install-deps.sh --list | tr '\n' ' ')ccache"
mount_all
if [ "$(cat "$ROOT/.packages" 2>/dev/null)" != "$PACKAGES" ]; then
  reach_archive
  cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
  log "installing $PACKAGES"
  # shellcheck disable=SC2086
  in_root sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $PACKAGES >/dev/null" ||
    { echo "test-gst-1.26: apt-get in the chroot failed" >&2; exit 2; }
  in_root apt-get clean
  echo "$PACKAGES" >"$ROOT/.packages"
fi
in_root id builder >/dev/null 2>&1 || in_root useradd --create-home builder
log "GStreamer $(in_root pkg-config --modversion gstreamer-1.0), $(in_root gcc --version | head -n1)"

# 3. The two builds and their tests, as the chroot's user. A build folder is
#    configured again from scratch when its options change. meson test would
#    build every target first; the suites' own targets come from meson's
#    introspection files instead.
status=0
build_and_test() {  # NAME MESON_OPTIONS
  local dir=/home/builder/build-$1 options=$2
  log "build $1: meson setup -Dwerror=true $options"
  # shellcheck disable=SC2016,SC2086  # $ expanded in the chroot; options split
  if ! in_root --user sh -c '
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
    echo "test-gst-1.26: build $1 FAILED" >&2
    status=1
  fi
}
if [ "$USE_CUDA" = 1 ]; then
  bind "$(readlink -f "$CUDA_HOME")" "$ROOT/usr/local/cuda" ro
  build_and_test cuda "$CUDA_OPTIONS"
  unmount_last
fi
build_and_test cpu -Dcuda=disabled
if [ "$status" = 0 ]; then log "all passed"; else log "FAILED"; fi
exit "$status"
