// Options of the test binaries besides gtest's own, parsed by
// tests/gtest_main.cpp.
#pragma once

namespace ssim2 {
namespace testing {

// --quick: small sizes only (the emulated runtime in CI, compute-sanitizer
// runs on the device).
bool QuickRun();

}  // namespace testing
}  // namespace ssim2
