// ssim2-bench: throughput of the CUDA engine (and of the CPU path, for the
// ratio) on synthetic image pairs. A tool, not a test.
//
//   ssim2-bench [--seconds S] [--sizes 1280x720,1920x1080,3840x2160]
//               [--engines 1,4] [--batch-streams N] [--no-cpu]
//               [--memory-limit BYTES] [--lane-groups G] [--sequential-sums]
//   ssim2-bench --profile-passes [--sizes WxH]
//   ssim2-bench --ladder [--sizes WxH] [--seconds S]
//
// --profile-passes is for a profiler (scripts/device-kernel-profile.sh): on
// device-resident inputs of the first size it runs two pair passes, one
// SetReference and two passes against the cached reference, in that order,
// and exits.
// --ladder measures a ladder on the engine alone (device-resident inputs of
// the first size, rendition frames/s): per frame a reference and four
// distorted images, (a) on one engine, SetReference then ComputeBatchAsync of
// the four, the next frame submitted before the previous one is waited for
// (what ssim2compare does with four rendition pads), (b) the same blocking
// (ComputeBatch), (c) the same as (a) through the Scorer (SetReference,
// SubmitWithReference, CollectBatch: the next reference on its second
// engine), and (d) four threads with an engine each, SetReference then
// Compute(distorted) (four elements behind a tee); then exits.
//
// For every size and every engine count T of --engines, T threads each drive
// an engine of their own (its own stream and device memory) on shared,
// read-only inputs; a mode's figure is the aggregate pairs/s of the T threads.
// Modes:
//   host         8-bit RGB in pageable host memory, Compute(ref, dist), blocking
//   host-direct  the same, pageable memory handed to the driver without the
//                engine's staging (SSIM2_CUDA_PAGEABLE_UPLOAD=direct; T = 1 only)
//   host-pinned  the same from pinned (cudaMallocHost) memory
//   device       device-resident inputs, Compute(ref, dist), blocking
//   device-async device-resident, ComputeAsync with 8 results in flight
//   cached       SetReference once, then Compute(dist), blocking
//   batch8       ComputeBatch(ref, 8 distorted), on EngineOptions::batch_streams
//                streams (--batch-streams; the engine's default unless given)
//   cpu          the CPU path (Scorer, Backend::kCpu, all threads), blocking;
//                once per size, in the first engine count's row
// --memory-limit: EngineOptions::memory_limit of every engine (and of the
// ladder's Scorer); what an engine gives up under it is printed as a line
// "LIMITS <size> <text>".
// --lane-groups: EngineOptions::lane_scale_groups of every engine (batch8 and
// the ladder's (a) and (b) compare lanes in one and in two scale groups).
// --sequential-sums: EngineOptions::sequential_sums of every engine (the
// CPU's order of float64 additions, bit for bit; against a run without it).
// Prints "BENCH <size> <engines> <mode> <pairs/s>" per measurement,
// "MEM <size> <bytes> <bytes/pixel>" per size (one engine's device memory
// after its first pair), "MEM-BATCH <size> <bytes> <bytes/pixel> <N> lanes"
// (the same engine after batch8: its cache and lanes too),
// "SIGNATURE <size> <format> <us>" per size (MeasureSignatures),
// then one table whose header line starts with "| size" (the device suite
// prints the table from that line on).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.h"
#include "cuda/cuda_util.h"
#include "cuda/engine.h"
#include "ssim2/alignment.h"
#include "ssim2/ssim2.h"

using namespace ssim2;

