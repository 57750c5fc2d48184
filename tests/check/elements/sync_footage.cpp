// gst-ssim2: the footage of tests/footage.h for the C gst-check tests.
// SPDX-License-Identifier: BSD-3-Clause
#include "sync_footage.h"

#include <cstring>

#include "../../footage.h"

namespace {

const ssim2::testing::Footage& FootageOf(SyncFootage footage) {
  return footage == SYNC_FOOTAGE_STATIC ? ssim2::testing::StaticFootage()
                                        : ssim2::testing::MovingFootage();
}

}  // namespace

static_assert(SYNC_FOOTAGE_WIDTH == ssim2::testing::kWidth &&
                  SYNC_FOOTAGE_HEIGHT == ssim2::testing::kHeight,
              "the footage's frame size");

extern "C" gint sync_footage_frames(SyncFootage footage) { return FootageOf(footage).frames(); }

extern "C" void sync_footage_rgb(SyncFootage footage, gint64 t, guint32 seed, guint8* out) {
  ssim2::testing::Rgb frame = FootageOf(footage).Render(t);
  if (seed != 0) frame = ssim2::testing::Encode(frame, seed);
  std::memcpy(out, frame.px.data(), frame.px.size());
}
