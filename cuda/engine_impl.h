// The state behind ssim2::cuda::Engine, shared by engine.cpp (the public
// calls, creation) and passes.cpp (what a call enqueues).
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "cuda/context.h"
#include "cuda/cuda_util.h"
#include "cuda/layout.h"
#include "cuda/tickets.h"
#include "cuda/upload.h"
#include "cuda/engine.h"

namespace ssim2 {
namespace cuda {

// Hidden: the class Engine is exported, and a nested class would be too.
struct __attribute__((visibility("hidden"))) Engine::Impl {
  int width = 0;
  int height = 0;
  EngineOptions options;
  int cuda_device = -1;  // EngineOptions::cuda_device, or the one current at Create
  std::string device_name;
  cuda::Layout layout;
  cuda::LaunchTables tables;

  // Everything that must be released with the context current.
  struct Resources {
    cuda::DeviceBuffer memory;
    cuda::Stream stream;
    cuda::PinnedBuffer results;  // 2 passes x kSumsPerResult doubles per slot
    cuda::Uploader uploads;
    cuda::TicketRing tickets;
    // The reference cache (Layout::cache), allocated by the first
    // SetReference; a lane has none.
    cuda::DeviceBuffer cache;
    // Batches: `fork` marks the cached reference ready on this stream (the
    // lanes wait for it); `join` marks a lane's share of a batch done (the
    // owner's stream waits for it before it may write the cache again).
    cuda::Event fork;
    cuda::Event join;
  };
  std::unique_ptr<Resources> res;

  // Where kCached passes read the reference (its XYB pyramid, mu1 and
  // sigma11): this engine's cache, or for a lane the owner's; null until
  // the cache is allocated.
  char* cache_base = nullptr;
  // What EngineOptions::memory_limit made this engine give up (Engine::limits).
  std::string limits;
  bool lanes_limited = false;
  // Batch lanes: engines of the same size with their own working memory,
  // stream and tickets, whose kCached tables point at this engine's cache,
  // so that the images of one batch are scored concurrently against one
  // preparation of the reference. Made on the first batch that needs them,
  // at most EngineOptions::batch_streams - 1; owned here, released before
  // this engine's memory.
  std::vector<std::unique_ptr<Impl>> lanes;

  bool has_reference = false;
  bool reference_alpha = false;
  cuda::InputDesc reference_raw{};  // alpha reference, kept in Layout::raw_ref

  ~Impl();

  cudaStream_t stream() const { return res->stream.get(); }
  char* base() const { return res->memory.get(); }

  // passes.cpp
  Status CheckImage(const ImageView& image) const;
  // A reference is cached and the images are valid for this engine.
  Status CheckAgainstReference(const ImageView* distorted, std::size_t count) const;
  Status SetReference(const ImageView& reference);
  // Scores `distorted` against `reference`, or against the cached reference
  // when `reference` is null, and hands out a ticket for the result.
  Status Enqueue(const ImageView* reference, const ImageView& distorted, Ticket* ticket,
                 ResultCallback callback, void* user_data);
  // Scores `count` checked images against the cached reference, spread over
  // this engine and its lanes, and waits for their results: SubmitBatch and
  // WaitBatch of rounds that fit the tickets.
  Status ScoreBatch(const ImageView* distorted, std::size_t count, Result* results);
  // Enqueues `count` checked images against the cached reference, spread
  // over this engine and its lanes (fork after the reference, each lane's
  // join back into this stream, so that a later SetReference waits for the
  // lanes' reads). Fails with kInvalidArgument, having enqueued nothing,
  // when an executor lacks free tickets for its share.
  Status SubmitBatch(const ImageView* distorted, std::size_t count, BatchTicket* ticket);
  Status WaitBatch(BatchTicket ticket, Result* results);

  // The images of one submitted batch: which executor scores which.
  struct BatchPart {
    Impl* engine;
    Ticket ticket;
    std::size_t index;
  };
  struct SubmittedBatch {
    BatchTicket id = 0;
    std::vector<BatchPart> parts;
  };
  std::vector<SubmittedBatch> batches;  // submitted, not yet waited for
  BatchTicket next_batch = 1;

 private:
  Status EnqueuePass(cuda::PassMode mode, const cuda::InputDesc* ref, const cuda::InputDesc* dist,
                     float background, int result_slot);
  Status EnqueuePairPasses(const ImageView& reference, const cuda::InputDesc& dist,
                           const cuda::Upload& dist_upload, int first_result, int* passes);
  // Chooses the layout of this engine's memory (or of a lane of
  // `cache_owner`) under EngineOptions::memory_limit.
  Status PlanMemory(const Impl* cache_owner);
  // Allocates the reference cache on first use and makes the kRef and
  // kCached tables that point into it.
  Status EnsureCache();
  // Grows the working memory to that of pair passes (xyb[0] and the
  // reference's rows in temp) before the first kFull pass.
  Status EnsurePairMemory();
  // Copies the job tables to the device, on the stream.
  Status UploadTables();
  // Makes sure `count` lanes exist.
  Status EnsureLanes(std::size_t count);
  // The lanes a batch of `count` images uses beside this engine (made if
  // needed; fewer when their memory is not there).
  Status LanesFor(std::size_t count, std::size_t* used);

 public:
  // Allocates the state of an engine for width x height; `cache_owner`:
  // null for an engine, the owning engine for a batch lane.
  static Status Create(int width, int height, const EngineOptions& options,
                       const Impl* cache_owner, std::unique_ptr<Impl>* out);
  // Device memory of this engine and its lanes.
  std::size_t memory_bytes() const;
};

}  // namespace cuda
}  // namespace ssim2
