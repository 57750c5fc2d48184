// Frame signatures of CUDA device images (ssim2::FrameSignatureMaker): the
// cell sums on the device (SignatureRowsKernel, SignatureCellsKernel), the
// normalisation on the host (core/src/frame_signature.h), so that a device
// image gets the host's signature bit for bit.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/cuda_util.h"
#include "ssim2/alignment.h"

namespace ssim2 {
namespace cuda {

// The device and pinned scratch of the sums, grown to the largest image seen.
struct SignatureScratch {
  DeviceBuffer rows;   // one sum per (cell column, image row)
  DeviceBuffer cells;  // one sum per cell
  PinnedBuffer host;   // the cells' sums, copied back

  std::size_t bytes() const { return rows.bytes() + cells.bytes() + host.bytes(); }
};

// The signature of a checked device image (ValidateImage): `context` (a
// CUcontext; null: the current one) made current, the kernels and the copy
// of the sums enqueued on `stream`, which is synchronised before the sums are
// normalised on the host.
Status DeviceFrameSignature(const ImageView& image, void* context, cudaStream_t stream,
                            SignatureScratch* scratch, FrameSignature* out);

}  // namespace cuda
}  // namespace ssim2
