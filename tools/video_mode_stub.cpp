// RunVideoMode for builds without the GStreamer plugin: the ssim2 tool still
// scores images, and says plainly why a video (or any non-PNG/JPEG input)
// cannot be scored.
#include <cstdio>

#include "cli_options.h"

namespace ssim2 {
namespace cli {

int RunVideoMode(const Options&) {
  std::fprintf(stderr, "ssim2: video input needs the GStreamer plugin (this build has none)\n");
  return 1;
}

}  // namespace cli
}  // namespace ssim2
