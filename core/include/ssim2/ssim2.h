// gst-ssim2 core library: SSIMULACRA 2.1 scores on the CPU and on NVIDIA GPUs.
//
// This header has no GStreamer and no CUDA dependency. It declares the image
// views the library reads, the result it returns, and `ssim2::Scorer`, the one
// entry point that hides whether the CPU path or the CUDA engine does the work.
// Every function reports failure through `ssim2::Status`; nothing throws
// across this API and nothing aborts.
//
// The metric is SSIMULACRA 2.1 as defined by cloudinary/ssimulacra2 (commit
// 81feacf6, weights of 2023-04-20). Both backends replay the reference's
// float32 arithmetic so that scores agree with it to the printed 8 decimals.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ssim2 {

// ---------------------------------------------------------------------------
// Status

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // null pointer, bad stride, unknown format ...
  kImageTooSmall,      // width or height under 8 (the reference's limit)
  kSizeMismatch,       // reference and distorted differ in size
  kUnsupportedFormat,  // pixel format not handled by this backend
  kBackendUnavailable, // backend not compiled in, or no usable CUDA device
  kOutOfMemory,        // host or device allocation failed
  kCudaError,          // any other CUDA failure (message names the call)
  kIoError,            // file could not be read or decoded (image loaders)
  kInternal,
};

const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// ---------------------------------------------------------------------------
// Images

enum class PixelFormat {
  // Packed, 8 bits per sample, sRGB-encoded (the reference's PNG/JPEG input).
  kRGB8,
  kRGBA8,  // alpha, not premultiplied
  kBGRA8,
  kRGBX8,  // X: padding byte, ignored
  kBGRX8,
  kGray8,
  kGrayAlpha8,
  // Packed, 16 bits per sample in host byte order, sRGB-encoded.
  kRGB16,
  kRGBA16,
  kGray16,
  kGrayAlpha16,
  // Three float planes of linear-light RGB (nominal range 0..1); planes[0..2]
  // are R, G, B. The sRGB curve is not applied: `color.transfer` may be the
  // default (sRGB) or kLinear, both mean these planes as they are.
  kLinearRGBPlanarF32,
  // Y'CbCr video formats; converted with `ImageView::yuv` (see YuvColorimetry).
  kI420,      // 8-bit planar 4:2:0: planes Y, U, V
  kNV12,      // 8-bit 4:2:0: planes Y, interleaved UV
  kY444,      // 8-bit planar 4:4:4: planes Y, U, V
  kI420_10LE, // 10-bit planar 4:2:0 in 16-bit little-endian words (low bits)
  kP010_10LE, // 10-bit 4:2:0: planes Y, interleaved UV, 16-bit words (high bits)
};

const char* PixelFormatName(PixelFormat format);
bool IsYuvFormat(PixelFormat format);
bool HasAlpha(PixelFormat format);

enum class YuvMatrix { kBT601, kBT709, kBT2020 };
enum class YuvRange { kLimited, kFull };

// How Y'CbCr becomes the R'G'B' that the metric reads. The default replays
// what exporting frames to PNG with a point-sampling converter does: nearest
// chroma sample, the plain matrix, then 8-bit input is rounded and clamped to
// 8-bit R'G'B' (so scores equal scoring the exported PNGs with the reference),
// while 10-bit input keeps its precision as float R'G'B' clamped to [0, 1].
// The image's transfer is applied afterwards (ColorDescription: PQ and HLG
// frames are rounded to 16-bit R'G'B' first; other video transfer curves are
// treated as sRGB, as the reference does with PNG frames).
struct YuvColorimetry {
  YuvMatrix matrix = YuvMatrix::kBT709;
  YuvRange range = YuvRange::kLimited;
};

