// ssim2-align-bench: what content alignment costs, and how that compares with
// scoring, on the CPU path and on the GPU path (a tool, not a test; the GPU
// suite, scripts/device-gpu-suite.sh, runs it).
//
//   ssim2-align-bench [--repeats N] [--frames N] [--pairs N]
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
// then the budget lines, "ALIGNMENT <path> ...", at 1080p I420:
//   cpu           per frame pair two host signatures (the reference's and
//                 the distorted frame's) and one tracking step, against the
//                 CPU scorer's time per pair on all threads, in %: they take
//                 the scorer's cores, so the target (at most 3 %) is judged
//                 by this sum.
//   gpu           the same sum with device signatures, measured as host wall
//                 time: --frames (default 512) device frames enqueued with a
//                 FrameSignatureMaker in the element's batches (the default,
//                 8, in non-live pipelines; 2 in live ones), each collected
//                 (waiting if need be) as many frames later as the element
//                 keeps in flight, the run's time divided by the frames;
//                 also with batches of 1 and with Compute() per frame. Against
//                 one CUDA scorer on device-resident frames, blocking. An
//                 upper bound: it adds host time that overlaps the GPU's.
//   gpu pipeline  what alignment costs the GPU path as the element uses it:
//                 --pairs (default 2000) device-resident pairs scored as the
//                 element scores one rendition (SetReference and
//                 SubmitWithReference, two batches in flight), without and
//                 with both frames' device signatures enqueued per pair and
//                 the host's matching (collecting the ready signatures and
//                 feeding a locked FrameAligner) done while the batches run;
//                 pairs/s of both (best of --repeats / 4 runs each,
//                 interleaved), the cost 1 - with / without in %, and the
//                 signature kernel's GPU time per frame (CUDA events around
//                 launches of one batch).
//   gpu verdict   which measure the GPU target is judged by (the pipeline
//                 line), and why.
// Without a CUDA device the GPU lines say so.
// The frames are synthetic: the costs do not depend on the content, except
// that acquisition stops once locked, which the two aligner rows separate.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <vector>

#include "ssim2/alignment.h"
#include "ssim2/ssim2.h"

#if defined(SSIM2_HAVE_CUDA)
#include <cuda_runtime.h>

#include "cuda/cuda_util.h"
#include "cuda/engine.h"
#include "cuda/kernels.h"
#include "cuda/signature.h"
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

// Signatures of `frames` frames of moving content: no two alike, so that an
// aligner fed them on both sides locks at once and tracks.
std::vector<ssim2::FrameSignature> MovingSignatures(int frames, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<ssim2::FrameSignature> out;
  for (int i = 0; i < frames; ++i) out.push_back(RandomSignature(&rng));
  return out;
}

