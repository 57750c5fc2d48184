// PNG (libpng) and JPEG (libjpeg-turbo) decoding for the ssim2 tool.
//
// The reference reads files through libjxl's extras decoders; the facts that
// matter for the score and are replayed here:
// - PNG: palette, tRNS and grey under 8 bits are expanded (png_set_expand,
//   png_set_palette_to_rgb, png_set_tRNS_to_alpha), interlacing is resolved,
//   CRC errors are tolerated, samples stay 8 or 16 bits (the core library
//   scales them by (float)(1/255) or (float)(1/65535) like the reference).
// - JPEG: libjpeg's default decoding (islow DCT, fancy upsampling) to 8-bit
//   RGB or grey; arithmetic-coded files and component counts other than 1 or
//   3 are refused, as the reference does.
// Both libraries report errors with longjmp. Every function that calls
// setjmp creates no object with a destructor after the setjmp, so a jump
// skips nothing that needs cleaning up.
#include "image_io.h"

#include <cctype>
#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <new>
#include <utility>

#include <jpeglib.h>
#include <png.h>
#include <sys/stat.h>

namespace ssim2 {
namespace io {
namespace {

constexpr std::uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
// Enough of a file to tell a PNG, a JPEG, text and the rest apart.
constexpr std::size_t kSniffBytes = 512;

Status IoError(const std::string& message) { return Status(StatusCode::kIoError, message); }

bool HostIsLittleEndian() {
  const std::uint16_t one = 1;
  std::uint8_t first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

bool LooksLikeText(const std::uint8_t* bytes, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) {
    const std::uint8_t b = bytes[i];
    const bool control = b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f';
    if (control || b == 0x7f) return false;
  }
  return true;
}

Status ReadWholeFile(const std::string& path, std::vector<std::uint8_t>* bytes) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return IoError("is a directory");
  std::ifstream file(path, std::ios::binary);
  if (!file) return IoError(std::string("cannot open file: ") + std::strerror(errno));
  file.seekg(0, std::ios::end);
  const std::streamoff size = file.tellg();
  if (size < 0) return IoError("cannot read file (not a regular file?)");
  file.seekg(0, std::ios::beg);
  bytes->resize(static_cast<std::size_t>(size));
  if (size > 0 && !file.read(reinterpret_cast<char*>(bytes->data()), size))
    return IoError("read error");
  if (bytes->empty()) return IoError("empty file");
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// PNG

// Chunks before the first IDAT that decide whether we can score the file.
struct PngChunks {
  bool iccp = false;
  bool srgb = false;
  bool gama = false;
  bool chrm = false;
  bool actl = false;
};

std::uint32_t LoadBe32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
         (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

// Walks the chunk list on the raw bytes: libpng drops some chunks it finds
// invalid, but the reference acts on the chunk's presence.
PngChunks ScanPngChunks(const std::uint8_t* data, std::size_t size) {
  PngChunks chunks;
  std::size_t pos = sizeof kPngSignature;
  while (pos + 8 <= size) {
    const std::uint32_t length = LoadBe32(data + pos);
    const char* type = reinterpret_cast<const char*>(data + pos + 4);
    if (std::memcmp(type, "IDAT", 4) == 0 || std::memcmp(type, "IEND", 4) == 0) break;
    if (std::memcmp(type, "iCCP", 4) == 0) chunks.iccp = true;
    if (std::memcmp(type, "sRGB", 4) == 0) chunks.srgb = true;
    if (std::memcmp(type, "gAMA", 4) == 0) chunks.gama = true;
    if (std::memcmp(type, "cHRM", 4) == 0) chunks.chrm = true;
    if (std::memcmp(type, "acTL", 4) == 0) chunks.actl = true;
    if (length > size - pos - 12) break;  // truncated: libpng reports it
    pos += 12 + static_cast<std::size_t>(length);
  }
  return chunks;
}

constexpr const char* kStripHint =
    "; if the pixels are sRGB, strip the chunk (e.g. optipng -strip all, or "
    "magick in.png -strip out.png) and score again";

Status CheckPngChunks(const PngChunks& chunks) {
  if (chunks.actl) return IoError("PNG: animated PNG (APNG) is not supported");
  if (chunks.iccp)
    return IoError(std::string("PNG: has an ICC profile (iCCP chunk); the reference "
                               "colour-manages it but ssim2 reads every image as sRGB, "
                               "so the score would differ") + kStripHint);
  if (!chunks.srgb && (chunks.gama || chunks.chrm))
    return IoError(std::string("PNG: has gAMA/cHRM without sRGB; the reference "
                               "colour-manages it but ssim2 reads every image as sRGB, "
                               "so the score would differ") + kStripHint);
  return Status::Ok();
}

struct PngSource {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t pos;
  char error[200];
};

void OnPngRead(png_structp png, png_bytep out, png_size_t length) {
  PngSource* src = static_cast<PngSource*>(png_get_io_ptr(png));
  if (length > src->size - src->pos) png_error(png, "file is truncated");
  std::memcpy(out, src->data + src->pos, length);
  src->pos += length;
}

void OnPngError(png_structp png, png_const_charp message) {
  PngSource* src = static_cast<PngSource*>(png_get_error_ptr(png));
  std::snprintf(src->error, sizeof src->error, "%s", message);
  png_longjmp(png, 1);
}

void OnPngWarning(png_structp, png_const_charp) {}  // one error line, no chatter

// The reference scales samples by 1/(2^bits - 1) where `bits` comes from the
// bit depth, but replaced by sBIT when present (and forced to 8 for palettes).
// Only the 8 and 16 bit scalings are what the core library does; refuse the
// rest instead of printing a different score.
const char* UnsupportedBitLayout(png_structp png, png_infop info) {
  const int depth = png_get_bit_depth(png, info);
  const int color_type = png_get_color_type(png, info);
  if (color_type == PNG_COLOR_TYPE_GRAY && depth < 8)
    return "PNG: grey with fewer than 8 bits per sample is not supported (the "
           "reference scales these samples differently); convert it to 8-bit";
  png_color_8p sig = nullptr;
  if (!png_get_sBIT(png, info, &sig) || sig == nullptr) return nullptr;
  // The reference's rule: palettes count as 8 bits; sBIT replaces that when
  // it names one value for R, G and B (or for grey); alpha must agree.
  const int bits = (color_type & PNG_COLOR_MASK_PALETTE) ? 8 : depth;
  int effective = bits;
  if (color_type & PNG_COLOR_MASK_COLOR) {
    if (sig->red == sig->green && sig->green == sig->blue) effective = sig->red;
  } else {
    effective = sig->gray;
  }
  const bool alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 ||
                     png_get_valid(png, info, PNG_INFO_tRNS);
  if (effective == bits && (!alpha || sig->alpha == effective)) return nullptr;
  return "PNG: sBIT chunk with fewer significant bits than the bit depth is not "
         "supported (the reference rescales such samples); remove the sBIT chunk";
}

// Output layout after the expansion transforms, as a PixelFormat.
bool PngFormat(int channels, int depth, PixelFormat* format) {
  const bool wide = depth == 16;
  switch (channels) {
    case 1: *format = wide ? PixelFormat::kGray16 : PixelFormat::kGray8; return true;
    case 2: *format = wide ? PixelFormat::kGrayAlpha16 : PixelFormat::kGrayAlpha8; return true;
    case 3: *format = wide ? PixelFormat::kRGB16 : PixelFormat::kRGB8; return true;
    case 4: *format = wide ? PixelFormat::kRGBA16 : PixelFormat::kRGBA8; return true;
    default: return false;
  }
}

std::string PngDescription(int channels, int depth, bool interlaced, bool palette) {
  static const char* kNames[] = {"", "grey", "grey+alpha", "RGB", "RGBA"};
  std::string d = "PNG, " + std::to_string(depth) + "-bit " + kNames[channels];
  if (palette) d += " (from palette)";
  if (interlaced) d += ", interlaced";
  return d;
}

// Everything that may longjmp. `rows` and `out` belong to the caller so that
// a jump leaves no live object behind. Returns a static message on a
// refusal, or null; libpng errors return through the setjmp.
const char* RunPngDecode(png_structp png, png_infop info, std::vector<png_bytep>* rows,
                         Image* out, bool* failed) {
  if (setjmp(png_jmpbuf(png))) {
    *failed = true;
    return nullptr;
  }
  png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);  // as the reference
  png_read_info(png, info);
  if (const char* why = UnsupportedBitLayout(png, info)) return why;
  const bool interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
  const bool palette = png_get_color_type(png, info) == PNG_COLOR_TYPE_PALETTE;
  png_set_expand(png);
  png_set_palette_to_rgb(png);
  png_set_tRNS_to_alpha(png);
  png_set_interlace_handling(png);
  if (png_get_bit_depth(png, info) == 16 && HostIsLittleEndian()) png_set_swap(png);
  png_read_update_info(png, info);
  const int channels = png_get_channels(png, info);
  const int depth = png_get_bit_depth(png, info);
  PixelFormat format;
  if ((depth != 8 && depth != 16) || !PngFormat(channels, depth, &format))
    return "PNG: unexpected sample layout after expansion";
  const int width = static_cast<int>(png_get_image_width(png, info));
  const int height = static_cast<int>(png_get_image_height(png, info));
  out->Reset(format, width, height, PngDescription(channels, depth, interlaced, palette));
  if (png_get_rowbytes(png, info) != out->stride()) return "PNG: unexpected row size";
  rows->resize(static_cast<std::size_t>(height));
  for (int y = 0; y < height; ++y) (*rows)[y] = out->row(y);
  png_read_image(png, rows->data());
  return nullptr;
}

// ---------------------------------------------------------------------------
// JPEG

struct JpegErrors {
  jpeg_error_mgr mgr;  // first member: libjpeg hands us a pointer to it
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void OnJpegError(j_common_ptr cinfo) {
  JpegErrors* err = reinterpret_cast<JpegErrors*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

void OnJpegMessage(j_common_ptr, int) {}  // warnings would add stderr lines

constexpr std::uint8_t kIccSignature[12] = {'I', 'C', 'C', '_', 'P', 'R', 'O', 'F', 'I', 'L', 'E', 0};

bool HasIccMarker(const jpeg_decompress_struct& cinfo) {
  for (jpeg_saved_marker_ptr m = cinfo.marker_list; m != nullptr; m = m->next) {
    if (m->marker == JPEG_APP0 + 2 && m->data_length >= sizeof kIccSignature &&
        std::memcmp(m->data, kIccSignature, sizeof kIccSignature) == 0)
      return true;
  }
  return false;
}

// Everything that may longjmp (see RunPngDecode). The caller has created
// the decompressor and installed `errors`.
const char* RunJpegDecode(jpeg_decompress_struct* cinfo, JpegErrors* errors,
                          const std::uint8_t* data, std::size_t size, Image* out,
                          bool* failed) {
  if (setjmp(errors->jump)) {
    *failed = true;
    return nullptr;
  }
  jpeg_mem_src(cinfo, data, static_cast<unsigned long>(size));
  jpeg_save_markers(cinfo, JPEG_APP0 + 2, 0xFFFF);
  if (jpeg_read_header(cinfo, TRUE) != JPEG_HEADER_OK) return "JPEG: no image in file";
  // The reference refuses these two; so do we, for the same files.
  if (cinfo->arith_code) return "JPEG: arithmetic-coded JPEG is not supported";
  const int components = cinfo->num_components;
  if (components != 1 && components != 3)
    return "JPEG: only grey and 3-component (YCbCr/RGB) JPEGs are supported";
  if (HasIccMarker(*cinfo))
    return "JPEG: has an ICC profile; the reference colour-manages it but ssim2 "
           "reads every image as sRGB, so the score would differ; if the pixels are "
           "sRGB, strip the profile (e.g. jpegtran -copy none) and score again";
  jpeg_start_decompress(cinfo);
  if (cinfo->output_components != components) return "JPEG: unexpected output layout";
  const PixelFormat format = components == 1 ? PixelFormat::kGray8 : PixelFormat::kRGB8;
  out->Reset(format, static_cast<int>(cinfo->output_width),
             static_cast<int>(cinfo->output_height),
             components == 1 ? "JPEG, 8-bit grey" : "JPEG, 8-bit RGB");
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = out->row(static_cast<int>(cinfo->output_scanline));
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_decompress(cinfo);
  return nullptr;
}

}  // namespace

// ---------------------------------------------------------------------------

bool IsUri(const std::string& path) {
  // RFC 3986: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
  const std::size_t colon = path.find("://");
  if (colon == std::string::npos || colon == 0 || !std::isalpha(static_cast<unsigned char>(path[0])))
    return false;
  for (std::size_t i = 1; i < colon; ++i) {
    const unsigned char c = static_cast<unsigned char>(path[i]);
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

FileKind SniffBytes(const std::uint8_t* bytes, std::size_t size) {
  if (size >= sizeof kPngSignature && std::memcmp(bytes, kPngSignature, sizeof kPngSignature) == 0)
    return FileKind::kPng;
  if (size >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) return FileKind::kJpeg;
  // A Y4M video starts with a text header; everything else textual is not
  // a video that a decoder could open.
  static const char kY4m[] = "YUV4MPEG2";
  if (size >= sizeof kY4m - 1 && std::memcmp(bytes, kY4m, sizeof kY4m - 1) == 0)
    return FileKind::kOther;
  return LooksLikeText(bytes, size) ? FileKind::kText : FileKind::kOther;
}

Status SniffFile(const std::string& path, FileKind* kind) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return IoError("is a directory");
  std::ifstream file(path, std::ios::binary);
  if (!file) return IoError(std::string("cannot open file: ") + std::strerror(errno));
  std::uint8_t head[kSniffBytes];
  file.read(reinterpret_cast<char*>(head), sizeof head);
  const std::size_t got = static_cast<std::size_t>(file.gcount());
  if (got == 0) return IoError(file.bad() ? "read error" : "empty file");
  *kind = SniffBytes(head, got);
  return Status::Ok();
}

ImageView Image::view() const {
  return ImageView::Packed(format_, width_, height_, pixels_.data(),
                           static_cast<std::ptrdiff_t>(stride_));
}

void Image::Reset(PixelFormat format, int width, int height, std::string description) {
  int bytes_per_pixel = 0;
  switch (format) {
    case PixelFormat::kGray8: bytes_per_pixel = 1; break;
    case PixelFormat::kGrayAlpha8: bytes_per_pixel = 2; break;
    case PixelFormat::kRGB8: bytes_per_pixel = 3; break;
    case PixelFormat::kRGBA8: bytes_per_pixel = 4; break;
    case PixelFormat::kGray16: bytes_per_pixel = 2; break;
    case PixelFormat::kGrayAlpha16: bytes_per_pixel = 4; break;
    case PixelFormat::kRGB16: bytes_per_pixel = 6; break;
    case PixelFormat::kRGBA16: bytes_per_pixel = 8; break;
    default: bytes_per_pixel = 4; break;  // not produced by the decoders
  }
  format_ = format;
  width_ = width;
  height_ = height;
  stride_ = static_cast<std::size_t>(width) * bytes_per_pixel;
  pixels_.assign(stride_ * static_cast<std::size_t>(height), 0);
  description_ = std::move(description);
}

Status DecodePng(const std::uint8_t* data, std::size_t size, Image* out) {
  if (size < sizeof kPngSignature || std::memcmp(data, kPngSignature, sizeof kPngSignature) != 0)
    return IoError("not a PNG file");
  if (Status s = CheckPngChunks(ScanPngChunks(data, size)); !s.ok()) return s;
  PngSource src{data, size, 0, {0}};
  png_structp png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, OnPngError, OnPngWarning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    return Status(StatusCode::kOutOfMemory, "PNG: cannot create the decoder");
  }
  png_set_read_fn(png, &src, OnPngRead);
  std::vector<png_bytep> rows;
  bool failed = false;
  const char* refusal = RunPngDecode(png, info, &rows, out, &failed);
  png_destroy_read_struct(&png, &info, nullptr);
  if (failed) return IoError(std::string("PNG: ") + src.error);
  if (refusal) return IoError(refusal);
  return Status::Ok();
}

Status DecodeJpeg(const std::uint8_t* data, std::size_t size, Image* out) {
  jpeg_decompress_struct cinfo;
  JpegErrors errors;
  cinfo.err = jpeg_std_error(&errors.mgr);
  errors.mgr.error_exit = OnJpegError;
  errors.mgr.emit_message = OnJpegMessage;
  errors.message[0] = '\0';
  jpeg_create_decompress(&cinfo);
  bool failed = false;
  const char* refusal = RunJpegDecode(&cinfo, &errors, data, size, out, &failed);
  jpeg_destroy_decompress(&cinfo);
  if (failed) return IoError(std::string("JPEG: ") + errors.message);
  if (refusal) return IoError(refusal);
  return Status::Ok();
}

Status LoadImage(const std::string& path, Image* out) {
  std::vector<std::uint8_t> bytes;
  if (Status s = ReadWholeFile(path, &bytes); !s.ok()) return s;
  try {
    switch (SniffBytes(bytes.data(), bytes.size())) {
      case FileKind::kPng: return DecodePng(bytes.data(), bytes.size(), out);
      case FileKind::kJpeg: return DecodeJpeg(bytes.data(), bytes.size(), out);
      default: return IoError("not a PNG or JPEG file");
    }
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "image too large for the available memory");
  }
}

}  // namespace io
}  // namespace ssim2
