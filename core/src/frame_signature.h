// The two halves of a frame signature (ssim2/alignment.h), shared by the CPU
// path (frame_signature.cpp) and the CUDA kernels (cuda/signature.cpp):
// (a) the grid and how each format's luma is summed per cell, (b) the
// normalisation of those sums. The sums of integer formats are integers, so a
// device computes the very same ones in any order; planar linear float keeps
// one order everywhere (per cell: per row a double sum over x in order, added
// to the cell total row by row). The normalisation is one sequence of double
// operations (CellMean, CellStatistics' lanes and fold, NormalisedCell) that
// host and device both run, without contraction, so they round alike.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "arith.h"  // SSIM2_HD
#include "ssim2/alignment.h"

namespace ssim2 {
namespace signature {

// Integer luma of packed R'G'B': BT.709 weights in 1/256 (54 + 183 + 19 =
// 256), so a cell's row of 8-bit samples fits 32 bits.
constexpr std::uint32_t kWeightR = 54, kWeightG = 183, kWeightB = 19;
constexpr std::uint32_t kWeightScale = 256;
static_assert(kWeightR + kWeightG + kWeightB == kWeightScale, "weights sum to one");

SSIM2_HD std::uint32_t PackedLuma(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
  return kWeightR * r + kWeightG * g + kWeightB * b;
}

// Luma of linear float R, G, B, in double (the cell totals are doubles).
SSIM2_HD double LinearLuma(float r, float g, float b) {
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

struct Grid {
  int width = 0;
  int height = 0;
  std::vector<int> x_edges;  // width + 1 pixel columns: cell i is [x_edges[i], x_edges[i + 1])
  std::vector<int> y_edges;
};

// About kSignatureCells cells, as square as the aspect allows, at most one
// cell per pixel in each direction.
Grid MakeGrid(int image_width, int image_height);

// Cell i's edge of an image `size` pixels across cut into `cells` cells: the
// one formula of Grid's edges (also evaluated by the kernels).
SSIM2_HD int CellEdge(int i, int size, int cells) {
  return static_cast<int>(static_cast<std::int64_t>(i) * size / cells);
}

// The luma of a white pixel of an integer format, in the units its cell sums
// count: the sums divided by this (and the cell's pixels) are the means in
// 0..1. Planar linear float sums its values themselves: 1.
double LumaFullScale(PixelFormat format);

// (b) Normalisation.

// Equal cells leave only the rounding of their mean (about 1e-16) as
// contrast: that is no contrast, and normalising it would make noise of it.
constexpr double kNoContrast = 1e-9;

// The mean of a cell, 0..1: its sum over its pixels and the full scale.
template <typename Sum>
SSIM2_HD double CellMean(Sum sum, int rows, int cols, double full_scale) {
  return static_cast<double>(sum) / (static_cast<double>(rows) * cols * full_scale);
}

// The statistics of the cell means (their mean and standard deviation) sum
// in one fixed order that a device runs in parallel: kStatisticsLanes lanes,
// lane l adding cells l, l + kStatisticsLanes, ... in index order
// (LaneTerms), then the lanes folded pairwise, lane i taking lane i + half
// for half = kStatisticsLanes / 2 down to 1 (FoldLanes), lane 0 the total.
constexpr int kStatisticsLanes = 128;

// Lane `lane`'s sum of the means (squares false) or of their squared
// deviations from `mean` (squares true).
SSIM2_HD double LaneTerms(const double* means, int n, int lane, bool squares, double mean) {
  double s = 0.0;
  for (int i = lane; i < n; i += kStatisticsLanes) {
    s += squares ? (means[i] - mean) * (means[i] - mean) : means[i];
  }
  return s;
}

// One step of the fold, for lanes i < half (a device runs them in parallel).
SSIM2_HD void FoldLane(double* lanes, int i, int half) { lanes[i] += lanes[i + half]; }

// The mean from the folded sum of `n` means.
SSIM2_HD double StatisticsMean(double sum, int n) { return sum / static_cast<double>(n); }

// The contrast from the folded sum of squared deviations of `n` means: their
// standard deviation, 0 under kNoContrast.
SSIM2_HD double StatisticsContrast(double squares, int n) {
  const double c = sqrt(squares / static_cast<double>(n));
  return c < kNoContrast ? 0.0 : c;
}

// The mean of `n` cell means and their standard deviation, in the order
// above (the host's; the normalisation kernel runs each lane in a thread).
void CellStatistics(const double* means, int n, double* mean, double* contrast);

// A cell of the signature: its mean less the frame's, over the contrast.
SSIM2_HD float NormalisedCell(double cell_mean, double mean, double contrast) {
  return contrast > 0.0 ? static_cast<float>((cell_mean - mean) / contrast) : 0.0f;
}

// The signature from the cell sums, row by row over the grid: integer
// sums of an integer format, double totals of planar linear float.
void SignatureFromSums(const Grid& grid, const std::vector<std::uint64_t>& sums,
                       double full_scale, FrameSignature* out);
void SignatureFromSums(const Grid& grid, const std::vector<double>& totals, FrameSignature* out);

// SignatureDistance(a, *b[k]) into distance[k], for k < count, bit for bit:
// each distance sums in SignatureDistance's order, but up to
// kDistancesTogether of them run side by side. One distance alone waits on
// its own additions (eight dependent chains of n / 8 adds); several keep the
// vector units busy. The aligner ranks a frame's candidates this way.
constexpr std::size_t kDistancesTogether = 4;
void SignatureDistances(const FrameSignature& a, const FrameSignature* const* b, std::size_t count,
                        double* distance);

}  // namespace signature
}  // namespace ssim2