// What the R'G'B' samples mean: their transfer function, primaries and the
// content's peak. Scored as libjxl's own `ssimulacra2` scores a PNG with this
// cICP/cLLi (docs/HDR.md): each image is converted to linear BT.709 light with
// its own intensity target (IntensityTarget()), 1.0 = 255 cd/m² for PQ and
// HLG, and enters XYB unclipped.
enum class Transfer {
  kSrgb,    // the sRGB curve (the default; also what video's BT.709 is scored as)
  kLinear,  // linear light, no curve (cICP transfer 8)
  kPq,      // SMPTE ST 2084 (cICP 16, caps smpte2084)
  kHlg,     // ARIB STD-B67 / BT.2100 HLG (cICP 18, caps arib-std-b67)
};
enum class Primaries { kBT709, kBT2020 };

const char* TransferName(Transfer transfer);    // "sRGB", "linear", "PQ", "HLG"
const char* PrimariesName(Primaries primaries); // "BT.709", "BT.2020"

// Supported: sRGB with BT.709 primaries on every format; linear with BT.709
// primaries on the packed RGB formats (not grey) and linear planar float; PQ
// and HLG with BT.2020 primaries on the packed RGB formats and the 10-bit
// Y'CbCr formats (R'G'B' rounded to 16 bits first, as a 16-bit PNG export of
// the frame holds it). Anything else is refused (kUnsupportedFormat) with a
// message naming it, never scored as SDR. Both backends convert all of
// these, to the same bits.
struct ColorDescription {
  Transfer transfer = Transfer::kSrgb;
  Primaries primaries = Primaries::kBT709;
  // The content's MaxCLL in cd/m² (a PNG cLLi chunk: MaxCllFromClli(); video
  // caps' content-light-level), 0 when unknown. Only PQ uses it.
  float max_cll = 0.0f;

  bool is_hdr() const { return transfer == Transfer::kPq || transfer == Transfer::kHlg; }
};

// The intensity target (peak, cd/m²) the reference gives an image: MaxCLL
// for PQ when it is not 0, else 10000 for PQ, 1000 for HLG, 255 otherwise.
float IntensityTarget(const ColorDescription& color);

// MaxCLL in cd/m² from a PNG cLLi chunk's first field (units of 0.0001 cd/m²),
// as the reference reads it: clamped to 10^8, then float(units) / 10000.
float MaxCllFromClli(std::uint32_t units);

enum class MemoryLocation { kHost, kCudaDevice };

// A non-owning view of one image. Strides are in bytes and may be negative
// only for host memory. For packed formats only planes[0]/strides[0] are used.
struct ImageView {
  PixelFormat format = PixelFormat::kRGB8;
  int width = 0;
  int height = 0;
  std::array<const void*, 3> planes{};
  std::array<std::ptrdiff_t, 3> strides{};
  YuvColorimetry yuv;
  ColorDescription color;
  MemoryLocation location = MemoryLocation::kHost;

  static ImageView Packed(PixelFormat format, int width, int height,
                          const void* data, std::ptrdiff_t stride,
                          MemoryLocation location = MemoryLocation::kHost);
  static ImageView Planar(PixelFormat format, int width, int height,
                          std::array<const void*, 3> planes,
                          std::array<std::ptrdiff_t, 3> strides,
                          MemoryLocation location = MemoryLocation::kHost);
};

// ---------------------------------------------------------------------------
// Results

constexpr int kMaxScales = 6;
constexpr int kNumChannels = 3;  // X, Y, B of the positive XYB space
constexpr int kNumMaps = 3;
constexpr int kNumNorms = 2;
constexpr int kNumFeatures = kMaxScales * kNumChannels * kNumMaps * kNumNorms;  // 108

enum class Channel { kX = 0, kY = 1, kB = 2 };
enum class ErrorMap { kSsim = 0, kArtifact = 1, kDetailLost = 2 };
enum class Norm { kL1 = 0, kL4 = 1 };

struct Result {
  double score = 0.0;
  int num_scales = 0;
  // Sub-scores by [scale][channel][map][norm]; entries of scales >= num_scales
  // are 0. When the scorer skips maps whose weights are all zero (the default,
  // see ScorerOptions::all_features), their entries are NaN.
  double features[kMaxScales][kNumChannels][kNumMaps][kNumNorms] = {};