namespace {

using Clock = std::chrono::steady_clock;

bool Ok(const Status& s, const char* what) {
  if (!s.ok()) std::fprintf(stderr, "%s: %s: %s\n", what, StatusCodeName(s.code()), s.message().c_str());
  return s.ok();
}

bool CudaOk(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

// The benchmark's inputs in device memory and in pinned host memory, in the
// engine's own owners (cuda/cuda_util.h).
bool Upload(const std::vector<std::uint8_t>& bytes, cuda::DeviceBuffer* out) {
  return Ok(out->Allocate(bytes.size()), "device input") &&
         CudaOk(cudaMemcpy(out->get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice),
                "cudaMemcpy");
}

bool CopyPinned(const std::vector<std::uint8_t>& bytes, cuda::PinnedBuffer* out) {
  if (!Ok(out->Allocate(bytes.size()), "pinned input")) return false;
  std::memcpy(out->get(), bytes.data(), bytes.size());
  return true;
}

// Runs `once(thread)` (which scores `pairs_per_call` pairs) on `threads`
// threads at once for about `seconds` after a common start (each thread
// warms up first); returns the aggregate pairs/s, or -1 when a call failed.
double MeasureParallel(int threads, double seconds, int pairs_per_call,
                       const std::function<bool(int)>& once) {
  std::mutex m;
  std::condition_variable cv;
  int warm = 0;
  bool go = false;
  std::atomic<bool> failed{false};
  Clock::time_point start;
  std::vector<long> calls(threads, 0);
  std::vector<double> elapsed(threads, 0.0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const bool warm_ok = once(t);
      {
        std::unique_lock<std::mutex> lock(m);
        if (!warm_ok) failed = true;
        if (++warm == threads) {
          start = Clock::now();
          go = true;
          cv.notify_all();
        }
        cv.wait(lock, [&] { return go; });
      }
      if (failed) return;
      double e = 0;
      do {
        if (!once(t)) {
          failed = true;
          return;
        }
        ++calls[t];
        e = std::chrono::duration<double>(Clock::now() - start).count();
      } while ((e < seconds || calls[t] < 3) && !failed);
      elapsed[t] = e;
    });
  }
  for (std::thread& th : pool) th.join();
  if (failed) return -1;
  long total = 0;
  for (long c : calls) total += c;
  const double wall = *std::max_element(elapsed.begin(), elapsed.end());
  return wall > 0 ? total * pairs_per_call / wall : -1;
}

// A frame at a time on one thread, one frame in flight: `submit(&token)`
// starts frame t, then `wait(token)` finishes frame t-1 (what ssim2compare
// does); the last frame is finished after the clock stops. Returns frames/s,
// or -1 when a call failed.
double MeasurePipelined(double seconds, const std::function<bool(std::uint64_t*)>& submit,
                        const std::function<bool(std::uint64_t)>& wait) {
  std::uint64_t previous = 0;
  bool in_flight = false;
  const double rate = MeasureParallel(1, seconds, 1, [&](int) {
    std::uint64_t token = 0;
    if (!submit(&token)) return false;
    const bool ok = !in_flight || wait(previous);
    previous = token;
    in_flight = true;
    return ok;
  });
  if (in_flight && !wait(previous)) return -1;
  return rate;
}

struct Row {
  std::string size;
  int engines;
  std::string mode;
  double pairs_per_s;
};

