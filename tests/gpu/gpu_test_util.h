// Small helpers shared by the GPU tests: check bookkeeping, PNG loading
// (libpng's simplified API), random images, CUDA device buffers.
#pragma once

#include <cuda_runtime.h>
#include <png.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ssim2/cuda_engine.h"
#include "ssim2/ssim2.h"

namespace gputest {

inline int& Failures() {
  static int f = 0;
  return f;
}
inline int& Checks() {
  static int c = 0;
  return c;
}

#define CHECK_TRUE(cond, ...)                                      \
  do {                                                             \
    ++::gputest::Checks();                                         \
    if (!(cond)) {                                                 \
      ++::gputest::Failures();                                     \
      std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);  \
      std::printf(__VA_ARGS__);                                    \
      std::printf("\n");                                           \
    }                                                              \
  } while (0)

#define CHECK_OK(expr)                                                                   \
  do {                                                                                   \
    const ::ssim2::Status s_ = (expr);                                                   \
    ++::gputest::Checks();                                                               \
    if (!s_.ok()) {                                                                      \
      ++::gputest::Failures();                                                           \
      std::printf("FAIL %s:%d: %s: %s: %s\n", __FILE__, __LINE__, #expr,                 \
                  ::ssim2::StatusCodeName(s_.code()), s_.message().c_str());             \
    }                                                                                    \
  } while (0)

// Exit 77 (meson's "skipped") when no device can be used.
inline void RequireDeviceOrSkip(const char* test) {
  std::string why;
  if (!ssim2::cuda::DeviceAvailable(&why)) {
    std::printf("SKIP %s: %s\n", test, why.c_str());
    std::exit(77);
  }
}

inline int Finish(const char* test) {
  std::printf("%s %s: %d checks, %d failures\n", Failures() ? "FAILED" : "PASSED", test, Checks(),
              Failures());
  return Failures() ? 1 : 0;
}

struct Rgb8Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> data;  // RGB, tightly packed
  ssim2::ImageView View() const {
    return ssim2::ImageView::Packed(ssim2::PixelFormat::kRGB8, width, height, data.data(),
                                    3 * width);
  }
};

inline bool LoadPng(const std::string& path, Rgb8Image* out) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str())) return false;
  image.format = PNG_FORMAT_RGB;
  out->width = static_cast<int>(image.width);
  out->height = static_cast<int>(image.height);
  out->data.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out->data.data(), 0, nullptr)) {
    png_image_free(&image);
    return false;
  }
  return true;
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

// Relative difference of two features (NaN == NaN).
inline double FeatureDiff(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return 0.0;
  if (std::isnan(a) || std::isnan(b)) return INFINITY;
  const double d = std::fabs(a - b);
  const double m = std::max(std::fabs(a), std::fabs(b));
  return m > 1e-300 ? d / m : d;
}

// Largest relative feature difference; *where names the first worst one.
inline double MaxFeatureDiff(const ssim2::Result& a, const ssim2::Result& b, std::string* where) {
  double worst = 0.0;
  for (int s = 0; s < ssim2::kMaxScales; ++s)
    for (int c = 0; c < 3; ++c)
      for (int m = 0; m < 3; ++m)
        for (int n = 0; n < 2; ++n) {
          const double d = FeatureDiff(a.features[s][c][m][n], b.features[s][c][m][n]);
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

inline bool BitIdentical(const ssim2::Result& a, const ssim2::Result& b) {
  if (a.num_scales != b.num_scales) return false;
  if (std::memcmp(&a.score, &b.score, sizeof(double)) != 0) return false;
  for (int s = 0; s < ssim2::kMaxScales; ++s)
    for (int c = 0; c < 3; ++c)
      for (int m = 0; m < 3; ++m)
        for (int n = 0; n < 2; ++n) {
          const double x = a.features[s][c][m][n], y = b.features[s][c][m][n];
          if (std::isnan(x) && std::isnan(y)) continue;
          if (std::memcmp(&x, &y, sizeof x) != 0) return false;
        }
  return true;
}

}  // namespace gputest