  double feature(Channel c, int scale, ErrorMap map, Norm norm) const {
    return features[scale][static_cast<int>(c)][static_cast<int>(map)]
                   [static_cast<int>(norm)];
  }
};

// The weighted sum and the final transform of the reference's Msssim::Score(),
// applied to `result.features` for `result.num_scales` scales.
double ScoreFromFeatures(const Result& result);

// Number of scales the reference computes for an image of this size (it stops
// once the previous scale is under 8 in either dimension): 8x8 -> 2, 17x33 -> 3.
int NumScales(int width, int height);

// ---------------------------------------------------------------------------
// Scorer

enum class Backend { kAuto, kCpu, kCuda };
const char* BackendName(Backend backend);

struct ScorerOptions {
  Backend backend = Backend::kAuto;
  int cuda_device = -1;      // -1: the current device, else device 0
  int cpu_threads = 0;       // 0: all hardware threads
  // Compute the maps whose weights are zero too, so that all 108 sub-scores
  // are filled in (parity tests, --json). Off, they are skipped: the score is
  // the same, bit for bit.
  bool all_features = false;
  // CUDA: a CUcontext and CUstream (as void*) to run in; null: the device's
  // primary context and a stream of the engine's own.
  void* cuda_context = nullptr;
  void* cuda_stream = nullptr;
  // CUDA: the most device memory the scorer may hold, in bytes; 0: no limit.
  // Under a limit the scorer gives up speed, never a score: a batch runs on
  // fewer streams, a reference set while a batch is in flight waits for it
  // instead of being prepared beside it on a second engine, and at the
  // tightest the small scales are blurred after scale 0 instead of beside it;
  // limits() says what it gave up. Create fails with kOutOfMemory when not
  // even one pass fits, SetReference when the reference cache does not.
  std::size_t memory_limit = 0;
  // CUDA: sum the error maps one pixel after the other, as the CPU backend
  // and the reference do, so that every sub-score (not only the score's
  // printed digits) is bit for bit the CPU backend's. Costs GPU time and
  // about 55 more bytes of device memory per pixel and stream (docs/
  // PERFORMANCE.md, "Sequential sums"). The CPU backend always sums so.
  bool sequential_sums = false;
};

// Scores pairs of one size. Create one per resolution and reuse it: buffers
// (host or device) are allocated once, in Create().
//
// The contract is the same on every backend; this class enforces it and the
// backends only score inputs it has already checked:
// - Every call checks its images first (the view itself; for a pair, the
//   reference at least 8x8 and both of one size; the scorer's size) and
//   fails before doing any work when one is wrong; Compute, ComputeWithReference and a ComputeBatch
//   whose images are wrong change nothing.
// - Compute(reference, distorted) scores one pair and leaves the cached
//   reference alone: a later ComputeWithReference still scores against the
//   image given to the last successful SetReference.
// - SetReference replaces the cached reference; when it fails (also on a
//   wrong image), no reference is cached. ComputeWithReference fails with
//   kInvalidArgument until one is.
// - ComputeBatch is SetReference(reference) followed by ComputeWithReference
//   for each distorted image: afterwards `reference` is the cached one.
//   ComputeWithReference of several images gives each image's result of
//   ComputeWithReference, bit for bit; the CUDA backend scores them
//   concurrently (on up to 4 streams against one prepared reference).
// - SubmitWithReference / CollectBatch split ComputeWithReference(vector)
//   in two: the images are checked and handed to the backend against the
//   cached reference, and CollectBatch(handle) returns their results, each
//   bit for bit what ComputeWithReference gives. The reference may be
//   replaced (SetReference) and other batches submitted in between: each
//   batch is scored against the reference cached when it was submitted. The
//   CUDA backend scores the batch while the caller goes on (at least two
//   batches may be in flight; a batch larger than the engine takes at once
//   is scored at submit), and a reference set while a batch is in flight is
//   prepared beside it on a second engine, made then (memory_bytes()
//   grows by it; without the memory, or the room under memory_limit, the
//   first engine goes on alone); the CPU
//   backend scores it at submit. The images'
//   memory must stay valid and unchanged until the batch is collected. A
//   handle is collected once; an unknown one fails with kInvalidArgument.
// - Alpha, as the reference tool: a reference with alpha is scored against
//   grey 0.1 and 0.9 backgrounds and the lower score is reported; without
//   alpha on the reference a distorted alpha is blended against 0.5.
class ScorerBackend;  // internal: the CPU path or the CUDA engine

