// Frame signatures of CUDA device images (ssim2::FrameSignatureMaker), in
// batches: the cell sums and their normalisation on the device, one kernel
// launch per batch (SignatureKernel, up to kSignatureFramesPerLaunch frames:
// the host's operations in the host's order, core/src/frame_signature.h), so
// that a device image gets the host's signature bit for bit, and the host
// only copies the result out of pinned memory.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "cuda/cuda_util.h"
#include "ssim2/alignment.h"

namespace ssim2 {
namespace cuda {

// The most frames of one launch (FrameSignatureMaker::Options::batch).
constexpr int kMaxSignatureBatch = 64;

// Device signatures in flight, numbered by the caller's tickets. Frames are
// added to an open batch, which is launched when it holds `batch` frames, at
// Launch(), or before a frame read on another stream. A launched batch runs
// on a stream of its own that first waits for the work the caller enqueued on
// the frames' stream (their upload or decode), so that the normalisation's
// serial sums never hold up the caller's stream; its results land in pinned
// memory, read at Collect(). Nothing synchronises until a ticket whose batch
// has not finished is collected. Device memory (scratch for the largest batch
// seen) and pinned memory (one block per batch in flight) are kept and
// reused. Not thread-safe.
class DeviceSignatures {
 public:
  // `context`: a CUcontext made current around every call (null: the current
  // one); `batch`: 1..kMaxSignatureBatch.
  DeviceSignatures(void* context, int batch);
  // Waits for the batches in flight (their images may go once it returns)
  // and frees everything in the context.
  ~DeviceSignatures();
  DeviceSignatures(const DeviceSignatures&) = delete;
  DeviceSignatures& operator=(const DeviceSignatures&) = delete;

  // Adds a checked device image (ValidateImage) to the open batch under
  // `ticket` (larger than every ticket added before). The image must stay
  // readable until its ticket is collected.
  Status Add(const ImageView& image, cudaStream_t stream, std::uint64_t ticket);
  // Launches the open batch (nothing when it is empty).
  Status Launch();
  // Whether `ticket` (added, not collected) is finished: Collect() would not
  // wait. False while its batch is open.
  bool Ready(std::uint64_t ticket);
  // The signature of `ticket` (added, not collected), launching its batch if
  // it is open and waiting for it if it has not finished; the ticket is then
  // forgotten. A CUDA failure of its batch is returned for each of its
  // tickets.
  Status Collect(std::uint64_t ticket, FrameSignature* out);
  // Whether `ticket` was added and not collected.
  bool Holds(std::uint64_t ticket) const;
  std::size_t in_flight() const;  // tickets added and not collected

  // Device scratch and pinned memory held now, in bytes.
  std::size_t bytes() const;

 private:
  struct Frame;
  struct Batch;
  Batch* Find(std::uint64_t ticket, std::size_t* index);
  const Batch* Find(std::uint64_t ticket, std::size_t* index) const;
  Status LaunchOpen();

  void* context_;
  int batch_size_;
  Stream stream_;  // the batches' own stream (created at the first launch)
  Event ready_;    // recorded on the frames' stream, waited for on stream_
  DeviceBuffer counters_, rows_, cells_, results_;  // counters_: SignatureLaunch::blocks_done
  std::unique_ptr<Batch> open_;
  std::deque<std::unique_ptr<Batch>> launched_;  // oldest first
  std::vector<std::unique_ptr<Batch>> spare_;    // collected, pinned memory kept
};

}  // namespace cuda
}  // namespace ssim2
