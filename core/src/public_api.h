// Included first in every translation unit of the core library (the build
// passes -include). The library is compiled with -fvisibility=hidden; these
// declarations of the public headers come first, with default visibility,
// so the shared library exports the public API and nothing else.
#pragma once

#pragma GCC visibility push(default)
#include "ssim2/ssim2.h"
#include "ssim2/stats.h"
#include "ssim2/score_log.h"
#include "ssim2/alignment.h"
#pragma GCC visibility pop