class Scorer {
 public:
  ~Scorer();
  Scorer(const Scorer&) = delete;
  Scorer& operator=(const Scorer&) = delete;

  static Status Create(int width, int height, const ScorerOptions& options,
                       std::unique_ptr<Scorer>* out);

  Backend backend() const;
  int width() const { return width_; }
  int height() const { return height_; }
  // Bytes of working memory the scorer holds (device memory for CUDA).
  std::size_t memory_bytes() const;
  // Of memory_bytes(), what the CUDA backend's second engine holds (it
  // prepares a reference set while a batch is in flight: the working memory
  // of a reference pass and a second reference cache); 0 until it is made,
  // and on the CPU.
  std::size_t second_engine_bytes() const;
  // Human-readable description ("CPU, 2 threads", "CUDA, NVIDIA H200").
  std::string description() const;
  // What ScorerOptions::memory_limit made the scorer give up so far, in
  // sentences ("" when nothing). It grows as the scorer meets work it has no
  // memory for (a batch, a reference set while a batch is in flight).
  std::string limits() const;

  Status Compute(const ImageView& reference, const ImageView& distorted, Result* result);
  // Caches every reference-only intermediate; then ComputeWithReference()
  // scores distorted images against it.
  Status SetReference(const ImageView& reference);
  bool has_reference() const { return has_reference_; }
  Status ComputeWithReference(const ImageView& distorted, Result* result);
  // Scores several distorted images against the cached reference: (*results)[i]
  // for distorted[i]. Every image is checked before any is scored.
  Status ComputeWithReference(const std::vector<ImageView>& distorted,
                              std::vector<Result>* results);
  // Scores several distorted images against one reference.
  Status ComputeBatch(const ImageView& reference, const std::vector<ImageView>& distorted,
                      std::vector<Result>* results);
  // ComputeWithReference(distorted, results) without waiting: starts the
  // batch against the cached reference and hands out its handle. Checks as
  // ComputeWithReference (a failed submit leaves nothing outstanding).
  using BatchHandle = std::uint64_t;
  Status SubmitWithReference(const std::vector<ImageView>& distorted, BatchHandle* handle);
  // Waits for a submitted batch: (*results)[i] for its distorted[i]. The
  // handle is unknown afterwards, also when the batch failed.
  Status CollectBatch(BatchHandle handle, std::vector<Result>* results);
  // Batches submitted and not yet collected.
  std::size_t batches_in_flight() const { return submitted_.size(); }

 private:
  // Private members stay out of the shared library's symbols (hidden).
  __attribute__((visibility("hidden"))) Scorer(int width, int height,
                                               std::unique_ptr<ScorerBackend> backend);

  // A reference is cached and the distorted images are valid views of the
  // scorer's size.
  __attribute__((visibility("hidden"))) Status CheckAgainstReference(const ImageView* distorted,
                                                                std::size_t count) const;

  struct Submitted {
    BatchHandle handle = 0;
    bool pending = false;
    std::uint64_t token = 0;
    std::vector<Result> results;
  };

  int width_;
  int height_;
  std::unique_ptr<ScorerBackend> backend_;
  bool has_reference_ = false;
  std::vector<Submitted> submitted_;
  BatchHandle next_handle_ = 1;
};

// True when the CUDA engine is compiled in and a device can be used.
bool CudaAvailable(std::string* why_not = nullptr);

// One-shot convenience: creates a scorer for the pair and scores it.
Status ComputeSsimulacra2(const ImageView& reference, const ImageView& distorted,
                          const ScorerOptions& options, Result* result);

}  // namespace ssim2
