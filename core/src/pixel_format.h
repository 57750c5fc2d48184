// Facts about each ssim2::PixelFormat, in one table: how many planes, how
// samples are stored, where colour and alpha sit, how chroma is subsampled.
// Image validation (image.cpp), the CPU conversion (cpu/convert.cpp) and the
// CUDA engine's upload (cuda/upload.cpp) all read their layouts from here.
#pragma once

#include <cstddef>

#include "ssim2/ssim2.h"

namespace ssim2 {

enum class FormatFamily {
  kPacked,        // one plane of interleaved samples, sRGB-encoded
  kLinearPlanar,  // three float planes of linear RGB
  kYuv,           // Y'CbCr: a luma plane and two chroma planes (or one interleaved)
};

struct FormatTraits {
  PixelFormat format;
  const char* name;
  FormatFamily family;
  int num_planes;
  int bytes_per_sample;  // 1; 2 for 16-bit and 10-bit words; 4 for float
  // Packed: samples per pixel and the sample index of each colour (all three
  // equal for grey) and of alpha (-1: none). A padding byte (RGBx) is a
  // sample that no index names.
  int channels;
  int r, g, b, a;
  // Y'CbCr: significant bits, chroma halved in both directions (4:2:0),
  // Cb and Cr interleaved in plane 1 (NV12, P010), samples in the high bits
  // of their 16-bit word (P010) rather than the low bits.
  int bit_depth;
  bool chroma_420;
  bool chroma_interleaved;
  bool msb_aligned;

  bool has_alpha() const { return a >= 0; }
};

namespace format_table {
constexpr FormatTraits Packed(PixelFormat f, const char* name, int bytes, int channels, int r,
                              int g, int b, int a) {
  return {f, name, FormatFamily::kPacked, 1, bytes, channels, r, g, b, a, 8 * bytes,
          false, false, false};
}
constexpr FormatTraits Yuv(PixelFormat f, const char* name, int planes, int bits, bool c420,
                           bool interleaved, bool msb) {
  return {f,  name, FormatFamily::kYuv, planes, bits > 8 ? 2 : 1, 0, 0, 0, 0, -1,
          bits, c420, interleaved, msb};
}
}  // namespace format_table

// In the order of the PixelFormat enumerators (checked below).
inline constexpr FormatTraits kPixelFormats[] = {
    format_table::Packed(PixelFormat::kRGB8, "RGB8", 1, 3, 0, 1, 2, -1),
    format_table::Packed(PixelFormat::kRGBA8, "RGBA8", 1, 4, 0, 1, 2, 3),
    format_table::Packed(PixelFormat::kBGRA8, "BGRA8", 1, 4, 2, 1, 0, 3),
    format_table::Packed(PixelFormat::kRGBX8, "RGBx8", 1, 4, 0, 1, 2, -1),
    format_table::Packed(PixelFormat::kBGRX8, "BGRx8", 1, 4, 2, 1, 0, -1),
    format_table::Packed(PixelFormat::kGray8, "GRAY8", 1, 1, 0, 0, 0, -1),
    format_table::Packed(PixelFormat::kGrayAlpha8, "GRAYA8", 1, 2, 0, 0, 0, 1),
    format_table::Packed(PixelFormat::kRGB16, "RGB16", 2, 3, 0, 1, 2, -1),
    format_table::Packed(PixelFormat::kRGBA16, "RGBA16", 2, 4, 0, 1, 2, 3),
    format_table::Packed(PixelFormat::kGray16, "GRAY16", 2, 1, 0, 0, 0, -1),
    format_table::Packed(PixelFormat::kGrayAlpha16, "GRAYA16", 2, 2, 0, 0, 0, 1),
    {PixelFormat::kLinearRGBPlanarF32, "linear RGB planar float", FormatFamily::kLinearPlanar, 3,
     4, 0, 0, 0, 0, -1, 32, false, false, false},
    format_table::Yuv(PixelFormat::kI420, "I420", 3, 8, true, false, false),
    format_table::Yuv(PixelFormat::kNV12, "NV12", 2, 8, true, true, false),
    format_table::Yuv(PixelFormat::kY444, "Y444", 3, 8, false, false, false),
    format_table::Yuv(PixelFormat::kI420_10LE, "I420_10LE", 3, 10, true, false, false),
    format_table::Yuv(PixelFormat::kP010_10LE, "P010_10LE", 2, 10, true, true, true),
};
inline constexpr int kNumPixelFormats =
    static_cast<int>(sizeof kPixelFormats / sizeof kPixelFormats[0]);

constexpr bool PixelFormatTableInOrder() {
  for (int i = 0; i < kNumPixelFormats; ++i) {
    if (static_cast<int>(kPixelFormats[i].format) != i) return false;
  }
  return true;
}
static_assert(PixelFormatTableInOrder(), "kPixelFormats must follow the PixelFormat enum");
static_assert(static_cast<int>(PixelFormat::kP010_10LE) + 1 == kNumPixelFormats,
              "every PixelFormat needs a row in kPixelFormats");

// The format's row, or null for a value outside the enumeration.
constexpr const FormatTraits* FindFormat(PixelFormat format) {
  const int i = static_cast<int>(format);
  return i >= 0 && i < kNumPixelFormats ? &kPixelFormats[i] : nullptr;
}

// Bytes of one row of plane `plane` of an image `width` pixels wide.
constexpr std::size_t PlaneRowBytes(const FormatTraits& f, int width, int plane) {
  const std::size_t w = static_cast<std::size_t>(width);
  const std::size_t bps = static_cast<std::size_t>(f.bytes_per_sample);
  switch (f.family) {
    case FormatFamily::kPacked: return w * static_cast<std::size_t>(f.channels) * bps;
    case FormatFamily::kLinearPlanar: return w * bps;
    case FormatFamily::kYuv: break;
  }
  if (plane == 0) return w * bps;
  const std::size_t chroma_w = f.chroma_420 ? (w + 1) / 2 : w;
  return chroma_w * bps * (f.chroma_interleaved ? 2 : 1);
}

// Rows of plane `plane` of an image `height` pixels high.
constexpr int PlaneRows(const FormatTraits& f, int height, int plane) {
  return plane > 0 && f.chroma_420 ? (height + 1) / 2 : height;
}

}  // namespace ssim2
