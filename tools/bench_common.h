// What ssim2-bench and the peer benchmarks (scripts/peers) share, so that
// every GPU figure of docs/PERFORMANCE.md is measured on the same pixels and
// asked for the same way: the synthetic pictures and the list arguments.
#ifndef SSIM2_TOOLS_BENCH_COMMON_H_
#define SSIM2_TOOLS_BENCH_COMMON_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

struct HostImage {
  int w, h;
  std::vector<std::uint8_t> rgb;  // packed RGB, rows of 3 * w bytes
};

// The synthetic 8-bit RGB pictures: smooth waves with a finer pattern, plus
// uniform noise of +-noise for a distorted image.
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

// A comma-separated list: sizes WxH (at least 8x8) into *size_out when
// `sizes`, else counts 1..256 into *out. False on any malformed item.
inline bool ParseList(const char* text, std::vector<int>* out, bool sizes,
                      std::vector<std::pair<int, int>>* size_out) {
  std::string s = text;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    const std::string item = s.substr(pos, comma - pos);
    int a = 0, b = 0;
    char tail = 0;
    if (sizes) {
      if (std::sscanf(item.c_str(), "%dx%d%c", &a, &b, &tail) != 2 || a < 8 || b < 8) return false;
      size_out->push_back({a, b});
    } else {
      if (std::sscanf(item.c_str(), "%d%c", &a, &tail) != 1 || a < 1 || a > 256) return false;
      out->push_back(a);
    }
    pos = comma + 1;
  }
  return true;
}

#endif  // SSIM2_TOOLS_BENCH_COMMON_H_
