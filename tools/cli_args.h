// Command line of the ssim2 tool: parsing into cli::Options and the help
// text. Kept apart from main() so that tests can drive it directly.
//
// Parsing goes through GLib's GOptionContext; in builds with GStreamer the
// context holds GStreamer's own option group (--gst-debug-level,
// --gst-plugin-path, ...), so parsing also initialises GStreamer the way
// gst-launch-1.0 does.
#pragma once

#include <string>
#include <vector>

#include "cli_options.h"
#include "ssim2/devices.h"

namespace ssim2 {
namespace cli {

// kHelp: our option groups; kHelpAll: those and GStreamer's; kHelpGst:
// GStreamer's only (builds with GStreamer).
enum class Command { kScore, kHelp, kHelpAll, kHelpGst, kVersion, kListDevices };

// Parses the arguments after the program name. On failure returns false and
// sets `error` to one line ("" means: wrong number of inputs, print usage).
//
// `--json` serves both modes:
//   --json, --json=-   images: print JSON on stdout instead of the score line
//   --json=FILE        write JSON to FILE (images: the score line is printed
//                      too; video: per-frame scores + summary)
//   --json FILE        the same, recognised only when three non-option words
//                      follow (FILE, REF, DIST) and FILE ends in .json or is
//                      not an existing regular file; otherwise --json takes
//                      no value
bool ParseArgs(const std::vector<std::string>& args, Options* options, Command* command,
               std::string* error);

// The help text of kHelp, kHelpAll or kHelpGst (ends with a newline).
std::string HelpText(Command topic);

// --version: the tool's version and metric, whether the CUDA engine is built
// into libssim2, and the GStreamer version the video mode runs on.
std::string VersionText(const char* version);

// --list-devices: one line per CUDA device (index, name, memory, compute
// capability, whether the engine runs there), or one line saying why there
// is none.
std::string DeviceListText(const CudaDeviceList& list);

// The text printed for a wrong number of inputs: the kHelp text.
inline std::string UsageText() { return HelpText(Command::kHelp); }

}  // namespace cli
}  // namespace ssim2
