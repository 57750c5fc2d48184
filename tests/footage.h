// Footage for the content alignment tests: camera moves (pans, zooms, cuts,
// a still, black) over the shared test data's photographs, and what an
// encoder does to a frame. The core suite (tests/core/test_alignment.cpp)
// aligns its signatures; the element's suite (ssim2compare_sync.c, through
// tests/check/elements/sync_footage.cpp) pushes its frames through
// ssim2compare.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "testdata_images.h"

namespace ssim2 {
namespace testing {


struct Rgb {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> px;  // packed RGB8
};

// A shot: the crop window's centre (fractions of the photo) and width
// (fraction of the photo's width) move linearly from start to end. An empty
// photo is black.
struct Shot {
  std::string photo;
  int frames;
  double cx0, cy0, width0;
  double cx1, cy1, width1;
};

constexpr int kWidth = 256;
constexpr int kHeight = 144;

class Footage {
 public:
  explicit Footage(std::vector<Shot> shots) : shots_(std::move(shots)) {}

  int frames() const {
    int n = 0;
    for (const Shot& s : shots_) n += s.frames;
    return n;
  }

  // Frame t of the footage; before the start and after the end the first and
  // last shot go on moving.
  Rgb Render(std::int64_t t) const {
    std::size_t index = 0;
    std::int64_t local = t;
    while (index + 1 < shots_.size() && local >= shots_[index].frames) {
      local -= shots_[index].frames;
      ++index;
    }
    const Shot& shot = shots_[index];
    Rgb out;
    out.width = kWidth;
    out.height = kHeight;
    out.px.assign(static_cast<std::size_t>(kWidth) * kHeight * 3, 16);
    if (shot.photo.empty()) return out;
    const io::Image& photo = LoadTestImage("images/" + shot.photo + "/reference.png");
    const double a = shot.frames > 1 ? static_cast<double>(local) / (shot.frames - 1) : 0.0;
    const double cx = (shot.cx0 + a * (shot.cx1 - shot.cx0)) * photo.width();
    const double cy = (shot.cy0 + a * (shot.cy1 - shot.cy0)) * photo.height();
    const double step = (shot.width0 + a * (shot.width1 - shot.width0)) * photo.width() / kWidth;
    const std::uint8_t* src = photo.bytes().data();
    const std::size_t stride = photo.stride();
    for (int y = 0; y < kHeight; ++y) {
      const double sy = std::clamp(cy + (y + 0.5 - kHeight / 2.0) * step - 0.5, 0.0, photo.height() - 1.001);
      const int y0 = static_cast<int>(sy);
      const double fy = sy - y0;
      for (int x = 0; x < kWidth; ++x) {
        const double sx = std::clamp(cx + (x + 0.5 - kWidth / 2.0) * step - 0.5, 0.0, photo.width() - 1.001);
        const int x0 = static_cast<int>(sx);
        const double fx = sx - x0;
        for (int c = 0; c < 3; ++c) {
          auto at = [&](int xx, int yy) { return src[yy * stride + xx * 3 + c]; };
          const double v = (1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x0 + 1, y0)) +
                           fy * ((1 - fx) * at(x0, y0 + 1) + fx * at(x0 + 1, y0 + 1));
          out.px[(static_cast<std::size_t>(y) * kWidth + x) * 3 + c] = static_cast<std::uint8_t>(v + 0.5);
        }
      }
    }
    return out;
  }

