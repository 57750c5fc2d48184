// Frame signatures for content alignment (ssim2/alignment.h): the luma
// box-averaged over a grid of about 64x36 cells in one pass over the image
// (the cell sums: here for host images, cuda/signature.cpp for device images),
// then normalised to mean 0 and variance 1 (SignatureFromSums, for both).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "frame_signature.h"
#include "image_checks.h"
#include "pixel_format.h"

#if defined(SSIM2_HAVE_CUDA)
#include "cuda/signature.h"
#endif

namespace ssim2 {
namespace signature {

Grid MakeGrid(int image_width, int image_height) {
  const double cells = FrameSignature::kSignatureCells;
  int gh = static_cast<int>(std::lround(std::sqrt(cells * image_height / image_width)));
  gh = std::max(gh, 1);
  int gw = static_cast<int>(std::lround(cells / gh));
  Grid g;
  g.width = std::clamp(gw, 1, image_width);
  g.height = std::clamp(gh, 1, image_height);
  for (int i = 0; i <= g.width; ++i) g.x_edges.push_back(CellEdge(i, image_width, g.width));
  for (int i = 0; i <= g.height; ++i) g.y_edges.push_back(CellEdge(i, image_height, g.height));
  return g;
}

double LumaFullScale(PixelFormat format) {
  const FormatTraits& f = *FindFormat(format);
  switch (f.family) {
    case FormatFamily::kPacked: {
      const double max_sample = static_cast<double>((1u << (8 * f.bytes_per_sample)) - 1u);
      return f.r == f.g && f.g == f.b ? max_sample : max_sample * kWeightScale;
    }
    case FormatFamily::kLinearPlanar: return 1.0;
    case FormatFamily::kYuv: break;
  }
  return static_cast<double>((1 << f.bit_depth) - 1);
}

namespace {

// The lanes' sums folded pairwise into lanes[0].
double Fold(double* lanes) {
  for (int half = kStatisticsLanes / 2; half >= 1; half /= 2) {
    for (int i = 0; i < half; ++i) FoldLane(lanes, i, half);
  }
  return lanes[0];
}

}  // namespace

void CellStatistics(const double* means, int n, double* mean, double* contrast) {
  double lanes[kStatisticsLanes];
  for (int l = 0; l < kStatisticsLanes; ++l) lanes[l] = LaneTerms(means, n, l, false, 0.0);
  const double m = StatisticsMean(Fold(lanes), n);
  for (int l = 0; l < kStatisticsLanes; ++l) lanes[l] = LaneTerms(means, n, l, true, m);
  *mean = m;
  *contrast = StatisticsContrast(Fold(lanes), n);
}

namespace {

// Cell means (0..1) to the signature: minus their mean, over their standard
// deviation.
void Normalise(const Grid& g, const std::vector<double>& means, FrameSignature* out) {
  double mean = 0.0, contrast = 0.0;
  CellStatistics(means.data(), static_cast<int>(means.size()), &mean, &contrast);
  out->grid_width = g.width;
  out->grid_height = g.height;
  out->mean = mean;
  out->contrast = contrast;
  out->cells.resize(means.size());
  for (std::size_t i = 0; i < means.size(); ++i) {
    out->cells[i] = NormalisedCell(means[i], mean, contrast);
  }
}

// Sums over cells to means: each divided by its cell's pixels and full_scale.
template <typename Sum>
void MeansToSignature(const Grid& g, const std::vector<Sum>& sums, double full_scale,
                      FrameSignature* out) {
  std::vector<double> means(sums.size());
  for (int gy = 0; gy < g.height; ++gy) {
    const int rows = g.y_edges[gy + 1] - g.y_edges[gy];
    for (int gx = 0; gx < g.width; ++gx) {
      const int cols = g.x_edges[gx + 1] - g.x_edges[gx];
      const std::size_t i = static_cast<std::size_t>(gy) * g.width + gx;
      means[i] = CellMean(sums[i], rows, cols, full_scale);
    }
  }
  Normalise(g, means, out);
}

}  // namespace

void SignatureFromSums(const Grid& grid, const std::vector<std::uint64_t>& sums,
                       double full_scale, FrameSignature* out) {
  MeansToSignature(grid, sums, full_scale, out);
}

void SignatureFromSums(const Grid& grid, const std::vector<double>& totals, FrameSignature* out) {
  MeansToSignature(grid, totals, 1.0, out);
}

}  // namespace signature

namespace {

using signature::Grid;

const std::uint8_t* Row(const ImageView& image, int plane, int y) {
  return static_cast<const std::uint8_t*>(image.planes[plane]) +
         static_cast<std::ptrdiff_t>(y) * image.strides[plane];
}

// Sums luma(row, x) over every cell: per image row, one run of adjacent
// samples per cell summed in RowSum (a loop the compiler vectorises), added
// to the cell's 64-bit total.
template <typename RowSum, typename Luma>
std::vector<std::uint64_t> CellSums(const ImageView& image, const Grid& g, Luma luma) {
  std::vector<std::uint64_t> sums(static_cast<std::size_t>(g.width) * g.height, 0);
  for (int gy = 0; gy < g.height; ++gy) {
    std::uint64_t* cell_row = &sums[static_cast<std::size_t>(gy) * g.width];
    for (int y = g.y_edges[gy]; y < g.y_edges[gy + 1]; ++y) {
      const std::uint8_t* row = Row(image, 0, y);
      for (int gx = 0; gx < g.width; ++gx) {
        RowSum s{0};
        for (int x = g.x_edges[gx]; x < g.x_edges[gx + 1]; ++x) s += luma(row, x);
        cell_row[gx] += s;
      }
    }
  }
  return sums;
}

template <typename T>
T Load(const std::uint8_t* row, int index) {
  T v;
  std::memcpy(&v, row + static_cast<std::size_t>(index) * sizeof(T), sizeof(T));
  return v;
}

// Packed integer samples of type T: grey reads its one sample, colour the
// weighted sum.
template <typename T>
std::vector<std::uint64_t> PackedCellSums(const ImageView& image, const FormatTraits& f,
                                          const Grid& g) {
  // A cell's row of 8-bit weighted luma fits 32 bits up to 65,000 pixels wide.
  using RowSum = std::conditional_t<sizeof(T) == 1, std::uint32_t, std::uint64_t>;
  const int n = f.channels;
  if (f.r == f.g && f.g == f.b) {
    const int c = f.r;
    return CellSums<RowSum>(image, g, [n, c](const std::uint8_t* row, int x) {
      return static_cast<RowSum>(Load<T>(row, x * n + c));
    });
  }
  const int r = f.r, gc = f.g, b = f.b;
  return CellSums<RowSum>(image, g, [n, r, gc, b](const std::uint8_t* row, int x) {
    const int p = x * n;
    return static_cast<RowSum>(
        signature::PackedLuma(Load<T>(row, p + r), Load<T>(row, p + gc), Load<T>(row, p + b)));
  });
}

std::vector<double> LinearPlanarCellTotals(const ImageView& image, const Grid& g) {
  std::vector<double> totals(static_cast<std::size_t>(g.width) * g.height, 0.0);
  for (int gy = 0; gy < g.height; ++gy) {
    for (int y = g.y_edges[gy]; y < g.y_edges[gy + 1]; ++y) {
      const std::uint8_t* rows[3] = {Row(image, 0, y), Row(image, 1, y), Row(image, 2, y)};
      for (int gx = 0; gx < g.width; ++gx) {
        double s = 0.0;
        for (int x = g.x_edges[gx]; x < g.x_edges[gx + 1]; ++x) {
          s += signature::LinearLuma(Load<float>(rows[0], x), Load<float>(rows[1], x),
                                     Load<float>(rows[2], x));
        }
        totals[static_cast<std::size_t>(gy) * g.width + gx] += s;
      }
    }
  }
  return totals;
}

// An 8-bit luma plane, per band of rows (a cell row): the column sums, each
// image row added across the whole width (one long loop the compiler
// vectorises, rather than a short run per cell), then each cell's columns.
// Integer sums: the same as any other order. Column holds a band's column.
template <typename Column>
std::vector<std::uint64_t> Plane8CellSums(const ImageView& image, const Grid& g) {
  std::vector<std::uint64_t> sums(static_cast<std::size_t>(g.width) * g.height, 0);
  std::vector<Column> columns(static_cast<std::size_t>(image.width));
  Column* col = columns.data();
  const int width = image.width;
  for (int gy = 0; gy < g.height; ++gy) {
    std::fill(columns.begin(), columns.end(), Column{0});
    for (int y = g.y_edges[gy]; y < g.y_edges[gy + 1]; ++y) {
      const std::uint8_t* row = Row(image, 0, y);
      for (int x = 0; x < width; ++x) col[x] = static_cast<Column>(col[x] + row[x]);
    }
    std::uint64_t* cell_row = &sums[static_cast<std::size_t>(gy) * g.width];
    for (int gx = 0; gx < g.width; ++gx) {
      std::uint64_t s = 0;
      for (int x = g.x_edges[gx]; x < g.x_edges[gx + 1]; ++x) s += col[x];
      cell_row[gx] = s;
    }
  }
  return sums;
}

// 16-bit columns (twice the samples per vector) while a band's column of
// 8-bit samples fits them, 32-bit (16 million rows) beyond.
std::vector<std::uint64_t> Plane8CellSums(const ImageView& image, const Grid& g) {
  int band_rows = 0;
  for (int gy = 0; gy < g.height; ++gy) {
    band_rows = std::max(band_rows, g.y_edges[gy + 1] - g.y_edges[gy]);
  }
  constexpr int kRowsIn16Bits = 0xFFFF / 0xFF;
  return band_rows <= kRowsIn16Bits ? Plane8CellSums<std::uint16_t>(image, g)
                                    : Plane8CellSums<std::uint32_t>(image, g);
}

std::vector<std::uint64_t> YuvCellSums(const ImageView& image, const FormatTraits& f,
                                       const Grid& g) {
  if (f.bytes_per_sample == 1) return Plane8CellSums(image, g);
  const int shift = f.msb_aligned ? 16 - f.bit_depth : 0;
  const std::uint32_t mask = (1u << f.bit_depth) - 1u;
  return CellSums<std::uint64_t>(image, g, [shift, mask](const std::uint8_t* row, int x) {
    return static_cast<std::uint64_t>((Load<std::uint16_t>(row, x) >> shift) & mask);
  });
}

void HostSignature(const ImageView& image, FrameSignature* out) {
  const FormatTraits& f = *FindFormat(image.format);
  const Grid g = signature::MakeGrid(image.width, image.height);
  const double full_scale = signature::LumaFullScale(image.format);
  switch (f.family) {
    case FormatFamily::kPacked:
      signature::SignatureFromSums(g,
                                   f.bytes_per_sample == 1
                                       ? PackedCellSums<std::uint8_t>(image, f, g)
                                       : PackedCellSums<std::uint16_t>(image, f, g),
                                   full_scale, out);
      return;
    case FormatFamily::kLinearPlanar:
      signature::SignatureFromSums(g, LinearPlanarCellTotals(image, g), out);
      return;
    case FormatFamily::kYuv:
      signature::SignatureFromSums(g, YuvCellSums(image, f, g), full_scale, out);
      return;
  }
}

}  // namespace

struct FrameSignatureMaker::Impl {
  explicit Impl(const Options& o)
      : options(o)
#if defined(SSIM2_HAVE_CUDA)
        ,
        device(o.cuda_context, o.batch)
#endif
  {
  }
  Options options;
  Ticket next_ticket = 1;
  std::map<Ticket, FrameSignature> host;  // host images' signatures, not collected
#if defined(SSIM2_HAVE_CUDA)
  cuda::DeviceSignatures device;
#endif
};

FrameSignatureMaker::FrameSignatureMaker() = default;
FrameSignatureMaker::~FrameSignatureMaker() = default;

Status FrameSignatureMaker::Create(const Options& options,
                                   std::unique_ptr<FrameSignatureMaker>* out) {
  if (out == nullptr) {
    return Status(StatusCode::kInvalidArgument, "FrameSignatureMaker::Create: null output");
  }
  out->reset();
  constexpr int kMaxBatch = 64;
#if defined(SSIM2_HAVE_CUDA)
  static_assert(kMaxBatch == cuda::kMaxSignatureBatch, "Options::batch's range");
#endif
  if (options.batch < 1 || options.batch > kMaxBatch) {
    return Status(StatusCode::kInvalidArgument,
                  "FrameSignatureMaker::Create: batch is " + std::to_string(options.batch) +
                      ", it must be 1.." + std::to_string(kMaxBatch));
  }
  out->reset(new (std::nothrow) FrameSignatureMaker());
  if (*out) (*out)->impl_.reset(new (std::nothrow) Impl(options));
  if (!*out || !(*out)->impl_) {
    out->reset();
    return Status(StatusCode::kOutOfMemory, "FrameSignatureMaker::Create: out of host memory");
  }
  return Status::Ok();
}

Status FrameSignatureMaker::Enqueue(const ImageView& image, void* cuda_stream, Ticket* ticket) {
  if (ticket == nullptr) {
    return Status(StatusCode::kInvalidArgument, "FrameSignatureMaker::Enqueue: null ticket");
  }
  *ticket = 0;
  if (Status s = ValidateImage(image); !s.ok()) return s;
  // Nothing throws across the API: the host vectors of a signature.
  try {
    if (image.location == MemoryLocation::kHost) {
      FrameSignature signature;
      HostSignature(image, &signature);
      *ticket = impl_->next_ticket++;
      impl_->host.emplace(*ticket, std::move(signature));
      return Status::Ok();
    }
#if defined(SSIM2_HAVE_CUDA)
    // Taken unless the image itself is refused (then nothing was added).
    const Ticket t = impl_->next_ticket++;
    const Status s = impl_->device.Add(image, static_cast<cudaStream_t>(cuda_stream), t);
    if (impl_->device.Holds(t)) *ticket = t;
    return s;
#else
    (void)cuda_stream;
    std::string why;
    CudaAvailable(&why);
    return Status(StatusCode::kBackendUnavailable,
                  "the signature of an image in CUDA device memory needs the CUDA engine: " + why);
#endif
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "FrameSignatureMaker::Enqueue: out of host memory");
  }
}

