#!/usr/bin/env bash
# Installs what gst-ssim2 needs to build and test on Debian 12 (bookworm).
# nvcc is not a Debian package: the CUDA toolkit is expected in /usr/local/cuda
# (without it the build still works, CPU path only).
#   scripts/install-deps.sh          installs what is missing
#   scripts/install-deps.sh --list   prints the packages that any Debian
#                                    release needs (one a line), for
#                                    scripts/test-gst-1.26.sh
set -euo pipefail

# locales: tests write logs under a generated de_DE.UTF-8 (localedef).
PACKAGES=(
  meson ninja-build pkg-config g++ python3 locales
  libpng-dev libjpeg-dev libgtest-dev libglib2.0-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
  # ssim2 monitor: its HTTP server (libsoup 3); its tests' OpenMetrics parser,
  # the browser that loads its page and the YAML reader of its examples.
  libsoup-3.0-dev python3-prometheus-client chromium python3-yaml
  # The Python example and its test (PyGObject with GStreamer's typelibs).
  python3-gi python3-gst-1.0 gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  # The man page's check (help2man) and the Debian packages (scripts/test-packages.sh).
  help2man debhelper fakeroot debootstrap lintian
)
if [ "${1:-}" = --list ]; then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi
# The fuzz target (scripts/fuzz.sh): clang with its sanitizer runtimes, named
# as in Debian 12.
PACKAGES+=(clang libclang-rt-14-dev)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
