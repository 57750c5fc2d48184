// Status names, image views and their validation.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "hdr_transfer.h"
#include "image_checks.h"
#include "pixel_format.h"
#include "ssim2/ssim2.h"

namespace ssim2 {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kImageTooSmall: return "image too small";
    case StatusCode::kSizeMismatch: return "size mismatch";
    case StatusCode::kUnsupportedFormat: return "unsupported format";
    case StatusCode::kBackendUnavailable: return "backend unavailable";
    case StatusCode::kOutOfMemory: return "out of memory";
    case StatusCode::kCudaError: return "CUDA error";
    case StatusCode::kIoError: return "I/O error";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

const char* PixelFormatName(PixelFormat format) {
  const FormatTraits* f = FindFormat(format);
  return f ? f->name : "unknown";
}

const char* BackendName(Backend backend) {
  switch (backend) {
    case Backend::kAuto: return "auto";
    case Backend::kCpu: return "cpu";
    case Backend::kCuda: return "cuda";
  }
  return "unknown";
}

bool IsYuvFormat(PixelFormat format) {
  const FormatTraits* f = FindFormat(format);
  return f && f->family == FormatFamily::kYuv;
}

bool HasAlpha(PixelFormat format) {
  const FormatTraits* f = FindFormat(format);
  return f && f->has_alpha();
}

const char* TransferName(Transfer transfer) {
  switch (transfer) {
    case Transfer::kSrgb: return "sRGB";
    case Transfer::kLinear: return "linear";
    case Transfer::kPq: return "PQ";
    case Transfer::kHlg: return "HLG";
  }
  return "unknown";
}

const char* PrimariesName(Primaries primaries) {
  switch (primaries) {
    case Primaries::kBT709: return "BT.709";
    case Primaries::kBT2020: return "BT.2020";
  }
  return "unknown";
}

// lib/jxl/luminance.cc SetIntensityTarget and apng.cc's "Reset intensity
// target": a cLLi peak counts for PQ only.
float IntensityTarget(const ColorDescription& color) {
  switch (color.transfer) {
    case Transfer::kPq: return color.max_cll != 0.0f ? color.max_cll : hdr::kPqDefaultPeak;
    case Transfer::kHlg: return hdr::kHlgPeak;
    default: return hdr::kSdrPeak;
  }
}

// lib/extras/dec/apng.cc DecodeClliChunk.
float MaxCllFromClli(std::uint32_t units) {
  constexpr std::uint32_t kMaxUnits = 100000000;  // 10^4 cd/m² in 0.0001 units
  return static_cast<float>(std::min(units, kMaxUnits)) / 10000.0f;
}

namespace {

// The reference tool's message, with both sizes.
Status SizeMismatch(const char* first, int first_width, int first_height, const char* second,
                    int second_width, int second_height) {
  return Status(StatusCode::kSizeMismatch,
                std::string("Image size mismatch: ") + first + " " + std::to_string(first_width) +
                    "x" + std::to_string(first_height) + ", " + second + " " +
                    std::to_string(second_width) + "x" + std::to_string(second_height));
}

}  // namespace

ImageView ImageView::Packed(PixelFormat format, int width, int height, const void* data,
                            std::ptrdiff_t stride, MemoryLocation location) {
  return Planar(format, width, height, {data, nullptr, nullptr}, {stride, 0, 0}, location);
}

ImageView ImageView::Planar(PixelFormat format, int width, int height,
                            std::array<const void*, 3> planes,
                            std::array<std::ptrdiff_t, 3> strides, MemoryLocation location) {
  // The Y'CbCr and colour descriptions stay their defaults.
  return ImageView{format, width, height, planes, strides, {}, {}, location};
}

namespace {

// The colour descriptions the conversions replay (ssim2.h ColorDescription).
// Linear planar float is linear light whatever the transfer says (sRGB, the
// default, or linear).
Status ValidateColor(const ImageView& image, const FormatTraits& format) {
  const ColorDescription& c = image.color;
  if (std::string(TransferName(c.transfer)) == "unknown") {
    return Status(StatusCode::kUnsupportedFormat,
                  "unknown transfer function " + std::to_string(static_cast<int>(c.transfer)));
  }
  if (std::string(PrimariesName(c.primaries)) == "unknown") {
    return Status(StatusCode::kUnsupportedFormat,
                  "unknown primaries " + std::to_string(static_cast<int>(c.primaries)));
  }
  const std::string what = std::string(TransferName(c.transfer)) + " with " +
                           PrimariesName(c.primaries) + " primaries";
  const bool sdr = c.transfer == Transfer::kSrgb || c.transfer == Transfer::kLinear;
  if (sdr != (c.primaries == Primaries::kBT709)) {
    return Status(StatusCode::kUnsupportedFormat,
                  what + " is not supported: sRGB and linear inputs need BT.709 primaries, "
                         "PQ and HLG inputs BT.2020 primaries");
  }
  if (!(c.max_cll >= 0.0f) || !std::isfinite(c.max_cll)) {
    return Status(StatusCode::kInvalidArgument,
                  "MaxCLL " + std::to_string(c.max_cll) + " cd/m2 is not a finite value >= 0");
  }
  if (c.transfer == Transfer::kSrgb) return Status::Ok();
  const bool linear_planar = format.family == FormatFamily::kLinearPlanar;
  const bool rgb_packed = format.family == FormatFamily::kPacked && format.r != format.g;
  const bool yuv10 = format.family == FormatFamily::kYuv && format.bit_depth == 10;
  if (c.transfer == Transfer::kLinear && !(rgb_packed || linear_planar)) {
    return Status(StatusCode::kUnsupportedFormat,
                  std::string(format.name) + " image: " + what +
                      " is supported on packed RGB formats only");
  }
  if (c.is_hdr() && !(rgb_packed || yuv10)) {
    return Status(StatusCode::kUnsupportedFormat,
                  std::string(format.name) + " image: " + what +
                      " is supported on packed RGB and 10-bit Y'CbCr formats only");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateImage(const ImageView& image) {
  if (image.width <= 0 || image.height <= 0) {
    return Status(StatusCode::kInvalidArgument,
                  "image size " + std::to_string(image.width) + "x" +
                      std::to_string(image.height) + " is not positive");
  }
  const FormatTraits* format = FindFormat(image.format);
  if (!format) return Status(StatusCode::kUnsupportedFormat, "unknown pixel format");
  for (int p = 0; p < format->num_planes; ++p) {
    if (image.planes[p] == nullptr) {
      return Status(StatusCode::kInvalidArgument,
                    std::string(format->name) + " image: plane " + std::to_string(p) +
                        " is null");
    }
    const auto need = static_cast<std::ptrdiff_t>(PlaneRowBytes(*format, image.width, p));
    const std::ptrdiff_t stride = image.strides[p];
    const bool negative_ok = image.location == MemoryLocation::kHost;
    if (std::llabs(stride) < need || (stride < 0 && !negative_ok)) {
      return Status(StatusCode::kInvalidArgument,
                    std::string(format->name) + " image: stride " +
                        std::to_string(stride) + " of plane " + std::to_string(p) +
                        " is smaller than a row (" + std::to_string(need) + " bytes)");
    }
  }
  return ValidateColor(image, *format);
}

Status ValidatePair(const ImageView& reference, const ImageView& distorted) {
  if (Status s = ValidateImage(reference); !s.ok()) return s;
  if (Status s = ValidateImage(distorted); !s.ok()) return s;
  if (Status s = ValidateMinimumSize(reference.width, reference.height); !s.ok()) return s;
  if (reference.width != distorted.width || reference.height != distorted.height) {
    return SizeMismatch("reference", reference.width, reference.height, "distorted",
                        distorted.width, distorted.height);
  }
  return Status::Ok();
}

Status ValidateMinimumSize(int width, int height) {
  if (width < 8 || height < 8) {
    return Status(StatusCode::kImageTooSmall, "Minimum image size is 8x8 pixels");
  }
  return Status::Ok();
}

Status ValidateSize(const ImageView& image, int width, int height) {
  if (image.width != width || image.height != height) {
    return SizeMismatch("scorer", width, height, "image", image.width, image.height);
  }
  return Status::Ok();
}

}  // namespace ssim2
