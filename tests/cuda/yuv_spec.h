// Y'CbCr test inputs and an independent implementation of the conversion
// spec (see core/src/yuv.h): RGB8 for 8-bit input, linear float for 10-bit,
// for the CPU path to score. Shared by test_cuda_formats and
// test_cuda_emulation.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "arith.h"
#include "ssim2/ssim2.h"

namespace cudatest {
using namespace ssim2;

struct Yuv {
  PixelFormat format;
  int w, h;
  bool ten;
  std::vector<std::uint16_t> Y, U, V;  // full-resolution or chroma planes
  int cw, ch;                          // chroma plane size
  std::vector<unsigned char> p0, p1, p2;  // packed into the format's layout
  std::ptrdiff_t s0 = 0, s1 = 0, s2 = 0;
  YuvColorimetry col;
  ImageView View() const {
    return ImageView::Planar(format, w, h, {p0.data(), p1.data(), p2.data()}, {s0, s1, s2});
  }
};

inline Yuv MakeYuv(PixelFormat f, int w, int h, YuvColorimetry col, std::uint32_t seed, int noise) {
  Yuv y;
  y.format = f;
  y.w = w;
  y.h = h;
  y.col = col;
  y.ten = f == PixelFormat::kI420_10LE || f == PixelFormat::kP010_10LE;
  const bool sub = f != PixelFormat::kY444;
  y.cw = sub ? (w + 1) / 2 : w;
  y.ch = sub ? (h + 1) / 2 : h;
  const int maxv = y.ten ? 1023 : 255;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> nz(-noise, noise);
  auto gen = [&](int pw, int ph, double phase, std::vector<std::uint16_t>* out) {
    out->resize(static_cast<std::size_t>(pw) * ph);
    for (int yy = 0; yy < ph; ++yy)
      for (int x = 0; x < pw; ++x) {
        // Full code range (out-of-range values exercise the clamps).
        double v = 0.5 + 0.52 * std::sin(0.13 * x + phase) * std::cos(0.09 * yy + phase);
        int iv = static_cast<int>(v * maxv) + (noise ? nz(rng) * (maxv / 255) : 0);
        (*out)[static_cast<std::size_t>(yy) * pw + x] =
            static_cast<std::uint16_t>(std::min(maxv, std::max(0, iv)));
      }
  };
  gen(w, h, 0.0, &y.Y);
  gen(y.cw, y.ch, 1.0, &y.U);
  gen(y.cw, y.ch, 2.0, &y.V);
  const int bps = y.ten ? 2 : 1;
  auto store = [&](std::vector<unsigned char>* dst, std::ptrdiff_t* stride, int pw, int ph,
                   int per_px, const std::vector<const std::vector<std::uint16_t>*>& srcs,
                   int shift) {
    *stride = pw * per_px * bps + 32;
    dst->assign(static_cast<std::size_t>(*stride) * ph, 0xcd);
    for (int yy = 0; yy < ph; ++yy)
      for (int x = 0; x < pw; ++x)
        for (int k = 0; k < per_px; ++k) {
          const std::uint16_t v = (*srcs[k])[static_cast<std::size_t>(yy) * pw + x];
          unsigned char* at = dst->data() + yy * *stride + (x * per_px + k) * bps;
          if (bps == 1) {
            *at = static_cast<unsigned char>(v);
          } else {
            // Garbage in the unused bits must be ignored.
            const std::uint16_t word = static_cast<std::uint16_t>(
                shift ? (v << 6) | 0x15 : v | 0xa800);
            std::memcpy(at, &word, 2);
          }
        }
  };
  const bool interleaved = f == PixelFormat::kNV12 || f == PixelFormat::kP010_10LE;
  const int shift = f == PixelFormat::kP010_10LE ? 6 : 0;
  store(&y.p0, &y.s0, w, h, 1, {&y.Y}, shift);
  if (interleaved) {
    store(&y.p1, &y.s1, y.cw, y.ch, 2, {&y.U, &y.V}, shift);
    y.p2.assign(1, 0);
    y.s2 = 0;
  } else {
    store(&y.p1, &y.s1, y.cw, y.ch, 1, {&y.U}, shift);
    store(&y.p2, &y.s2, y.cw, y.ch, 1, {&y.V}, shift);
  }
  ImageView v = y.View();
  (void)v;
  return y;
}

inline ImageView YuvView(const Yuv& y) {
  ImageView v = y.View();
  v.yuv = y.col;
  if (y.format == PixelFormat::kNV12 || y.format == PixelFormat::kP010_10LE) {
    v.planes[2] = nullptr;
  }
  return v;
}

// The spec, written out independently of yuv.h.
inline void SpecRgb(const Yuv& y, int x, int yy, double out[3]) {
  double kr = 0.2126, kb = 0.0722;
  if (y.col.matrix == YuvMatrix::kBT601) { kr = 0.299; kb = 0.114; }
  if (y.col.matrix == YuvMatrix::kBT2020) { kr = 0.2627; kb = 0.0593; }
  const double kg = 1.0 - kr - kb;
  const bool full = y.col.range == YuvRange::kFull;
  const int cx = y.format == PixelFormat::kY444 ? x : x / 2;
  const int cy = y.format == PixelFormat::kY444 ? yy : yy / 2;
  const double Y = y.Y[static_cast<std::size_t>(yy) * y.w + x];
  const double U = y.U[static_cast<std::size_t>(cy) * y.cw + cx];
  const double V = y.V[static_cast<std::size_t>(cy) * y.cw + cx];
  double yn, cb, cr;
  if (y.ten) {
    yn = full ? Y / 1023 : (Y - 64) / 876;
    cb = full ? (U - 512) / 1023 : (U - 512) / 896;
    cr = full ? (V - 512) / 1023 : (V - 512) / 896;
  } else {
    yn = full ? Y / 255 : (Y - 16) / 219;
    cb = full ? (U - 128) / 255 : (U - 128) / 224;
    cr = full ? (V - 128) / 255 : (V - 128) / 224;
  }
  out[0] = yn + 2.0 * (1.0 - kr) * cr;
  out[1] = yn - 2.0 * kb * (1.0 - kb) / kg * cb - 2.0 * kr * (1.0 - kr) / kg * cr;
  out[2] = yn + 2.0 * (1.0 - kb) * cb;
}

struct Converted {
  std::vector<unsigned char> rgb8;
  std::vector<float> lin[3];
  ImageView view;
};

inline void Convert(const Yuv& y, Converted* c) {
  const int w = y.w, h = y.h;
  if (!y.ten) {
    c->rgb8.resize(static_cast<std::size_t>(w) * h * 3);
    for (int yy = 0; yy < h; ++yy)
      for (int x = 0; x < w; ++x) {
        double rgb[3];
        SpecRgb(y, x, yy, rgb);
        for (int k = 0; k < 3; ++k) {
          double q = std::floor(255.0 * rgb[k] + 0.5);
          q = std::min(255.0, std::max(0.0, q));
          c->rgb8[(static_cast<std::size_t>(yy) * w + x) * 3 + k] = static_cast<unsigned char>(q);
        }
      }
    c->view = ImageView::Packed(PixelFormat::kRGB8, w, h, c->rgb8.data(), 3 * w);
  } else {
    for (auto& p : c->lin) p.resize(static_cast<std::size_t>(w) * h);
    for (int yy = 0; yy < h; ++yy)
      for (int x = 0; x < w; ++x) {
        double rgb[3];
        SpecRgb(y, x, yy, rgb);
        for (int k = 0; k < 3; ++k) {
          const float f = static_cast<float>(std::min(1.0, std::max(0.0, rgb[k])));
          c->lin[k][static_cast<std::size_t>(yy) * w + x] = arith::SrgbToLinear(f);
        }
      }
    c->view = ImageView::Planar(PixelFormat::kLinearRGBPlanarF32, w, h,
                                {c->lin[0].data(), c->lin[1].data(), c->lin[2].data()},
                                {4 * w, 4 * w, 4 * w});
  }
}

}  // namespace cudatest
