// gst-ssim2 CUDA engine: SSIMULACRA 2.1 on an NVIDIA GPU, bit for bit the
// arithmetic of the CPU path (and of the reference implementation).
//
// Internal to libssim2 (not installed, symbols not exported): applications
// score through ssim2::Scorer (ssim2/ssim2.h), whose CUDA backend
// (cuda_scorer.cpp) is made of this engine; the engine's tests and
// ssim2-bench, which link the static ssim2_core, call it directly.
//
// This header has no CUDA dependency: contexts and streams are passed as
// void* (CUcontext / CUstream, which are the same handles as the runtime's
// cudaStream_t). The engine itself exists only in builds with SSIM2_HAVE_CUDA.
//
// Usage:
//   ssim2::cuda::Engine engine;
//   ssim2::cuda::EngineOptions opt;          // opt.stream = gst stream handle ...
//   Status s = ssim2::cuda::Engine::Create(1920, 1080, opt, &engine);
//   engine.Compute(ref_view, dist_view, &result);        // blocking
//   engine.SetReference(ref_view);                        // cache the reference
//   engine.Compute(dist_view, &result);                   // distorted only
//   engine.ComputeBatch(ref_view, dists, n, results);     // encoder search
//   engine.ComputeBatch(dists, n, results);               // ... cached reference
//   engine.ComputeBatchAsync(dists, n, &batch);           // ... without waiting
//   engine.WaitBatch(batch, results);
//   engine.ComputeAsync(dist_view, &ticket, callback, user);  // non-blocking
//
// Threading: an Engine is not thread-safe; use one per thread (or lock).
// Memory: the working memory of a pass is allocated in Create(), the
// reference cache by the first SetReference, a batch lane's working memory by
// the first batch that uses it; all of it is freed by the destructor, and
// memory_bytes() reports it (layout.h says what each part holds). Under
// EngineOptions::memory_limit the engine gives up speed instead (limits()
// says what). Pageable host inputs are copied
// through pinned staging buffers (allocated on first use of host input,
// grown only); pinned host inputs are copied to the device directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "ssim2/ssim2.h"

