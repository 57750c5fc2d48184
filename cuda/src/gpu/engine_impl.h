// The state behind ssim2::cuda::Engine, shared by engine.cpp (the public
// calls, creation) and passes.cpp (what a call enqueues).
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "gpu/context.h"
#include "gpu/cuda_util.h"
#include "gpu/layout.h"
#include "gpu/tickets.h"
#include "gpu/upload.h"
#include "ssim2/cuda_engine.h"

namespace ssim2 {
namespace cuda {

struct Engine::Impl {
  int width = 0;
  int height = 0;
  EngineOptions options;
  int device = -1;
  std::string device_name;
  gpu::Layout layout;
  gpu::LaunchTables tables;

  // Everything that must be released with the context current.
  struct Resources {
    gpu::DeviceBuffer memory;
    gpu::Stream stream;
    gpu::PinnedBuffer results;  // 2 passes x kSumsPerResult doubles per slot
    gpu::Uploader uploads;
    gpu::TicketRing tickets;
    // The cached reference's XYB pyramid, kept aside while a pair is scored
    // (a pair's passes write the reference pyramid). Allocated on first use.
    gpu::DeviceBuffer saved_reference;
  };
  std::unique_ptr<Resources> res;

  bool has_reference = false;
  bool reference_alpha = false;
  gpu::InputDesc reference_raw{};  // alpha reference, kept in Layout::raw_ref

  ~Impl();

  cudaStream_t stream() const { return res->stream.get(); }
  char* base() const { return res->memory.get(); }

  // passes.cpp
  Status CheckImage(const ImageView& image) const;
  Status SetReference(const ImageView& reference);
  // Scores `distorted` against `reference`, or against the cached reference
  // when `reference` is null, and hands out a ticket for the result.
  Status Enqueue(const ImageView* reference, const ImageView& distorted, Ticket* ticket,
                 ResultCallback callback, void* user_data);

 private:
  Status EnqueuePass(gpu::PassMode mode, const gpu::InputDesc* ref, const gpu::InputDesc* dist,
                     float background, int result_slot);
  Status EnqueuePairPasses(const ImageView& reference, const gpu::InputDesc& dist,
                           const gpu::Upload& dist_upload, int first_result, int* passes);
  // Copies of the cached reference's XYB pyramid, enqueued on the stream.
  Status SaveCachedReference();
  Status RestoreCachedReference();
};

}  // namespace cuda
}  // namespace ssim2
