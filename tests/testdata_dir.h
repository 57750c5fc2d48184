/* Where the shared test data is, for the C and the C++ tests: $SSIM2_TESTDATA
 * when set (a build run on another machine), else the folder that
 * tests/meson.build compiles in (testdata_args: ../shared/testdata beside the
 * repository). */
#pragma once

#include <stdlib.h>

#ifndef SSIM2_TESTDATA_DIR
#error "SSIM2_TESTDATA_DIR must be set by the build (testdata_args in tests/meson.build)"
#endif

static inline const char *
ssim2_testdata_dir (void)
{
  const char *env = getenv ("SSIM2_TESTDATA");
  return env && *env ? env : SSIM2_TESTDATA_DIR;
}
