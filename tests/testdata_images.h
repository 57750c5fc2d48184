// The shared test data's images, decoded once per test program (for the
// suites that link the tool's image reader).
#pragma once

#include <map>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "image_io.h"
#include "testdata.h"

namespace ssim2 {
namespace testing {

// The cache owns the images: a reference taken from a temporary name does not
// dangle, which GCC 14's -Wdangling-reference cannot see without being told.
#if defined(__has_cpp_attribute)
#if __has_cpp_attribute(gnu::no_dangling)
[[gnu::no_dangling]]
#endif
#endif
inline const io::Image& LoadTestImage(const std::string& relative) {
  static std::map<std::string, io::Image> cache;
  auto it = cache.find(relative);
  if (it == cache.end()) {
    io::Image image;
    const Status s = io::LoadImage(TestDataPath(relative), &image);
    EXPECT_TRUE(s.ok()) << relative << ": " << s.message();
    it = cache.emplace(relative, std::move(image)).first;
  }
  return it->second;
}

}  // namespace testing
}  // namespace ssim2
