// main() of the gtest suites: runs the tests, and exits 77 (meson's and the
// device scripts' "skipped") when every test that ran was skipped, e.g. the
// CUDA cases on a machine without a device, so that such a run never reads
// as a pass.
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (status == 0 && unit.test_to_run_count() > 0 &&
      unit.skipped_test_count() == unit.test_to_run_count()) {
    return 77;
  }
  return status;
}
