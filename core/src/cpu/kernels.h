// Vectorisable per-row stages of the CPU path. kernels.cpp is compiled twice,
// for AVX2+FMA and for baseline x86-64; both produce bit-identical results
// (the same IEEE operations, fused exactly where the reference fuses).
#pragma once

#include "blur_constants.h"
#include "planes.h"

#include <cstddef>

namespace ssim2 {
namespace cpu {

// Rows of a plane kept in a ring: row y lives at base + stride * (y % rows).
// A ring of INT_MAX rows is a plain plane.
struct RowRing {
  float* base = nullptr;
  std::size_t stride = 0;  // in floats, a multiple of 8
  int rows = 0;
  float* Row(int y) const { return base + stride * static_cast<std::size_t>(y % rows); }
};

// The vertical pass run band by band: the input rows arrive in order, the
// recursion's per-column state (y1[3], y2[3], rows 0..5 of `state`, columns
// padded like the input) is carried from one call to the next.
struct ColumnStream {
  RowRing in;
  RowRing out;                 // column x at out.Row(n) + x - out_first_column
  int out_first_column = 0;
  float* state = nullptr;
  std::size_t state_stride = 0;  // floats between the six state rows
  int height = 0;                // rows of the whole plane
};

struct KernelTable {
  const char* isa;
  // Horizontal recursive-Gaussian pass over rows [y0, y1).
  void (*blur_rows)(const BlurConstants& c, const Plane& in, int y0, int y1, Plane* out);
  // Vertical pass over columns [x0, x1); x0 must be a multiple of 8.
  void (*blur_columns)(const BlurConstants& c, const Plane& in, int x0, int x1, Plane* out);
  // Horizontal pass over `count` rows of `width` samples, out[i] = blur(a[i]),
  // or blur(a[i] * b[i]) when b is not null (the product rounded to float,
  // as multiply_rows). Rows are padded to a multiple of 8 floats.
  void (*blur_row_list)(const BlurConstants& c, const float* const* a, const float* const* b,
                        int count, int width, float* const* out);
  // Vertical pass for output rows [n0, n1) of columns [x0, x1) (x0 a
  // multiple of 8). The first call of a plane has n0 = 1 - radius and a zero
  // state; output rows below 0 are not stored. Reads input rows up to
  // n1 + radius - 2 (those below the plane's height) and from n0 - radius - 1.
  void (*blur_columns_stream)(const BlurConstants& c, const ColumnStream& s, int n0, int n1,
                              int x0, int x1);
  // Linear RGB -> positive XYB of one row, with the image's opsin matrix
  // (arith::LinearToPositiveXyb).
  void (*to_xyb_row)(const float* r, const float* g, const float* b, int width,
                     const float* opsin, float neg_cbrt_bias, float* x, float* y, float* b_out);
  // Linear RGB -> positive XYB for rows [y0, y1).
  void (*to_xyb_rows)(const Image3& linear, int y0, int y1, const float* opsin,
                      float neg_cbrt_bias, Image3* xyb);
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
