// `ssim2 monitor` (docs/MONITOR.md): live scoring of renditions against
// their source as a long-running service. Builds with GStreamer only.
#pragma once

#include <string>
#include <vector>

namespace ssim2 {
namespace monitor {

// Runs the monitor with the arguments after "monitor"; returns the exit
// status (0 after SIGINT/SIGTERM, 1 on bad options or when it cannot start).
int RunMonitor(const std::vector<std::string>& args, const char* version);

}  // namespace monitor
}  // namespace ssim2
