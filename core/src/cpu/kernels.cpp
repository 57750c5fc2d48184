// Per-row stages of the CPU path. This file is compiled twice: with
// SSIM2_KERNEL_AVX2 (-mavx2 -mfma) into ssim2::cpu::avx2, and without it into
// ssim2::cpu::generic. The AVX2 code runs the reference's scalar operation
// sequence on 8 lanes at once (8 rows for the horizontal blur, 8 columns for
// the vertical one, 8 pixels elsewhere), so it rounds exactly like the
// generic code, which is the plain replay.
#include <algorithm>
#include <cmath>
#include <vector>

#include "arith.h"
#include "cpu/kernels.h"
#include "cpu/reference_replay.h"

#if defined(SSIM2_KERNEL_AVX2)
#include <immintrin.h>
#define SSIM2_KERNEL_NS avx2
#else
#define SSIM2_KERNEL_NS generic
#endif

namespace ssim2 {
namespace cpu {
namespace SSIM2_KERNEL_NS {
namespace {

void MultiplyRows(const Plane& a, const Plane& b, int y0, int y1, Plane* out) {
  const int w = a.width();
  for (int y = y0; y < y1; ++y) {
    const float* ra = a.Row(y);
    const float* rb = b.Row(y);
    float* ro = out->Row(y);
    for (int x = 0; x < w; ++x) ro[x] = ra[x] * rb[x];
  }
}

#if !defined(SSIM2_KERNEL_AVX2)

void BlurRows(const BlurConstants& c, const Plane& in, int y0, int y1, Plane* out) {
  for (int y = y0; y < y1; ++y) replay::BlurRow(c, in.Row(y), in.width(), out->Row(y));
}

void BlurColumns(const BlurConstants& c, const Plane& in, int x0, int x1, Plane* out) {
  x1 = std::min(x1, in.width());
  replay::BlurColumns(c, in.Row(0) + x0, x1 - x0, in.height(), in.stride(), out->Row(0) + x0);
}

void BlurRowList(const BlurConstants& c, const float* const* a, const float* const* b, int count,
                 int width, float* const* out) {
  thread_local std::vector<float> product;
  if (b) product.resize(static_cast<std::size_t>(width));
  for (int i = 0; i < count; ++i) {
    const float* in = a[i];
    if (b) {
      for (int x = 0; x < width; ++x) product[x] = a[i][x] * b[i][x];
      in = product.data();
    }
    replay::BlurRow(c, in, width, out[i]);
  }
}

// replay::BlurColumns with the column state kept in `s.state`.
void BlurColumnsStream(const BlurConstants& c, const ColumnStream& s, int n0, int n1, int x0,
                       int x1) {
  const int n_radius = c.radius;
  const int h = s.height;
  const float neg_d1[3] = {-c.d1[0], -c.d1[1], -c.d1[2]};
  const int single_until = std::min(n_radius + 1, h);
  for (int x = x0; x < x1; ++x) {
    float y1[3], y2[3];
    for (int k = 0; k < 3; ++k) {
      y1[k] = s.state[s.state_stride * k + x];
      y2[k] = s.state[s.state_stride * (3 + k) + x];
    }
    for (int n = n0; n < n1; ++n) {
      const int bottom = n + n_radius - 1;
      const float below = bottom < h ? s.in.Row(bottom)[x] : 0.0f;
      const float sum = n < single_until ? below : s.in.Row(n - n_radius - 1)[x] + below;
      float y[3];
      for (int k = 0; k < 3; ++k) {
        y[k] = arith::Fma(c.n2[k], sum, arith::Fma(neg_d1[k], y1[k], -y2[k]));
        y2[k] = y1[k];
        y1[k] = y[k];
      }
      if (n >= 0) s.out.Row(n)[x - s.out_first_column] = y[0] + (y[1] + y[2]);
    }
    for (int k = 0; k < 3; ++k) {
      s.state[s.state_stride * k + x] = y1[k];
      s.state[s.state_stride * (3 + k) + x] = y2[k];
    }
  }
}

void ToXybRow(const float* r, const float* g, const float* b, int width, const float* opsin,
              float neg_cbrt_bias, float* ox, float* oy, float* ob) {
  for (int x = 0; x < width; ++x) {
    const arith::Xyb v = arith::LinearToPositiveXyb(r[x], g[x], b[x], opsin, neg_cbrt_bias);
    ox[x] = v.x;
    oy[x] = v.y;
    ob[x] = v.b;
  }
}

void SsimRow(const float* mu1, const float* mu2, const float* s11, const float* s22,
             const float* s12, int width, double* d) {
  for (int x = 0; x < width; ++x) d[x] = arith::SsimError(mu1[x], mu2[x], s11[x], s22[x], s12[x]);
}

void EdgeRow(const float* img1, const float* mu1, const float* img2, const float* mu2, int width,
             double* d1) {
  for (int x = 0; x < width; ++x) d1[x] = arith::EdgeDiff(img1[x], mu1[x], img2[x], mu2[x]);
}

#else  // SSIM2_KERNEL_AVX2

using V = __m256;

inline V Set(float f) { return _mm256_set1_ps(f); }
inline V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
inline V Add(V a, V b) { return _mm256_add_ps(a, b); }
inline V Sub(V a, V b) { return _mm256_sub_ps(a, b); }
inline V Mul(V a, V b) { return _mm256_mul_ps(a, b); }
inline V Neg(V a) { return _mm256_xor_ps(a, Set(-0.0f)); }

// In-register 8x8 transpose of r[0..7].
inline void Transpose8(V r[8]) {
  const V t0 = _mm256_unpacklo_ps(r[0], r[1]);
  const V t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const V t2 = _mm256_unpacklo_ps(r[2], r[3]);
  const V t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const V t4 = _mm256_unpacklo_ps(r[4], r[5]);
  const V t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const V t6 = _mm256_unpacklo_ps(r[6], r[7]);
  const V t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const V u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  const V u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  const V u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  const V u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  const V u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
  const V u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  const V u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
  const V u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

// Horizontal pass on 8 rows at once. The rows are transposed into `tin`
// (sample x of row r at tin[(x + kPadLeft) * 8 + r], zero outside the row),
// the reference's row recursion runs with one row per lane, and the result
// is transposed back.
void BlurRowList(const BlurConstants& c, const float* const* a, const float* const* b, int count,
                 int w, float* const* out) {
  const int n_radius = c.radius;
  const int pad_left = n_radius + n_radius;  // n = -N + 1 reads x = n - N - 1
  const int w8 = (w + 7) & ~7;
  // Scratch kept per thread: the band-wise pipeline calls this for a few
  // rows at a time, and fresh buffers would be paid for on every call.
  thread_local std::vector<float> tin_storage, tout_storage, zero_row, sink_row;
  tin_storage.resize(static_cast<std::size_t>(w8 + pad_left + n_radius + 8) * 8 + 8);
  tout_storage.resize(static_cast<std::size_t>(w8) * 8 + 8);
  zero_row.assign(static_cast<std::size_t>(w8), 0.0f);
  sink_row.resize(static_cast<std::size_t>(w8));
  float* tin = reinterpret_cast<float*>((reinterpret_cast<std::uintptr_t>(tin_storage.data()) + 31) & ~std::uintptr_t{31});
  float* tout = reinterpret_cast<float*>((reinterpret_cast<std::uintptr_t>(tout_storage.data()) + 31) & ~std::uintptr_t{31});

  const V zero = _mm256_setzero_ps();
  V mul_in[3][4], mul_prev[3][4], mul_prev2[3][4];
  for (int k = 0; k < 3; ++k) {
    for (int j = 0; j < 4; ++j) {
      mul_in[k][j] = Set(c.mul_in[k][j]);
      mul_prev[k][j] = Set(c.mul_prev[k][j]);
      mul_prev2[k][j] = Set(c.mul_prev2[k][j]);
    }
  }

  for (int yb = 0; yb < count; yb += 8) {
    const float* rows[8];
    const float* rows_b[8];
    float* out_rows[8];
    for (int r = 0; r < 8; ++r) {
      const bool valid = yb + r < count;
      rows[r] = valid ? a[yb + r] : zero_row.data();
      rows_b[r] = valid && b ? b[yb + r] : zero_row.data();
      out_rows[r] = valid ? out[yb + r] : sink_row.data();
    }
    for (int i = 0; i < pad_left; ++i) _mm256_store_ps(tin + i * 8, zero);
    for (int x = 0; x < w8; x += 8) {
      V v[8];
      for (int r = 0; r < 8; ++r) v[r] = _mm256_loadu_ps(rows[r] + x);
      if (b) {
        for (int r = 0; r < 8; ++r) v[r] = Mul(v[r], _mm256_loadu_ps(rows_b[r] + x));
      }
      Transpose8(v);
      for (int i = 0; i < 8; ++i) _mm256_store_ps(tin + (x + i + pad_left) * 8, v[i]);
    }
    // Samples past the row's end (stride padding included) read as zero.
    for (int x = w; x < w8 + n_radius + 8; ++x) _mm256_store_ps(tin + (x + pad_left) * 8, zero);

    auto sample = [&](int x) { return _mm256_load_ps(tin + (x + pad_left) * 8); };
    V prev[3] = {zero, zero, zero};
    V prev2[3] = {zero, zero, zero};
    auto scalar_step = [&](int n) {
      const V sum = Add(sample(n - n_radius - 1), sample(n + n_radius - 1));
      V o[3];
      for (int k = 0; k < 3; ++k) {
        o[k] = Mul(sum, mul_in[k][0]);
        o[k] = Fma(mul_prev2[k][0], prev2[k], o[k]);
        prev2[k] = prev[k];
        o[k] = Fma(mul_prev[k][0], prev[k], o[k]);
        prev[k] = o[k];
      }
      if (n >= 0) _mm256_store_ps(tout + n * 8, Add(o[0], Add(o[1], o[2])));
    };
    int n = -n_radius + 1;
    const int first_aligned = (n_radius + 1 + 3) / 4 * 4;
    for (; n < std::min(first_aligned, w); ++n) scalar_step(n);
    for (; n < w - n_radius + 1 - 3; n += 4) {
      V s[4];
      for (int j = 0; j < 4; ++j) s[j] = Add(sample(n + j - n_radius - 1), sample(n + j + n_radius - 1));
      V o[3][4];
      for (int k = 0; k < 3; ++k) {
        for (int j = 0; j < 4; ++j) {
          V v = Mul(s[0], mul_in[k][j]);
          for (int t = 1; t <= j; ++t) v = Fma(mul_in[k][j - t], s[t], v);
          v = Fma(mul_prev2[k][j], prev2[k], v);
          v = Fma(mul_prev[k][j], prev[k], v);
          o[k][j] = v;
        }
        prev2[k] = o[k][2];
        prev[k] = o[k][3];
      }
      for (int j = 0; j < 4; ++j) {
        _mm256_store_ps(tout + (n + j) * 8, Add(o[0][j], Add(o[1][j], o[2][j])));
      }
    }
    for (; n < w; ++n) scalar_step(n);
    for (int x = w; x < w8; ++x) _mm256_store_ps(tout + x * 8, zero);

    for (int x = 0; x < w8; x += 8) {
      V v[8];
      for (int i = 0; i < 8; ++i) v[i] = _mm256_load_ps(tout + (x + i) * 8);
      Transpose8(v);
      for (int r = 0; r < 8; ++r) _mm256_storeu_ps(out_rows[r] + x, v[r]);
    }
  }
}

void BlurRows(const BlurConstants& c, const Plane& in, int y0, int y1, Plane* out) {
  for (int yb = y0; yb < y1; yb += 8) {
    const float* rows[8];
    float* out_rows[8];
    const int count = std::min(8, y1 - yb);
    for (int r = 0; r < count; ++r) {
      rows[r] = in.Row(yb + r);
      out_rows[r] = out->Row(yb + r);
    }
    BlurRowList(c, rows, nullptr, count, in.width(), out_rows);
  }
}

// Vertical pass: 8 columns per vector, up to 8 vectors per strip so that the
// independent recursions hide each other's latency.
void BlurColumns(const BlurConstants& c, const Plane& in, int x0, int x1, Plane* out) {
  const int h = in.height();
  const int n_radius = c.radius;
  const std::size_t stride = in.stride();
  V n2[3], neg_d1[3];
  for (int k = 0; k < 3; ++k) {
    n2[k] = Set(c.n2[k]);
    neg_d1[k] = Set(-c.d1[k]);
  }
  constexpr int kVectors = 8;
  for (int xs = x0; xs < x1; xs += 8 * kVectors) {
    const int nv = std::min(kVectors, (x1 - xs + 7) / 8);
    V y1[3][kVectors], y2[3][kVectors];
    for (int k = 0; k < 3; ++k) {
      for (int v = 0; v < kVectors; ++v) y1[k][v] = y2[k][v] = _mm256_setzero_ps();
    }
    const float* base = in.Row(0) + xs;
    float* out_base = out->Row(0) + xs;
    const int single_until = std::min(n_radius + 1, h);
    for (int n = -n_radius + 1; n < h; ++n) {
      const int top = n - n_radius - 1;
      const int bottom = n + n_radius - 1;
      const bool has_bottom = bottom < h;
      const bool two_inputs = n >= single_until;
      for (int v = 0; v < nv; ++v) {
        V sum = has_bottom ? _mm256_loadu_ps(base + stride * bottom + 8 * v) : _mm256_setzero_ps();
        if (two_inputs) sum = Add(_mm256_loadu_ps(base + stride * top + 8 * v), sum);
        V y[3];
        for (int k = 0; k < 3; ++k) {
          y[k] = Fma(n2[k], sum, Fma(neg_d1[k], y1[k][v], Neg(y2[k][v])));
          y2[k][v] = y1[k][v];
          y1[k][v] = y[k];
        }
        if (n >= 0) _mm256_storeu_ps(out_base + stride * n + 8 * v, Add(y[0], Add(y[1], y[2])));
      }
    }
  }
}

// BlurColumns with the state loaded from and stored back to `s.state`.
void BlurColumnsStream(const BlurConstants& c, const ColumnStream& s, int n0, int n1, int x0,
                       int x1) {
  const int h = s.height;
  const int n_radius = c.radius;
  V n2[3], neg_d1[3];
  for (int k = 0; k < 3; ++k) {
    n2[k] = Set(c.n2[k]);
    neg_d1[k] = Set(-c.d1[k]);
  }
  constexpr int kVectors = 8;
  const int single_until = std::min(n_radius + 1, h);
  for (int xs = x0; xs < x1; xs += 8 * kVectors) {
    const int nv = std::min(kVectors, (x1 - xs + 7) / 8);
    V y1[3][kVectors], y2[3][kVectors];
    for (int k = 0; k < 3; ++k) {
      for (int v = 0; v < nv; ++v) {
        y1[k][v] = _mm256_loadu_ps(s.state + s.state_stride * k + xs + 8 * v);
        y2[k][v] = _mm256_loadu_ps(s.state + s.state_stride * (3 + k) + xs + 8 * v);
      }
    }
    for (int n = n0; n < n1; ++n) {
      const int bottom = n + n_radius - 1;
      const bool has_bottom = bottom < h;
      const bool two_inputs = n >= single_until;
      const float* below = has_bottom ? s.in.Row(bottom) + xs : nullptr;
      const float* above = two_inputs ? s.in.Row(n - n_radius - 1) + xs : nullptr;
      float* out = n >= 0 ? s.out.Row(n) + (xs - s.out_first_column) : nullptr;
      for (int v = 0; v < nv; ++v) {
        V sum = has_bottom ? _mm256_loadu_ps(below + 8 * v) : _mm256_setzero_ps();
        if (two_inputs) sum = Add(_mm256_loadu_ps(above + 8 * v), sum);
        V y[3];
        for (int k = 0; k < 3; ++k) {
          y[k] = Fma(n2[k], sum, Fma(neg_d1[k], y1[k][v], Neg(y2[k][v])));
          y2[k][v] = y1[k][v];
          y1[k][v] = y[k];
        }
        if (out) _mm256_storeu_ps(out + 8 * v, Add(y[0], Add(y[1], y[2])));
      }
    }
    for (int k = 0; k < 3; ++k) {
      for (int v = 0; v < nv; ++v) {
        _mm256_storeu_ps(s.state + s.state_stride * k + xs + 8 * v, y1[k][v]);
        _mm256_storeu_ps(s.state + s.state_stride * (3 + k) + xs + 8 * v, y2[k][v]);
      }
    }
  }
}

// libjxl's CubeRootAndAdd on 8 lanes.
inline V CubeRootAndAdd(V x, V add) {
  const V xa_3 = Mul(Set(kOneThird), x);
  const __m256i bits = _mm256_castps_si256(x);
  const __m256i seed = _mm256_sub_epi32(
      _mm256_set1_epi32(kCbrtExpBias),
      _mm256_mullo_epi32(_mm256_srai_epi32(bits, 23), _mm256_set1_epi32(kCbrtExpMul)));
  const __m256i is_zero = _mm256_cmpeq_epi32(bits, _mm256_setzero_si256());
  V r = _mm256_castsi256_ps(_mm256_andnot_si256(is_zero, seed));
  for (int i = 0; i < 3; ++i) {
    const V r2 = Mul(r, r);
    r = Fma(Neg(xa_3), Mul(r2, r2), Mul(Set(kFourThirds), r));
  }
  V r2 = Mul(r, r);
  r = Fma(Set(kOneThird), Fma(Neg(x), Mul(r2, r2), r), r);
  r2 = Mul(r, r);
  return Fma(r2, x, add);
}

// ZeroIfNegative: lanes with the sign bit set become +0.
inline V ZeroIfNegative(V v) {
  const __m256i sign = _mm256_srai_epi32(_mm256_castps_si256(v), 31);
  return _mm256_castsi256_ps(_mm256_andnot_si256(sign, _mm256_castps_si256(v)));
}

void ToXybRow(const float* pr, const float* pg, const float* pb, int w, const float* opsin,
              float neg_cbrt_bias, float* ox, float* oy, float* ob) {
  const V bias = Set(kOpsinBias);
  const V add = Set(neg_cbrt_bias);
  V m[9];
  for (int i = 0; i < 9; ++i) m[i] = Set(opsin[i]);
  for (int x = 0; x < w; x += 8) {
    const V r = _mm256_loadu_ps(pr + x);
    const V g = _mm256_loadu_ps(pg + x);
    const V b = _mm256_loadu_ps(pb + x);
    V m0 = Fma(m[0], r, Fma(m[1], g, Fma(m[2], b, bias)));
    V m1 = Fma(m[3], r, Fma(m[4], g, Fma(m[5], b, bias)));
    V m2 = Fma(m[6], r, Fma(m[7], g, Fma(m[8], b, bias)));
    m0 = CubeRootAndAdd(ZeroIfNegative(m0), add);
    m1 = CubeRootAndAdd(ZeroIfNegative(m1), add);
    m2 = CubeRootAndAdd(ZeroIfNegative(m2), add);
    const V vx = Mul(Set(0.5f), Sub(m0, m1));
    const V vy = Mul(Set(0.5f), Add(m0, m1));
    _mm256_storeu_ps(ob + x, Add(Sub(m2, vy), Set(0.55f)));
    _mm256_storeu_ps(ox + x, Add(Mul(vx, Set(14.0f)), Set(0.42f)));
    _mm256_storeu_ps(oy + x, Add(vy, Set(0.01f)));
  }
}

using VD = __m256d;

inline void StoreDoubles(double* dst, __m128 lo_f, __m128 hi_f, double one, bool clamp) {
  VD lo = _mm256_sub_pd(_mm256_set1_pd(one), _mm256_cvtps_pd(lo_f));
  VD hi = _mm256_sub_pd(_mm256_set1_pd(one), _mm256_cvtps_pd(hi_f));
  if (clamp) {
    lo = _mm256_max_pd(_mm256_setzero_pd(), lo);
    hi = _mm256_max_pd(_mm256_setzero_pd(), hi);
  }
  _mm256_storeu_pd(dst, lo);
  _mm256_storeu_pd(dst + 4, hi);
}

void SsimRow(const float* mu1, const float* mu2, const float* s11, const float* s22,
             const float* s12, int width, double* d) {
  int x = 0;
  for (; x + 8 <= width; x += 8) {
    const V m1 = _mm256_loadu_ps(mu1 + x);
    const V m2 = _mm256_loadu_ps(mu2 + x);
    const V mu11 = Mul(m1, m1);
    const V mu22 = Mul(m2, m2);
    const V mu12 = Mul(m1, m2);
    const V diff = Sub(m1, m2);
    const V diff2 = Mul(diff, diff);
    // num_m = (float)(1.0 - (double)diff2)
    const __m128 nm_lo = _mm256_cvtpd_ps(
        _mm256_sub_pd(_mm256_set1_pd(1.0), _mm256_cvtps_pd(_mm256_castps256_ps128(diff2))));
    const __m128 nm_hi = _mm256_cvtpd_ps(
        _mm256_sub_pd(_mm256_set1_pd(1.0), _mm256_cvtps_pd(_mm256_extractf128_ps(diff2, 1))));
    const V num_m = _mm256_set_m128(nm_hi, nm_lo);
    const V num_s = Add(Mul(Set(2.0f), Sub(_mm256_loadu_ps(s12 + x), mu12)), Set(kC2));
    const V denom_s = Add(Add(Sub(_mm256_loadu_ps(s11 + x), mu11), Sub(_mm256_loadu_ps(s22 + x), mu22)),
                          Set(kC2));
    const V q = _mm256_div_ps(Mul(num_m, num_s), denom_s);
    StoreDoubles(d + x, _mm256_castps256_ps128(q), _mm256_extractf128_ps(q, 1), 1.0, true);
  }
  for (; x < width; ++x) d[x] = arith::SsimError(mu1[x], mu2[x], s11[x], s22[x], s12[x]);
}

void EdgeRow(const float* img1, const float* mu1, const float* img2, const float* mu2, int width,
             double* d1) {
  const V abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const VD one = _mm256_set1_pd(1.0);
  int x = 0;
  for (; x + 8 <= width; x += 8) {
    const V a2 = _mm256_and_ps(Sub(_mm256_loadu_ps(img2 + x), _mm256_loadu_ps(mu2 + x)), abs_mask);
    const V a1 = _mm256_and_ps(Sub(_mm256_loadu_ps(img1 + x), _mm256_loadu_ps(mu1 + x)), abs_mask);
    for (int half = 0; half < 2; ++half) {
      const __m128 h2 = half ? _mm256_extractf128_ps(a2, 1) : _mm256_castps256_ps128(a2);
      const __m128 h1 = half ? _mm256_extractf128_ps(a1, 1) : _mm256_castps256_ps128(a1);
      const VD num = _mm256_add_pd(one, _mm256_cvtps_pd(h2));
      const VD den = _mm256_add_pd(one, _mm256_cvtps_pd(h1));
      _mm256_storeu_pd(d1 + x + 4 * half, _mm256_sub_pd(_mm256_div_pd(num, den), one));
    }
  }
  for (; x < width; ++x) d1[x] = arith::EdgeDiff(img1[x], mu1[x], img2[x], mu2[x]);
}

#endif  // SSIM2_KERNEL_AVX2

// Both variants convert an image row by row with their own ToXybRow.
void ToXybRows(const Image3& linear, int y0, int y1, const float* opsin, float neg_cbrt_bias,
               Image3* xyb) {
  for (int y = y0; y < y1; ++y) {
    ToXybRow(linear.plane[0].Row(y), linear.plane[1].Row(y), linear.plane[2].Row(y),
             linear.width(), opsin, neg_cbrt_bias, xyb->plane[0].Row(y), xyb->plane[1].Row(y),
             xyb->plane[2].Row(y));
  }
}

}  // namespace

const KernelTable& Table() {
#if defined(SSIM2_KERNEL_AVX2)
  static const KernelTable table = {"avx2+fma", BlurRows, BlurColumns, BlurRowList,
                                    BlurColumnsStream, ToXybRow, ToXybRows, MultiplyRows,
                                    SsimRow, EdgeRow};
#else
  static const KernelTable table = {"generic", BlurRows, BlurColumns, BlurRowList,
                                    BlurColumnsStream, ToXybRow, ToXybRows, MultiplyRows,
                                    SsimRow, EdgeRow};
#endif
  return table;
}

}  // namespace SSIM2_KERNEL_NS

#if !defined(SSIM2_KERNEL_AVX2)
#if defined(SSIM2_HAVE_AVX2_KERNELS)
namespace avx2 {
const KernelTable& Table();
}
#endif

const KernelTable& GenericKernels() { return generic::Table(); }

const KernelTable* Avx2Kernels() {
#if defined(SSIM2_HAVE_AVX2_KERNELS)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &avx2::Table();
#endif
  return nullptr;
}

const KernelTable& BestKernels() {
  const KernelTable* avx2 = Avx2Kernels();
  return avx2 ? *avx2 : GenericKernels();
}
#endif

}  // namespace cpu
}  // namespace ssim2
