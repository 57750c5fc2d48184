// ssim2-align-bench: what content alignment costs, and how that compares with
// scoring, on the CPU path and on the GPU path (a tool, not a test; the GPU
// suite, scripts/device-gpu-suite.sh, runs it).
//
//   ssim2-align-bench [--repeats N] [--frames N]
//
// Prints the best of N runs (default 20) of:
//   signature   ms of ComputeFrameSignature on a 1920x1080 frame, I420 (the
//               luma plane) and RGB8 (luma from the samples)
//   distance    us of one SignatureDistance (64x36 cells): one candidate of
//               one frame, the matching step
//   acquiring   us per distorted frame of a FrameAligner that never locks
//               (every frame is matched against the whole default window)
//   tracking    us per distorted frame of a FrameAligner that is locked
//               (after its lock: what every frame costs from then on)
// then the budget lines, "ALIGNMENT <path> ...", one per path, at 1080p I420:
// per frame pair two signatures (the reference's and the distorted frame's)
// and one tracking step, against the time to score one pair on that path,
// and their ratio in % (the target: at most 3 %). The CPU path's pair is the
// CPU scorer on all threads; the GPU path's is one CUDA scorer on
// device-resident frames, blocking. GPU signatures are measured as the
// element makes them: --frames (default 512) device frames enqueued with a
// FrameSignatureMaker in its default batches, each collected two batches
// after it was enqueued, the whole run's time divided by the frames (also
// with batches of one frame, and synchronously per frame, Compute(), for
// comparison). Without a CUDA device the GPU line says so.
// The frames are synthetic: the costs do not depend on the content, except
// that acquisition stops once locked, which the two aligner rows separate.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "ssim2/alignment.h"
#include "ssim2/ssim2.h"

#if defined(SSIM2_HAVE_CUDA)
#include <cuda_runtime.h>

#include "cuda/cuda_util.h"
#include "cuda/engine.h"
#endif

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

template <typename F>
double Best(int repeats, F f) {
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    const auto start = Clock::now();
    f();
    best = std::min(best, Seconds(start));
  }
  return best;
}

// A signature of a random picture (moving content is what makes an
// aligner lock; random pictures never match one another).
ssim2::FrameSignature RandomSignature(std::mt19937* rng) {
  std::vector<std::uint8_t> px(64 * 36);
  for (auto& v : px) v = static_cast<std::uint8_t>((*rng)() % 256);
  ssim2::FrameSignature s;
  ssim2::ComputeFrameSignature(
      ssim2::ImageView::Packed(ssim2::PixelFormat::kGray8, 64, 36, px.data(), 64), &s);
  return s;
}

// Microseconds per distorted frame of an aligner fed `frames` frames of
// each stream, timed from frame `from` on; `same` makes the distorted frames
// copies of the reference (it locks within the first window and tracks),
// otherwise nothing matches (it acquires for every frame).
double AlignerMicroseconds(int frames, int from, bool same) {
  std::mt19937 rng(1);
  std::vector<ssim2::FrameSignature> refs, dists;
  for (int i = 0; i < frames; ++i) refs.push_back(RandomSignature(&rng));
  for (int i = 0; i < frames; ++i) dists.push_back(same ? refs[i] : RandomSignature(&rng));
  std::unique_ptr<ssim2::FrameAligner> aligner;
  ssim2::FrameAligner::Create(ssim2::AlignerOptions(), &aligner);
  ssim2::FrameAligner::Decision d;
  Clock::time_point start = Clock::now();
  for (int i = 0; i < frames; ++i) {
    if (i == from) start = Clock::now();
    aligner->PushReference(refs[i]);
    aligner->PushDistorted(dists[i]);
    while (aligner->NextDecision(&d)) {
    }
  }
  const double seconds = Seconds(start);
  aligner->EndReference();
  aligner->EndDistorted();
  while (aligner->NextDecision(&d)) {
  }
  if (same && aligner->counters().paired == 0) std::fprintf(stderr, "warning: never locked\n");
  return seconds * 1e6 / (frames - from);
}

// A 1920x1080 I420 frame of smooth random content.
struct I420Frame {
  static constexpr int kWidth = 1920, kHeight = 1080;
  std::vector<std::uint8_t> bytes;  // Y, then U, then V
  explicit I420Frame(std::uint32_t seed) {
    std::mt19937 rng(seed);
    bytes.resize(kWidth * kHeight * 3 / 2);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] = static_cast<std::uint8_t>(96 + (i % 61) + rng() % 32);
    }
  }
  ssim2::ImageView View(const std::uint8_t* base, ssim2::MemoryLocation location) const {
    const std::size_t luma = static_cast<std::size_t>(kWidth) * kHeight;
    return ssim2::ImageView::Planar(ssim2::PixelFormat::kI420, kWidth, kHeight,
                                    {base, base + luma, base + luma + luma / 4},
                                    {kWidth, kWidth / 2, kWidth / 2}, location);
  }
};

