// Test images of any pixel format (the format table's layouts), owning
// their samples: used by the Scorer contract's tests and the CUDA engine's.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "pixel_format.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace testing {

enum class AlphaFill { kPattern, kTransparent, kOpaque };

// An image of any format that owns its samples: a smooth pattern (phase
// `phase`) with noise from `seed`, in each format's value range.
struct TestImage {
  std::vector<std::vector<unsigned char>> planes;
  ImageView view;
};

inline TestImage MakeImage(PixelFormat format, int width, int height, unsigned seed,
                           double phase = 0.0, AlphaFill alpha = AlphaFill::kPattern) {
  const FormatTraits& f = *FindFormat(format);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(-0.05, 0.05);
  auto value = [&](int x, int y, int k) {
    const double v = 0.5 + 0.4 * std::sin(0.3 * x + 0.2 * y + 1.7 * k + phase) + noise(rng);
    return std::min(1.0, std::max(0.0, v));
  };
  TestImage img;
  img.planes.resize(f.num_planes);
  std::array<const void*, 3> pointers{};
  std::array<std::ptrdiff_t, 3> strides{};
  for (int p = 0; p < f.num_planes; ++p) {
    const std::size_t stride = PlaneRowBytes(f, width, p) + 8;
    const int rows = PlaneRows(f, height, p);
    std::vector<unsigned char>& buf = img.planes[p];
    buf.assign(stride * rows, 0);
    const int samples = static_cast<int>(PlaneRowBytes(f, width, p)) / f.bytes_per_sample;
    for (int y = 0; y < rows; ++y) {
      unsigned char* row = buf.data() + stride * y;
      for (int i = 0; i < samples; ++i) {
        const int channel = f.family == FormatFamily::kPacked ? i % f.channels : p;
        const int x = f.family == FormatFamily::kPacked ? i / f.channels : i;
        double v = value(x, y, channel);
        if (f.family == FormatFamily::kPacked && channel == f.a) {
          if (alpha == AlphaFill::kTransparent) v = 0.0;
          if (alpha == AlphaFill::kOpaque) v = 1.0;
        }
        unsigned char* at = row + static_cast<std::size_t>(i) * f.bytes_per_sample;
        if (f.family == FormatFamily::kLinearPlanar) {
          const float fv = static_cast<float>(v);
          std::memcpy(at, &fv, 4);
        } else if (f.bytes_per_sample == 1) {
          *at = static_cast<unsigned char>(std::lround(v * 255));
        } else {
          const int max = f.family == FormatFamily::kYuv ? (1 << f.bit_depth) - 1 : 65535;
          int word = static_cast<int>(std::lround(v * max));
          if (f.msb_aligned) word <<= 16 - f.bit_depth;
          const std::uint16_t w16 = static_cast<std::uint16_t>(word);
          std::memcpy(at, &w16, 2);
        }
      }
    }
    pointers[p] = buf.data();
    strides[p] = static_cast<std::ptrdiff_t>(stride);
  }
  img.view = ImageView::Planar(format, width, height, pointers, strides);
  return img;
}

}  // namespace testing
}  // namespace ssim2