 private:
  std::vector<Shot> shots_;
};

// What an encoder does to a frame, roughly: a little blur, blocking (each
// 4x4 block pulled towards its mean), a brightness change that is not linear
// (a gamma of 0.9 and an offset), noise and quantisation. `seed`: each
// distorted frame gets its own noise (a repeated frame is encoded again).
Rgb Encode(const Rgb& in, std::uint32_t seed) {
  const int w = in.width, h = in.height;
  auto at = [&](int x, int y, int c) {
    return static_cast<double>(in.px[(static_cast<std::size_t>(y) * w + x) * 3 + c]);
  };
  std::vector<double> block_mean(static_cast<std::size_t>((w + 3) / 4) * ((h + 3) / 4) * 3, 0.0);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      for (int c = 0; c < 3; ++c) {
        block_mean[((static_cast<std::size_t>(y / 4) * ((w + 3) / 4)) + x / 4) * 3 + c] += at(x, y, c) / 16;
      }
    }
  }
  double gamma[256];
  for (int v = 0; v < 256; ++v) gamma[v] = 255.0 * std::pow(v / 255.0, 0.9) + 6.0;
  Rgb out = in;
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 4.0);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      for (int c = 0; c < 3; ++c) {
        double blurred = 0.0;
        for (int dy = -1; dy <= 1; ++dy) {
          for (int dx = -1; dx <= 1; ++dx) {
            blurred += (dx == 0 && dy == 0 ? 4 : 1) *
                       at(std::clamp(x + dx, 0, w - 1), std::clamp(y + dy, 0, h - 1), c);
          }
        }
        const double block = block_mean[((static_cast<std::size_t>(y / 4) * ((w + 3) / 4)) + x / 4) * 3 + c];
        const long v = std::lround(0.5 * blurred / 12.0 + 0.5 * block);
        const double encoded = std::round((gamma[v] + noise(rng)) / 6.0) * 6.0;
        out.px[(static_cast<std::size_t>(y) * w + x) * 3 + c] =
            static_cast<std::uint8_t>(std::clamp(encoded, 0.0, 255.0));
      }
    }
  }
  return out;
}

// About 300 frames: a pan over the dandelions, a cut to a zoom into the
// mountains, a cut to a pan over the night launch.
const Footage& MovingFootage() {
  static const Footage footage({
      {"seeding_1920x1080", 110, 0.30, 0.45, 0.45, 0.70, 0.55, 0.45},
      {"aitzgorri_1280x720", 100, 0.45, 0.50, 0.90, 0.60, 0.45, 0.55},
      {"rocket_640x360", 90, 0.35, 0.50, 0.55, 0.65, 0.50, 0.55},
  });
  return footage;
}

// About 3,100 frames (104 s at 30 fps): 24 shots of 130 frames, pans and zooms
// over the three large photographs in turn, at about the moving footage's
// speed. Long enough for a stream that loses frames to drift many windows
// away from its index. No picture comes twice: each of the 8 visits to a
// photograph pans with a crop width of its own (0.36 to 0.50 of the
// photograph's width) or zooms wider than that (0.56 and more; two zooms of
// one photograph at the same width are elsewhere in it), and a photograph
// comes back only after two other shots (over 2 x 130 frames).
const Footage& LongFootage() {
  static const Footage footage([] {
    const char* const photos[] = {"seeding_1920x1080", "aitzgorri_1280x720", "rocket_640x360"};
    std::vector<Shot> shots;
    for (int k = 0; k < 24; ++k) {
      const std::string photo = photos[k % 3];
      const double y = 0.38 + 0.04 * (k % 5);
      const double w = 0.36 + 0.02 * (k / 3);  // the visit to this photograph
      switch (k % 4) {
        case 0:  // pan right
          shots.push_back({photo, 130, 0.30, y, w, 0.70, y, w});
          break;
        case 1:  // pan left, a little down
          shots.push_back({photo, 130, 0.70, y - 0.04, w, 0.30, y + 0.04, w});
          break;
        case 2:  // zoom in while panning right
          shots.push_back({photo, 130, 0.35, 0.50, 0.70 + w - 0.36, 0.68, y, 0.56 + w - 0.36});
          break;
        default:  // diagonal pan
          shots.push_back({photo, 130, 0.32, y - 0.04, w, 0.66, y + 0.14, w});
          break;
      }
    }
    return shots;
  }());
  return footage;
}

// A pan, then a still (the camera stops), black, and a pan again.
const Footage& StaticFootage() {
  static const Footage footage({
      {"aitzgorri_1280x720", 60, 0.30, 0.50, 0.60, 0.45, 0.50, 0.60},
      {"aitzgorri_1280x720", 50, 0.45, 0.50, 0.60, 0.45, 0.50, 0.60},
      {"", 40, 0, 0, 1, 0, 0, 1},
      {"seeding_1920x1080", 80, 0.30, 0.50, 0.50, 0.65, 0.50, 0.50},
  });
  return footage;
}

}  // namespace testing
}  // namespace ssim2
