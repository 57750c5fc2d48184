// libFuzzer target of the ssim2 tool's image path: arbitrary bytes are
// sniffed and decoded like a file named on the command line, and a decoded
// image of a scoreable size is scored against itself on the CPU path.
// Built with -Dfuzz=true (clang); scripts/fuzz.sh runs it under ASan+UBSan.
//
// Besides the sanitizers' findings, it aborts when the loader breaks its
// contract: an error must be one line, a decoded image must hold exactly
// width x height pixels, and an image must score 100 against itself.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "image_io.h"
#include "ssim2/ssim2.h"

namespace {

void Require(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz_image_loader: %s\n", what);
  std::abort();
}

// Scoring cost grows with the area; larger images only exercise the loader.
constexpr int kMaxScoredSide = 96;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ssim2;
  io::Image image;
  Status s;
  switch (io::SniffBytes(data, size)) {
    case io::FileKind::kPng: s = io::DecodePng(data, size, &image); break;
    case io::FileKind::kJpeg: s = io::DecodeJpeg(data, size, &image); break;
    default: return 0;
  }
  if (!s.ok()) {
    Require(!s.message().empty() && s.message().find('\n') == std::string::npos,
            "an error message must be one non-empty line");
    return 0;
  }
  Require(image.width() > 0 && image.height() > 0, "decoded image without pixels");
  Require(image.bytes().size() == image.stride() * static_cast<std::size_t>(image.height()),
          "decoded image does not hold width x height pixels");
  if (image.width() < 8 || image.height() < 8 || image.width() > kMaxScoredSide ||
      image.height() > kMaxScoredSide) {
    return 0;
  }
  ScorerOptions options;
  options.backend = Backend::kCpu;
  std::unique_ptr<Scorer> scorer;
  Result result;
  Require(Scorer::Create(image.width(), image.height(), options, &scorer).ok(),
          "no CPU scorer for a decoded size");
  Require(scorer->Compute(image.view(), image.view(), &result).ok(), "scoring failed");
  Require(std::fabs(result.score - 100.0) < 1e-6, "an image does not score 100 against itself");
  return 0;
}