bool Ok(const ssim2::Status& s, const char* what) {
  if (!s.ok()) std::fprintf(stderr, "%s: %s\n", what, s.message().c_str());
  return s.ok();
}

// Seconds per pair of a scorer over `pairs` pairs (after one to warm up);
// negative on failure.
double PairSeconds(ssim2::Scorer* scorer, const ssim2::ImageView& ref,
                   const ssim2::ImageView& dist, int pairs) {
  ssim2::Result result;
  if (!Ok(scorer->Compute(ref, dist, &result), "Scorer::Compute")) return -1;
  const auto start = Clock::now();
  for (int i = 0; i < pairs; ++i) {
    if (!Ok(scorer->Compute(ref, dist, &result), "Scorer::Compute")) return -1;
  }
  return Seconds(start) / pairs;
}

// The budget line of one path: two signatures and a tracking step per pair
// against the pair's scoring time.
void PrintBudget(const char* path, double signature_s, double matching_s, double pair_s,
                 const char* how) {
  const double cost = 2 * signature_s + matching_s;
  const double percent = 100.0 * cost / pair_s;
  std::printf("ALIGNMENT %s 1920x1080 I420: signature %.1f us%s, matching %.1f us; per pair "
              "(2 signatures + matching) %.1f us; scoring %.1f us per pair: %.2f %% (target "
              "<= 3 %%: %s)\n",
              path, signature_s * 1e6, how, matching_s * 1e6, cost * 1e6, pair_s * 1e6, percent,
              percent <= 3.0 ? "met" : "NOT met");
}

#if defined(SSIM2_HAVE_CUDA)
// Seconds per device frame of signatures made as the element makes them
// (Enqueue, each collected `lag` frames later), or with Compute() per frame
// when `batch` is 0.
double DeviceSignatureSeconds(const ssim2::ImageView& frame, int frames, int batch,
                              cudaStream_t stream) {
  ssim2::FrameSignatureMaker::Options options;
  if (batch > 0) options.batch = batch;
  std::unique_ptr<ssim2::FrameSignatureMaker> maker;
  if (!Ok(ssim2::FrameSignatureMaker::Create(options, &maker), "FrameSignatureMaker")) return -1;
  ssim2::FrameSignature signature;
  // Warm up: allocations at the first batch.
  if (!Ok(maker->Compute(frame, stream, &signature), "Compute")) return -1;
  std::vector<ssim2::FrameSignatureMaker::Ticket> tickets;
  for (int i = 0; i < options.batch; ++i) {
    tickets.emplace_back();
    if (!Ok(maker->Enqueue(frame, stream, &tickets.back()), "Enqueue")) return -1;
  }
  for (auto t : tickets) {
    if (!Ok(maker->Collect(t, &signature), "Collect")) return -1;
  }
  tickets.clear();
  const std::size_t lag = 2 * static_cast<std::size_t>(options.batch);
  const auto start = Clock::now();
  for (int i = 0; i < frames; ++i) {
    if (batch == 0) {
      if (!Ok(maker->Compute(frame, stream, &signature), "Compute")) return -1;
      continue;
    }
    tickets.emplace_back();
    if (!Ok(maker->Enqueue(frame, stream, &tickets.back()), "Enqueue")) return -1;
    if (tickets.size() > lag) {
      if (!Ok(maker->Collect(tickets[tickets.size() - 1 - lag], &signature), "Collect")) return -1;
    }
  }
  for (std::size_t i = tickets.size() > lag ? tickets.size() - lag : 0; i < tickets.size(); ++i) {
    if (!Ok(maker->Collect(tickets[i], &signature), "Collect")) return -1;
  }
  return Seconds(start) / frames;
}

