// Input images to linear-light RGB planes, the way the reference's loader and
// colour management do it: samples scaled by (float)(1.0 / max), optional
// alpha blending on the encoded values, then libjxl's sRGB curve.
#pragma once

#include "planes.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace cpu {

class ThreadPool;

// `alpha_background`: grey level the colour is blended against when the
// format has alpha (ignored otherwise). Host memory only.
Status ToLinearRgb(const ImageView& image, float alpha_background, Image3* out,
                   ThreadPool* pool);

// Y'CbCr formats (convert_yuv.cpp): same contract as ToLinearRgb.
Status YuvToLinearRgb(const ImageView& image, Image3* out, ThreadPool* pool);

// The sRGB curve of 8-bit sample values (exact SrgbToLinear of mul * u).
const float* Srgb8ToLinearTable();

}  // namespace cpu
}  // namespace ssim2
