/* gst-ssim2: where alignment=content computes a frame's signature.
 * SPDX-License-Identifier: BSD-3-Clause */
#include "gstssim2signpath.h"

namespace ssim2gst {

SignaturePath DecideSignaturePath(const SignatureFrameFacts& f) {
  if (!f.cuda_backend) return SignaturePath::kHostCpuBackend;
  if (!f.cuda_memory) return SignaturePath::kHostSystemMemory;
  if (f.same_context) return SignaturePath::kDevice;
  if (f.same_device && !f.context_in_use) return SignaturePath::kDeviceAdoptContext;
  return SignaturePath::kHostOtherContext;
}

const char* SignaturePathWhy(SignaturePath path) {
  switch (path) {
    case SignaturePath::kDevice:
    case SignaturePath::kDeviceAdoptContext:
      return "";
    case SignaturePath::kHostSystemMemory:
      return "the frames are in system memory";
    case SignaturePath::kHostCpuBackend:
      return "the element scores on the CPU";
    case SignaturePath::kHostOtherContext:
      return "the frames are CUDA memory of another CUDA context (another "
             "device, or a context made after the element's was in use), "
             "which GStreamer downloads";
  }
  return "";
}

}  // namespace ssim2gst
