// Where alignment=content computes a frame's signature
// (gst/gstssim2signpath.h): every combination of the facts, without a GPU.
// The device suite (scripts/device-gst-suite.sh, step 3d) checks on a GPU
// that CUDA-memory frames take the device path in a pipeline.
#include <gtest/gtest.h>

#include <string>

#include "gstssim2signpath.h"

namespace {

using ssim2gst::DecideSignaturePath;
using ssim2gst::SignatureFrameFacts;
using ssim2gst::SignaturePath;

SignatureFrameFacts Cuda(bool same_context, bool same_device, bool in_use) {
  SignatureFrameFacts f;
  f.cuda_backend = true;
  f.cuda_memory = true;
  f.same_context = same_context;
  f.same_device = same_device;
  f.context_in_use = in_use;
  return f;
}

TEST(SignaturePath, CudaMemoryOfTheElementsContextIsReadInPlace) {
  for (bool in_use : {false, true}) {
    EXPECT_EQ(DecideSignaturePath(Cuda(true, true, in_use)), SignaturePath::kDevice) << in_use;
  }
}

// The case of decoders that made their context before the element did
// (NULL to READY comes before the element's start): their first frame
// brings the element onto their context, as GStreamer's CUDA transforms do.
TEST(SignaturePath, AnotherContextOnTheDeviceIsAdoptedBeforeAnyUse) {
  EXPECT_EQ(DecideSignaturePath(Cuda(false, true, false)), SignaturePath::kDeviceAdoptContext);
  EXPECT_TRUE(ssim2gst::OnDevice(SignaturePath::kDeviceAdoptContext));
  // Once a scorer or the signatures live in the element's context, a frame
  // of another one is downloaded (as the scorer reads it), never adopted.
  EXPECT_EQ(DecideSignaturePath(Cuda(false, true, true)), SignaturePath::kHostOtherContext);
  // Another device: never adopted.
  EXPECT_EQ(DecideSignaturePath(Cuda(false, false, false)), SignaturePath::kHostOtherContext);
}

TEST(SignaturePath, SystemMemoryAndTheCpuBackendStayOnTheHost) {
  SignatureFrameFacts system;
  system.cuda_backend = true;
  EXPECT_EQ(DecideSignaturePath(system), SignaturePath::kHostSystemMemory);
  SignatureFrameFacts cpu = Cuda(true, true, false);
  cpu.cuda_backend = false;
  EXPECT_EQ(DecideSignaturePath(cpu), SignaturePath::kHostCpuBackend);
  for (SignaturePath p : {SignaturePath::kHostSystemMemory, SignaturePath::kHostCpuBackend,
                          SignaturePath::kHostOtherContext}) {
    EXPECT_FALSE(ssim2gst::OnDevice(p));
    EXPECT_FALSE(std::string(ssim2gst::SignaturePathWhy(p)).empty());
  }
  EXPECT_TRUE(std::string(ssim2gst::SignaturePathWhy(SignaturePath::kDevice)).empty());
}

}  // namespace