Status FrameSignatureMaker::Flush() {
#if defined(SSIM2_HAVE_CUDA)
  return impl_->device.Launch();
#else
  return Status::Ok();
#endif
}

bool FrameSignatureMaker::Ready(Ticket ticket) {
  if (impl_->host.count(ticket)) return true;
#if defined(SSIM2_HAVE_CUDA)
  return impl_->device.Ready(ticket);
#else
  return false;
#endif
}

Status FrameSignatureMaker::Collect(Ticket ticket, FrameSignature* out) {
  if (out == nullptr) {
    return Status(StatusCode::kInvalidArgument, "FrameSignatureMaker::Collect: null output");
  }
  *out = FrameSignature();
  auto host = impl_->host.find(ticket);
  if (host != impl_->host.end()) {
    *out = std::move(host->second);
    impl_->host.erase(host);
    return Status::Ok();
  }
  try {
#if defined(SSIM2_HAVE_CUDA)
    Status s = impl_->device.Collect(ticket, out);
    if (!s.ok()) *out = FrameSignature();
    return s;
#else
    return Status(StatusCode::kInvalidArgument,
                  "FrameSignatureMaker::Collect: ticket " + std::to_string(ticket) +
                      " is not in flight (never enqueued, or collected already)");
#endif
  } catch (const std::bad_alloc&) {
    *out = FrameSignature();
    return Status(StatusCode::kOutOfMemory, "FrameSignatureMaker::Collect: out of host memory");
  }
}

