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
  // Job tables per cache slot: kCached passes read the slot that holds the
  // current reference, kRef passes write it.
  cuda::LaunchTables tables[kCacheSlots];

  // Everything that must be released with the context current.
  struct Resources {
    cuda::DeviceBuffer memory;
    cuda::Stream stream;
    cuda::PinnedBuffer results;  // 2 passes x kSumsPerResult doubles per slot
    cuda::Uploader uploads;
    cuda::TicketRing tickets;
    // The reference cache (Layout::cache): an engine's (slot 0), allocated
    // by the first SetReference, or its second engine's (slot 1); a lane
    // has none.
    cuda::DeviceBuffer cache;
    // Batches: `fork` marks the cached reference ready on this stream (the
    // lanes wait for it); read_done[k] marks this stream's reads of cache
    // slot k so far (recorded once they are enqueued; whoever writes the
    // slot next waits for it); a second engine's `ready` marks a reference
    // it prepared (the engine's stream waits for it).
    cuda::Event fork;
    cuda::Event read_done[kCacheSlots];
    bool read_recorded[kCacheSlots] = {};
    cuda::Event ready;
  };
  std::unique_ptr<Resources> res;

  // Where kCached passes read the reference (its XYB pyramid, mu1 and
  // sigma11) and kRef passes write it, per cache slot: slot 0 is the
  // engine's cache, slot 1 its second engine's; lanes and the second engine
  // use the engine's. Null until allocated.
  char* cache_base[kCacheSlots] = {};
  // The slot of the current reference (a lane's: of the batch it scores; a
  // second engine's: of the reference it prepares).
  int slot = 0;
  // What EngineOptions::memory_limit made this engine give up (Engine::limits).
  std::string limits;
  bool lanes_limited = false;
  bool second_engine_limited = false;
  // Scale groups of this engine's batch lanes (LaneGroups), chosen with the
  // first lane; 0 before.
  int lane_groups = 0;
  // Batch lanes: engines of the same size with their own working memory,
  // stream and tickets, whose kCached tables point at this engine's cache,
  // so that the images of one batch are scored concurrently against one
  // preparation of the reference. Made on the first batch that needs them,
  // at most EngineOptions::batch_streams - 1; owned here, released before
  // this engine's memory.
  std::vector<std::unique_ptr<Impl>> lanes;
  // EngineOptions::second_engine: prepares a reference set while batches are
  // in flight into cache slot 1 or 0 (whichever they do not read), on its own
  // stream, so that it runs beside them (Executor::kPreparer: cache slot 1
  // and a few KB of job tables and sums, under a quarter of an engine with
  // three lanes). Made on first need; released before the lanes'
  // owner, after the lanes, which read its cache.
  std::unique_ptr<Impl> second;

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
  // Prepares `reference` into cache slot `target` on this executor's stream
  // (an engine's or its second engine's), keeping an alpha reference's
  // samples there instead.
  Status PrepareReference(const ImageView& reference, int target);
  // Makes `writer` wait for every stream's reads of cache slot `target` so
  // far (this engine's, when the writer is another stream, and its lanes').
  Status WaitForReaders(int target, cudaStream_t writer);
  // Scores `distorted` against `reference`, or against the cached reference
  // when `reference` is null, and hands out a ticket for the result.
  Status Enqueue(const ImageView* reference, const ImageView& distorted, Ticket* ticket,
                 ResultCallback callback, void* user_data);
  // Scores `count` checked images against the cached reference, spread over
  // this engine and its lanes, and waits for their results: SubmitBatch and
  // WaitBatch of rounds that fit the tickets.
  Status ScoreBatch(const ImageView* distorted, std::size_t count, Result* results);
  // Enqueues `count` checked images against the cached reference, spread
  // over this engine and its lanes (fork after the reference; each lane
  // marks its reads of the cache slot, so that whoever writes the slot next
  // waits for them: WaitForReaders). Fails with kInvalidArgument, having enqueued nothing,
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
  // Chooses the layout of this engine's memory (or of a lane or the second
  // engine of `cache_owner`: `role`) under EngineOptions::memory_limit.
  Status PlanMemory(const Impl* cache_owner, Executor role);
  // Allocates the reference cache on first use and makes the kRef and
  // kCached tables that point into it.
  Status EnsureCache();
  // Grows the working memory to that of pair passes (xyb[0] and the
  // reference's rows in temp) before the first kFull pass.
  Status EnsurePairMemory();
  // Makes the job tables of every cache slot for this memory.
  void MakeAllTables();
  // Copies the job tables of cache slot `slot` (-1: every slot) to the
  // device, on the stream.
  Status UploadTables(int slot = -1);
  // Makes the second engine if it is not there yet; false when it cannot
  // be made (no device memory, or none left under memory_limit).
  bool EnsureSecondEngine();
  // Makes sure `count` lanes exist.
  Status EnsureLanes(std::size_t count);
  // The scale groups of the lanes of a first batch that wants `count` of
  // them (EngineOptions::lane_scale_groups); says so in `limits` when
  // memory_limit made it two.
  int LaneGroups(std::size_t count);
  // Working memory of one lane, or of the second engine with its cache.
  std::size_t LaneBytes(int groups) const;
  std::size_t SecondEngineNeeds() const;
  // The lanes a batch of `count` images uses beside this engine (made if
  // needed; fewer when their memory is not there).
  Status LanesFor(std::size_t count, std::size_t* used);

 public:
  // Allocates the state of an engine for width x height; `cache_owner`:
  // null for an engine, the owning engine for a batch lane or a second
  // engine (`role`).
  static Status Create(int width, int height, const EngineOptions& options,
                       const Impl* cache_owner, Executor role, std::unique_ptr<Impl>* out);
  // Device memory of this engine, its lanes and its second engine.
  std::size_t memory_bytes() const;
  // Of which the second engine's (its working memory and cache slot 1).
  std::size_t second_engine_bytes() const { return second ? second->memory_bytes() : 0; }
};

}  // namespace cuda
}  // namespace ssim2
