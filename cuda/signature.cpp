#include "cuda/signature.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/context.h"
#include "cuda/kernels.h"
#include "cuda/upload.h"
#include "frame_signature.h"
#include "pixel_format.h"

namespace ssim2 {
namespace cuda {
namespace {

// How the kernels read a format's luma, from its facts.
SignatureParams ParamsFor(const ImageView& image, const signature::Grid& grid) {
  const FormatTraits& f = *FindFormat(image.format);
  SignatureParams p{};
  for (int i = 0; i < f.num_planes; ++i) {
    p.plane[i] = static_cast<const unsigned char*>(image.planes[i]);
    p.stride[i] = image.strides[i];
  }
  switch (f.family) {
    case FormatFamily::kPacked:
      p.kind = f.bytes_per_sample == 1 ? kLumaPacked8 : kLumaPacked16;
      p.channels = f.channels;
      p.r = f.r;
      p.g = f.g;
      p.b = f.b;
      break;
    case FormatFamily::kLinearPlanar: p.kind = kLumaLinearF32; break;
    case FormatFamily::kYuv:
      p.kind = f.bytes_per_sample == 1 ? kLumaPlane8 : kLumaPlane16;
      p.shift = f.msb_aligned ? 16 - f.bit_depth : 0;
      p.mask = (1u << f.bit_depth) - 1u;
      break;
  }
  p.width = image.width;
  p.height = image.height;
  p.grid_width = grid.width;
  p.grid_height = grid.height;
  return p;
}

}  // namespace

Status DeviceFrameSignature(const ImageView& image, void* context, cudaStream_t stream,
                            SignatureScratch* scratch, FrameSignature* out) {
  SSIM2_RETURN_IF_ERROR(CheckDeviceImage(image));
  // Before the first allocation: without a device, say so plainly rather
  // than as a failed cudaMalloc.
  if (context == nullptr && scratch->bytes() == 0) {
    std::string why;
    if (!DeviceAvailable(&why)) {
      return Status(StatusCode::kBackendUnavailable,
                    "the signature of an image in CUDA device memory needs a CUDA device: " + why);
    }
  }
  ContextGuard guard(context, -1);
  SSIM2_RETURN_IF_ERROR(guard.status());

  const signature::Grid grid = signature::MakeGrid(image.width, image.height);
  const std::size_t cells = static_cast<std::size_t>(grid.width) * grid.height;
  static_assert(sizeof(std::uint64_t) == kSignatureSumBytes && sizeof(double) == kSignatureSumBytes,
                "a sum is 8 bytes, integer or double");
  SSIM2_RETURN_IF_ERROR(scratch->rows.Reserve(static_cast<std::size_t>(grid.width) *
                                               image.height * kSignatureSumBytes));
  SSIM2_RETURN_IF_ERROR(scratch->cells.Reserve(cells * kSignatureSumBytes));
  SSIM2_RETURN_IF_ERROR(scratch->host.Reserve(cells * kSignatureSumBytes));

  SignatureParams params = ParamsFor(image, grid);
  params.rows = scratch->rows.get();
  params.cells = scratch->cells.get();
  SSIM2_CUDA_CHECK(LaunchSignatureRows(params, stream));
  SSIM2_CUDA_CHECK(LaunchSignatureCells(params, stream));
  SSIM2_CUDA_CHECK(cudaMemcpyAsync(scratch->host.get(), scratch->cells.get(),
                                   cells * kSignatureSumBytes, cudaMemcpyDeviceToHost, stream));
  SSIM2_CUDA_CHECK(cudaStreamSynchronize(stream));

  const char* sums = scratch->host.get();
  if (params.kind == kLumaLinearF32) {
    std::vector<double> totals(cells);
    std::memcpy(totals.data(), sums, cells * kSignatureSumBytes);
    signature::SignatureFromSums(grid, totals, out);
  } else {
    std::vector<std::uint64_t> integer(cells);
    std::memcpy(integer.data(), sums, cells * kSignatureSumBytes);
    signature::SignatureFromSums(grid, integer, signature::LumaFullScale(image.format), out);
  }
  return Status::Ok();
}

}  // namespace cuda
}  // namespace ssim2