Status FrameSignatureMaker::Compute(const ImageView& image, void* cuda_stream,
                                    FrameSignature* out) {
  if (out == nullptr) {
    return Status(StatusCode::kInvalidArgument, "ComputeFrameSignature: null output");
  }
  *out = FrameSignature();
  Ticket ticket = 0;
  const Status s = Enqueue(image, cuda_stream, &ticket);
  if (ticket == 0) return s;
  return Collect(ticket, out);
}

std::size_t FrameSignatureMaker::in_flight() const {
#if defined(SSIM2_HAVE_CUDA)
  return impl_->host.size() + impl_->device.in_flight();
#else
  return impl_->host.size();
#endif
}

std::size_t FrameSignatureMaker::device_bytes() const {
#if defined(SSIM2_HAVE_CUDA)
  return impl_->device.bytes();
#else
  return 0;
#endif
}

Status ComputeFrameSignature(const ImageView& image, FrameSignature* out) {
  std::unique_ptr<FrameSignatureMaker> maker;
  if (Status s = FrameSignatureMaker::Create({}, &maker); !s.ok()) return s;
  return maker->Compute(image, nullptr, out);
}

namespace signature {
namespace {

// Eight independent sums per distance, in two vectors of four (a GCC/Clang
// vector type, one register on any SIMD target), so that the loop is vector
// code without reordering any one sum (the build keeps contraction off).
typedef float Quad __attribute__((vector_size(4 * sizeof(float))));
constexpr std::size_t kQuad = sizeof(Quad) / sizeof(float);

// The dot products of a with b[0..K-1] (n cells each), each summed as
// SignatureDistance sums it: lane j of `low` takes cells j, j + 8, ... and
// lane j of `high` cells j + 4, j + 12, ...; then the cells past the last
// full eight, the lanes of `low` and those of `high`, in double, in order.
template <std::size_t K>
void Dots(const float* a, const float* const* b, std::size_t n, double* dot) {
  Quad low[K] = {}, high[K] = {};
  std::size_t i = 0;
  for (; i + 2 * kQuad <= n; i += 2 * kQuad) {
    Quad a0, a1;
    std::memcpy(&a0, a + i, sizeof(Quad));
    std::memcpy(&a1, a + i + kQuad, sizeof(Quad));
    for (std::size_t k = 0; k < K; ++k) {
      Quad b0, b1;
      std::memcpy(&b0, b[k] + i, sizeof(Quad));
      std::memcpy(&b1, b[k] + i + kQuad, sizeof(Quad));
      low[k] += a0 * b0;
      high[k] += a1 * b1;
    }
  }
  for (std::size_t k = 0; k < K; ++k) {
    double sum = 0.0;
    for (std::size_t t = i; t < n; ++t) sum += static_cast<double>(a[t]) * b[k][t];
    for (std::size_t j = 0; j < kQuad; ++j) sum += low[k][j];
    for (std::size_t j = 0; j < kQuad; ++j) sum += high[k][j];
    dot[k] = sum;
  }
}

}  // namespace

void SignatureDistances(const FrameSignature& a, const FrameSignature* const* b, std::size_t count,
                        double* distance) {
  // The comparable ones go together; the others are at distance 1.
  const float* cells[kDistancesTogether];
  std::size_t index[kDistancesTogether];
  const std::size_t n = a.cells.size();
  auto run = [&](std::size_t m) {
    double dot[kDistancesTogether];
    switch (m) {
      case 1: Dots<1>(a.cells.data(), cells, n, dot); break;
      case 2: Dots<2>(a.cells.data(), cells, n, dot); break;
      case 3: Dots<3>(a.cells.data(), cells, n, dot); break;
      default: Dots<4>(a.cells.data(), cells, n, dot); break;
    }
    for (std::size_t k = 0; k < m; ++k) distance[index[k]] = 1.0 - dot[k] / static_cast<double>(n);
  };
  static_assert(kDistancesTogether == 4, "run() has a case per group size");
  std::size_t m = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const FrameSignature& c = *b[k];
    if (a.empty() || a.grid_width != c.grid_width || a.grid_height != c.grid_height ||
        n != c.cells.size()) {
      distance[k] = 1.0;
      continue;
    }
    cells[m] = c.cells.data();
    index[m++] = k;
    if (m == kDistancesTogether) {
      run(m);
      m = 0;
    }
  }
  if (m > 0) run(m);
}

}  // namespace signature

double SignatureDistance(const FrameSignature& a, const FrameSignature& b) {
  const FrameSignature* candidates[] = {&b};
  double distance = 1.0;
  signature::SignatureDistances(a, candidates, 1, &distance);
  return distance;
}

}  // namespace ssim2
