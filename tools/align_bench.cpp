// ssim2-align-bench: what content alignment costs on this CPU (a tool, not a
// test).
//
//   ssim2-align-bench [--repeats N]
//
// Prints, the best of N (default 20):
//   signature   ms of ComputeFrameSignature on a 1920x1080 frame, I420 (the
//               luma plane) and RGB8 (luma from the samples)
//   distance    us of one SignatureDistance (64x36 cells): one candidate of
//               one frame, the matching step
//   acquiring   us per distorted frame of a FrameAligner that never locks
//               (every frame is matched against the whole default window)
//   tracking    us per distorted frame of a FrameAligner that is locked
// The frames are synthetic: the costs do not depend on the content, except
// that acquisition stops once locked, which the two aligner rows separate.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "ssim2/alignment.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

template <typename F>
double Best(int repeats, F f) {
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    const auto start = Clock::now();
    f();
    best = std::min(best, Seconds(start));
  }
  return best;
}

// A signature of a random picture (moving content is what makes an
// aligner lock; random pictures never match one another).
ssim2::FrameSignature RandomSignature(std::mt19937* rng) {
  std::vector<std::uint8_t> px(64 * 36);
  for (auto& v : px) v = static_cast<std::uint8_t>((*rng)() % 256);
  ssim2::FrameSignature s;
  ssim2::ComputeFrameSignature(
      ssim2::ImageView::Packed(ssim2::PixelFormat::kGray8, 64, 36, px.data(), 64), &s);
  return s;
}

// Microseconds per distorted frame of an aligner fed `frames` frames of
// each stream; `same` makes the distorted frames copies of the reference
// (it locks at once and tracks), otherwise nothing matches (it acquires for
// every frame).
double AlignerMicroseconds(int frames, bool same) {
  std::mt19937 rng(1);
  std::vector<ssim2::FrameSignature> refs, dists;
  for (int i = 0; i < frames; ++i) refs.push_back(RandomSignature(&rng));
  for (int i = 0; i < frames; ++i) dists.push_back(same ? refs[i] : RandomSignature(&rng));
  std::unique_ptr<ssim2::FrameAligner> aligner;
  ssim2::FrameAligner::Create(ssim2::AlignerOptions(), &aligner);
  const auto start = Clock::now();
  for (int i = 0; i < frames; ++i) {
    aligner->PushReference(refs[i]);
    aligner->PushDistorted(dists[i]);
    ssim2::FrameAligner::Decision d;
    while (aligner->NextDecision(&d)) {
    }
  }
  aligner->EndReference();
  aligner->EndDistorted();
  ssim2::FrameAligner::Decision d;
  while (aligner->NextDecision(&d)) {
  }
  const double seconds = Seconds(start);
  if (same && aligner->counters().paired == 0) std::fprintf(stderr, "warning: never locked\n");
  return seconds * 1e6 / frames;
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
      repeats = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--repeats N]\n", argv[0]);
      return 2;
    }
  }
  constexpr int w = 1920, h = 1080;
  std::mt19937 rng(7);
  std::vector<std::uint8_t> luma(static_cast<std::size_t>(w) * h);
  std::vector<std::uint8_t> chroma(static_cast<std::size_t>(w / 2) * (h / 2), 128);
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(w) * h * 3);
  for (auto& v : luma) v = static_cast<std::uint8_t>(rng() % 256);
  for (auto& v : rgb) v = static_cast<std::uint8_t>(rng() % 256);
  const ssim2::ImageView i420 = ssim2::ImageView::Planar(
      ssim2::PixelFormat::kI420, w, h, {luma.data(), chroma.data(), chroma.data()},
      {w, w / 2, w / 2});
  const ssim2::ImageView packed =
      ssim2::ImageView::Packed(ssim2::PixelFormat::kRGB8, w, h, rgb.data(), w * 3);

  ssim2::FrameSignature a, b;
  const double i420_s = Best(repeats, [&] { ssim2::ComputeFrameSignature(i420, &a); });
  const double rgb_s = Best(repeats, [&] { ssim2::ComputeFrameSignature(packed, &b); });
  constexpr int kDistances = 10000;
  volatile double sink = 0.0;
  const double distance_s = Best(repeats, [&] {
    for (int i = 0; i < kDistances; ++i) sink = sink + ssim2::SignatureDistance(a, b);
  });
  std::printf("signature 1920x1080 I420   %8.3f ms\n", i420_s * 1e3);
  std::printf("signature 1920x1080 RGB8   %8.3f ms\n", rgb_s * 1e3);
  std::printf("distance (%zu cells)     %8.3f us\n", a.cells.size(),
              distance_s * 1e6 / kDistances);
  std::printf("aligner acquiring (window %d) %8.1f us per frame\n",
              ssim2::AlignerOptions().window, AlignerMicroseconds(600, false));
  std::printf("aligner tracking           %8.1f us per frame\n", AlignerMicroseconds(600, true));
  return 0;
}
