// Y'CbCr to R'G'B' for the video formats: the CUDA input kernels' per-pixel
// math, written as SSIM2_HD functions so that the CPU path
// (cpu/convert_yuv.cpp, same recipe) can call the very same code. The conversion replays a point-sampling exporter (ffmpeg
// zscale filter=point, then rgb24): nearest chroma sample (4:2:0 luma pixel
// (x, y) reads chroma (x/2, y/2)), the plain matrix in double, and for 8-bit
// input rounding and clamping to 8-bit R'G'B'.
//
//   normalise (double): 8-bit limited  Y' = (Y - 16) / 219,  C = (C - 128) / 224
//                       8-bit full     Y' = Y / 255,         C = (C - 128) / 255
//                       10-bit limited Y' = (Y - 64) / 876,  C = (C - 512) / 896
//                       10-bit full    Y' = Y / 1023,        C = (C - 512) / 1023
//   R = Y' + 2(1 - Kr) Cr
//   G = Y' - (2 Kb (1 - Kb) / Kg) Cb - (2 Kr (1 - Kr) / Kg) Cr,  Kg = 1 - Kr - Kb
//   B = Y' + 2(1 - Kb) Cb
//   BT.601 Kr .299 Kb .114; BT.709 .2126 .0722; BT.2020 .2627 .0593
//   8-bit:  u = clamp(floor(255 v + 0.5), 0, 255), then the 8-bit sRGB curve
//           (SrgbToLinear((float)(1.0 / 255) * u), i.e. the 8-bit table);
//   10-bit: v clamped to [0, 1] in double, then float, then SrgbToLinear;
//   10-bit PQ or HLG: u = clamp(floor(65535 v + 0.5), 0, 65535), then the
//           image's transfer of (float)(1.0 / 65535) * u (CPU path only).
//
// Sample access (ChromaSiteOf, Sample10): I420_10LE keeps the value in the
// low 10 bits of each 16-bit little-endian word, P010 in the high 10 bits
// (value = word >> 6).
#pragma once

#include <cstdint>

#include "arith.h"

namespace ssim2 {
namespace yuv {

// Matrix and range constants for one conversion; build with MakeCoeffs on
// either side (plain double arithmetic, identical on host and device).
struct Coeffs {
  double y_offset, y_scale;  // Y' = (Y - y_offset) / y_scale
  double c_offset, c_scale;  // C  = (C - c_offset) / c_scale
  double cr_r;               // 2 (1 - Kr)
  double cb_g;               // 2 Kb (1 - Kb) / Kg
  double cr_g;               // 2 Kr (1 - Kr) / Kg
  double cb_b;               // 2 (1 - Kb)
  bool ten_bit;
};

// matrix: 0 BT.601, 1 BT.709, 2 BT.2020 (YuvMatrix order); full: full range.
SSIM2_HD Coeffs MakeCoeffs(int matrix, bool full, bool ten_bit) {
  double kr = 0.2126, kb = 0.0722;
  if (matrix == 0) {
    kr = 0.299;
    kb = 0.114;
  } else if (matrix == 2) {
    kr = 0.2627;
    kb = 0.0593;
  }
  const double kg = 1.0 - kr - kb;
  Coeffs c;
  c.ten_bit = ten_bit;
  if (ten_bit) {
    c.y_offset = full ? 0.0 : 64.0;
    c.y_scale = full ? 1023.0 : 876.0;
    c.c_offset = 512.0;
    c.c_scale = full ? 1023.0 : 896.0;
  } else {
    c.y_offset = full ? 0.0 : 16.0;
    c.y_scale = full ? 255.0 : 219.0;
    c.c_offset = 128.0;
    c.c_scale = full ? 255.0 : 224.0;
  }
  c.cr_r = 2.0 * (1.0 - kr);
  c.cb_g = 2.0 * kb * (1.0 - kb) / kg;
  c.cr_g = 2.0 * kr * (1.0 - kr) / kg;
  c.cb_b = 2.0 * (1.0 - kb);
  return c;
}

// R'G'B' in double, before quantisation.
SSIM2_HD void ToRgbDouble(const Coeffs& c, int y, int cb, int cr, double rgb[3]) {
  const double yn = (static_cast<double>(y) - c.y_offset) / c.y_scale;
  const double cbn = (static_cast<double>(cb) - c.c_offset) / c.c_scale;
  const double crn = (static_cast<double>(cr) - c.c_offset) / c.c_scale;
  rgb[0] = yn + c.cr_r * crn;
  rgb[1] = yn - c.cb_g * cbn - c.cr_g * crn;
  rgb[2] = yn + c.cb_b * cbn;
}

// 8-bit: the rounded, clamped 8-bit R'G'B' value of one channel.
SSIM2_HD int Quantize8(double v) {
  double q = floor(255.0 * v + 0.5);
  if (q < 0.0) q = 0.0;
  if (q > 255.0) q = 255.0;
  return static_cast<int>(q);
}

// PQ and HLG (10-bit): the rounded, clamped 16-bit R'G'B' value of one
// channel, as a 16-bit PNG export of the frame holds it.
SSIM2_HD int Quantize16(double v) {
  double q = floor(65535.0 * v + 0.5);
  if (q < 0.0) q = 0.0;
  if (q > 65535.0) q = 65535.0;
  return static_cast<int>(q);
}

// 10-bit: the R'G'B' value of one channel clamped to [0, 1] in double
// (std::min(1.0, std::max(0.0, v)), so -0.0 becomes +0.0), then float - as
// cpu/convert_yuv.cpp does.
SSIM2_HD float ToFloat01(double v) {
  double c = 0.0 < v ? v : 0.0;  // std::max(0.0, v)
  c = c < 1.0 ? c : 1.0;         // std::min(1.0, c)
  return static_cast<float>(c);
}

// One pixel to linear RGB (what the metric reads). `mul8` is the 8-bit
// loader's scale (float)(1.0 / 255).
SSIM2_HD void ToLinear(const Coeffs& c, int y, int cb, int cr, float mul8, float out[3]) {
  double rgb[3];
  ToRgbDouble(c, y, cb, cr, rgb);
  for (int i = 0; i < 3; ++i) {
    if (c.ten_bit) {
      out[i] = arith::SrgbToLinear(ToFloat01(rgb[i]));
    } else {
      out[i] = arith::SrgbToLinear(mul8 * static_cast<float>(Quantize8(rgb[i])));
    }
  }
}

// Where the chroma samples of pixel (x, y) are: the nearest ones, (x / 2,
// y / 2) in 4:2:0 formats and (x, y) in 4:4:4. `row` is their row, `u` and
// `v` their sample indices in it: U, V alternate in the one chroma plane of
// interleaved formats (NV12, P010), else U and V have a plane each.
struct ChromaSite {
  int row, u, v;
};
SSIM2_HD ChromaSite ChromaSiteOf(int x, int y, bool chroma_420, bool interleaved) {
  const int cx = chroma_420 ? x / 2 : x;
  const int cy = chroma_420 ? y / 2 : y;
  if (interleaved) return {cy, 2 * cx, 2 * cx + 1};
  return {cy, cx, cx};
}

// A 10-bit sample from its 16-bit word (little-endian in memory on both
// host and device here): I420_10LE keeps it in the low bits, P010 in the
// high ones.
SSIM2_HD int Sample10(std::uint16_t word, bool high_bits) {
  return high_bits ? word >> 6 : word & 0x3ff;
}

}  // namespace yuv
}  // namespace ssim2