namespace ssim2 {
namespace cuda {

struct EngineOptions {
  // CUcontext to work in; null: the primary context of `cuda_device` (made
  // current with cudaSetDevice semantics). When set, every call pushes it
  // and pops it again before returning.
  void* context = nullptr;
  // CUstream to enqueue on; null: a non-blocking stream of the engine's own.
  void* stream = nullptr;
  // CUDA device ordinal when `context` is null; -1: the current device.
  int cuda_device = -1;
  // Compute the maps whose weights are all zero too (all 108 sub-scores).
  bool all_features = false;
  // Largest number of results outstanding at once (ComputeAsync tickets not
  // yet waited for, and distorted images of one ComputeBatch call chunk).
  int max_batch = 8;
  // How many CUDA streams score the distorted images of one ComputeBatch
  // call at once (1..kMaxBatchStreams). Each stream beyond the engine's own
  // is a lane with working memory of its own (memory_bytes() grows per lane
  // by a pass against the engine's cached reference, 48 bytes per pixel by
  // default, 32 in two scale groups: lane_scale_groups), made on the first
  // batch that can use it;
  // every lane reads the one prepared reference. 1: the images are scored
  // one after the other on the engine's stream. A lane that cannot get its
  // memory is left out (the batch runs on fewer streams).
  int batch_streams = 4;
  // Scale groups of a batch lane's passes. Two: a lane blurs scale 0 after
  // the smaller scales, as an engine does under a memory limit, and holds 32
  // instead of 48 bytes per pixel, for batches that take longer (docs/
  // PERFORMANCE.md, "Lanes in two scale groups": 8 % fewer 1080p pairs/s in
  // a batch of eight on one engine, 3 % fewer 4K ones). 0 (default): two
  // for large frames (DefaultLaneGroups in layout.h), else one
  // unless memory_limit leaves room for the lanes of the first batch (and
  // the second engine) only in two; 1, 2: always that. Scores are the same
  // either way.
  int lane_scale_groups = 0;
  // Device memory the engine may hold at most, its reference cache and
  // batch lanes included, in bytes; 0: no limit. Under a limit the engine
  // scores the small scales after scale 0 instead of beside it when that
  // makes a pass and the cache fit, and makes only the batch lanes that fit
  // (limits() says what it gave up). Create fails with kOutOfMemory when
  // not even one pass fits, SetReference when the cache does not.
  std::size_t memory_limit = 0;
  // A reference set while batches are in flight is prepared beside them on
  // a second engine (its own stream and a second reference cache, in which
  // its reference passes work, made on first need: under a quarter of an
  // engine with three lanes) instead of after them on the
  // engine's stream; the batches of either reference run on the engine's
  // streams. Left out when its memory is not there (memory_limit: limits()
  // says so). Scores are the same either way.
  bool second_engine = false;
  // Sum the error maps one pixel after the other in row-major order, as the
  // CPU path and the reference do, so that every sub-score is bit for bit
  // the CPU backend's (core/src/sequential_sum.h, kernels.h "Sequential
  // sums"). Off, per-block sums are added in a fixed order: the same on
  // every GPU and run, the scores print the same, but sub-scores may differ
  // from the CPU's in the last bits. On, each working memory (the engine's
  // and each lane's) keeps every pixel's terms: about 55 bytes per pixel
  // more, and passes take longer (docs/PERFORMANCE.md, "Sequential sums").
  bool sequential_sums = false;
  // For tests: keep the linear RGB of scales >= 1 in memory of its own
  // (about 11 bytes per pixel more) instead of reusing it for the blur, so
  // that DebugDownload can read it after a pass.
  bool keep_linear_planes = false;
};

constexpr int kMaxBatchStreams = 16;

// Called on a CUDA host-callback thread when an asynchronous result is
// ready. It must not call CUDA or the engine.
using ResultCallback = void (*)(void* user_data, const Result& result);

class Engine {
 public:
  Engine();
  ~Engine();
  Engine(Engine&& other) noexcept;
  Engine& operator=(Engine&& other) noexcept;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Allocates everything for pairs of width x height. Errors:
  // kImageTooSmall, kBackendUnavailable (no device), kOutOfMemory, kCudaError.
  static Status Create(int width, int height, const EngineOptions& options, Engine* out);

  bool valid() const { return impl_ != nullptr; }
  int width() const;
  int height() const;
  int num_scales() const;
  // Device memory held by the engine, in bytes.
  std::size_t memory_bytes() const;
  // What EngineOptions::memory_limit made the engine give up so far, one
  // sentence per item ("" when nothing).
  std::string limits() const;
  // Of memory_bytes(), the second engine's (EngineOptions::second_engine);
  // 0 until it is made.
  std::size_t second_engine_bytes() const;
  // Pinned host memory held for host inputs, in bytes.
  std::size_t pinned_bytes() const;
  std::string device_name() const;
  // The stream the engine enqueues on (a CUstream / cudaStream_t).
  void* stream() const;

  // Scores one pair. Blocks until the result is on the host. The cached
  // reference (SetReference) is left alone, as by ssim2::Scorer: a later
  // Compute(distorted) still scores against it.
  Status Compute(const ImageView& reference, const ImageView& distorted, Result* result);

  // Computes and keeps every reference-only intermediate (XYB, mu1,
  // sigma11 per scale) in the reference cache, allocated on the first call.
  // An alpha reference is kept as its input samples instead: it needs two
  // passes with different backgrounds (and its batches run on the engine's
  // stream alone: a lane has no memory for the reference's planes).
  Status SetReference(const ImageView& reference);
  bool has_reference() const;
  // Scores a distorted image against the cached reference.
  Status Compute(const ImageView& distorted, Result* result);

