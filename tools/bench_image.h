// The synthetic 8-bit RGB pictures of the benchmarks: smooth waves with a
// finer pattern, plus uniform noise of +-noise for a distorted image. Shared
// by ssim2-bench and the peer benchmarks (scripts/peers), so that every
// figure of docs/PERFORMANCE.md is measured on the same pixels.
#ifndef SSIM2_TOOLS_BENCH_IMAGE_H_
#define SSIM2_TOOLS_BENCH_IMAGE_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

struct HostImage {
  int w, h;
  std::vector<std::uint8_t> rgb;  // packed RGB, rows of 3 * w bytes
};

inline HostImage MakeImage(int w, int h, std::uint32_t seed, int noise) {
  HostImage img{w, h, std::vector<std::uint8_t>(static_cast<std::size_t>(w) * h * 3)};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> nz(-noise, noise);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) {
        const double v = 128 + 100 * std::sin(0.013 * x + c) * std::cos(0.021 * y - c) +
                         20 * std::sin(0.31 * x * (c + 1)) * std::sin(0.17 * y);
        int iv = static_cast<int>(v) + (noise ? nz(rng) : 0);
        img.rgb[(static_cast<std::size_t>(y) * w + x) * 3 + c] =
            static_cast<std::uint8_t>(std::min(255, std::max(0, iv)));
      }
  return img;
}

#endif  // SSIM2_TOOLS_BENCH_IMAGE_H_
