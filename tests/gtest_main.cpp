// main() of the gtest suites: takes --quick (test_flags.h), runs the tests,
// and exits 77 (meson's and the
// device scripts' "skipped") when every test that ran was skipped, e.g. the
// CUDA cases on a machine without a device, so that such a run never reads
// as a pass.
#include <gtest/gtest.h>

#include <cstring>

#include "test_flags.h"

namespace {
bool quick_run = false;
}  // namespace

bool ssim2::testing::QuickRun() { return quick_run; }

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) quick_run = quick_run || std::strcmp(argv[i], "--quick") == 0;
  const int status = RUN_ALL_TESTS();
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (status == 0 && unit.test_to_run_count() > 0 &&
      unit.skipped_test_count() == unit.test_to_run_count()) {
    return 77;
  }
  return status;
}
