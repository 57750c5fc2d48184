#!/usr/bin/env bash
# Builds libjxl's own `ssimulacra2` tool (libjxl tools/ssimulacra2.cc, a devtool), the reference that the HDR
# scores of docs/HDR.md and tests/data/hdr/ come from. It is run by hand, outside CI, and nothing of libjxl goes
# into this repository: the sources and the build stay where you put them.
#
# Get the sources (the pinned commits are the ones the HDR test data was made with):
#   git clone https://github.com/libjxl/libjxl "$SRC" && git -C "$SRC" checkout aea3a06e
#   git -C "$SRC" submodule update --init third_party/highway third_party/skcms
# (the submodules are libjxl's pins: highway 457c8917, skcms 96d9171c; Debian 12's libhwy is too old).
# Debian 12 packages: cmake g++ pkg-config libbrotli-dev libpng-dev zlib1g-dev (and liblcms2-dev for JXL_CMS=lcms2).
#
# Then:
#   LIBJXL_SRC=$SRC scripts/make-hdr-reference.sh [BUILD_DIR]     # BUILD_DIR defaults to $SRC/build-ssimulacra2
# The last line printed is the tool's path; scripts/make-hdr-testdata.py takes it as SSIMULACRA2. Beside it,
# tools/hdr-reference-probe (from scripts/hdr-reference-probe.cc) prints the linear values the tool computes.
#
# Optional environment:
#   HIGHWAY_SRC, SKCMS_SRC  source trees of those two commits, for a libjxl tree whose submodule folders are empty
#                           (e.g. from `git archive`); they are linked into $LIBJXL_SRC/third_party.
#   JXL_CMS                 skcms (default: libjxl's default on little-endian machines, the reference) or lcms2.
#   JOBS                    parallel compile jobs (default: all cores).
set -euo pipefail

readonly PINNED_LIBJXL=aea3a06e
SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
die() { echo "make-hdr-reference: $*" >&2; exit 1; }

[ -n "${LIBJXL_SRC:-}" ] || die "set LIBJXL_SRC to a libjxl source tree at $PINNED_LIBJXL (see the head of this script)"
[ -f "$LIBJXL_SRC/tools/ssimulacra2.cc" ] || die "$LIBJXL_SRC is not a libjxl source tree (no tools/ssimulacra2.cc)"
LIBJXL_SRC=$(cd "$LIBJXL_SRC" && pwd)
BUILD_DIR=${1:-$LIBJXL_SRC/build-ssimulacra2}
JXL_CMS=${JXL_CMS:-skcms}
JOBS=${JOBS:-$(nproc)}

if git -C "$LIBJXL_SRC" rev-parse --git-dir >/dev/null 2>&1; then
  head=$(git -C "$LIBJXL_SRC" rev-parse HEAD)
  case $head in
    "$PINNED_LIBJXL"*) ;;
    *) echo "make-hdr-reference: warning: $LIBJXL_SRC is at $head, not $PINNED_LIBJXL; its scores may differ" >&2 ;;
  esac
else
  echo "make-hdr-reference: note: $LIBJXL_SRC is not a git checkout; make sure it is libjxl $PINNED_LIBJXL" >&2
fi

# Puts a separately obtained dependency where libjxl's CMake looks for it (third_party/<name>), only into an
# empty submodule folder, so that an initialised checkout is never touched.
place_dependency() {
  local name=$1 marker=$2 src=${3:-}
  local dest=$LIBJXL_SRC/third_party/$name
  [ -e "$dest/$marker" ] && return 0
  [ -n "$src" ] || die "$dest/$marker is missing: run 'git submodule update --init third_party/$name' in $LIBJXL_SRC or set ${name^^}_SRC"
  [ -e "$src/$marker" ] || die "$src has no $marker: not a $name source tree"
  if [ -d "$dest" ] && [ ! -L "$dest" ]; then
    rmdir "$dest" 2>/dev/null || die "$dest is not empty; remove it or initialise the submodule"
  fi
  ln -sfn "$(cd "$src" && pwd)" "$dest"
}
place_dependency highway CMakeLists.txt "${HIGHWAY_SRC:-}"

case $JXL_CMS in
  skcms) place_dependency skcms skcms.h "${SKCMS_SRC:-}"; cms_flags=(-DJPEGXL_ENABLE_SKCMS=ON) ;;
  lcms2) cms_flags=(-DJPEGXL_ENABLE_SKCMS=OFF -DJPEGXL_FORCE_SYSTEM_LCMS2=ON) ;;
  *) die "JXL_CMS must be skcms or lcms2, not '$JXL_CMS'" ;;
esac

mkdir -p "$BUILD_DIR"
start=$(date +%s)
# Only what the ssimulacra2 devtool needs; Debian's brotli and libpng, libjxl's pinned highway.
cmake -S "$LIBJXL_SRC" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  -DJPEGXL_ENABLE_DEVTOOLS=ON -DJPEGXL_ENABLE_TOOLS=ON -DJPEGXL_ENABLE_BENCHMARK=OFF \
  -DJPEGXL_ENABLE_EXAMPLES=OFF -DJPEGXL_ENABLE_JNI=OFF -DJPEGXL_ENABLE_SJPEG=OFF -DJPEGXL_ENABLE_OPENEXR=OFF \
  -DJPEGXL_ENABLE_FUZZERS=OFF -DJPEGXL_ENABLE_DOXYGEN=OFF -DJPEGXL_ENABLE_MANPAGES=OFF \
  -DJPEGXL_ENABLE_TCMALLOC=OFF -DJPEGXL_FORCE_SYSTEM_BROTLI=ON "${cms_flags[@]}" >"$BUILD_DIR/cmake.log" 2>&1 ||
  { tail -30 "$BUILD_DIR/cmake.log" >&2; die "cmake failed (log: $BUILD_DIR/cmake.log)"; }
cmake --build "$BUILD_DIR" --target ssimulacra2 -j "$JOBS" >"$BUILD_DIR/build.log" 2>&1 ||
  { tail -30 "$BUILD_DIR/build.log" >&2; die "build failed (log: $BUILD_DIR/build.log)"; }

tool=$BUILD_DIR/tools/ssimulacra2
[ -x "$tool" ] || die "the build did not produce $tool"

# The probe (this project's hdr-reference-probe.cc) prints the linear values the tool feeds into XYB; it is
# compiled and linked exactly like the tool's own main file, with the flags CMake generated for it.
target=$BUILD_DIR/tools/CMakeFiles/ssimulacra2.dir
flag() { sed -n "s/^$1 = //p" "$target/flags.make"; }
link=$(sed 's| CMakeFiles/ssimulacra2.dir/[a-z0-9_]*\.cc\.o||g; s| -o ssimulacra2 | hdr-reference-probe.o -o hdr-reference-probe |' \
  "$target/link.txt")
(cd "$BUILD_DIR/tools" &&
  eval "c++ $(flag CXX_DEFINES) $(flag CXX_INCLUDES) $(flag CXX_FLAGS) -c '$SCRIPT_DIR/hdr-reference-probe.cc' -o hdr-reference-probe.o" &&
  eval "$link") >"$BUILD_DIR/probe.log" 2>&1 || { tail -30 "$BUILD_DIR/probe.log" >&2; die "the probe did not build (log: $BUILD_DIR/probe.log)"; }
echo "make-hdr-reference: built with $JXL_CMS in $(( $(date +%s) - start )) s; probe: $BUILD_DIR/tools/hdr-reference-probe" >&2
echo "$tool"
