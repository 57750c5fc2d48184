/* gst-ssim2: where alignment=content computes a frame's signature.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A pure function of what the element knows about the frame and about its
 * own CUDA state, so that every case is tested without a GPU
 * (tests/check/test_signature_path.cpp); gstssim2sync.cpp gathers the facts
 * and acts on the answer. */
#pragma once

namespace ssim2gst {

struct SignatureFrameFacts {
  bool cuda_backend = false;  // the element scores on CUDA and holds a context
  bool cuda_memory = false;   // the frame's memory is CUDA memory
  bool same_context = false;  // ... of the element's context
  bool same_device = false;   // ... on the element's device (any, for cuda-device-id=-1)
  // The element's context is in use (a scorer or the signature maker was
  // made in it, or a neighbour took it): it can no longer be swapped.
  bool context_in_use = false;
};

enum class SignaturePath {
  kDevice,               // in place, in the element's context
  kDeviceAdoptContext,   // take the frame's context as the element's, then in place
  kHostSystemMemory,     // system memory: read on the host
  kHostCpuBackend,       // the element scores on the CPU
  kHostOtherContext,     // CUDA memory the element's context cannot read in place
};

// As GStreamer's CUDA elements do with CUDA memory of another context: a
// frame of another context on the element's device becomes the element's
// context while nothing has been made in the element's own yet, so that the
// frames of decoders that made their context before the element are read in
// place from the first frame on.
SignaturePath DecideSignaturePath(const SignatureFrameFacts& facts);

// Whether the path reads the frame on the device.
inline bool OnDevice(SignaturePath path) {
  return path == SignaturePath::kDevice || path == SignaturePath::kDeviceAdoptContext;
}

// Why a frame's signature is computed on the host, for the log; "" on the
// device.
const char* SignaturePathWhy(SignaturePath path);

}  // namespace ssim2gst
