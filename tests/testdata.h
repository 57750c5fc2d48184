// Access to the shared test data, in the folder testdata_dir.h names. A
// missing folder is a test failure, never a skip: CI must not go green
// without having compared anything.
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "testdata_dir.h"

#ifndef SSIM2_HDR_TESTDATA_DIR
#error "SSIM2_HDR_TESTDATA_DIR must be set by the build (testdata_args in tests/meson.build)"
#endif

namespace ssim2 {
namespace testing {

inline std::string TestDataDir() { return ssim2_testdata_dir(); }

inline std::string TestDataPath(const std::string& relative) {
  return TestDataDir() + "/" + relative;
}

inline bool TestDataPresent() {
  struct stat st;
  return stat((TestDataDir() + "/scores.csv").c_str(), &st) == 0;
}

#define SSIM2_REQUIRE_TESTDATA()                                                    \
  ASSERT_TRUE(::ssim2::testing::TestDataPresent())                                 \
      << "test data not found at " << ::ssim2::testing::TestDataDir()              \
      << " (expected shared/testdata beside the repository)"

// Rows of a CSV file without quoting, header dropped (the file by its path).
inline std::vector<std::vector<std::string>> ReadCsvFile(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (header || line.empty()) {
      header = false;
      continue;
    }
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, ',')) fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

// A CSV of the shared test data.
inline std::vector<std::vector<std::string>> ReadCsv(const std::string& relative) {
  return ReadCsvFile(TestDataPath(relative));
}

// The repository's own HDR test data (tests/data/hdr, see its README.md).
inline std::string HdrTestDataPath(const std::string& relative) {
  return std::string(SSIM2_HDR_TESTDATA_DIR) + "/" + relative;
}

}  // namespace testing
}  // namespace ssim2
