// ssim2-cpu-bench: time of the CPU path per image pair (a tool, not a test).
//
//   ssim2-cpu-bench [--sizes 1280x720,1920x1080] [--repeats N] [--threads 1,0]
//
// For each size and thread count (0 = all hardware threads) it prints, in ms:
//   first    the first pair of a new scorer (pays for faulting in its memory)
//   pair     Scorer::Compute on a warm scorer, median of N
//   cached   ComputeWithReference after SetReference, median of N
// The images are synthetic 8-bit RGB (smooth gradients, edges and noise) and
// the distorted one a noisier, blockier copy, so no files are needed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ssim2/ssim2.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Size {
  int width;
  int height;
};

std::vector<std::uint8_t> MakeImage(int w, int h, bool distorted) {
  std::vector<std::uint8_t> px(static_cast<std::size_t>(w) * h * 3);
  std::mt19937 rng(distorted ? 2 : 1);
  std::normal_distribution<float> noise(0.0f, distorted ? 6.0f : 2.0f);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      // Distortion: 8x8 block means mixed in, as a coarse codec would.
      const int bx = distorted ? x / 8 * 8 + 4 : x;
      const int by = distorted ? y / 8 * 8 + 4 : y;
      const float base[3] = {128 + 100 * std::sin(bx * 0.013f + by * 0.007f),
                             96 + 80 * std::cos(by * 0.011f),
                             (bx / 64 + by / 64) % 2 ? 200.0f : 60.0f};
      for (int c = 0; c < 3; ++c) {
        const float v = base[c] + noise(rng);
        px[(static_cast<std::size_t>(y) * w + x) * 3 + c] =
            static_cast<std::uint8_t>(std::clamp(v, 0.0f, 255.0f));
      }
    }
  }
  return px;
}

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool Check(const ssim2::Status& s, const char* what) {
  if (!s.ok()) std::fprintf(stderr, "ssim2-cpu-bench: %s: %s\n", what, s.message().c_str());
  return s.ok();
}

bool ParseList(const char* arg, std::vector<Size>* sizes) {
  sizes->clear();
  for (const char* p = arg; *p;) {
    Size s{};
    int used = 0;
    if (std::sscanf(p, "%dx%d%n", &s.width, &s.height, &used) != 2 || s.width < 8 || s.height < 8) {
      return false;
    }
    sizes->push_back(s);
    p += used;
    if (*p == ',') ++p;
  }
  return !sizes->empty();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Size> sizes = {{1280, 720}, {1920, 1080}};
  std::vector<int> thread_counts = {1, 0};
  int repeats = 7;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--sizes") && has_value && ParseList(argv[i + 1], &sizes)) {
      ++i;
    } else if (!std::strcmp(argv[i], "--repeats") && has_value && std::atoi(argv[i + 1]) > 0) {
      repeats = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--threads") && has_value) {
      thread_counts.clear();
      for (const char* p = argv[++i]; *p;) {
        thread_counts.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
      }
    } else {
      std::fprintf(stderr,
                   "usage: %s [--sizes WxH,...] [--repeats N] [--threads N,...] (0 = all)\n",
                   argv[0]);
      return 2;
    }
  }

  std::string description;
  std::printf("| size | threads | first pair ms | pair ms | cached-reference ms | score |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const Size& size : sizes) {
    const std::vector<std::uint8_t> ref = MakeImage(size.width, size.height, false);
    const std::vector<std::uint8_t> dist = MakeImage(size.width, size.height, true);
    const auto view = [&](const std::vector<std::uint8_t>& px) {
      return ssim2::ImageView::Packed(ssim2::PixelFormat::kRGB8, size.width, size.height,
                                      px.data(), size.width * 3);
    };
    for (int threads : thread_counts) {
      ssim2::ScorerOptions options;
      options.backend = ssim2::Backend::kCpu;
      options.cpu_threads = threads;
      std::unique_ptr<ssim2::Scorer> scorer;
      ssim2::Result result;
      const auto t0 = Clock::now();
      if (!Check(ssim2::Scorer::Create(size.width, size.height, options, &scorer), "create") ||
          !Check(scorer->Compute(view(ref), view(dist), &result), "compute")) {
        return 1;
      }
      const double first = Ms(t0, Clock::now());
      description = scorer->description();
      std::vector<double> pair, cached;
      for (int r = 0; r < repeats; ++r) {
        const auto a = Clock::now();
        if (!Check(scorer->Compute(view(ref), view(dist), &result), "compute")) return 1;
        pair.push_back(Ms(a, Clock::now()));
      }
      if (!Check(scorer->SetReference(view(ref)), "set reference")) return 1;
      for (int r = 0; r < repeats; ++r) {
        const auto a = Clock::now();
        if (!Check(scorer->ComputeWithReference(view(dist), &result), "compute")) return 1;
        cached.push_back(Ms(a, Clock::now()));
      }
      const int shown = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
      std::printf("| %dx%d | %d | %.1f | %.1f | %.1f | %.8f |\n", size.width, size.height, shown,
                  first, Median(pair), Median(cached), result.score);
    }
  }
  std::printf("\nlast scorer: %s\n", description.c_str());
  return 0;
}
