// Prints what libjxl's ssimulacra2 feeds into XYB for one PNG: each pixel's float input samples and the
// linear sRGB samples after the colour transform, as exact float bit patterns, plus the intensity target.
// It decodes and converts exactly as libjxl tools/ssimulacra2.cc does (same decoder, same TransformTo call,
// same default CMS), so its numbers are the reference's, one stage earlier than the score.
//
// Built by scripts/make-hdr-reference.sh next to the ssimulacra2 tool (against the same libjxl build); it is
// this project's code, not libjxl's. Output, one line per pixel after a header line:
//   x,y,in_r,in_g,in_b,lin_r,lin_g,lin_b      (floats as 8 hex digits of their IEEE-754 bits)
// Usage: hdr-reference-probe FILE.png

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include <jxl/cms.h>

#include "lib/extras/codec.h"
#include "lib/extras/codec_in_out.h"
#include "lib/extras/dec/color_hints.h"
#include "lib/jxl/color_encoding_internal.h"
#include "lib/jxl/image_bundle.h"
#include "tools/file_io.h"
#include "tools/no_memory_manager.h"

namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE.png\n", argv[0]);
    return 2;
  }
  JxlMemoryManager* memory_manager = jpegxl::tools::NoMemoryManager();
  std::vector<uint8_t> encoded;
  if (!jpegxl::tools::ReadFile(argv[1], &encoded)) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  auto io = std::make_unique<jxl::CodecInOut>(memory_manager);
  if (!jxl::SetFromBytes(jxl::Bytes(encoded), jxl::extras::ColorHints(), io.get())) {
    std::fprintf(stderr, "cannot decode %s\n", argv[1]);
    return 1;
  }
  const jxl::ImageBundle& in = io->Main();
  auto copied = in.Copy();
  if (!copied.ok()) return 1;
  jxl::ImageBundle linear = std::move(copied).value_();
  linear.ClearExtraChannels();
  if (!linear.TransformTo(jxl::ColorEncoding::LinearSRGB(linear.IsGray()), *JxlGetDefaultCms())) {
    std::fprintf(stderr, "colour transform failed\n");
    return 1;
  }
  std::printf("# intensity_target %08x %.9g\n", Bits(io->metadata.m.IntensityTarget()),
              io->metadata.m.IntensityTarget());
  std::printf("x,y,in_r,in_g,in_b,lin_r,lin_g,lin_b\n");
  for (size_t y = 0; y < in.ysize(); ++y) {
    for (size_t x = 0; x < in.xsize(); ++x) {
      std::printf("%zu,%zu", x, y);
      for (size_t c = 0; c < 3; ++c) std::printf(",%08x", Bits(in.color().ConstPlaneRow(c, y)[x]));
      for (size_t c = 0; c < 3; ++c) std::printf(",%08x", Bits(linear.color()->ConstPlaneRow(c, y)[x]));
      std::printf("\n");
    }
  }
  return 0;
}
