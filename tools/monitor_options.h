// Command line of `ssim2 monitor` (docs/MONITOR.md): parsing into
// MonitorOptions and its help text. No GStreamer, so that tests can call it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gstssim2alignment.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace monitor {

// One distorted input: --dist NAME=URI.
struct Rendition {
  std::string name;  // the `rendition` label: [A-Za-z0-9_.-]+, not "ref"
  std::string uri;   // as given (a local path becomes a file:// URI when opened)
};

struct MonitorOptions {
  std::string ref_uri;               // --ref URI
  std::vector<Rendition> renditions;  // --dist NAME=URI, in command-line order
  std::string listen_host = "127.0.0.1";  // --listen HOST:PORT
  int listen_port = 9464;                 // 0: any free port (printed at start)
  double stall_timeout_s = 5.0;  // --stall-timeout: no frame for this long: down
  double max_backoff_s = 30.0;   // --max-backoff: longest wait before reopening
  double interval_s = 10.0;      // --interval: the window of ssim2_window_*
  std::optional<double> threshold;  // --threshold: window mean below it is an alarm
  double sync_window_s = 5.0;       // --sync-window: the element's sync-window
  // --max-reference-bytes: the element's sync-max-bytes (unset: its default).
  std::optional<std::uint64_t> max_reference_bytes;
  // --reference-delay: the reference held compressed before its decoder
  // (docs/MONITOR.md, "Long latencies"): off (no delay line), auto (set from
  // the renditions' lags), or a fixed number of seconds.
  enum class ReferenceDelay { kOff, kAuto, kFixed } reference_delay = ReferenceDelay::kAuto;
  double reference_delay_s = 0;  // kFixed: the delay
  std::string log_dir;         // --log-dir: DIR/NAME.csv per rendition ("": no logs)
  std::uint64_t log_max_bytes = 64ull << 20;  // --log-max-bytes (0: no size limit)
  double log_max_age_s = 0;    // --log-max-age (0: no age limit)
  int log_keep = 10;           // --log-keep: rotated files kept per rendition
  ssim2gst::Alignment alignment = ssim2gst::Alignment::kContent;
  Backend backend = Backend::kAuto;
  int cuda_device = -1;
};

// The name a reference input has in the `input` label.
constexpr const char* kReferenceInput = "ref";

// Parses the arguments after "monitor". false with `error` set (one line)
// on bad input; true with *help set for --help.
bool ParseMonitorArgs(const std::vector<std::string>& args, MonitorOptions* options, bool* help,
                      std::string* error);

// `ssim2 monitor --help` (ends with a newline).
std::string MonitorHelpText();

}  // namespace monitor
}  // namespace ssim2
