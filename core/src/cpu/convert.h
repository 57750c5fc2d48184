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

// What ToLinearRgb checks before converting: host memory, a valid image in a
// supported format.
Status CheckConvertible(const ImageView& image);

// Rows [y0, y1) of an image that passed CheckConvertible: image row y lands
// in row y - first_row of `out`, whose planes are at least image.width wide.
void ToLinearRgbRows(const ImageView& image, float alpha_background, int y0, int y1,
                     int first_row, Image3* out);

// Y'CbCr formats (convert_yuv.cpp): same contract as ToLinearRgb, and the
// row-range form of ToLinearRgbRows.
Status YuvToLinearRgb(const ImageView& image, Image3* out, ThreadPool* pool);
void YuvToLinearRgbRows(const ImageView& image, int y0, int y1, int first_row, Image3* out);

// The sRGB curve of 8-bit sample values (exact SrgbToLinear of mul * u).
const float* Srgb8ToLinearTable();

}  // namespace cpu
}  // namespace ssim2
