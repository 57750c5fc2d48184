// Command line of the ssim2 tool: parsing into cli::Options and the usage
// text. Kept apart from main() so that tests can drive it directly.
#pragma once

#include <string>
#include <vector>

#include "cli_options.h"

namespace ssim2 {
namespace cli {

enum class Command { kScore, kHelp, kVersion };

// Parses the arguments after the program name. On failure returns false and
// sets `error` to one line ("" means: wrong number of inputs, print usage).
//
// `--json` serves both modes:
//   --json, --json=-   images: print JSON on stdout instead of the score line
//   --json=FILE        write JSON to FILE (images: the score line is printed
//                      too; video: per-frame scores + summary)
//   --json FILE        the same, recognised only when three non-option words
//                      follow (FILE, REF, DIST); otherwise --json takes no value
bool ParseArgs(const std::vector<std::string>& args, Options* options, Command* command,
               std::string* error);

// The full usage text (ends with a newline).
std::string UsageText(const std::string& program);

}  // namespace cli
}  // namespace ssim2
