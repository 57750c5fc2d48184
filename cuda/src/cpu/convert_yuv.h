// Y'CbCr to R'G'B' for the CPU path (convert_yuv.cpp). The CUDA engine
// implements the same arithmetic; the exact recipe is documented in
// convert_yuv.cpp and must be followed bit for bit on both sides.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ssim2/ssim2.h"

namespace ssim2 {
namespace cpu {

// Coefficients of one (matrix, range, bit depth), all in double.
struct YuvCoefficients {
  double y_offset, y_range;  // Y' = (Y - y_offset) / y_range
  double c_offset, c_range;  // Cb = (U - c_offset) / c_range, same for Cr
  double cr_to_r;            // 2 (1 - Kr)
  double cb_to_g, cr_to_g;   // 2 Kb (1 - Kb) / Kg, 2 Kr (1 - Kr) / Kg
  double cb_to_b;            // 2 (1 - Kb)
};

YuvCoefficients YuvCoefficientsFor(const YuvColorimetry& yuv, int bits);

// 8-bit Y'CbCr formats (I420, NV12, Y444) to packed 8-bit R'G'B' (3 bytes per
// pixel, rows `stride` bytes apart): the exact intermediate the metric reads.
// Host memory only. For tests and tools.
Status YuvToRgb8(const ImageView& image, std::uint8_t* rgb, std::ptrdiff_t stride);

// Any Y'CbCr format to float R'G'B' (3 floats per pixel, rows `stride` floats
// apart), before the sRGB curve: 8-bit input gives k/255 values, 10-bit input
// the clamped float. Host memory only. For tests.
Status YuvToRgbFloat(const ImageView& image, float* rgb, std::ptrdiff_t stride);

}  // namespace cpu
}  // namespace ssim2