  // SetReference(reference), then ComputeBatch(distorted, count, results).
  // Every image is checked before anything changes.
  Status ComputeBatch(const ImageView& reference, const ImageView* distorted,
                      std::size_t count, Result* results);
  // Scores `count` distorted images against the cached reference; results[i]
  // for distorted[i], bit for bit what Compute(distorted[i]) gives. They run
  // on up to EngineOptions::batch_streams streams at once; the call returns
  // when all are done.
  Status ComputeBatch(const ImageView* distorted, std::size_t count, Result* results);
  // Lanes made so far for batches (at most batch_streams - 1).
  int batch_lanes() const;

  // ComputeBatch(distorted, count, results) in two halves, so that the
  // caller can prepare the next batch while this one runs: the images are
  // enqueued against the cached reference, spread over the streams exactly
  // as by ComputeBatch, and WaitBatch(ticket, results) blocks until they are
  // done and fills results[i] for distorted[i] (bit for bit
  // Compute(distorted[i])); afterwards the ticket is unknown. Every image is
  // checked before anything is enqueued.
  // The cached reference may be replaced (SetReference) while a batch is in
  // flight: the new reference is prepared on the engine's stream after every
  // stream has finished reading the old one, or with
  // EngineOptions::second_engine beside it, into the other cache, so each
  // batch is scored against the reference cached when it was submitted.
  // Input device memory, and pinned host memory, must stay valid and
  // unchanged until WaitBatch returns (pageable host memory is copied before
  // ComputeBatchAsync returns).
  // Limits: count <= max_batch (kInvalidArgument beyond), and a batch's
  // images take tickets of the streams they run on, shared with
  // ComputeAsync: a submit that does not find enough free tickets fails with
  // kInvalidArgument having enqueued nothing. With the defaults (8 tickets,
  // 4 streams) two batches of up to 8 images, or up to 4 on a single
  // stream, may be in flight together.
  using BatchTicket = std::uint64_t;
  Status ComputeBatchAsync(const ImageView* distorted, std::size_t count, BatchTicket* ticket);
  Status WaitBatch(BatchTicket ticket, Result* results);

  // Non-blocking: enqueues the work on the stream and returns a ticket.
  // Input device memory must stay valid and unchanged until the work is done,
  // and so must pinned host memory (cudaMallocHost / cudaHostRegister), which
  // is copied to the device on the stream; pageable host memory is copied
  // into the engine's pinned staging before this returns. If `callback` is set it is
  // called with the result from a CUDA host function on the stream, and the
  // ticket is released when the callback returns (Wait() is optional then:
  // it blocks until the callback has run; afterwards the ticket is unknown).
  // At most max_batch tickets may be outstanding; Wait(), Query() returning
  // true, or the ticket's callback releases one.
  using Ticket = std::uint64_t;
  Status ComputeAsync(const ImageView& reference, const ImageView& distorted, Ticket* ticket,
                      ResultCallback callback = nullptr, void* user_data = nullptr);
  Status ComputeAsync(const ImageView& distorted, Ticket* ticket,
                      ResultCallback callback = nullptr, void* user_data = nullptr);
  // True once the ticket's result is ready (then fills *result if non-null).
  Status Query(Ticket ticket, bool* done, Result* result);
  // Blocks until the ticket's result is ready.
  Status Wait(Ticket ticket, Result* result);
  // Waits for everything enqueued by this engine (its lanes and second
  // engine included).
  Status Synchronize();

  // Diagnostics for tests: copies one float plane of the last pass to host
  // memory (`stride` in floats). Planes: 0 XYB of the reference, 1 XYB of the
  // distorted image, 2 linear RGB of the reference (scale >= 1), 3 linear RGB
  // of the distorted image (scale >= 1), 4 cached mu1, 5 cached sigma11.
  enum class DebugPlane { kXybRef, kXybDist, kLinearRef, kLinearDist, kMu1, kSigma11 };
  Status DebugDownload(DebugPlane plane, int scale, int channel, float* host,
                       std::size_t stride);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// True when a CUDA device can be used (with the reason otherwise).
bool DeviceAvailable(std::string* why_not);

}  // namespace cuda
}  // namespace ssim2
