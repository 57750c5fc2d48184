// Included first in every translation unit of the core library (the build
// passes -include). The library is compiled with -fvisibility=hidden; these
// declarations of the public headers come first, with default visibility,
// so the shared library exports the public API and nothing else.
#pragma once

// The backends' interface is internal: declared hidden before ssim2.h names
// it inside the default-visibility region below (clang takes a class's
// visibility from its first declaration and refuses a later, different one).
namespace ssim2 {
class __attribute__((visibility("hidden"))) ScorerBackend;
}  // namespace ssim2

#pragma GCC visibility push(default)
#include "ssim2/ssim2.h"
#include "ssim2/stats.h"
#include "ssim2/score_log.h"
#include "ssim2/alignment.h"
#include "ssim2/devices.h"
#pragma GCC visibility pop
