// Y'CbCr video frames to the linear-light RGB planes the metric reads.
//
// The recipe (the per-pixel math is yuv.h, which the CUDA kernels use too):
//
// 1. Chroma siting: nearest sample, no interpolation. In 4:2:0 formats luma
//    pixel (x, y) uses the chroma sample (x / 2, y / 2) (integer division);
//    in 4:4:4 the sample at (x, y).
// 2. Samples: 8-bit formats read bytes. I420_10LE reads 16-bit little-endian
//    words and keeps the low 10 bits (word & 0x3ff); P010_10LE keeps the high
//    10 bits (word >> 6). NV12/P010 chroma is interleaved U, V.
// 3. Normalisation, in double, with a division (not a reciprocal multiply):
//      limited range, 8 bits:  Y' = (Y - 16) / 219,   C = (U - 128) / 224
//      full range,    8 bits:  Y' = Y / 255,          C = (U - 128) / 255
//      limited range, 10 bits: Y' = (Y - 64) / 876,   C = (U - 512) / 896
//      full range,    10 bits: Y' = Y / 1023,         C = (U - 512) / 1023
//    (Cb from U, Cr from V).
// 4. Matrix, from Kr, Kb (BT.601 0.299/0.114, BT.709 0.2126/0.0722,
//    BT.2020 0.2627/0.0593), Kg = 1 - Kr - Kb, the four coefficients computed
//    in double as written:
//      R = Y' + (2 (1 - Kr)) Cr
//      G = (Y' - (2 Kb (1 - Kb) / Kg) Cb) - (2 Kr (1 - Kr) / Kg) Cr
//      B = Y' + (2 (1 - Kb)) Cb
//    in double, evaluated left to right with no fused multiply-add.
//    The coefficients derived in double reproduce the RGB frames behind
//    testdata/video_rgb_md5.csv (zimg, point filter) as well as the rounded
//    literals 1.5748 / 0.187324 / 0.468124 / 1.8556 do; tests/core/test_yuv.cpp
//    counts the differences.
// 5. Quantisation:
//    - 8-bit input: each of R, G, B becomes clamp(floor(255 v + 0.5), 0, 255)
//      (in double), an 8-bit value that goes through the same sRGB table as
//      8-bit RGB input (Srgb8ToLinearTable()), so a frame scores exactly like
//      the PNG that a point-sampling converter would export.
//    - 10-bit input keeps its precision: v is clamped to [0, 1] in double,
//      converted to float, and goes through arith::SrgbToLinear().
//    - 10-bit PQ or HLG input (ImageView::color): each of R, G, B becomes
//      clamp(floor(65535 v + 0.5), 0, 65535), the 16-bit value of a 16-bit
//      cICP PNG export of the frame, and is converted as such a PNG's
//      samples are (LightConversion), so a frame scores exactly like that
//      PNG in libjxl's ssimulacra2 (tests/data/hdr/video_scores.csv).
//
// Other video transfer curves are treated as sRGB, as the reference does
// with PNG frames.
#include "convert_yuv.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "arith.h"
#include "image_checks.h"
#include "pixel_format.h"
#include "convert.h"
#include "thread_pool.h"
#include "yuv.h"