void GpuBudget(const I420Frame& ref, const I420Frame& dist, int frames, double matching_s) {
  std::string why;
  if (!ssim2::cuda::DeviceAvailable(&why)) {
    std::printf("ALIGNMENT gpu: no CUDA device (%s)\n", why.c_str());
    return;
  }
  ssim2::cuda::DeviceBuffer dref, ddist;
  if (!Ok(dref.Allocate(ref.bytes.size()), "device frame") ||
      !Ok(ddist.Allocate(dist.bytes.size()), "device frame") ||
      cudaMemcpy(dref.get(), ref.bytes.data(), ref.bytes.size(), cudaMemcpyHostToDevice) !=
          cudaSuccess ||
      cudaMemcpy(ddist.get(), dist.bytes.data(), dist.bytes.size(), cudaMemcpyHostToDevice) !=
          cudaSuccess ||
      cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("ALIGNMENT gpu: the device frames could not be made\n");
    return;
  }
  const auto location = ssim2::MemoryLocation::kCudaDevice;
  const ssim2::ImageView ref_view = ref.View(reinterpret_cast<std::uint8_t*>(dref.get()), location);
  const ssim2::ImageView dist_view =
      dist.View(reinterpret_cast<std::uint8_t*>(ddist.get()), location);
  ssim2::cuda::Stream stream;
  if (!Ok(stream.CreateOwned(), "stream")) return;
  const int batch = ssim2::FrameSignatureMaker::Options().batch;
  const double batched = DeviceSignatureSeconds(dist_view, frames, batch, stream.get());
  const double single = DeviceSignatureSeconds(dist_view, frames, 1, stream.get());
  const double sync = DeviceSignatureSeconds(dist_view, frames / 4, 0, stream.get());
  ssim2::ScorerOptions options;
  options.backend = ssim2::Backend::kCuda;
  std::unique_ptr<ssim2::Scorer> scorer;
  if (batched < 0 || single < 0 || sync < 0 ||
      !Ok(ssim2::Scorer::Create(I420Frame::kWidth, I420Frame::kHeight, options, &scorer),
          "Scorer::Create")) {
    return;
  }
  const double pair_s = PairSeconds(scorer.get(), ref_view, dist_view, 200);
  if (pair_s < 0) return;
  char how[160];
  std::snprintf(how, sizeof how,
                " (batches of %d; batches of 1: %.1f us, synchronised per frame: %.1f us)", batch,
                single * 1e6, sync * 1e6);
  PrintBudget("gpu", batched, matching_s, pair_s, how);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  int repeats = 20;
  int frames = 512;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
      repeats = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
      frames = std::max(16, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--repeats N] [--frames N]\n", argv[0]);
      return 2;
    }
  }
  constexpr int w = I420Frame::kWidth, h = I420Frame::kHeight;
  std::mt19937 rng(7);
  const I420Frame ref(1), dist(2);
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(w) * h * 3);
  for (auto& v : rgb) v = static_cast<std::uint8_t>(rng() % 256);
  const ssim2::ImageView i420 = ref.View(ref.bytes.data(), ssim2::MemoryLocation::kHost);
  const ssim2::ImageView packed =
      ssim2::ImageView::Packed(ssim2::PixelFormat::kRGB8, w, h, rgb.data(), w * 3);

  ssim2::FrameSignature a, b;
  const double i420_s = Best(repeats, [&] { ssim2::ComputeFrameSignature(i420, &a); });
  const double rgb_s = Best(repeats, [&] { ssim2::ComputeFrameSignature(packed, &b); });
  constexpr int kDistances = 10000;
  volatile double sink = 0.0;
  const double distance_s = Best(repeats, [&] {
    for (int i = 0; i < kDistances; ++i) sink = sink + ssim2::SignatureDistance(a, b);
  });
  // Tracking, timed once the lock holds: acquisition (within the first
  // window + block frames) is the row above.
  const ssim2::AlignerOptions defaults;
  const int locked_from = 2 * (defaults.window + defaults.block);
  double tracking_us = 1e30;
  for (int i = 0; i < std::max(1, repeats / 4); ++i) {
    tracking_us = std::min(tracking_us, AlignerMicroseconds(locked_from + 600, locked_from, true));
  }
  std::printf("signature 1920x1080 I420   %8.3f ms\n", i420_s * 1e3);
  std::printf("signature 1920x1080 RGB8   %8.3f ms\n", rgb_s * 1e3);
  std::printf("distance (%zu cells)     %8.3f us\n", a.cells.size(),
              distance_s * 1e6 / kDistances);
  std::printf("aligner acquiring (window %d) %8.1f us per frame\n", defaults.window,
              AlignerMicroseconds(600, 0, false));
  std::printf("aligner tracking           %8.1f us per frame\n", tracking_us);
  std::fflush(stdout);

  // The CPU path: host signatures of I420 frames, the CPU scorer.
  ssim2::ScorerOptions options;
  options.backend = ssim2::Backend::kCpu;
  std::unique_ptr<ssim2::Scorer> cpu;
  if (Ok(ssim2::Scorer::Create(w, h, options, &cpu), "CPU scorer")) {
    const double pair_s = PairSeconds(cpu.get(), i420,
                                      dist.View(dist.bytes.data(), ssim2::MemoryLocation::kHost),
                                      std::max(1, repeats / 10));
    if (pair_s > 0) PrintBudget("cpu", i420_s, tracking_us * 1e-6, pair_s, "");
  }
  std::fflush(stdout);
#if defined(SSIM2_HAVE_CUDA)
  GpuBudget(ref, dist, frames, tracking_us * 1e-6);
#else
  std::printf("ALIGNMENT gpu: this build has no CUDA engine\n");
#endif
  return 0;
}
