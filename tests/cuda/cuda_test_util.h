// Helpers shared by the GPU tests (gtest): messages, the device check,
// random images, CUDA device buffers, result comparisons.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../assertions.h"
#include "../test_flags.h"
#include "cuda/engine.h"
#include "ssim2/ssim2.h"


// Skips the test (GTEST_SKIP) when no CUDA device can be used; a binary
// whose tests all skipped exits 77 (tests/gtest_main.cpp).
#define SSIM2_REQUIRE_DEVICE()                                 \
  do {                                                         \
    std::string why_;                                          \
    if (!::ssim2::cuda::DeviceAvailable(&why_)) GTEST_SKIP() << why_; \
  } while (0)

namespace cudatest {

// printf-style text for failure messages.
inline std::string Format(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

// A device copy of a host buffer (freed by the destructor).
struct DeviceCopy {
  void* ptr = nullptr;
  DeviceCopy() = default;
  DeviceCopy(const void* host, std::size_t bytes) {
    if (cudaMalloc(&ptr, bytes) != cudaSuccess) {
      ptr = nullptr;
      return;
    }
    cudaMemcpy(ptr, host, bytes, cudaMemcpyHostToDevice);
    // From pageable memory cudaMemcpy may return before the DMA has landed,
    // and the engine's stream is non-blocking (no implicit ordering with the
    // legacy default stream): without this the engine could read the buffer
    // early (seen on the H200: device-input scores differing from host-input).
    cudaDeviceSynchronize();
  }
  ~DeviceCopy() {
    if (ptr) cudaFree(ptr);
  }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  DeviceCopy(DeviceCopy&& o) noexcept : ptr(o.ptr) { o.ptr = nullptr; }
};

// Largest relative feature difference; *where names the first worst one.
inline double MaxFeatureDiff(const ssim2::Result& a, const ssim2::Result& b, std::string* where) {
  double worst = 0.0;
  for (int s = 0; s < ssim2::kMaxScales; ++s)
    for (int c = 0; c < 3; ++c)
      for (int m = 0; m < 3; ++m)
        for (int n = 0; n < 2; ++n) {
          const double d = ssim2::testing::RelativeDiff(a.features[s][c][m][n], b.features[s][c][m][n]);
          if (d > worst) {
            worst = d;
            if (where) {
              char buf[200];
              std::snprintf(buf, sizeof buf, "scale %d channel %d map %d norm %d: %.17g vs %.17g",
                            s, c, m, n, a.features[s][c][m][n], b.features[s][c][m][n]);
              *where = buf;
            }
          }
        }
  return worst;
}

using ssim2::testing::BitIdentical;

}  // namespace cudatest
