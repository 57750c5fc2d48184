// vship-bench: the throughput and device memory of Vship's SSIMULACRA2
// (github.com/Line-fr/Vship, through its C API) on the pictures ssim2-bench
// scores (tools/bench_common.h), so that docs/PERFORMANCE.md compares the two
// in one device session. A benchmark, not part of the product: built by
// scripts/peers/build-vship-bench.sh against a Vship source tree, run by
// scripts/device-peer-bench.sh.
//
//   vship-bench [--sizes 1920x1080,3840x2160] [--threads 1,3,4] [--seconds S]
//
// Vship takes planar frames in host memory; they are in pinned memory
// (Vship_PinnedMalloc), as ssim2-bench's host-pinned mode. T threads each
// drive a handler of their own (Vship's advice: three per GPU). Prints
//   VSHIP-SCORE <size> <score>            (the first pair, for a sanity check)
//   VSHIP-MEM <size> <bytes> <bytes/px>   (one handler after a pair)
//   VSHIP <size> <threads> <pairs/s>
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "VshipAPI.h"
#include "bench_common.h"

namespace {

bool Check(Vship_Exception e, const char* what) {
  if (e == Vship_NoError) return true;
  char msg[1024];
  Vship_GetDetailedLastError(msg, sizeof msg);
  std::fprintf(stderr, "vship-bench: %s: %s\n", what, msg);
  return false;
}

// Pinned planar copy of a packed RGB picture.
struct PlanarFrame {
  std::uint8_t* planes[3] = {};
  ~PlanarFrame() {
    for (std::uint8_t* p : planes)
      if (p) Vship_PinnedFree(p);
  }
  bool Fill(const HostImage& img) {
    const std::size_t n = static_cast<std::size_t>(img.w) * img.h;
    for (int c = 0; c < 3; ++c) {
      void* p = nullptr;
      if (!Check(Vship_PinnedMalloc(&p, n), "Vship_PinnedMalloc")) return false;
      planes[c] = static_cast<std::uint8_t*>(p);
      for (std::size_t i = 0; i < n; ++i) planes[c][i] = img.rgb[3 * i + c];
    }
    return true;
  }
};

Vship_Colorspace_t Srgb8(int w, int h) {
  Vship_Colorspace_t cs{};
  cs.width = w;
  cs.height = h;
  cs.target_width = -1;
  cs.target_height = -1;
  cs.sample = Vship_SampleUINT8;
  cs.range = Vship_RangeFull;
  cs.subsampling = {0, 0};
  cs.chromaLocation = Vship_ChromaLoc_Left;
  cs.colorFamily = Vship_ColorRGB;
  cs.YUVMatrix = Vship_MATRIX_RGB;
  cs.transferFunction = Vship_TRC_sRGB;
  cs.primaries = Vship_PRIMARIES_BT709;
  cs.crop = {0, 0, 0, 0};
  return cs;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::pair<int, int>> sizes = {{1920, 1080}, {3840, 2160}};
  std::vector<int> threads = {1, 3, 4};
  double seconds = 1.0;
  for (int i = 1; i < argc; ++i) {
    bool ok = true;
    if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) {
      sizes.clear();
      ok = ParseList(argv[++i], nullptr, true, &sizes);
    } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads.clear();
      ok = ParseList(argv[++i], &threads, false, nullptr);
    } else if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
      ok = seconds > 0;
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr, "usage: %s [--sizes WxH,...] [--threads T,...] [--seconds S]\n", argv[0]);
      return 2;
    }
  }
  if (!Check(Vship_GPUFullCheck(0), "Vship_GPUFullCheck")) return 1;
  for (const auto& [w, h] : sizes) {
    const std::string size = std::to_string(w) + "x" + std::to_string(h);
    PlanarFrame ref, dist;
    if (!ref.Fill(MakeImage(w, h, 1, 0)) || !dist.Fill(MakeImage(w, h, 10, 4))) return 1;
    const std::uint8_t* p1[3] = {ref.planes[0], ref.planes[1], ref.planes[2]};
    const std::uint8_t* p2[3] = {dist.planes[0], dist.planes[1], dist.planes[2]};
    const std::int64_t line[3] = {w, w, w};
    const Vship_Colorspace_t cs = Srgb8(w, h);

    // One handler's device memory: what the device lost from its creation to
    // the end of its first pair.
    std::size_t free0 = 0, free1 = 0, total = 0;
    cudaFree(nullptr);
    cudaMemGetInfo(&free0, &total);
    Vship_SSIMU2Handler probe;
    if (!Check(Vship_SSIMU2Init(&probe, cs, cs), "Vship_SSIMU2Init")) return 1;
    double score = 0;
    if (!Check(Vship_ComputeSSIMU2(probe, &score, p1, p2, line, line), "Vship_ComputeSSIMU2")) return 1;
    cudaMemGetInfo(&free1, &total);
    Vship_SSIMU2Free(probe);
    std::printf("VSHIP-SCORE %s %.8f\n", size.c_str(), score);
    std::printf("VSHIP-MEM %s %zu %.1f\n", size.c_str(), free0 - free1,
                static_cast<double>(free0 - free1) / (static_cast<double>(w) * h));

    for (int t : threads) {
      std::vector<Vship_SSIMU2Handler> handlers(t);
      for (auto& hd : handlers)
        if (!Check(Vship_SSIMU2Init(&hd, cs, cs), "Vship_SSIMU2Init")) return 1;
      std::atomic<long> pairs{0};
      std::atomic<bool> failed{false};
      auto run = [&](int i, bool warm) {
        double s = 0;
        const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        do {
          if (Vship_ComputeSSIMU2(handlers[i], &s, p1, p2, line, line) != Vship_NoError) {
            failed = true;
            return;
          }
          if (!warm) ++pairs;
        } while (!warm && std::chrono::steady_clock::now() < end);
      };
      std::vector<std::thread> pool;
      for (int i = 0; i < t; ++i) pool.emplace_back(run, i, true);
      for (auto& th : pool) th.join();
      pool.clear();
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < t; ++i) pool.emplace_back(run, i, false);
      for (auto& th : pool) th.join();
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (auto& hd : handlers) Vship_SSIMU2Free(hd);
      if (failed) {
        char msg[1024];
        Vship_GetDetailedLastError(msg, sizeof msg);
        std::fprintf(stderr, "vship-bench: Vship_ComputeSSIMU2: %s\n", msg);
        return 1;
      }
      std::printf("VSHIP %s %d %.1f\n", size.c_str(), t, pairs / elapsed);
      std::fflush(stdout);
    }
  }
  return 0;
}
