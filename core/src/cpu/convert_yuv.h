// Y'CbCr to R'G'B' for the CPU path (convert_yuv.cpp). The per-pixel math is
// yuv.h, shared with the CUDA kernels; the recipe is documented in
// convert_yuv.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ssim2/ssim2.h"

namespace ssim2 {
namespace cpu {

// 8-bit Y'CbCr formats (I420, NV12, Y444) to packed 8-bit R'G'B' (3 bytes per
// pixel, rows `stride` bytes apart): the exact intermediate the metric reads.
// Host memory only. For tests and tools.
Status YuvToRgb8(const ImageView& image, std::uint8_t* rgb, std::ptrdiff_t stride);

// 10-bit Y'CbCr formats to packed 16-bit R'G'B' (3 samples per pixel, rows
// `stride` samples apart): what the CPU path reads of a PQ or HLG frame.
// Host memory only. For tests.
Status YuvToRgb16(const ImageView& image, std::uint16_t* rgb, std::ptrdiff_t stride);

// Any Y'CbCr format to float R'G'B' (3 floats per pixel, rows `stride` floats
// apart), before the sRGB curve: 8-bit input gives k/255 values, 10-bit input
// the clamped float. Host memory only. For tests.
Status YuvToRgbFloat(const ImageView& image, float* rgb, std::ptrdiff_t stride);

}  // namespace cpu
}  // namespace ssim2
