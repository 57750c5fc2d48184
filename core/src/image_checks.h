// The checks of images and sizes, with their messages, said once for both
// backends (image.cpp). ssim2::Scorer runs them before a backend sees an
// image; the CUDA engine runs them for its own callers.
#pragma once

#include "ssim2/ssim2.h"

namespace ssim2 {

// Checks the view itself (pointers, strides, format, positive size).
Status ValidateImage(const ImageView& image);
// Checks a pair the way the reference does: the reference must be at least
// 8x8 (kImageTooSmall), then both must have the same size (kSizeMismatch).
Status ValidatePair(const ImageView& reference, const ImageView& distorted);
// The reference's minimum size: 8x8 (kImageTooSmall).
Status ValidateMinimumSize(int width, int height);
// Checks that an image has the size a scorer was made for (kSizeMismatch).
Status ValidateSize(const ImageView& image, int width, int height);

}  // namespace ssim2
