#include "convert.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "arith.h"
#include "hdr_transfer.h"
#include "image_checks.h"
#include "pixel_format.h"
#include "thread_pool.h"

namespace ssim2 {
namespace cpu {
namespace {

// The loader's scale factor: 1/(2^bits - 1) computed in double, then float.
float SampleScale(bool sixteen_bit) {
  return static_cast<float>(1.0 / (sixteen_bit ? 65535 : 255));
}

struct Srgb8Table {
  float value[256];
  Srgb8Table() {
    const float mul = SampleScale(false);
    for (int u = 0; u < 256; ++u) value[u] = arith::SrgbToLinear(mul * static_cast<float>(u));
  }
};

template <typename Sample>
void ConvertPackedRow(const Sample* src, const FormatTraits& l, int width, float mul,
                      float alpha_background, const LightConversion& light, float* r, float* g,
                      float* b) {
  const bool srgb8 = sizeof(Sample) == 1 && light.transfer() == Transfer::kSrgb;
  const float* table8 = srgb8 ? Srgb8ToLinearTable() : nullptr;
  for (int x = 0; x < width; ++x) {
    const Sample* px = src + static_cast<std::ptrdiff_t>(x) * l.channels;
    if (l.a < 0 && table8) {
      r[x] = table8[px[l.r]];
      g[x] = table8[px[l.g]];
      b[x] = table8[px[l.b]];
      continue;
    }
    float cr = mul * static_cast<float>(px[l.r]);
    float cg = mul * static_cast<float>(px[l.g]);
    float cb = mul * static_cast<float>(px[l.b]);
    if (l.a >= 0) {
      const float a = mul * static_cast<float>(px[l.a]);
      cr = arith::AlphaBlend(cr, a, alpha_background);
      cg = arith::AlphaBlend(cg, a, alpha_background);
      cb = arith::AlphaBlend(cb, a, alpha_background);
    }
    light.Convert(cr, cg, cb, &r[x], &g[x], &b[x]);
  }
}

}  // namespace

const float* Srgb8ToLinearTable() {
  static const Srgb8Table table;
  return table.value;
}

Status CheckConvertible(const ImageView& image) {
  if (image.location != MemoryLocation::kHost) {
    return Status(StatusCode::kInvalidArgument,
                  "the CPU path reads host memory only; the image is in CUDA memory");
  }
  if (Status s = ValidateImage(image); !s.ok()) return s;
  return Status::Ok();  // every format ValidateImage accepts converts
}

void ToLinearRgbRows(const ImageView& image, float alpha_background, int y0, int y1,
                     int first_row, Image3* out) {
  if (IsYuvFormat(image.format)) {
    YuvToLinearRgbRows(image, y0, y1, first_row, out);
    return;
  }
  if (image.format == PixelFormat::kLinearRGBPlanarF32) {
    for (int c = 0; c < 3; ++c) {
      const char* base = static_cast<const char*>(image.planes[c]);
      for (int y = y0; y < y1; ++y) {
        std::memcpy(out->plane[c].Row(y - first_row), base + image.strides[c] * y,
                    sizeof(float) * image.width);
      }
    }
    return;
  }
  const FormatTraits& layout = *FindFormat(image.format);  // packed: checked by ValidateImage
  const bool sixteen_bit = layout.bytes_per_sample == 2;
  const float mul = SampleScale(sixteen_bit);
  const LightConversion light(image.color);
  const char* base = static_cast<const char*>(image.planes[0]);
  for (int y = y0; y < y1; ++y) {
    const char* row = base + image.strides[0] * y;
    float* r = out->plane[0].Row(y - first_row);
    float* g = out->plane[1].Row(y - first_row);
    float* b = out->plane[2].Row(y - first_row);
    if (sixteen_bit) {
      ConvertPackedRow(reinterpret_cast<const std::uint16_t*>(row), layout, image.width, mul,
                       alpha_background, light, r, g, b);
    } else {
      ConvertPackedRow(reinterpret_cast<const std::uint8_t*>(row), layout, image.width, mul,
                       alpha_background, light, r, g, b);
    }
  }
}

Status ToLinearRgb(const ImageView& image, float alpha_background, Image3* out,
                   ThreadPool* pool) {
  if (Status s = CheckConvertible(image); !s.ok()) return s;
  out->Resize(image.width, image.height);
  constexpr int kRowsPerTask = 16;
  const int tasks = (image.height + kRowsPerTask - 1) / kRowsPerTask;
  ParallelFor(pool, tasks, [&](int task) {
    const int y0 = task * kRowsPerTask;
    const int y1 = std::min(image.height, y0 + kRowsPerTask);
    ToLinearRgbRows(image, alpha_background, y0, y1, 0, out);
  });
  return Status::Ok();
}

}  // namespace cpu
}  // namespace ssim2
