// ssim2-cpu-bench: speed, scaling and memory of the CPU path (a tool, not a test).
//
//   ssim2-cpu-bench [--sizes 1280x720,1920x1080,3840x2160] [--threads 1,2,4,8,16]
//                   [--repeats N] [--band-rows auto,32,48,64,96] [--independent]
//
// For each size and thread count (0 = all hardware threads) it prints one row:
//   first      ms of the first pair of a new scorer (pays for its fresh memory)
//   pair       ms of Scorer::Compute on a warm scorer, the best of N
//   pairs/s    1000 / pair
//   eff.       parallel efficiency against the 1-thread row of the same size
//   cached     ms of ComputeWithReference after SetReference, the best of N,
//              on a second scorer that never scores one-shot pairs
//   B/px       working memory per pixel: memory_bytes() of the scorer, and
//              the growth of the process's peak RSS while that scorer ran
//              (the RSS peak is reset before each scorer through
//              /proc/self/clear_refs; "n/a" where that is not allowed)
// --band-rows sweeps the CPU path's band height (SSIM2_CPU_BAND_ROWS, set
// before each scorer is made; "auto" leaves it unset): one row per size,
// thread count and band height, with a "band rows" column (the height asked
// for; the scorer's description names the one it used), and the efficiency
// taken against the 1-thread row of the same band setting. Without it the
// environment is left as it is.
// --independent adds two columns: T one-thread scorers scoring pairs at the
// same time on T threads (aggregate pairs/s from the wall time of N pairs
// each, after a warm pair) and that rate against T times the 1-thread row's.
// What the machine gives T independent pipelines bounds what one pipeline
// on T threads can reach: a shortfall seen there too is the processor's
// (clock under load, shared caches and memory), the rest is the pipeline's
// (rounds, and data crossing between cores).
// The images are synthetic 8-bit RGB (smooth gradients, edges and noise) and
// the distorted one a noisier, blockier copy, so no files are needed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <malloc.h>

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

bool Check(const ssim2::Status& s, const char* what) {
  if (!s.ok()) std::fprintf(stderr, "ssim2-cpu-bench: %s: %s\n", what, s.message().c_str());
  return s.ok();
}

