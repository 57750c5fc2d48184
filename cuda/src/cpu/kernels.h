// Vectorisable per-row stages of the CPU path. kernels.cpp is compiled twice,
// for AVX2+FMA and for baseline x86-64; both produce bit-identical results
// (the same IEEE operations, fused exactly where the reference fuses).
#pragma once

#include "blur_constants.h"
#include "planes.h"

namespace ssim2 {
namespace cpu {

struct KernelTable {
  const char* isa;
  // Horizontal recursive-Gaussian pass over rows [y0, y1).
  void (*blur_rows)(const BlurConstants& c, const Plane& in, int y0, int y1, Plane* out);
  // Vertical pass over columns [x0, x1); x0 must be a multiple of 8.
  void (*blur_columns)(const BlurConstants& c, const Plane& in, int x0, int x1, Plane* out);
  // Linear RGB -> positive XYB for rows [y0, y1).
  void (*to_xyb_rows)(const Image3& linear, int y0, int y1, float neg_cbrt_bias, Image3* xyb);
  // out = a * b elementwise for rows [y0, y1).
  void (*multiply_rows)(const Plane& a, const Plane& b, int y0, int y1, Plane* out);
  // Per-pixel SSIM error d (double) of one row.
  void (*ssim_row)(const float* mu1, const float* mu2, const float* s11, const float* s22,
                   const float* s12, int width, double* d);
  // Per-pixel signed edge difference d1 (double) of one row.
  void (*edge_row)(const float* img1, const float* mu1, const float* img2, const float* mu2,
                   int width, double* d1);
};

// The best table for this processor (AVX2+FMA when available).
const KernelTable& BestKernels();
const KernelTable& GenericKernels();
// Null when not built or not supported by this processor.
const KernelTable* Avx2Kernels();

}  // namespace cpu
}  // namespace ssim2