namespace ssim2 {
namespace cpu {
namespace {

// The facts this file reads from the format table: bit depth, 4:2:0, chroma
// interleaved, samples in the high bits of their word.
struct Layout {
  int bits;
  bool sub;
  bool interleaved;
  bool high_bits;
};

bool LayoutOf(PixelFormat f, Layout* l) {
  const FormatTraits* t = FindFormat(f);
  if (!t || t->family != FormatFamily::kYuv) return false;
  *l = {t->bit_depth, t->chroma_420, t->chroma_interleaved, t->msb_aligned};
  return true;
}

// Sample `index` of a row of 16-bit little-endian words.
inline int Read16(const unsigned char* row, int index, bool high_bits) {
  const unsigned char* p = row + 2 * index;
  return yuv::Sample10(static_cast<std::uint16_t>(p[0] | (p[1] << 8)), high_bits);
}

// Reads Y, U, V of pixel (x, y).
inline void ReadYuv(const ImageView& im, const Layout& l, int x, int y, int* Y, int* U,
                    int* V) {
  const yuv::ChromaSite c = yuv::ChromaSiteOf(x, y, l.sub, l.interleaved);
  auto row = [&](int plane, int r) {
    return static_cast<const unsigned char*>(im.planes[plane]) + im.strides[plane] * r;
  };
  const unsigned char* y_row = row(0, y);
  const unsigned char* u_row = row(1, c.row);
  const unsigned char* v_row = row(l.interleaved ? 1 : 2, c.row);
  if (l.bits == 8) {
    *Y = y_row[x];
    *U = u_row[c.u];
    *V = v_row[c.v];
  } else {
    *Y = Read16(y_row, x, l.high_bits);
    *U = Read16(u_row, c.u, l.high_bits);
    *V = Read16(v_row, c.v, l.high_bits);
  }
}

Status Check(const ImageView& image, Layout* l) {
  if (image.location != MemoryLocation::kHost) {
    return Status(StatusCode::kInvalidArgument,
                  "the CPU path reads host memory only; the image is in CUDA memory");
  }
  if (!LayoutOf(image.format, l)) {
    return Status(StatusCode::kUnsupportedFormat,
                  std::string(PixelFormatName(image.format)) + " is not a Y'CbCr format");
  }
  return ValidateImage(image);
}

constexpr int kRowsPerTask = 16;

}  // namespace

yuv::Coeffs CoefficientsFor(const YuvColorimetry& colorimetry, int bits) {
  return yuv::MakeCoeffs(static_cast<int>(colorimetry.matrix),
                         colorimetry.range == YuvRange::kFull, bits == 10);
}

namespace {

// Calls pixel(x, y, rgb) with the double R'G'B' (yuv::ToRgbDouble) of every
// pixel of rows [y0, y1) of an image of layout `l`.
template <typename PixelFn>
void ForEachRgb(const ImageView& image, const Layout& l, int y0, int y1, PixelFn pixel) {
  const yuv::Coeffs k = CoefficientsFor(image.yuv, l.bits);
  for (int y = y0; y < y1; ++y) {
    for (int x = 0; x < image.width; ++x) {
      int Y, U, V;
      double v[3];
      ReadYuv(image, l, x, y, &Y, &U, &V);
      yuv::ToRgbDouble(k, Y, U, V, v);
      pixel(x, y, v);
    }
  }
}

// Check() for the converters to integer R'G'B' of one bit depth.
Status CheckBits(const ImageView& image, int bits, const char* name, Layout* l) {
  if (Status s = Check(image, l); !s.ok()) return s;
  if (l->bits != bits) {
    return Status(StatusCode::kUnsupportedFormat,
                  std::string(name) + " takes " + std::to_string(bits) + "-bit formats only");
  }
  return Status::Ok();
}

// Integer R'G'B' of `Sample` from an image of `bits` bits, each value
// rounded by kQuantize (yuv::Quantize8 or Quantize16).
template <typename Sample, int (*kQuantize)(double)>
Status ToIntegerRgb(const ImageView& image, int bits, const char* name, Sample* rgb,
                    std::ptrdiff_t stride) {
  Layout l;
  if (Status s = CheckBits(image, bits, name, &l); !s.ok()) return s;
  ForEachRgb(image, l, 0, image.height, [&](int x, int y, const double* v) {
    for (int c = 0; c < 3; ++c) rgb[stride * y + 3 * x + c] = static_cast<Sample>(kQuantize(v[c]));
  });
  return Status::Ok();
}

}  // namespace

Status YuvToRgb8(const ImageView& image, std::uint8_t* rgb, std::ptrdiff_t stride) {
  return ToIntegerRgb<std::uint8_t, yuv::Quantize8>(image, 8, "YuvToRgb8", rgb, stride);
}

Status YuvToRgb16(const ImageView& image, std::uint16_t* rgb, std::ptrdiff_t stride) {
  return ToIntegerRgb<std::uint16_t, yuv::Quantize16>(image, 10, "YuvToRgb16", rgb, stride);
}

Status YuvToRgbFloat(const ImageView& image, float* rgb, std::ptrdiff_t stride) {
  Layout l;
  if (Status s = Check(image, &l); !s.ok()) return s;
  ForEachRgb(image, l, 0, image.height, [&](int x, int y, const double* v) {
    for (int c = 0; c < 3; ++c) {
      rgb[stride * y + 3 * x + c] = l.bits == 8 ? static_cast<float>(yuv::Quantize8(v[c])) / 255.0f
                                                : yuv::ToFloat01(v[c]);
    }
  });
  return Status::Ok();
}

void YuvToLinearRgbRows(const ImageView& image, int y0, int y1, int first_row, Image3* out) {
  Layout l{};
  if (!LayoutOf(image.format, &l)) return;  // CheckConvertible rejects these
  const float* table8 = Srgb8ToLinearTable();
  const LightConversion light(image.color);
  ForEachRgb(image, l, y0, y1, [&](int x, int y, const double* v) {
    float* dst[3] = {out->plane[0].Row(y - first_row), out->plane[1].Row(y - first_row),
                     out->plane[2].Row(y - first_row)};
    if (image.color.is_hdr()) {  // 10-bit only (ValidateImage)
      float e[3];
      for (int c = 0; c < 3; ++c) {
        e[c] = hdr::SampleFromU16(static_cast<std::uint16_t>(yuv::Quantize16(v[c])));
      }
      light.Convert(e[0], e[1], e[2], &dst[0][x], &dst[1][x], &dst[2][x]);
    } else if (l.bits == 8) {
      for (int c = 0; c < 3; ++c) dst[c][x] = table8[yuv::Quantize8(v[c])];
    } else {
      for (int c = 0; c < 3; ++c) dst[c][x] = arith::SrgbToLinear(yuv::ToFloat01(v[c]));
    }
  });
}

Status YuvToLinearRgb(const ImageView& image, Image3* out, ThreadPool* pool) {
  Layout l;
  if (Status s = Check(image, &l); !s.ok()) return s;
  out->Resize(image.width, image.height);
  const int tasks = (image.height + kRowsPerTask - 1) / kRowsPerTask;
  ParallelFor(pool, tasks, [&](int task) {
    const int y0 = task * kRowsPerTask;
    YuvToLinearRgbRows(image, y0, std::min(image.height, y0 + kRowsPerTask), 0, out);
  });
  return Status::Ok();
}

}  // namespace cpu
}  // namespace ssim2
