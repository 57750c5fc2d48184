// The CPU path proper: stages from kernels.h, run over the scales of a
// MetricPlan in bands of rows that stay in cache, spread over a thread pool.
//
// Each scale streams down the image once. For a band of input rows: convert
// to linear RGB (scale 0) and XYB, downsample into the next scale's input,
// run the horizontal blurs of the band's rows (one task per 8 rows and
// blurred quantity), then the vertical recursion for the output rows that
// are complete (one task per channel and strip of columns, its state carried
// from band to band), and the per-pixel SSIM / edge maps of those rows. The
// float64 sums of the maps are one sequential task per channel, in the
// reference's row-major order, so the sub-scores stay bit-identical to the
// reference's. Bands overlap: one round of tasks converts band t, runs the
// horizontal pass of band t-1, the vertical pass and maps of band t-2 and
// sums band t-3, so there is one round per band and the sequential sums hide
// behind the rest.
//
// Only rings of a few dozen rows and the half-size inputs of the next scale
// are kept, so working memory is a small multiple of a row, not of the image.
#pragma once

#include <cstddef>
#include <vector>

#include "blur_constants.h"
#include "cpu/kernels.h"
#include "cpu/planes.h"
#include "cpu/thread_pool.h"
#include "plan.h"

namespace ssim2 {
namespace cpu {

// What one scale of the metric needs from the reference image alone.
// Channels whose only weighted maps are the edge maps keep just
// |xyb - blur(xyb)|, the one value of the reference those maps read.
//
// The planes that only the vertical pass's column strips read are stored
// in strips: the 64 columns of a strip task per row, all rows of a strip,
// then the next strip (StripOf in pipeline.cpp), so that a strip task reads one
// contiguous run of memory instead of a few cache lines per row of a whole
// plane. Against a cached reference these reads are what a pair does not
// have, and the hardware prefetchers follow a contiguous run.
struct ScaleReference {
  Image3 xyb;         // positive XYB in rows, channels whose SSIM map has weight
  Image3 mu;          // blur(xyb) in strips, the same channels
  Image3 sigma;       // blur(xyb * xyb) in strips, the same channels
  Image3 difference;  // |xyb - blur(xyb)| in strips, channels with edge maps only
};

struct ReferenceCache {
  std::vector<ScaleReference> scales;
  std::size_t bytes() const;
};

class Pipeline {
 public:
  // Band heights a caller may ask for (SSIM2_CPU_BAND_ROWS); see BandRows.
  static constexpr int kMinBandRows = 2;
  static constexpr int kMaxBandRows = 1024;

  // Rows per band: with `requested` <= 0 the default for `threads` and an
  // image `height` rows tall; otherwise `requested` rounded down to an even
  // number (a row group's 2x2 downsampling reads pairs of its own rows) and
  // kept within [kMinBandRows, kMaxBandRows] and no taller than the image.
  // The scores do not depend on it, only speed and memory do.
  static int BandRows(int requested, int threads, int height);

  // `band_rows` as `requested` of BandRows.
  Pipeline(const MetricPlan& plan, ThreadPool* pool, const KernelTable& kernels,
           int band_rows = 0);

  // The images must have passed CheckConvertible and have the plan's size;
  // `alpha_background` as for ToLinearRgb.
  void Score(const ImageView& reference, const ImageView& distorted, float alpha_background,
             Result* result);

  // Reference-only intermediates of every scale, then pairs against them.
  void PrepareReference(const ImageView& reference, float alpha_background,
                        ReferenceCache* cache);
  void ScoreCached(const ReferenceCache& reference, const ImageView& distorted,
                   float alpha_background, Result* result);

  std::size_t memory_bytes() const;
  int band_rows() const { return band_rows_; }

 private:
  enum class Mode { kPair, kPrepare, kCached };
  // The blurred quantities of one channel.
  enum Quantity { kMu1, kMu2, kSigma11, kSigma22, kSigma12, kNumQuantities };

  struct Band;
  void RunScale(int scale, Mode mode, const ImageView* const views[2], float alpha_background,
                ReferenceCache* cache, Result* result);
  bool Computes(Mode mode, int channel, int scale, Quantity q) const;
  static int ScratchSlots(Mode mode);
  static int ScratchSlot(Mode mode, Quantity q);
  void ConvertRows(const Band& band, int image, int y0, int y1);
  void BlurRows(const Band& band, int channel, Quantity q, int y0, int y1);
  void BlurStrip(const Band& band, int channel, int x0, int x1);
  void SumRows(const Band& band, int channel);
  void Allocate(int scale, Mode mode);

  MetricPlan plan_;
  ThreadPool* pool_;
  const KernelTable& k_;
  const BlurConstants& blur_;
  float neg_cbrt_bias_;
  int band_rows_;

  // Per image slot (see Band::Slot):
  Image3 band_linear_[2];  // scale 0: the band's rows in linear RGB
  Image3 next_[2][2];      // the next scale's linear input (ping-pong)
  Plane xyb_ring_[2][3];
  Plane blurred_rows_[kNumChannels][kNumQuantities];  // horizontal pass, a ring
  Plane column_state_[kNumChannels][kNumQuantities];
  // Per-pixel maps of a band's output rows, two bands' worth: one is summed
  // while the other is written.
  std::vector<double> ssim_map_[2][kNumChannels], edge_map_[2][kNumChannels];
  std::vector<std::vector<float>> strip_scratch_;  // per thread
  std::vector<float> zeros_;  // a strip of 0, the blur of |xyb - mu| stored in the cache
  double sums_[kNumChannels][kNumMapSums];
};

}  // namespace cpu
}  // namespace ssim2
