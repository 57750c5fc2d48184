// Y'CbCr input: not implemented yet (issue 4 adds it with the element).
#include "convert.h"

namespace ssim2 {
namespace cpu {

Status YuvToLinearRgb(const ImageView& image, Image3*, ThreadPool*) {
  return Status(StatusCode::kUnsupportedFormat,
                std::string("Y'CbCr input (") + PixelFormatName(image.format) +
                    ") is not supported yet");
}

}  // namespace cpu
}  // namespace ssim2
