// Status names, image views and their validation.
#include <cstdlib>
#include <string>

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
  switch (format) {
    case PixelFormat::kRGB8: return "RGB8";
    case PixelFormat::kRGBA8: return "RGBA8";
    case PixelFormat::kBGRA8: return "BGRA8";
    case PixelFormat::kRGBX8: return "RGBx8";
    case PixelFormat::kBGRX8: return "BGRx8";
    case PixelFormat::kGray8: return "GRAY8";
    case PixelFormat::kGrayAlpha8: return "GRAYA8";
    case PixelFormat::kRGB16: return "RGB16";
    case PixelFormat::kRGBA16: return "RGBA16";
    case PixelFormat::kGray16: return "GRAY16";
    case PixelFormat::kGrayAlpha16: return "GRAYA16";
    case PixelFormat::kLinearRGBPlanarF32: return "linear RGB planar float";
    case PixelFormat::kI420: return "I420";
    case PixelFormat::kNV12: return "NV12";
    case PixelFormat::kY444: return "Y444";
    case PixelFormat::kI420_10LE: return "I420_10LE";
    case PixelFormat::kP010_10LE: return "P010_10LE";
  }
  return "unknown";
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
  switch (format) {
    case PixelFormat::kI420:
    case PixelFormat::kNV12:
    case PixelFormat::kY444:
    case PixelFormat::kI420_10LE:
    case PixelFormat::kP010_10LE:
      return true;
    default:
      return false;
  }
}

bool HasAlpha(PixelFormat format) {
  switch (format) {
    case PixelFormat::kRGBA8:
    case PixelFormat::kBGRA8:
    case PixelFormat::kGrayAlpha8:
    case PixelFormat::kRGBA16:
    case PixelFormat::kGrayAlpha16:
      return true;
    default:
      return false;
  }
}

namespace {

// Bytes per pixel of packed formats, 0 for planar ones.
int PackedBytesPerPixel(PixelFormat format) {
  switch (format) {
    case PixelFormat::kRGB8: return 3;
    case PixelFormat::kRGBA8:
    case PixelFormat::kBGRA8:
    case PixelFormat::kRGBX8:
    case PixelFormat::kBGRX8: return 4;
    case PixelFormat::kGray8: return 1;
    case PixelFormat::kGrayAlpha8: return 2;
    case PixelFormat::kRGB16: return 6;
    case PixelFormat::kRGBA16: return 8;
    case PixelFormat::kGray16: return 2;
    case PixelFormat::kGrayAlpha16: return 4;
    default: return 0;
  }
}

int NumPlanes(PixelFormat format) {
  switch (format) {
    case PixelFormat::kLinearRGBPlanarF32:
    case PixelFormat::kI420:
    case PixelFormat::kY444:
    case PixelFormat::kI420_10LE: return 3;
    case PixelFormat::kNV12:
    case PixelFormat::kP010_10LE: return 2;
    default: return 1;
  }
}

// Minimum row size in bytes of plane `p`.
std::ptrdiff_t MinRowBytes(PixelFormat format, int width, int p) {
  const std::ptrdiff_t w = width;
  const std::ptrdiff_t half = (w + 1) / 2;
  switch (format) {
    case PixelFormat::kLinearRGBPlanarF32: return w * 4;
    case PixelFormat::kI420: return p == 0 ? w : half;
    case PixelFormat::kY444: return w;
    case PixelFormat::kI420_10LE: return p == 0 ? 2 * w : 2 * half;
    case PixelFormat::kNV12: return p == 0 ? w : 2 * half;
    case PixelFormat::kP010_10LE: return p == 0 ? 2 * w : 4 * half;
    default: return w * PackedBytesPerPixel(format);
  }
}

}  // namespace

ImageView ImageView::Packed(PixelFormat format, int width, int height, const void* data,
                            std::ptrdiff_t stride, MemoryLocation location) {
  ImageView v;
  v.format = format;
  v.width = width;
  v.height = height;
  v.planes = {data, nullptr, nullptr};
  v.strides = {stride, 0, 0};
  v.location = location;
  return v;
}

ImageView ImageView::Planar(PixelFormat format, int width, int height,
                            std::array<const void*, 3> planes,
                            std::array<std::ptrdiff_t, 3> strides, MemoryLocation location) {
  ImageView v;
  v.format = format;
  v.width = width;
  v.height = height;
  v.planes = planes;
  v.strides = strides;
  v.location = location;
  return v;
}

Status ValidateImage(const ImageView& image) {
  if (image.width <= 0 || image.height <= 0) {
    return Status(StatusCode::kInvalidArgument,
                  "image size " + std::to_string(image.width) + "x" +
                      std::to_string(image.height) + " is not positive");
  }
  const int planes = NumPlanes(image.format);
  if (planes == 1 && PackedBytesPerPixel(image.format) == 0) {
    return Status(StatusCode::kUnsupportedFormat, "unknown pixel format");
  }
  for (int p = 0; p < planes; ++p) {
    if (image.planes[p] == nullptr) {
      return Status(StatusCode::kInvalidArgument,
                    std::string(PixelFormatName(image.format)) + " image: plane " +
                        std::to_string(p) + " is null");
    }
    const std::ptrdiff_t need = MinRowBytes(image.format, image.width, p);
    const std::ptrdiff_t stride = image.strides[p];
    const bool negative_ok = image.location == MemoryLocation::kHost;
    if (std::llabs(stride) < need || (stride < 0 && !negative_ok)) {
      return Status(StatusCode::kInvalidArgument,
                    std::string(PixelFormatName(image.format)) + " image: stride " +
                        std::to_string(stride) + " of plane " + std::to_string(p) +
                        " is smaller than a row (" + std::to_string(need) + " bytes)");
    }
  }
  return Status::Ok();
}

Status ValidatePair(const ImageView& reference, const ImageView& distorted) {
  if (Status s = ValidateImage(reference); !s.ok()) return s;
  if (Status s = ValidateImage(distorted); !s.ok()) return s;
  if (reference.width < 8 || reference.height < 8) {
    return Status(StatusCode::kImageTooSmall, "Minimum image size is 8x8 pixels");
  }
  if (reference.width != distorted.width || reference.height != distorted.height) {
    return Status(StatusCode::kSizeMismatch,
                  "Image size mismatch: reference " + std::to_string(reference.width) + "x" +
                      std::to_string(reference.height) + ", distorted " +
                      std::to_string(distorted.width) + "x" +
                      std::to_string(distorted.height));
  }
  return Status::Ok();
}

}  // namespace ssim2
