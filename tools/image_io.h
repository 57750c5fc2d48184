// PNG and JPEG files to ssim2::ImageView, decoded the way the reference tool
// (cloudinary/ssimulacra2) decodes them, so that scores match it.
//
// Colour chunks: a PNG's cICP chunk (and cLLi) gives the image's colour
// description (ImageView::color) as libjxl's ssimulacra2 reads it: BT.709 sRGB
// or linear, BT.2020 PQ or HLG; other code points, and chunks of the wrong
// size, are refused by name. Without cICP the reference colour-manages PNGs
// that carry an iCCP chunk, or gAMA/cHRM without sRGB, and JPEGs with an ICC
// profile, while the core library reads them as sRGB. Rather than print a
// score that silently differs from the reference, such files are refused with
// a message that says so.
// The same goes for the few sample layouts whose scaling the reference does
// differently from 1/255 or 1/65535 (PNG sBIT, grey PNG under 8 bits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ssim2/ssim2.h"

namespace ssim2 {
namespace io {

enum class FileKind {
  kPng,
  kJpeg,
  kText,    // looks like text: not an image, and no video a decoder could read
  kOther,   // anything else: possibly a video container or stream
};

// Guesses the kind of `bytes` (the start of a file) from its signature.
FileKind SniffBytes(const std::uint8_t* bytes, std::size_t size);
// Reads the start of the file. Fails (kIoError) when it cannot be opened or is
// empty.
Status SniffFile(const std::string& path, FileKind* kind);

// True when the name of `path` ends in a PNG or JPEG extension (.png, .jpg,
// .jpeg, .jpe, .jfif; any case): the image mode's file when its contents
// cannot be read to tell.
bool HasImageName(const std::string& path);

// True when `path` is a URI ("scheme://..."): such inputs are not files
// this loader reads, they go to the video mode (GStreamer).
bool IsUri(const std::string& path);

// A decoded image that owns its pixels. Packed, rows without padding; 16-bit
// samples are in host byte order (as PixelFormat's 16-bit formats require).
class Image {
 public:
  PixelFormat format() const { return format_; }
  int width() const { return width_; }
  int height() const { return height_; }
  std::size_t stride() const { return stride_; }
  const std::vector<std::uint8_t>& bytes() const { return pixels_; }
  // A view of the pixels, with the file's colour description; valid while
  // this Image lives and is not modified.
  ImageView view() const;
  const ColorDescription& color() const { return color_; }
  // Short description such as "PNG, 8-bit RGB" or "PNG, 16-bit RGB, PQ
  // BT.2020 (cICP 9/16/0/1), MaxCLL 1501 cd/m2 (cLLi)".
  const std::string& description() const { return description_; }

  // For the decoders: Start() sets the layout, then the pixels arrive row by
  // row (AppendRow(), so memory grows with the rows actually decoded) or at
  // once (AllocateAll(), zeroed; for interlaced files).
  void Start(PixelFormat format, int width, int height, std::string description);
  std::uint8_t* AppendRow();
  void AllocateAll();
  // After Start(), which resets it to sRGB.
  void set_color(const ColorDescription& color) { color_ = color; }
  std::uint8_t* row(int y) { return pixels_.data() + stride_ * static_cast<std::size_t>(y); }

 private:
  PixelFormat format_ = PixelFormat::kRGB8;
  int width_ = 0;
  int height_ = 0;
  std::size_t stride_ = 0;
  std::vector<std::uint8_t> pixels_;
  std::string description_;
  ColorDescription color_;
};

// The largest image the decoders accept, in pixels (32768 x 32768). Scoring
// needs tens of bytes per pixel; a header declaring more is refused before
// any pixel memory is taken.
constexpr std::uint64_t kMaxImagePixels = std::uint64_t{1} << 30;

// Decoders of an in-memory file. Errors are kIoError with a one-line reason.
// Memory and time stay proportional to the data present: a header that
// declares more pixels than the compressed data could hold is refused as
// truncated before anything is allocated, and rows are stored as decoded.
Status DecodePng(const std::uint8_t* data, std::size_t size, Image* out);
Status DecodeJpeg(const std::uint8_t* data, std::size_t size, Image* out);

// Reads `path` and decodes it by its signature (PNG or JPEG).
Status LoadImage(const std::string& path, Image* out);

}  // namespace io
}  // namespace ssim2
