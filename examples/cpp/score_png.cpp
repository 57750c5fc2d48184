// score_png: SSIMULACRA 2.1 scores of distorted PNGs against one reference,
// with the installed libssim2 (pkg-config ssim2) and libpng.
//
//   c++ -std=c++17 score_png.cpp $(pkg-config --cflags --libs ssim2 libpng) -o score_png
//   ./score_png reference.png distorted1.png [distorted2.png ...]
//
// Prints one score per distorted image, with 8 decimals. The reference is
// set once and its intermediates are reused for every distorted image, as an
// encoder's rate-distortion loop would do. Errors: one line on stderr naming
// the ssim2::StatusCode, exit status 1.
#include <png.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <ssim2/ssim2.h>

namespace {

struct Rgb8Image {
  int width = 0;
  int height = 0;
  std::vector<unsigned char> pixels;

  ssim2::ImageView view() const {
    return ssim2::ImageView::Packed(ssim2::PixelFormat::kRGB8, width, height, pixels.data(),
                                    static_cast<std::ptrdiff_t>(width) * 3);
  }
};

// Reads an 8-bit RGB PNG (libpng's simplified API). Other PNG kinds would
// need a conversion the metric's reference does not make; the ssim2 tool
// reads them all.
bool ReadRgb8Png(const char* path, Rgb8Image* out, std::string* error) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path)) {
    *error = std::string(path) + ": " + image.message;
    return false;
  }
  if (image.format != PNG_FORMAT_RGB) {
    png_image_free(&image);
    *error = std::string(path) + ": this example reads 8-bit RGB PNGs only";
    return false;
  }
  out->width = static_cast<int>(image.width);
  out->height = static_cast<int>(image.height);
  out->pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out->pixels.data(), 0, nullptr)) {
    *error = std::string(path) + ": " + image.message;
    return false;
  }
  return true;
}

int Fail(const ssim2::Status& status) {
  std::fprintf(stderr, "score_png: %s: %s\n", ssim2::StatusCodeName(status.code()),
               status.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s reference.png distorted.png [distorted.png ...]\n", argv[0]);
    return 1;
  }
  std::string error;
  Rgb8Image reference;
  if (!ReadRgb8Png(argv[1], &reference, &error)) {
    std::fprintf(stderr, "score_png: %s\n", error.c_str());
    return 1;
  }

  // One scorer per resolution; Backend::kAuto takes the GPU when there is one.
  ssim2::ScorerOptions options;
  std::unique_ptr<ssim2::Scorer> scorer;
  ssim2::Status status =
      ssim2::Scorer::Create(reference.width, reference.height, options, &scorer);
  if (!status.ok()) return Fail(status);
  status = scorer->SetReference(reference.view());
  if (!status.ok()) return Fail(status);

  for (int i = 2; i < argc; ++i) {
    Rgb8Image distorted;
    if (!ReadRgb8Png(argv[i], &distorted, &error)) {
      std::fprintf(stderr, "score_png: %s\n", error.c_str());
      return 1;
    }
    ssim2::Result result;
    status = scorer->ComputeWithReference(distorted.view(), &result);
    if (!status.ok()) return Fail(status);
    std::printf("%.8f\n", result.score);
  }
  return 0;
}
