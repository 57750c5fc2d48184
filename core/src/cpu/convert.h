// Input images to linear-light RGB planes, the way the reference's loader and
// colour management do it: samples scaled by (float)(1.0 / max), optional
// alpha blending on the encoded values, then the image's transfer (libjxl's
// sRGB curve; PQ and HLG as docs/HDR.md says).
#pragma once

#include "hdr_transfer.h"
#include "planes.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace cpu {

class ThreadPool;

// Encoded R'G'B' samples (after alpha blending; 0..1) to linear BT.709
// light, as the reference converts an image of this colour description
// (docs/HDR.md).
class LightConversion {
 public:
  explicit LightConversion(const ColorDescription& color)
      : transfer_(color.transfer),
        pq_scale_(hdr::PqScale(IntensityTarget(color))),
        hlg_ootf_(hdr::MakeHlgOotf(IntensityTarget(color))) {}

  Transfer transfer() const { return transfer_; }

  void Convert(float r, float g, float b, float* lr, float* lg, float* lb) const {
    hdr::Rgb out{r, g, b};  // kLinear: as they are
    switch (transfer_) {
      case Transfer::kSrgb:
        out = {arith::SrgbToLinear(r), arith::SrgbToLinear(g), arith::SrgbToLinear(b)};
        break;
      case Transfer::kLinear: break;
      case Transfer::kPq: out = hdr::PqToLinearSrgb(r, g, b, pq_scale_); break;
      case Transfer::kHlg: out = hdr::HlgToLinearSrgb<hdr::HostLibm>(r, g, b, hlg_ootf_); break;
    }
    *lr = out.r;
    *lg = out.g;
    *lb = out.b;
  }

 private:
  Transfer transfer_;
  float pq_scale_;
  hdr::HlgOotf hlg_ootf_;
};

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