// A device frame signature one at a time: the best time of one
// FrameSignatureMaker::Compute of a device-resident frame (its launches, the
// copy of its result and the wait for it), for the benchmark's RGB8 reference
// and for its bytes read as I420 (the luma plane). Prints "SIGNATURE <size>
// <format> <us>". The element makes them in batches without that wait:
// ssim2-align-bench measures what it pays.
void MeasureSignatures(int w, int h, const void* device_rgb) {
  const auto* bytes = static_cast<const std::uint8_t*>(device_rgb);
  const std::size_t luma = static_cast<std::size_t>(w) * h;
  const std::size_t chroma = static_cast<std::size_t>((w + 1) / 2) * ((h + 1) / 2);
  const ImageView views[] = {
      ImageView::Packed(PixelFormat::kRGB8, w, h, bytes, 3 * w, MemoryLocation::kCudaDevice),
      ImageView::Planar(PixelFormat::kI420, w, h, {bytes, bytes + luma, bytes + luma + chroma},
                        {w, (w + 1) / 2, (w + 1) / 2}, MemoryLocation::kCudaDevice)};
  cuda::Stream stream;
  std::unique_ptr<FrameSignatureMaker> maker;
  if (!Ok(stream.CreateOwned(), "stream") ||
      !Ok(FrameSignatureMaker::Create({}, &maker), "FrameSignatureMaker::Create")) {
    return;
  }
  for (const ImageView& view : views) {
    FrameSignature signature;
    double best = 1e30;
    for (int i = 0; i < 200; ++i) {
      const auto start = Clock::now();
      if (!Ok(maker->Compute(view, stream.get(), &signature), "FrameSignatureMaker::Compute")) {
        return;
      }
      best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::printf("SIGNATURE %dx%d %s %.1f us\n", w, h, PixelFormatName(view.format), best * 1e6);
  }
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 1.0;
  bool run_cpu = true;
  std::vector<std::pair<int, int>> sizes = {{1280, 720}, {1920, 1080}, {3840, 2160}};
  std::vector<int> engine_counts = {1, 4};
  bool sizes_given = false, engines_given = false, profile_passes = false, ladder = false;
  cuda::EngineOptions opt;
  opt.max_batch = 8;
  for (int i = 1; i < argc; ++i) {
    bool ok = true;
    if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
      ok = seconds > 0;
    } else if (!std::strcmp(argv[i], "--batch-streams") && i + 1 < argc) {
      opt.batch_streams = std::atoi(argv[++i]);
      ok = opt.batch_streams >= 1 && opt.batch_streams <= cuda::kMaxBatchStreams;
    } else if (!std::strcmp(argv[i], "--memory-limit") && i + 1 < argc) {
      char* end = nullptr;
      opt.memory_limit = std::strtoull(argv[++i], &end, 10);
      ok = end && *end == '\0';
    } else if (!std::strcmp(argv[i], "--lane-groups") && i + 1 < argc) {
      opt.lane_scale_groups = std::atoi(argv[++i]);
      ok = opt.lane_scale_groups >= 1 && opt.lane_scale_groups <= 2;
    } else if (!std::strcmp(argv[i], "--sequential-sums")) {
      opt.sequential_sums = true;
    } else if (!std::strcmp(argv[i], "--profile-passes")) {
      profile_passes = true;
    } else if (!std::strcmp(argv[i], "--ladder")) {
      ladder = true;
    } else if (!std::strcmp(argv[i], "--no-cpu")) {
      run_cpu = false;
    } else if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) {
      if (!sizes_given) sizes.clear();
      sizes_given = true;
      ok = ParseList(argv[++i], nullptr, true, &sizes);
    } else if (!std::strcmp(argv[i], "--engines") && i + 1 < argc) {
      if (!engines_given) engine_counts.clear();
      engines_given = true;
      ok = ParseList(argv[++i], &engine_counts, false, nullptr);
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr,
                   "usage: %s [--seconds S] [--sizes WxH,...] [--engines T,...] "
                   "[--batch-streams N] [--no-cpu] [--memory-limit BYTES] [--lane-groups 1|2] "
                   "[--sequential-sums]\n",
                   argv[0]);
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
  bool scores_differ = false;
  for (auto [w, h] : sizes) {
    const std::string size = std::to_string(w) + "x" + std::to_string(h);
    const HostImage ref = MakeImage(w, h, 1, 0);
    std::vector<HostImage> dists;
    for (int i = 0; i < 8; ++i) dists.push_back(MakeImage(w, h, 10 + i, 4 + 2 * i));
    auto host_view = [&](const void* p) {
      return ImageView::Packed(PixelFormat::kRGB8, w, h, p, 3 * w);
    };
    auto dev_view = [&](const void* p) {
      return ImageView::Packed(PixelFormat::kRGB8, w, h, p, 3 * w, MemoryLocation::kCudaDevice);
    };
    // Inputs shared read-only by every thread.
    cuda::DeviceBuffer dref;
    cuda::DeviceBuffer ddist[8];
    cuda::PinnedBuffer pref, pdist;
    bool inputs_ok = Upload(ref.rgb, &dref) && CopyPinned(ref.rgb, &pref) &&
                     CopyPinned(dists[0].rgb, &pdist);
    for (int i = 0; i < 8 && inputs_ok; ++i) inputs_ok = Upload(dists[i].rgb, &ddist[i]);
    if (!inputs_ok) {
      std::fprintf(stderr, "allocation of benchmark inputs failed\n");
      return 1;
    }
    std::vector<ImageView> batch;
    for (int i = 0; i < 8; ++i) batch.push_back(dev_view(ddist[i].get()));
    if (ladder) {
      const ImageView rv = dev_view(dref.get());
      std::vector<cuda::Engine> engines(4);
      for (cuda::Engine& e : engines) {
        if (!Ok(cuda::Engine::Create(w, h, opt, &e), "Engine::Create")) return 1;
      }
      Result results[4];
      std::vector<Result> collected;
      // (c) goes through the Scorer, which prepares the next frame's
      // reference on its second engine while the frame in flight is scored.
      ScorerOptions so;
      so.backend = Backend::kCuda;
      so.memory_limit = opt.memory_limit;
      std::unique_ptr<Scorer> scorer;
      if (!Ok(Scorer::Create(w, h, so, &scorer), "Scorer::Create")) return 1;
      const std::vector<ImageView> renditions(batch.begin(), batch.begin() + 4);
      const double pipelined = 4 * MeasurePipelined(
          seconds,
          [&](std::uint64_t* t) {
            return Ok(engines[0].SetReference(rv), "SetReference") &&
                   Ok(engines[0].ComputeBatchAsync(batch.data(), 4, t), "ComputeBatchAsync");
          },
          [&](std::uint64_t t) { return Ok(engines[0].WaitBatch(t, results), "WaitBatch"); });
      const double scorer_rate = 4 * MeasurePipelined(
          seconds,
          [&](std::uint64_t* h) {
            return Ok(scorer->SetReference(rv), "SetReference") &&
                   Ok(scorer->SubmitWithReference(renditions, h), "SubmitWithReference");
          },
          [&](std::uint64_t h) { return Ok(scorer->CollectBatch(h, &collected), "CollectBatch"); });
      if (pipelined < 0 || scorer_rate < 0) return 1;
      const double blocking = 4 * MeasureParallel(1, seconds, 1, [&](int) {
        return Ok(engines[0].ComputeBatch(rv, batch.data(), 4, results), "ComputeBatch");
      });
      const double four = MeasureParallel(4, seconds, 1, [&](int t) {
        return Ok(engines[t].SetReference(rv), "SetReference") &&
               Ok(engines[t].Compute(batch[t], &results[t]), "Compute");
      });
      std::printf("MEM %s ladder: one engine %zu bytes, the Scorer %zu bytes\n", size.c_str(),
                  engines[0].memory_bytes(), scorer->memory_bytes());
      if (!scorer->limits().empty()) {
        std::printf("LIMITS %s ladder: %s\n", size.c_str(), scorer->limits().c_str());
      }
      std::printf("| %s ladder, rendition frames/s | one engine, 4 per batch, pipelined | "
                  "the same, blocking | Scorer, pipelined | 4 engines, reference each |\n"
                  "|---|---|---|---|---|\n| | %.0f (%.2fx) | %.0f (%.2fx) | %.0f (%.2fx) | %.0f |\n",
                  size.c_str(), pipelined, pipelined / four, blocking, blocking / four,
                  scorer_rate, scorer_rate / four, four);
      return 0;
    }
    if (profile_passes) {
      cuda::Engine e;
      Result r;
      bool ok = Ok(cuda::Engine::Create(w, h, opt, &e), "Engine::Create");
      for (int i = 0; i < 2 && ok; ++i) ok = Ok(e.Compute(dev_view(dref.get()), batch[0], &r), "Compute");
      ok = ok && Ok(e.SetReference(dev_view(dref.get())), "SetReference");
      for (int i = 0; i < 2 && ok; ++i) ok = Ok(e.Compute(batch[0], &r), "Compute(dist)");
      if (ok) std::printf("profiled passes of %s: score %.8f\n", size.c_str(), r.score);
      return ok ? 0 : 1;
    }

    double r0 = 0;
    for (std::size_t ei = 0; ei < engine_counts.size(); ++ei) {
      const int engines_n = engine_counts[ei];
      std::vector<cuda::Engine> engines(engines_n);
      for (cuda::Engine& e : engines) {
        if (!Ok(cuda::Engine::Create(w, h, opt, &e), "Engine::Create")) return 1;
      }
      if (ei == 0) {
        std::printf("DEVICE %s\n", engines[0].device_name().c_str());
        std::printf("batch8 on up to %d streams\n", opt.batch_streams);
        Result first;
        if (!Ok(engines[0].Compute(host_view(ref.rgb.data()), host_view(dists[0].rgb.data()), &first),
                "Compute")) {
          return 1;
        }
        // After a pair: the engine holds a pair's working memory from then on
        // (before, only what references and cached passes need).
        const double bpp = static_cast<double>(engines[0].memory_bytes()) / (static_cast<double>(w) * h);
        std::printf("MEM %s %zu %.1f\n", size.c_str(), engines[0].memory_bytes(), bpp);
        if (!engines[0].limits().empty()) {
          std::printf("LIMITS %s %s\n", size.c_str(), engines[0].limits().c_str());
        }
        memory.push_back({size, bpp});
        r0 = first.score;
        std::printf("score of the benchmark pair: %.8f\n", r0);
        MeasureSignatures(w, h, dref.get());  // a failure is printed; the rest runs on
      }
      // One result per thread; every mode must give the first pair's score.
      std::vector<Result> last(engines_n);
      std::vector<std::vector<Result>> batch_results(engines_n, std::vector<Result>(8));
      auto record = [&](const char* mode, double v) {
        rows.push_back({size, engines_n, mode, v});
        std::printf("BENCH %s %d %s %.1f\n", size.c_str(), engines_n, mode, v);
        std::fflush(stdout);
        for (const Result& r : last) {
          if (v >= 0 && r.score != r0) {
            std::printf("WARNING: %s gave %.10f, the first call %.10f\n", mode, r.score, r0);
            scores_differ = true;
            break;
          }
        }
      };
      auto measure = [&](int pairs_per_call, const std::function<bool(int)>& once) {
        return MeasureParallel(engines_n, seconds, pairs_per_call, once);
      };
      record("host", measure(1, [&](int t) {
        return Ok(engines[t].Compute(host_view(ref.rgb.data()), host_view(dists[0].rgb.data()), &last[t]),
                  "host");
      }));
      if (engines_n == 1) {
        setenv("SSIM2_CUDA_PAGEABLE_UPLOAD", "direct", 1);
        cuda::Engine direct;
        const Status st = cuda::Engine::Create(w, h, opt, &direct);
        unsetenv("SSIM2_CUDA_PAGEABLE_UPLOAD");
        if (Ok(st, "Engine::Create (direct)")) {
          record("host-direct", measure(1, [&](int t) {
            return Ok(direct.Compute(host_view(ref.rgb.data()), host_view(dists[0].rgb.data()), &last[t]),
                      "host-direct");
          }));
        }
      }
      record("host-pinned", measure(1, [&](int t) {
        return Ok(engines[t].Compute(host_view(pref.get()), host_view(pdist.get()), &last[t]), "host-pinned");
      }));
      record("device", measure(1, [&](int t) {
        return Ok(engines[t].Compute(dev_view(dref.get()), dev_view(ddist[0].get()), &last[t]), "device");
      }));
      record("device-async", measure(8, [&](int t) {
        cuda::Engine::Ticket tickets[8];
        for (int i = 0; i < 8; ++i) {
          if (!Ok(engines[t].ComputeAsync(dev_view(dref.get()), dev_view(ddist[i].get()), &tickets[i]), "async"))
            return false;
        }
        Result r;
        for (int i = 0; i < 8; ++i) {
          if (!Ok(engines[t].Wait(tickets[i], i == 0 ? &last[t] : &r), "wait")) return false;
        }
        return true;
      }));
      for (cuda::Engine& e : engines) {
        if (!Ok(e.SetReference(dev_view(dref.get())), "SetReference")) return 1;
      }
      record("cached", measure(1, [&](int t) {
        return Ok(engines[t].Compute(dev_view(ddist[0].get()), &last[t]), "cached");
      }));
      record("batch8", measure(8, [&](int t) {
        const bool ok = Ok(engines[t].ComputeBatch(dev_view(dref.get()), batch.data(), 8,
                                                   batch_results[t].data()),
                           "batch");
        last[t] = batch_results[t][0];
        return ok;
      }));
      if (ei == 0) {  // the engine with its cache and the lanes batch8 made
        std::printf("MEM-BATCH %s %zu %.1f %d lanes\n", size.c_str(), engines[0].memory_bytes(),
                    static_cast<double>(engines[0].memory_bytes()) / (static_cast<double>(w) * h),
                    engines[0].batch_lanes());
      }
      if (run_cpu && ei == 0) {
        ScorerOptions so;
        so.backend = Backend::kCpu;
        std::unique_ptr<Scorer> cpu;
        if (Ok(Scorer::Create(w, h, so, &cpu), "CPU scorer")) {
          std::printf("CPU path: %s\n", cpu->description().c_str());
          std::vector<Result> cpu_last(1);
          const double v = MeasureParallel(1, seconds, 1, [&](int) {
            return Ok(cpu->Compute(host_view(ref.rgb.data()), host_view(dists[0].rgb.data()), &cpu_last[0]),
                      "cpu");
          });
          rows.push_back({size, engines_n, "cpu", v});
          std::printf("BENCH %s %d cpu %.1f\n", size.c_str(), engines_n, v);
          std::printf("cpu score %.8f (gpu %.8f)\n", cpu_last[0].score, r0);
        }
      }
    }
  }

  // Table: pairs/s per size, engine count and mode, then the ratios that the
  // targets name.
  const char* modes[] = {"host", "host-direct", "host-pinned", "device", "device-async",
                         "cached", "batch8", "cpu"};
  std::printf("\n| size | engines | bytes/px |");
  for (const char* m : modes) std::printf(" %s |", m);
  std::printf(" cached/device | batch8/device | device/cpu |\n|---|---|---|");
  for (std::size_t i = 0; i < sizeof modes / sizeof *modes; ++i) std::printf("---|");
  std::printf("---|---|---|\n");
  auto ratio = [](double a, double b) {
    char buf[32];
    if (a > 0 && b > 0) std::snprintf(buf, sizeof buf, " %.2fx |", a / b);
    else std::snprintf(buf, sizeof buf, " - |");
    return std::string(buf);
  };
  for (const auto& [size, bpp] : memory) {
    for (int engines_n : engine_counts) {
      std::printf("| %s | %d | %.1f |", size.c_str(), engines_n, bpp);
      auto value = [&](const char* m) {
        for (const Row& row : rows)
          if (row.size == size && row.engines == engines_n && row.mode == m) return row.pairs_per_s;
        return -1.0;
      };
      for (const char* m : modes) {
        const double v = value(m);
        if (v < 0) std::printf(" - |");
        else std::printf(" %.0f |", v);
      }
      std::string cpu_ratio = ratio(value("device"), value("cpu"));
      std::printf("%s%s%s\n", ratio(value("cached"), value("device")).c_str(),
                  ratio(value("batch8"), value("device")).c_str(), cpu_ratio.c_str());
    }
  }
  if (scores_differ) std::printf("\nWARNING: some mode gave a different score (see above)\n");
  return scores_differ ? 1 : 0;
}
