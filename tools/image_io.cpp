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
#include <algorithm>
#include <cstring>
#include <fstream>
#include <initializer_list>
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
  bool cicp = false;  // wins over iCCP, sRGB, gAMA and cHRM (read by ReadColorChunks)
  std::uint64_t idat_bytes = 0;  // compressed image data present in the file
};

std::uint32_t LoadBe32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
         (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

// Walks the chunk list on the raw bytes: libpng drops some chunks it finds
// invalid, but the reference acts on the chunk's presence.
PngChunks ScanPngChunks(const std::uint8_t* data, std::size_t size) {
  PngChunks chunks;
  bool seen_idat = false;
  std::size_t pos = sizeof kPngSignature;
  while (pos + 8 <= size) {
    const std::uint32_t length = LoadBe32(data + pos);
    const char* type = reinterpret_cast<const char*>(data + pos + 4);
    if (std::memcmp(type, "IEND", 4) == 0) break;
    if (std::memcmp(type, "IDAT", 4) == 0) {
      seen_idat = true;
      chunks.idat_bytes += std::min<std::uint64_t>(length, size - pos - 8);
    } else if (!seen_idat) {
      if (std::memcmp(type, "iCCP", 4) == 0) chunks.iccp = true;
      if (std::memcmp(type, "sRGB", 4) == 0) chunks.srgb = true;
      if (std::memcmp(type, "gAMA", 4) == 0) chunks.gama = true;
      if (std::memcmp(type, "cHRM", 4) == 0) chunks.chrm = true;
      if (std::memcmp(type, "acTL", 4) == 0) chunks.actl = true;
      if (std::memcmp(type, "cICP", 4) == 0) chunks.cicp = true;
    }
    if (length > size - pos - 12) break;  // truncated: libpng reports it
    pos += 12 + static_cast<std::size_t>(length);
  }
  return chunks;
}

// Deflate cannot expand data more than 1032 times (a 258-byte match coded in
// two bits); zlib adds a few bytes of framing.
constexpr std::uint64_t kMaxDeflateRatio = 1032;
constexpr std::uint64_t kZlibSlack = 64;

std::string SizeLine(const char* format, std::uint64_t width, std::uint64_t height) {
  return std::string(format) + ": " + std::to_string(width) + "x" + std::to_string(height);
}

// A header declaring more than kMaxImagePixels: refused with its size.
bool TooLarge(std::uint64_t width, std::uint64_t height) {
  return width * height > kMaxImagePixels;
}
std::string TooLargeLine(const char* format, std::uint64_t width, std::uint64_t height) {
  return SizeLine(format, width, height) + " image is larger than ssim2 accepts (at most " +
         std::to_string(kMaxImagePixels) + " pixels)";
}
std::string TruncatedLine(const char* format, std::uint64_t width, std::uint64_t height,
                          std::uint64_t needed, std::uint64_t present) {
  return SizeLine(format, width, height) + " image needs at least " + std::to_string(needed) +
         " bytes of compressed data, the file holds " + std::to_string(present) +
         " (truncated or damaged)";
}

constexpr const char* kStripHint =
    "; if the pixels are sRGB, strip the chunk (e.g. optipng -strip all, or "
    "magick in.png -strip out.png) and score again";

Status CheckPngChunks(const PngChunks& chunks) {
  if (chunks.actl) return IoError("PNG: animated PNG (APNG) is not supported");
  if (chunks.cicp) return Status::Ok();  // the reference then ignores the others
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

// The chunks libpng 1.6.39 does not know, kept as unknown chunks.
constexpr png_byte kColorChunkNames[] = {'c', 'I', 'C', 'P', 0, 'c', 'L', 'L', 'i', 0};

// cICP (code points of ITU-T H.273) and cLLi, read as libjxl's PNG decoder
// (lib/extras/dec/apng.cc) reads them: a cICP chunk is 4 bytes, RGB (matrix
// 0) and full range; cLLi is 8 bytes, MaxCLL first. Only the descriptions the
// core library replays are accepted; everything else is refused by name.
// Returns an empty string, or why the file is refused.
std::string ReadColorChunks(png_structp png, png_infop info, ColorDescription* color,
                            std::string* summary) {
  png_unknown_chunkp chunks = nullptr;
  const int count = png_get_unknown_chunks(png, info, &chunks);
  const png_unknown_chunk* cicp = nullptr;
  const png_unknown_chunk* clli = nullptr;
  for (int i = 0; i < count; ++i) {
    const png_unknown_chunk& c = chunks[i];
    const bool is_cicp = std::memcmp(c.name, "cICP", 4) == 0;
    const bool is_clli = std::memcmp(c.name, "cLLi", 4) == 0;
    if (!is_cicp && !is_clli) continue;
    const png_unknown_chunk*& seen = is_cicp ? cicp : clli;
    if (seen) return std::string("PNG: more than one ") + (is_cicp ? "cICP" : "cLLi") + " chunk";
    seen = &c;
  }
  if (clli) {
    if (clli->size != 8) {
      return "PNG: cLLi chunk of " + std::to_string(clli->size) + " bytes (must be 8)";
    }
    color->max_cll = MaxCllFromClli(LoadBe32(clli->data));
  }
  if (!cicp) return {};
  if (cicp->size != 4) {
    return "PNG: cICP chunk of " + std::to_string(cicp->size) + " bytes (must be 4)";
  }
  const int primaries = cicp->data[0], transfer = cicp->data[1];
  const int matrix = cicp->data[2], full_range = cicp->data[3];
  const std::string codes = std::to_string(primaries) + "/" + std::to_string(transfer) + "/" +
                            std::to_string(matrix) + "/" + std::to_string(full_range);
  const std::string prefix = "PNG: cICP " + codes + " (primaries/transfer/matrix/range): ";
  if (matrix != 0) return prefix + "only matrix 0 (RGB) is valid in a PNG";
  if (full_range != 1) return prefix + "only full range (1) is valid in a PNG";
  struct Supported {
    int primaries, transfer;
    Primaries p;
    Transfer t;
  };
  static constexpr Supported kSupported[] = {
      {1, 13, Primaries::kBT709, Transfer::kSrgb},
      {1, 8, Primaries::kBT709, Transfer::kLinear},
      {9, 16, Primaries::kBT2020, Transfer::kPq},
      {9, 18, Primaries::kBT2020, Transfer::kHlg},
  };
  for (const Supported& s : kSupported) {
    if (s.primaries == primaries && s.transfer == transfer) {
      color->primaries = s.p;
      color->transfer = s.t;
      *summary = std::string(TransferName(s.t)) + " " + PrimariesName(s.p) + " (cICP " + codes +
                 ")";
      return {};
    }
  }
  return prefix +
         "not supported; ssim2 scores BT.709 sRGB (1/13), BT.709 linear (1/8), BT.2020 PQ (9/16) "
         "and BT.2020 HLG (9/18)";
}

// Everything that may longjmp. `rows`, `out` and `refusal` belong to the
// caller so that a jump leaves no live object behind. Returns false with
// *refusal set when the file is refused; libpng errors return through the
// setjmp with *failed set.
bool RunPngDecode(png_structp png, png_infop info, std::uint64_t idat_bytes,
                  std::vector<png_bytep>* rows, Image* out, std::string* refusal,
                  bool* failed) {
  if (setjmp(png_jmpbuf(png))) {
    *failed = true;
    return false;
  }
  png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);  // as the reference
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_ALWAYS, kColorChunkNames, 2);
  png_read_info(png, info);
  const std::uint64_t width = png_get_image_width(png, info);
  const std::uint64_t height = png_get_image_height(png, info);
  if (TooLarge(width, height)) {
    *refusal = TooLargeLine("PNG", width, height);
    return false;
  }
  // Filtered rows as stored (before any expansion): what the data inflates to.
  const std::uint64_t raw = height * (std::uint64_t{png_get_rowbytes(png, info)} + 1);
  const std::uint64_t needed = raw > kZlibSlack ? (raw - kZlibSlack) / kMaxDeflateRatio : 0;
  if (idat_bytes < needed) {
    *refusal = TruncatedLine("PNG", width, height, needed, idat_bytes);
    return false;
  }
  if (const char* why = UnsupportedBitLayout(png, info)) {
    *refusal = why;
    return false;
  }
  const bool interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
  const bool palette = png_get_color_type(png, info) == PNG_COLOR_TYPE_PALETTE;
  png_set_expand(png);
  png_set_palette_to_rgb(png);
  png_set_tRNS_to_alpha(png);
  const int passes = png_set_interlace_handling(png);
  if (png_get_bit_depth(png, info) == 16 && HostIsLittleEndian()) png_set_swap(png);
  png_read_update_info(png, info);
  const int channels = png_get_channels(png, info);
  const int depth = png_get_bit_depth(png, info);
  PixelFormat format;
  if ((depth != 8 && depth != 16) || !PngFormat(channels, depth, &format)) {
    *refusal = "PNG: unexpected sample layout after expansion";
    return false;
  }
  ColorDescription color;
  std::string color_summary;
  *refusal = ReadColorChunks(png, info, &color, &color_summary);
  if (!refusal->empty()) return false;
  std::string description = PngDescription(channels, depth, interlaced, palette);
  if (!color_summary.empty()) description += ", " + color_summary;
  if (color.max_cll != 0.0f) {
    char peak[64];
    std::snprintf(peak, sizeof peak, ", MaxCLL %g cd/m2 (cLLi)", color.max_cll);
    description += peak;
  }
  out->Start(format, static_cast<int>(width), static_cast<int>(height), std::move(description));
  out->set_color(color);
  if (png_get_rowbytes(png, info) != out->stride()) {
    *refusal = "PNG: unexpected row size";
    return false;
  }
  if (passes > 1) {
    // Adam7 passes revisit every row: the whole image is needed at once.
    out->AllocateAll();
    rows->resize(static_cast<std::size_t>(height));
    for (std::uint64_t y = 0; y < height; ++y) (*rows)[y] = out->row(static_cast<int>(y));
    png_read_image(png, rows->data());
  } else {
    for (std::uint64_t y = 0; y < height; ++y) png_read_row(png, out->AppendRow(), nullptr);
  }
  return true;
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

// The entropy-coded data of a Huffman JPEG spends at least one bit on every
// 8x8 block of a component (its DC difference), so the blocks of the largest
// component bound the image a file of `size` bytes can hold.
std::uint64_t MinJpegDataBytes(const jpeg_decompress_struct& cinfo) {
  std::uint64_t blocks = 0;
  for (int c = 0; c < cinfo.num_components; ++c) {
    const jpeg_component_info& comp = cinfo.comp_info[c];
    blocks = std::max(blocks, std::uint64_t{comp.width_in_blocks} * comp.height_in_blocks);
  }
  return blocks / 8;
}

// Everything that may longjmp (see RunPngDecode). The caller has created
// the decompressor and installed `errors`.
bool RunJpegDecode(jpeg_decompress_struct* cinfo, JpegErrors* errors, const std::uint8_t* data,
                   std::size_t size, Image* out, std::string* refusal, bool* failed) {
  if (setjmp(errors->jump)) {
    *failed = true;
    return false;
  }
  jpeg_mem_src(cinfo, data, static_cast<unsigned long>(size));
  jpeg_save_markers(cinfo, JPEG_APP0 + 2, 0xFFFF);
  if (jpeg_read_header(cinfo, TRUE) != JPEG_HEADER_OK) {
    *refusal = "JPEG: no image in file";
    return false;
  }
  // The reference refuses these two; so do we, for the same files.
  if (cinfo->arith_code) {
    *refusal = "JPEG: arithmetic-coded JPEG is not supported";
    return false;
  }
  const int components = cinfo->num_components;
  if (components != 1 && components != 3) {
    *refusal = "JPEG: only grey and 3-component (YCbCr/RGB) JPEGs are supported";
    return false;
  }
  const std::uint64_t width = cinfo->image_width, height = cinfo->image_height;
  if (TooLarge(width, height)) {
    *refusal = TooLargeLine("JPEG", width, height);
    return false;
  }
  // What is left after the headers up to the first scan: the scans.
  const std::uint64_t present = cinfo->src->bytes_in_buffer;
  const std::uint64_t needed = MinJpegDataBytes(*cinfo);
  if (present < needed) {
    *refusal = TruncatedLine("JPEG", width, height, needed, present);
    return false;
  }
  if (HasIccMarker(*cinfo)) {
    *refusal = "JPEG: has an ICC profile; the reference colour-manages it but ssim2 "
               "reads every image as sRGB, so the score would differ; if the pixels are "
               "sRGB, strip the profile (e.g. jpegtran -copy none) and score again";
    return false;
  }
  jpeg_start_decompress(cinfo);
  if (cinfo->output_components != components) {
    *refusal = "JPEG: unexpected output layout";
    return false;
  }
  const PixelFormat format = components == 1 ? PixelFormat::kGray8 : PixelFormat::kRGB8;
  out->Start(format, static_cast<int>(cinfo->output_width),
             static_cast<int>(cinfo->output_height),
             components == 1 ? "JPEG, 8-bit grey" : "JPEG, 8-bit RGB");
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = out->AppendRow();
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_decompress(cinfo);
  return true;
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

bool HasImageName(const std::string& path) {
  const std::size_t dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return false;
  std::string ext = path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* image : {"png", "jpg", "jpeg", "jpe", "jfif"}) {
    if (ext == image) return true;
  }
  return false;
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
  ImageView v = ImageView::Packed(format_, width_, height_, pixels_.data(),
                                  static_cast<std::ptrdiff_t>(stride_));
  v.color = color_;
  return v;
}

void Image::Start(PixelFormat format, int width, int height, std::string description) {
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
  pixels_.clear();
  pixels_.shrink_to_fit();
  description_ = std::move(description);
  color_ = ColorDescription{};
}

std::uint8_t* Image::AppendRow() {
  // resize() grows the capacity geometrically: amortised O(1) per row.
  pixels_.resize(pixels_.size() + stride_);
  return pixels_.data() + pixels_.size() - stride_;
}

void Image::AllocateAll() { pixels_.assign(stride_ * static_cast<std::size_t>(height_), 0); }

Status DecodePng(const std::uint8_t* data, std::size_t size, Image* out) {
  if (size < sizeof kPngSignature || std::memcmp(data, kPngSignature, sizeof kPngSignature) != 0)
    return IoError("not a PNG file");
  const PngChunks chunks = ScanPngChunks(data, size);
  if (Status s = CheckPngChunks(chunks); !s.ok()) return s;
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
  std::string refusal;
  bool failed = false;
  bool decoded = false;
  try {
    decoded = RunPngDecode(png, info, chunks.idat_bytes, &rows, out, &refusal, &failed);
  } catch (const std::bad_alloc&) {
    refusal = "PNG: image too large for the available memory";
  }
  png_destroy_read_struct(&png, &info, nullptr);
  if (failed) return IoError(std::string("PNG: ") + src.error);
  if (!decoded) return IoError(refusal);
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
  std::string refusal;
  bool failed = false;
  bool decoded = false;
  try {
    decoded = RunJpegDecode(&cinfo, &errors, data, size, out, &refusal, &failed);
  } catch (const std::bad_alloc&) {
    refusal = "JPEG: image too large for the available memory";
  }
  jpeg_destroy_decompress(&cinfo);
  if (failed) return IoError(std::string("JPEG: ") + errors.message);
  if (!decoded) return IoError(refusal);
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
