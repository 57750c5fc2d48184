// ssim2-bench: throughput of the CUDA engine (and of the CPU path, for the
// ratio) on synthetic image pairs. A tool, not a test.
//
//   ssim2-bench [--seconds S] [--sizes 1280x720,1920x1080,3840x2160] [--no-cpu]
//
// Modes, per size:
//   host        8-bit RGB in pageable host memory, Compute(ref, dist), blocking
//   host-direct the same, pageable memory handed to the driver without the
//               engine's staging (SSIM2_CUDA_PAGEABLE_UPLOAD=direct)
//   host-pinned the same from pinned (cudaMallocHost) memory
//   device      device-resident inputs, Compute(ref, dist), blocking
//   device-async  device-resident, ComputeAsync with max_batch in flight
//   cached      SetReference once, then Compute(dist), blocking
//   batch8      ComputeBatch(ref, 8 distorted)
//   cpu         the CPU path (Scorer, Backend::kCpu, all threads), blocking
// Prints one "BENCH <size> <mode> <pairs/s>" line per measurement and one
// "MEM <size> <bytes> <bytes/pixel>" line per size, then a table.
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ssim2/cuda_engine.h"
#include "ssim2/ssim2.h"

using namespace ssim2;

namespace {

using Clock = std::chrono::steady_clock;

struct Image {
  int w, h;
  std::vector<std::uint8_t> rgb;
};

Image MakeImage(int w, int h, std::uint32_t seed, int noise) {
  Image img{w, h, std::vector<std::uint8_t>(static_cast<std::size_t>(w) * h * 3)};
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

// Runs `once` (which scores `pairs_per_call` pairs) for about `seconds`.
double Measure(double seconds, int pairs_per_call, const std::function<bool()>& once) {
  if (!once()) return -1;  // warm-up
  int calls = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  do {
    if (!once()) return -1;
    ++calls;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < seconds || calls < 3);
  return calls * pairs_per_call / elapsed;
}

bool Ok(const Status& s, const char* what) {
  if (!s.ok()) std::fprintf(stderr, "%s: %s: %s\n", what, StatusCodeName(s.code()), s.message().c_str());
  return s.ok();
}

struct Row {
  std::string size, mode;
  double pairs_per_s;
};

}  // namespace

int main(int argc, char** argv) {
  double seconds = 1.0;
  bool run_cpu = true;
  std::vector<std::pair<int, int>> sizes = {{1280, 720}, {1920, 1080}, {3840, 2160}};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--no-cpu")) {
      run_cpu = false;
    } else if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) {
      sizes.clear();
      std::string s = argv[++i];
      std::size_t pos = 0;
      while (pos < s.size()) {
        std::size_t comma = s.find(',', pos);
        if (comma == std::string::npos) comma = s.size();
        int w = 0, h = 0;
        if (std::sscanf(s.substr(pos, comma - pos).c_str(), "%dx%d", &w, &h) == 2) {
          sizes.push_back({w, h});
        }
        pos = comma + 1;
      }
    } else {
      std::fprintf(stderr, "usage: %s [--seconds S] [--sizes WxH,...] [--no-cpu]\n", argv[0]);
      return 2;
    }
  }
  std::string why;
  if (!cuda::DeviceAvailable(&why)) {
    std::printf("no CUDA device: %s\n", why.c_str());
    return 77;
  }
  std::vector<Row> rows;
  std::vector<std::pair<std::string, double>> memory;
  for (auto [w, h] : sizes) {
    const std::string size = std::to_string(w) + "x" + std::to_string(h);
    const Image ref = MakeImage(w, h, 1, 0);
    std::vector<Image> dists;
    for (int i = 0; i < 8; ++i) dists.push_back(MakeImage(w, h, 10 + i, 4 + 2 * i));
    const std::size_t bytes = ref.rgb.size();
    auto host_view = [&](const void* p) {
      return ImageView::Packed(PixelFormat::kRGB8, w, h, p, 3 * w);
    };
    auto dev_view = [&](const void* p) {
      return ImageView::Packed(PixelFormat::kRGB8, w, h, p, 3 * w, MemoryLocation::kCudaDevice);
    };
    cuda::Engine engine;
    cuda::EngineOptions opt;
    opt.max_batch = 8;
    if (!Ok(cuda::Engine::Create(w, h, opt, &engine), "Engine::Create")) return 1;
    const double bpp = static_cast<double>(engine.memory_bytes()) / (static_cast<double>(w) * h);
    std::printf("DEVICE %s\n", engine.device_name().c_str());
    std::printf("MEM %s %zu %.1f\n", size.c_str(), engine.memory_bytes(), bpp);
    memory.push_back({size, bpp});

    // Device and pinned copies.
    void* dref = nullptr;
    std::vector<void*> ddist(8, nullptr);
    void* pref = nullptr;
    void* pdist = nullptr;
    bool alloc_ok = cudaMalloc(&dref, bytes) == cudaSuccess &&
                    cudaMallocHost(&pref, bytes) == cudaSuccess &&
                    cudaMallocHost(&pdist, bytes) == cudaSuccess;
    for (int i = 0; i < 8 && alloc_ok; ++i) alloc_ok = cudaMalloc(&ddist[i], bytes) == cudaSuccess;
    if (!alloc_ok) {
      std::fprintf(stderr, "allocation of benchmark inputs failed\n");
      return 1;
    }
    cudaMemcpy(dref, ref.rgb.data(), bytes, cudaMemcpyHostToDevice);
    for (int i = 0; i < 8; ++i) cudaMemcpy(ddist[i], dists[i].rgb.data(), bytes, cudaMemcpyHostToDevice);
    std::memcpy(pref, ref.rgb.data(), bytes);
    std::memcpy(pdist, dists[0].rgb.data(), bytes);

    Result r0;
    if (!Ok(engine.Compute(host_view(ref.rgb.data()), host_view(dists[0].rgb.data()), &r0), "Compute")) return 1;
    std::printf("score of the benchmark pair: %.8f\n", r0.score);
    auto record = [&](const char* mode, double v) {
      rows.push_back({size, mode, v});
      std::printf("BENCH %s %s %.1f\n", size.c_str(), mode, v);
      std::fflush(stdout);
    };
    Result r;
    record("host", Measure(seconds, 1, [&] {
      return Ok(engine.Compute(host_view(ref.rgb.data()), host_view(dists[0].rgb.data()), &r), "host");
    }));
    {
      setenv("SSIM2_CUDA_PAGEABLE_UPLOAD", "direct", 1);
      cuda::Engine direct;
      const Status st = cuda::Engine::Create(w, h, opt, &direct);
      unsetenv("SSIM2_CUDA_PAGEABLE_UPLOAD");
      if (Ok(st, "Engine::Create (direct)")) {
        record("host-direct", Measure(seconds, 1, [&] {
          return Ok(direct.Compute(host_view(ref.rgb.data()), host_view(dists[0].rgb.data()), &r),
                    "host-direct");
        }));
      }
    }
    record("host-pinned", Measure(seconds, 1, [&] {
      return Ok(engine.Compute(host_view(pref), host_view(pdist), &r), "host-pinned");
    }));
    record("device", Measure(seconds, 1, [&] {
      return Ok(engine.Compute(dev_view(dref), dev_view(ddist[0]), &r), "device");
    }));
    record("device-async", Measure(seconds, 8, [&] {
      cuda::Engine::Ticket t[8];
      for (int i = 0; i < 8; ++i) {
        if (!Ok(engine.ComputeAsync(dev_view(dref), dev_view(ddist[i]), &t[i]), "async")) return false;
      }
      for (int i = 0; i < 8; ++i) {
        if (!Ok(engine.Wait(t[i], &r), "wait")) return false;
      }
      return true;
    }));
    if (!Ok(engine.SetReference(dev_view(dref)), "SetReference")) return 1;
    record("cached", Measure(seconds, 1, [&] {
      return Ok(engine.Compute(dev_view(ddist[0]), &r), "cached");
    }));
    std::vector<ImageView> batch;
    for (int i = 0; i < 8; ++i) batch.push_back(dev_view(ddist[i]));
    std::vector<Result> results(8);
    record("batch8", Measure(seconds, 8, [&] {
      return Ok(engine.ComputeBatch(dev_view(dref), batch.data(), 8, results.data()), "batch");
    }));
    if (std::fabs(results[0].score - r0.score) > 1e-9 || std::fabs(r.score - r0.score) > 1e-9) {
      std::printf("WARNING: scores differ between modes: %.10f %.10f %.10f\n", r0.score, r.score,
                  results[0].score);
    }
    if (run_cpu) {
      ScorerOptions so;
      so.backend = Backend::kCpu;
      std::unique_ptr<Scorer> cpu;
      if (Ok(Scorer::Create(w, h, so, &cpu), "CPU scorer")) {
        std::printf("CPU path: %s\n", cpu->description().c_str());
        Result rc;
        record("cpu", Measure(seconds, 1, [&] {
          return Ok(cpu->Compute(host_view(ref.rgb.data()), host_view(dists[0].rgb.data()), &rc), "cpu");
        }));
        std::printf("cpu score %.8f (gpu %.8f)\n", rc.score, r0.score);
      }
    }
    cudaFree(dref);
    for (void* p : ddist) cudaFree(p);
    cudaFreeHost(pref);
    cudaFreeHost(pdist);
  }

  // Table: pairs/s per mode and size.
  const char* modes[] = {"host", "host-direct", "host-pinned", "device", "device-async", "cached", "batch8", "cpu"};
  std::printf("\n| size | bytes/px |");
  for (const char* m : modes) std::printf(" %s |", m);
  std::printf(" device/cpu |\n|---|---|");
  for (std::size_t i = 0; i < sizeof modes / sizeof *modes; ++i) std::printf("---|");
  std::printf("---|\n");
  for (std::size_t si = 0; si < memory.size(); ++si) {
    const std::string& size = memory[si].first;
    std::printf("| %s | %.1f |", size.c_str(), memory[si].second);
    double dev = 0, cpu = 0;
    for (const char* m : modes) {
      double v = -1;
      for (const Row& row : rows)
        if (row.size == size && row.mode == m) v = row.pairs_per_s;
      if (v < 0) {
        std::printf(" - |");
      } else {
        std::printf(" %.0f |", v);
      }
      if (!std::strcmp(m, "device")) dev = v;
      if (!std::strcmp(m, "cpu")) cpu = v;
    }
    if (cpu > 0 && dev > 0) {
      std::printf(" %.0fx |\n", dev / cpu);
    } else {
      std::printf(" - |\n");
    }
  }
  return 0;
}
