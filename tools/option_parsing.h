// What the two command lines, ssim2's (cli_args.h) and `ssim2 monitor`'s
// (monitor_options.h), parse alike: GLib's GOptionContext run over a list of
// words, and the --backend and --device values.
#pragma once

#include <glib.h>

#include <string>
#include <vector>

#include "ssim2/ssim2.h"

namespace ssim2 {
namespace options {

// --device N: the CUDA device numbers either command line takes.
constexpr int kMaxDevice = 1024;

// The --backend values, in the words of error messages.
constexpr const char* kBackendChoices = "auto, cpu or cuda";

// --backend NAME: a name of BackendName (auto, cpu, cuda). false for any
// other, `backend` untouched.
bool BackendFromName(const char* name, Backend* backend);

// Parses `words` (the program's name first) with `context` and frees the
// context. true with the words it left, program first, in `words`; false
// with GLib's message in `error`. The strings stay the caller's: GLib only
// moves the pointers, so a word left can be traced to where it was given.
bool ParseWords(GOptionContext* context, std::vector<char*>* words, std::string* error);

}  // namespace options
}  // namespace ssim2
