// Inputs as the kernels read them: the InputDesc of an image (its format's
// facts from pixel_format.h), the checks only device images need, and the
// copy of host images to the device through pinned staging.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/cuda_util.h"
#include "cuda/kernels.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace cuda {

// Device images: positive strides, planes and strides aligned to the
// samples the kernels read in place (2 bytes for 16-bit words, 4 for float).
Status CheckDeviceImage(const ImageView& image);

// Rows of host images are uploaded 16-byte aligned.
std::size_t UploadPitch(std::size_t row_bytes);
// Bytes an image takes in an upload area (all planes, rows UploadPitch apart).
std::size_t UploadSize(const ImageView& image);

// One host image's copies to the device, kept so that a second alpha pass
// can issue them again.
struct Upload {
  struct Copy {
    const void* src;
    std::size_t src_pitch;
    void* dst;
    std::size_t dst_pitch;
    std::size_t width;
    std::size_t rows;
  };
  bool active = false;
  Copy copies[3] = {};
  int num_copies = 0;
  int staging = -1;  // staging buffer read by the copies, -1: caller's pinned memory
};

// The pinned staging buffers of host inputs: one for the reference, two
// (used in turn) for distorted images, each grown on demand.
class Uploader {
 public:
  static constexpr int kReferenceStaging = 0;
  static constexpr int kNumStaging = 3;

  // Creates the events; `pageable_direct`: hand pageable host memory to
  // cudaMemcpy2DAsync as it is instead of copying it into staging first.
  Status Create(bool pageable_direct);

  // The staging buffer for the next distorted image (alternates).
  int NextDistortedStaging();

  // Fills *desc for `image`. Device memory is read in place. Host memory is
  // copied to device address `dst` (at most `dst_capacity` bytes), through
  // staging buffer `staging` unless it is pinned; the copies are enqueued on
  // `stream` and recorded in *upload.
  Status Prepare(const ImageView& image, int staging, char* dst, std::size_t dst_capacity,
                 cudaStream_t stream, InputDesc* desc, Upload* upload);
  // Enqueues an upload's copies (again).
  Status Issue(const Upload& upload, cudaStream_t stream);

  std::size_t pinned_bytes() const;

 private:
  PinnedBuffer staging_[kNumStaging];
  Event staging_done_[kNumStaging];
  bool pageable_direct_ = false;
  int next_distorted_ = 0;
};

}  // namespace cuda
}  // namespace ssim2
