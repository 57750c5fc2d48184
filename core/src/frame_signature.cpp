// Frame signatures for content alignment (ssim2/alignment.h): the luma
// box-averaged over a grid of about 64x36 cells in one pass over the image,
// then normalised to mean 0 and variance 1.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "image_checks.h"
#include "pixel_format.h"
#include "ssim2/alignment.h"

namespace ssim2 {
namespace {

// Integer luma of packed R'G'B': BT.709 weights in 1/256 (54 + 183 + 19 = 256),
// so a cell sum of 8-bit samples fits 32 bits per row of a cell.
constexpr std::uint32_t kWeightR = 54, kWeightG = 183, kWeightB = 19;
constexpr std::uint32_t kWeightScale = 256;
static_assert(kWeightR + kWeightG + kWeightB == kWeightScale, "weights sum to one");

struct Grid {
  int width = 0;
  int height = 0;
  std::vector<int> x_edges;  // width + 1 pixel columns: cell i is [x_edges[i], x_edges[i + 1])
  std::vector<int> y_edges;
};

// About kSignatureCells cells, as square as the aspect allows, at most one
// cell per pixel in each direction.
Grid MakeGrid(int width, int height) {
  const double cells = FrameSignature::kSignatureCells;
  int gh = static_cast<int>(std::lround(std::sqrt(cells * height / width)));
  gh = std::max(gh, 1);
  int gw = static_cast<int>(std::lround(cells / gh));
  Grid g;
  g.width = std::clamp(gw, 1, width);
  g.height = std::clamp(gh, 1, height);
  for (int i = 0; i <= g.width; ++i) {
    g.x_edges.push_back(static_cast<int>(static_cast<std::int64_t>(i) * width / g.width));
  }
  for (int i = 0; i <= g.height; ++i) {
    g.y_edges.push_back(static_cast<int>(static_cast<std::int64_t>(i) * height / g.height));
  }
  return g;
}

const std::uint8_t* Row(const ImageView& image, int plane, int y) {
  return static_cast<const std::uint8_t*>(image.planes[plane]) +
         static_cast<std::ptrdiff_t>(y) * image.strides[plane];
}

// Sums luma(row, x) over every cell: per image row, one run of adjacent
// samples per cell summed in RowSum (a loop the compiler vectorises), added
// to the cell's 64-bit total. `full_scale` is the luma of a white pixel; the result is
// the cell means in 0..1.
template <typename RowSum, typename Luma>
std::vector<double> CellMeans(const ImageView& image, const Grid& g, double full_scale,
                              Luma luma) {
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
  std::vector<double> means(sums.size());
  for (int gy = 0; gy < g.height; ++gy) {
    const int rows = g.y_edges[gy + 1] - g.y_edges[gy];
    for (int gx = 0; gx < g.width; ++gx) {
      const int cols = g.x_edges[gx + 1] - g.x_edges[gx];
      const std::size_t i = static_cast<std::size_t>(gy) * g.width + gx;
      means[i] = static_cast<double>(sums[i]) / (static_cast<double>(rows) * cols * full_scale);
    }
  }
  return means;
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
std::vector<double> PackedCellMeans(const ImageView& image, const FormatTraits& f,
                                    const Grid& g) {
  // A cell's row of 8-bit weighted luma fits 32 bits up to 65,000 pixels wide.
  using RowSum = std::conditional_t<sizeof(T) == 1, std::uint32_t, std::uint64_t>;
  const double max_sample = static_cast<double>((1u << (8 * sizeof(T))) - 1u);
  const int n = f.channels;
  if (f.r == f.g && f.g == f.b) {
    const int c = f.r;
    return CellMeans<RowSum>(image, g, max_sample, [n, c](const std::uint8_t* row, int x) {
      return static_cast<RowSum>(Load<T>(row, x * n + c));
    });
  }
  const int r = f.r, gc = f.g, b = f.b;
  return CellMeans<RowSum>(
      image, g, max_sample * kWeightScale, [n, r, gc, b](const std::uint8_t* row, int x) {
        const int p = x * n;
        return static_cast<RowSum>(kWeightR * Load<T>(row, p + r) +
                                   kWeightG * Load<T>(row, p + gc) +
                                   kWeightB * Load<T>(row, p + b));
      });
}

std::vector<double> LinearPlanarCellMeans(const ImageView& image, const Grid& g) {
  constexpr double kR = 0.2126, kG = 0.7152, kB = 0.0722;
  std::vector<double> means(static_cast<std::size_t>(g.width) * g.height, 0.0);
  for (int gy = 0; gy < g.height; ++gy) {
    for (int y = g.y_edges[gy]; y < g.y_edges[gy + 1]; ++y) {
      const std::uint8_t* rows[3] = {Row(image, 0, y), Row(image, 1, y), Row(image, 2, y)};
      for (int gx = 0; gx < g.width; ++gx) {
        double s = 0.0;
        for (int x = g.x_edges[gx]; x < g.x_edges[gx + 1]; ++x) {
          s += kR * Load<float>(rows[0], x) + kG * Load<float>(rows[1], x) +
               kB * Load<float>(rows[2], x);
        }
        means[static_cast<std::size_t>(gy) * g.width + gx] += s;
      }
    }
  }
  for (int gy = 0; gy < g.height; ++gy) {
    const int rows = g.y_edges[gy + 1] - g.y_edges[gy];
    for (int gx = 0; gx < g.width; ++gx) {
      const int cols = g.x_edges[gx + 1] - g.x_edges[gx];
      means[static_cast<std::size_t>(gy) * g.width + gx] /= static_cast<double>(rows) * cols;
    }
  }
  return means;
}

std::vector<double> YuvCellMeans(const ImageView& image, const FormatTraits& f,
                                 const Grid& g) {
  if (f.bytes_per_sample == 1) {
    return CellMeans<std::uint32_t>(image, g, 255.0, [](const std::uint8_t* row, int x) {
      return static_cast<std::uint32_t>(row[x]);
    });
  }
  const double max_sample = static_cast<double>((1 << f.bit_depth) - 1);
  const int shift = f.msb_aligned ? 16 - f.bit_depth : 0;
  const std::uint32_t mask = (1u << f.bit_depth) - 1u;
  return CellMeans<std::uint64_t>(image, g, max_sample,
                                  [shift, mask](const std::uint8_t* row, int x) {
                                    return static_cast<std::uint64_t>(
                                        (Load<std::uint16_t>(row, x) >> shift) & mask);
                                  });
}

}  // namespace

Status ComputeFrameSignature(const ImageView& image, FrameSignature* out) {
  if (out == nullptr) {
    return Status(StatusCode::kInvalidArgument, "ComputeFrameSignature: null output");
  }
  *out = FrameSignature();
  if (Status s = ValidateImage(image); !s.ok()) return s;
  if (image.location != MemoryLocation::kHost) {
    return Status(StatusCode::kInvalidArgument,
                  "ComputeFrameSignature reads host memory; copy the frame from the CUDA "
                  "device to the host first");
  }
  const FormatTraits& f = *FindFormat(image.format);
  const Grid g = MakeGrid(image.width, image.height);
  std::vector<double> means;
  switch (f.family) {
    case FormatFamily::kPacked:
      means = f.bytes_per_sample == 1 ? PackedCellMeans<std::uint8_t>(image, f, g)
                                      : PackedCellMeans<std::uint16_t>(image, f, g);
      break;
    case FormatFamily::kLinearPlanar: means = LinearPlanarCellMeans(image, g); break;
    case FormatFamily::kYuv: means = YuvCellMeans(image, f, g); break;
  }

  const double n = static_cast<double>(means.size());
  double sum = 0.0;
  for (double m : means) sum += m;
  const double mean = sum / n;
  double squares = 0.0;
  for (double m : means) squares += (m - mean) * (m - mean);
  // Equal cells leave only the rounding of `mean` (about 1e-16): that is no
  // contrast, and normalising it would make noise of it.
  constexpr double kNoContrast = 1e-9;
  double contrast = std::sqrt(squares / n);
  if (contrast < kNoContrast) contrast = 0.0;

  out->grid_width = g.width;
  out->grid_height = g.height;
  out->mean = mean;
  out->contrast = contrast;
  out->cells.resize(means.size());
  for (std::size_t i = 0; i < means.size(); ++i) {
    out->cells[i] = contrast > 0.0 ? static_cast<float>((means[i] - mean) / contrast) : 0.0f;
  }
  return Status::Ok();
}

double SignatureDistance(const FrameSignature& a, const FrameSignature& b) {
  if (a.empty() || a.grid_width != b.grid_width || a.grid_height != b.grid_height ||
      a.cells.size() != b.cells.size()) {
    return 1.0;
  }
  // Eight independent sums, so that the loop vectorises without reordering
  // any one sum (the build keeps floating-point contraction off).
  constexpr std::size_t kLanes = 8;
  float lanes[kLanes] = {};
  const std::size_t n = a.cells.size();
  const float* pa = a.cells.data();
  const float* pb = b.cells.data();
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (std::size_t j = 0; j < kLanes; ++j) lanes[j] += pa[i + j] * pb[i + j];
  }
  double dot = 0.0;
  for (; i < n; ++i) dot += static_cast<double>(pa[i]) * pb[i];
  for (float lane : lanes) dot += lane;
  return 1.0 - dot / static_cast<double>(n);
}

}  // namespace ssim2