bool ParseSizes(const char* arg, std::vector<Size>* sizes) {
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

// Comma-separated integers in [0, 1024]; `auto_value`, when not null, is
// what the word "auto" stands for.
bool ParseInts(const char* arg, std::vector<int>* values, const int* auto_value = nullptr) {
  values->clear();
  for (const char* p = arg; *p;) {
    if (auto_value && !std::strncmp(p, "auto", 4)) {
      values->push_back(*auto_value);
      p += 4;
      if (*p == ',') ++p;
      continue;
    }
    char* end = nullptr;
    const long v = std::strtol(p, &end, 10);
    if (end == p || v < 0 || v > 1024) return false;
    values->push_back(static_cast<int>(v));
    p = end;
    if (*p == ',') ++p;
  }
  return !values->empty();
}

// Peak and current resident set of this process, in bytes (0 if unknown).
std::size_t StatusField(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t n = std::strlen(field);
  while (std::getline(in, line)) {
    if (line.compare(0, n, field) == 0) return std::strtoull(line.c_str() + n, nullptr, 10) * 1024;
  }
  return 0;
}

// Resets the peak RSS to the current RSS; false where the kernel refuses.
bool ResetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

// Runs `body` and returns how far the process's peak RSS rose above its
// resident set before, or -1 when the peak cannot be reset.
template <typename Body>
double PeakRssGrowth(Body body) {
  const bool reset = ResetPeakRss();
  const std::size_t before = StatusField("VmRSS:");
  if (!body()) return -2;
  const std::size_t peak = StatusField("VmHWM:");
  if (!reset || peak == 0) return -1;
  return static_cast<double>(peak > before ? peak - before : 0);
}

std::string PerPixel(double bytes, const Size& size) {
  if (bytes < 0) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", bytes / (static_cast<double>(size.width) * size.height));
  return text;
}

// Aggregate pairs/s of `threads` one-thread CPU scorers scoring `repeats`
// pairs each at the same time (see --independent); 0 on an error.
template <typename View>
double IndependentRate(int threads, int repeats, const Size& size, View ref, View dist) {
  std::mutex mutex;
  std::condition_variable cv;
  int ready = 0;
  bool go = false, failed = false;
  Clock::time_point start;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      ssim2::ScorerOptions options;
      options.backend = ssim2::Backend::kCpu;
      options.cpu_threads = 1;
      std::unique_ptr<ssim2::Scorer> scorer;
      ssim2::Result result;
      bool ok = Check(ssim2::Scorer::Create(size.width, size.height, options, &scorer),
                      "create") &&
                Check(scorer->Compute(ref, dist, &result), "compute");
      {
        std::unique_lock<std::mutex> lock(mutex);
        failed |= !ok;
        if (++ready == threads) {
          go = true;
          start = Clock::now();
          cv.notify_all();
        }
        cv.wait(lock, [&] { return go; });
      }
      for (int r = 0; ok && r < repeats; ++r) ok = Check(scorer->Compute(ref, dist, &result), "compute");
      std::lock_guard<std::mutex> lock(mutex);
      failed |= !ok;
    });
  }
  for (std::thread& w : workers) w.join();
  if (failed) return 0.0;
  return 1000.0 * threads * repeats / Ms(start, Clock::now());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Size> sizes = {{1280, 720}, {1920, 1080}, {3840, 2160}};
  std::vector<int> thread_counts = {1, 2, 4, 8, 16};
  // Band heights to sweep; kAutoBandRows leaves SSIM2_CPU_BAND_ROWS unset.
  constexpr int kAutoBandRows = 0;
  std::vector<int> band_rows;
  bool independent = false;
  int repeats = 5;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--sizes") && has_value && ParseSizes(argv[i + 1], &sizes)) {
      ++i;
    } else if (!std::strcmp(argv[i], "--repeats") && has_value && std::atoi(argv[i + 1]) > 0) {
      repeats = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--threads") && has_value &&
               ParseInts(argv[i + 1], &thread_counts)) {
      ++i;
    } else if (!std::strcmp(argv[i], "--independent")) {
      independent = true;
    } else if (!std::strcmp(argv[i], "--band-rows") && has_value &&
               ParseInts(argv[i + 1], &band_rows, &kAutoBandRows)) {
      ++i;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--sizes WxH,...] [--threads N,...] (0 = all) [--repeats N] "
                   "[--band-rows auto|N,...] [--independent]\n",
                   argv[0]);
      return 2;
    }
  }
  // Large buffers come from mmap and go back to the system when freed, so
  // that one scorer's peak RSS is not hidden by memory another one left.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);

  // Without --band-rows one pass that leaves the environment alone.
  constexpr int kEnvironmentAsIs = -1;
  const bool sweep = !band_rows.empty();
  if (!sweep) band_rows = {kEnvironmentAsIs};

  std::string description;
  std::printf("%d hardware threads; times in ms, best of %d\n\n",
              static_cast<int>(std::thread::hardware_concurrency()), repeats);
  std::printf("| size | threads |%s first pair | pair | pairs/s | efficiency | cached | "
              "cached speed-up | B/px pair (memory_bytes / peak RSS) | B/px cached (memory_bytes "
              "/ peak RSS) | score |%s\n",
              sweep ? " band rows |" : "",
              independent ? " independent scorers, pairs/s | independent efficiency |" : "");
  std::printf("|---|---|%s---|---|---|---|---|---|---|---|---|%s\n", sweep ? "---|" : "",
              independent ? "---|---|" : "");
  for (const Size& size : sizes) {
    const std::vector<std::uint8_t> ref = MakeImage(size.width, size.height, false);
    const std::vector<std::uint8_t> dist = MakeImage(size.width, size.height, true);
    const auto view = [&](const std::vector<std::uint8_t>& px) {
      return ssim2::ImageView::Packed(ssim2::PixelFormat::kRGB8, size.width, size.height,
                                      px.data(), size.width * 3);
    };
    // Per band setting: the pairs/s of its 1-thread row.
    std::vector<double> one_thread_rate(band_rows.size(), 0.0);
    std::vector<double> one_independent_rate(band_rows.size(), 0.0);
    for (int threads : thread_counts) {
      for (std::size_t b = 0; b < band_rows.size(); ++b) {
        char band_cell[32] = "";
        if (band_rows[b] == kAutoBandRows) {
          unsetenv("SSIM2_CPU_BAND_ROWS");
          std::snprintf(band_cell, sizeof band_cell, " auto |");
        } else if (band_rows[b] != kEnvironmentAsIs) {
          setenv("SSIM2_CPU_BAND_ROWS", std::to_string(band_rows[b]).c_str(), 1);
          std::snprintf(band_cell, sizeof band_cell, " %d |", band_rows[b]);
        }
        ssim2::ScorerOptions options;
        options.backend = ssim2::Backend::kCpu;
        options.cpu_threads = threads;
        ssim2::Result result;
        double first = 0, pair = 1e30, cached = 1e30;
        std::size_t pair_bytes = 0, cached_bytes = 0;
        const double pair_rss = PeakRssGrowth([&] {
          std::unique_ptr<ssim2::Scorer> scorer;
          const auto t0 = Clock::now();
          if (!Check(ssim2::Scorer::Create(size.width, size.height, options, &scorer),
                     "create") ||
              !Check(scorer->Compute(view(ref), view(dist), &result), "compute")) {
            return false;
          }
          first = Ms(t0, Clock::now());
          description = scorer->description();
          for (int r = 0; r < repeats; ++r) {
            const auto a = Clock::now();
            if (!Check(scorer->Compute(view(ref), view(dist), &result), "compute")) return false;
            pair = std::min(pair, Ms(a, Clock::now()));
          }
          pair_bytes = scorer->memory_bytes();
          return true;
        });
        const double cached_rss = PeakRssGrowth([&] {
          std::unique_ptr<ssim2::Scorer> scorer;
          if (!Check(ssim2::Scorer::Create(size.width, size.height, options, &scorer),
                     "create") ||
              !Check(scorer->SetReference(view(ref)), "set reference")) {
            return false;
          }
          for (int r = 0; r < repeats; ++r) {
            const auto a = Clock::now();
            if (!Check(scorer->ComputeWithReference(view(dist), &result), "compute")) {
              return false;
            }
            cached = std::min(cached, Ms(a, Clock::now()));
          }
          cached_bytes = scorer->memory_bytes();
          return true;
        });
        if (pair_rss == -2 || cached_rss == -2) return 1;
        const int shown =
            threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
        const double rate = 1000.0 / pair;
        if (shown == 1) one_thread_rate[b] = rate;
        char efficiency[16] = "-";
        if (one_thread_rate[b] > 0) {
          std::snprintf(efficiency, sizeof efficiency, "%.0f %%",
                        100.0 * rate / (shown * one_thread_rate[b]));
        }
        std::string independent_cells;
        if (independent) {
          const double aggregate = IndependentRate(shown, repeats, size, view(ref), view(dist));
          if (aggregate == 0.0) return 1;
          if (shown == 1) one_independent_rate[b] = aggregate;
          char cells[64];
          std::snprintf(cells, sizeof cells, " %.1f | ", aggregate);
          independent_cells = cells;
          if (one_independent_rate[b] > 0) {
            std::snprintf(cells, sizeof cells, "%.0f %% |",
                          100.0 * aggregate / (shown * one_independent_rate[b]));
          } else {
            std::snprintf(cells, sizeof cells, "- |");
          }
          independent_cells += cells;
        }
        std::printf("| %dx%d | %d |%s %.1f | %.1f | %.1f | %s | %.1f | %.2fx | %s / %s | %s / %s | "
                    "%.8f |%s\n",
                    size.width, size.height, shown, band_cell, first, pair, rate, efficiency,
                    cached, pair / cached,
                    PerPixel(static_cast<double>(pair_bytes), size).c_str(),
                    PerPixel(pair_rss, size).c_str(),
                    PerPixel(static_cast<double>(cached_bytes), size).c_str(),
                    PerPixel(cached_rss, size).c_str(), result.score, independent_cells.c_str());
        std::fflush(stdout);
      }
    }
  }
  std::printf("\nlast scorer: %s\n", description.c_str());
  return 0;
}
