// `ssim2 monitor` in a build without GStreamer: says why it cannot run.
#include <cstdio>

#include "monitor.h"

namespace ssim2 {
namespace monitor {

int RunMonitor(const std::vector<std::string>&, const char*) {
  std::fprintf(stderr,
               "ssim2 monitor: this build has no GStreamer video support (rebuild with "
               "GStreamer and libsoup 3 development files)\n");
  return 1;
}

}  // namespace monitor
}  // namespace ssim2