// Microseconds per distorted frame of an aligner fed `frames` frames of
// each stream, timed from frame `from` on; `same` makes the distorted frames
// copies of the reference (it locks within the first window and tracks),
// otherwise nothing matches (it acquires for every frame).
double AlignerMicroseconds(int frames, int from, bool same) {
  std::vector<ssim2::FrameSignature> refs = MovingSignatures(frames, 1), dists;
  std::mt19937 rng(2);
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
// On the CPU path the signatures and the matching take the cores the scorer
// uses, so their sum is what alignment costs and the target is judged by it;
// on the GPU path they overlap scoring (`judged` false: the pipeline line
// judges it, below).
constexpr double kTargetPercent = 3.0;

const char* Verdict(double percent) { return percent <= kTargetPercent ? "met" : "NOT met"; }

void PrintBudget(const char* path, double signature_s, double matching_s, double pair_s,
                 const char* how, bool judged) {
  const double cost = 2 * signature_s + matching_s;
  const double percent = 100.0 * cost / pair_s;
  std::printf("ALIGNMENT %s 1920x1080 I420: signature %.1f us%s, matching %.1f us; per pair "
              "(2 signatures + matching) %.1f us; scoring %.1f us per pair: %.2f %% (",
              path, signature_s * 1e6, how, matching_s * 1e6, cost * 1e6, pair_s * 1e6, percent);
  if (judged) {
    std::printf("target <= %.0f %%: %s)\n", kTargetPercent, Verdict(percent));
  } else {
    std::printf("host wall time, synchronous: an upper bound, not the target's measure)\n");
  }
}

#if defined(SSIM2_HAVE_CUDA)
// What the element keeps in flight (gst/gstssim2backend.cpp, kPassesInFlight:
// scoring batches; gst/gstssim2sync.cpp, MAX_SIGNATURE_BATCHES_IN_FLIGHT:
// signature batches before it waits for the oldest).
constexpr std::size_t kScoringInFlight = 2;
constexpr std::size_t kSignatureBatchesInFlight = 4;

// Host wall time per device frame of signatures enqueued in batches of
// `batch` frames, each collected (waiting if its batch has not finished) as
// many frames later as the element lets be in flight before it waits; or
// with Compute() per frame (a wait per frame) when `batch` is 0.
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
  const std::size_t lag = kSignatureBatchesInFlight * static_cast<std::size_t>(options.batch);
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

// GPU time of the signature kernel per frame (CUDA events around `launches`
// launches of one batch of `batch` copies of `frame`, as DeviceSignatures
// launches a batch: its scratch laid out the same way); negative on failure.
double SignatureKernelSeconds(const ssim2::ImageView& frame, int batch, int launches,
                              cudaStream_t stream) {
  namespace cu = ssim2::cuda;
  batch = std::clamp(batch, 1, cu::kSignatureFramesPerLaunch);
  const cu::SignatureParams params = cu::SignatureParamsFor(frame);
  const std::size_t cells = static_cast<std::size_t>(params.grid_width) * params.grid_height;
  const std::size_t rows_bytes =
      static_cast<std::size_t>(params.grid_width) * params.height * cu::kSignatureSumBytes;
  const std::size_t cells_bytes = cells * cu::kSignatureSumBytes;
  // A frame's results: its mean and contrast, then its cells, 8-byte aligned.
  const std::size_t result_bytes = (2 * sizeof(double) + cells * sizeof(float) + 7) / 8 * 8;
  cu::DeviceBuffer counters, rows, sums, results;
  cu::Event start, end;
  if (!Ok(counters.Allocate(cu::kSignatureFramesPerLaunch * sizeof(unsigned)), "counters") ||
      !Ok(rows.Allocate(rows_bytes * batch), "rows") ||
      !Ok(sums.Allocate(cells_bytes * batch), "cells") ||
      !Ok(results.Allocate(result_bytes * batch), "results") ||
      !Ok(start.CreateTiming(), "event") || !Ok(end.CreateTiming(), "event") ||
      cudaMemsetAsync(counters.get(), 0, counters.bytes(), stream) != cudaSuccess) {
    return -1;
  }
  cu::SignatureLaunch launch{};
  launch.blocks_done = reinterpret_cast<unsigned*>(counters.get());
  launch.max_grid_height = params.grid_height;
  for (int i = 0; i < batch; ++i) {
    cu::SignatureParams p = params;
    p.rows = rows.get() + i * rows_bytes;
    p.cells = sums.get() + i * cells_bytes;
    char* result = results.get() + i * result_bytes;
    p.stats = reinterpret_cast<double*>(result);
    p.signature = reinterpret_cast<float*>(result + 2 * sizeof(double));
    launch.frames[launch.count++] = p;
  }
  if (cu::LaunchSignature(launch, stream) != cudaSuccess) return -1;  // warm up
  cudaEventRecord(start.get(), stream);
  for (int i = 0; i < launches; ++i) {
    if (cu::LaunchSignature(launch, stream) != cudaSuccess) return -1;
  }
  cudaEventRecord(end.get(), stream);
  float ms = 0;
  if (cudaEventSynchronize(end.get()) != cudaSuccess ||
      cudaEventElapsedTime(&ms, start.get(), end.get()) != cudaSuccess) {
    return -1;
  }
  return ms * 1e-3 / (static_cast<double>(launches) * batch);
}

// Pairs per second of one CUDA scorer fed as the element feeds it with one
// rendition (gst/gstssim2backend.cpp): per pair SetReference(ref frame), then
// SubmitWithReference({distorted frame}), collecting the oldest batch while
// more than two are in flight. With `align`, per pair also what
// alignment=content adds on its streaming thread (gst/gstssim2sync.cpp): both
// frames' device signatures enqueued on one FrameSignatureMaker (its default
// batch) on the frames' stream, the signatures that are ready collected in
// order and pushed to a FrameAligner, waiting for the oldest only while more
// than four batches are in flight, and the aligner's decisions and events
// drained. The aligner is fed a moving-content sequence (`moving`) in place
// of the collected signatures (the bench's frames repeat, which would never
// lock): after `warmup` pairs it tracks, as in a locked pipeline. Only
// `pairs` pairs after `warmup` are timed. Negative on failure.
double PipelinePairsPerSecond(ssim2::Scorer* scorer, const ssim2::ImageView& ref,
                              const ssim2::ImageView& dist, int warmup, int pairs,
                              cudaStream_t stream, bool align,
                              const std::vector<ssim2::FrameSignature>& moving) {
  std::unique_ptr<ssim2::FrameSignatureMaker> maker;
  std::unique_ptr<ssim2::FrameAligner> aligner;
  if (align && (!Ok(ssim2::FrameSignatureMaker::Create({}, &maker), "FrameSignatureMaker") ||
                !Ok(ssim2::FrameAligner::Create({}, &aligner), "FrameAligner"))) {
    return -1;
  }
  const std::size_t max_signatures =
      kSignatureBatchesInFlight * static_cast<std::size_t>(ssim2::FrameSignatureMaker::Options().batch);
  std::deque<ssim2::FrameSignatureMaker::Ticket> ref_tickets, dist_tickets;
  std::size_t refs_pushed = 0, dists_pushed = 0;
  ssim2::FrameSignature collected;
  ssim2::FrameAligner::Decision decision;
  ssim2::FrameAligner::Event event;
  std::uint64_t paired = 0;
  // Collects the front tickets of `tickets` that are ready (or all of them
  // with `wait`) and pushes them to the aligner.
  auto take = [&](std::deque<ssim2::FrameSignatureMaker::Ticket>& tickets, bool wait,
                  bool reference) {
    while (!tickets.empty() && (wait || maker->Ready(tickets.front()))) {
      if (!Ok(maker->Collect(tickets.front(), &collected), "Collect")) return false;
      tickets.pop_front();
      if (reference) {
        aligner->PushReference(moving[refs_pushed++ % moving.size()]);
      } else {
        ssim2::FrameSignature next = moving[dists_pushed++ % moving.size()];
        aligner->PushDistorted(std::move(next));
      }
    }
    return true;
  };
  std::deque<ssim2::Scorer::BatchHandle> handles;
  std::vector<ssim2::Result> results;
  Clock::time_point start = Clock::now();
  for (int i = 0; i < warmup + pairs; ++i) {
    if (i == warmup) start = Clock::now();
    if (align) {
      ref_tickets.emplace_back();
      dist_tickets.emplace_back();
      if (!Ok(maker->Enqueue(ref, stream, &ref_tickets.back()), "Enqueue") ||
          !Ok(maker->Enqueue(dist, stream, &dist_tickets.back()), "Enqueue")) {
        return -1;
      }
      const bool overfull = maker->in_flight() > max_signatures;
      if (!take(ref_tickets, overfull, true) || !take(dist_tickets, overfull, false)) return -1;
      while (aligner->NextEvent(&event)) {
      }
      while (aligner->NextDecision(&decision)) {
        paired += decision.kind == ssim2::FrameAligner::DecisionKind::kPair;
      }
    }
    handles.emplace_back();
    if (!Ok(scorer->SetReference(ref), "SetReference") ||
        !Ok(scorer->SubmitWithReference({dist}, &handles.back()), "SubmitWithReference")) {
      return -1;
    }
    while (handles.size() > kScoringInFlight) {
      if (!Ok(scorer->CollectBatch(handles.front(), &results), "CollectBatch")) return -1;
      handles.pop_front();
    }
  }
  for (auto h : handles) {
    if (!Ok(scorer->CollectBatch(h, &results), "CollectBatch")) return -1;
  }
  if (align && (!take(ref_tickets, true, true) || !take(dist_tickets, true, false))) return -1;
  const double seconds = Seconds(start);
  if (align && paired == 0) std::fprintf(stderr, "warning: the aligner never paired\n");
  return pairs / seconds;
}

void GpuBudget(const I420Frame& ref, const I420Frame& dist, int frames, int pairs, int repeats,
               double matching_s) {
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
  // The element's batches: the maker's default in a non-live pipeline; a
  // live one launches the open batch whenever both pads run dry, i.e. a ref
  // frame and a distorted frame per batch at a steady frame rate.
  const int batch = ssim2::FrameSignatureMaker::Options().batch;
  constexpr int kLiveBatch = 2;
  const double batched = DeviceSignatureSeconds(dist_view, frames, batch, stream.get());
  const double live = DeviceSignatureSeconds(dist_view, frames, kLiveBatch, stream.get());
  const double single = DeviceSignatureSeconds(dist_view, frames, 1, stream.get());
  const double sync = DeviceSignatureSeconds(dist_view, frames / 4, 0, stream.get());
  const double kernel = SignatureKernelSeconds(dist_view, batch, 200, stream.get());
  ssim2::ScorerOptions options;
  options.backend = ssim2::Backend::kCuda;
  options.cuda_stream = stream.get();  // as the element: its stream for both
  std::unique_ptr<ssim2::Scorer> scorer;
  if (batched < 0 || live < 0 || single < 0 || sync < 0 || kernel < 0 ||
      !Ok(ssim2::Scorer::Create(I420Frame::kWidth, I420Frame::kHeight, options, &scorer),
          "Scorer::Create")) {
    return;
  }
  const double pair_s = PairSeconds(scorer.get(), ref_view, dist_view, 200);
  if (pair_s < 0) return;
  char how[200];
  std::snprintf(how, sizeof how,
                " (batches of %d, the element's non-live batches; of %d, its live ones: %.1f us; "
                "of 1: %.1f us; synchronised per frame: %.1f us)",
                batch, kLiveBatch, live * 1e6, single * 1e6, sync * 1e6);
  PrintBudget("gpu", batched, matching_s, pair_s, how, false);
  std::fflush(stdout);

  // The measure the target is judged by on the GPU path: pairs/s of the
  // element's scoring without and with alignment's work beside it.
  const ssim2::AlignerOptions defaults;
  const int warmup = 2 * (defaults.window + defaults.block);
  const std::vector<ssim2::FrameSignature> moving = MovingSignatures(warmup + pairs, 3);
  double without = 0, with = 0;
  for (int i = 0; i < std::max(1, repeats); ++i) {
    const double a = PipelinePairsPerSecond(scorer.get(), ref_view, dist_view, warmup, pairs,
                                            stream.get(), false, moving);
    const double b = PipelinePairsPerSecond(scorer.get(), ref_view, dist_view, warmup, pairs,
                                            stream.get(), true, moving);
    if (a < 0 || b < 0) return;
    without = std::max(without, a);
    with = std::max(with, b);
  }
  const double percent = 100.0 * (1.0 - with / without);
  std::printf("ALIGNMENT gpu pipeline 1920x1080 I420: %d pairs scored as the element scores "
              "them: %.1f pairs/s without alignment, %.1f pairs/s with device signatures "
              "(batches of %d) and matching beside them; signature kernel %.2f us of GPU time "
              "per frame: cost %.2f %% (target <= %.0f %%: %s)\n",
              pairs, without, with, batch, kernel * 1e6, percent, kTargetPercent,
              Verdict(percent));
  std::printf("ALIGNMENT gpu verdict: judged by the pipeline line (%.2f %%, %s), not by the "
              "synchronous sum: the element enqueues signatures on a stream of their own beside "
              "its scoring batches and matches on the host while the GPU scores, so what "
              "alignment costs the GPU path is the scoring throughput it takes away\n",
              percent, Verdict(percent));
}
#endif

}  // namespace

int main(int argc, char** argv) {
  int repeats = 20;
  int frames = 512;
  int pairs = 2000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
      repeats = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
      frames = std::max(16, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--pairs") == 0 && i + 1 < argc) {
      pairs = std::max(16, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--repeats N] [--frames N] [--pairs N]\n", argv[0]);
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
    if (pair_s > 0) PrintBudget("cpu", i420_s, tracking_us * 1e-6, pair_s, "", true);
  }
  std::fflush(stdout);
#if defined(SSIM2_HAVE_CUDA)
  GpuBudget(ref, dist, frames, pairs, std::max(1, repeats / 4), tracking_us * 1e-6);
#else
  std::printf("ALIGNMENT gpu: this build has no CUDA engine\n");
#endif
  return 0;
}
