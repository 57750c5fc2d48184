#!/bin/sh
# The CUDA kernels' object must depend on the kernel header, or an edit of
# kernels_device.cuh leaves stale kernels in the build (the emulated tests,
# compiled as C++, would still see the edit). Reads the dependencies ninja
# recorded for the object when it was compiled.
#   kernel_header_deps.sh NINJA BUILD_ROOT OBJECT
set -u
ninja=$1 build=$2 object=$3
deps=$("$ninja" -C "$build" -t deps "$object") || exit 1
case $deps in
  *kernels_device.cuh*) exit 0 ;;
esac
echo "FAIL: $object does not depend on kernels_device.cuh; ninja recorded:"
echo "$deps" | head -n 5
exit 1
