#include "cpu/pipeline.h"

#include <algorithm>
#include <climits>
#include <cmath>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "arith.h"
#include "cpu/convert.h"
#include "hdr_transfer.h"

namespace ssim2 {
namespace cpu {
namespace {

constexpr int kRowGroup = 8;      // rows per horizontal-pass call (one per vector lane)
constexpr int kStripColumns = 64;  // columns per vertical-pass task, a multiple of 8

int CeilDiv(int a, int b) { return (a + b - 1) / b; }

std::size_t Image3Bytes(const Image3& img) {
  return img.plane[0].bytes() + img.plane[1].bytes() + img.plane[2].bytes();
}

RowRing Ring(const Plane& p, int rows) {
  return RowRing{const_cast<float*>(p.Row(0)), p.stride(), rows};
}

// A plane of `height` rows and `width` columns stored in strips of
// kStripColumns columns (ScaleReference): one plane kStripColumns wide.
void ResizeStrips(int width, int height, Plane* p) {
  p->Resize(kStripColumns, (width + kStripColumns - 1) / kStripColumns * height);
}

// The strip of such a plane that holds columns [x0, x0 + kStripColumns), x0
// a multiple of kStripColumns; column x of row n at Row(n) + x - x0.
RowRing StripOf(const Plane& strips, int height, int x0) {
  return RowRing{const_cast<float*>(strips.Row(x0 / kStripColumns * height)), kStripColumns,
                 INT_MAX};
}

// Ring sizes for the schedule in RunScale. The XYB rows of band t are written
// while the maps of band t-2 read theirs, which start `radius - 1` rows above
// band t-2. The horizontal pass writes band t-1 while the vertical pass of
// band t-2 reads from `2 * radius` rows above band t-2.
int XybRingRows(int band_rows, int radius) { return 3 * band_rows + radius; }
int BlurredRingRows(int band_rows, int radius) { return 2 * band_rows + 2 * radius; }

std::size_t Stride(int width) {
  return (static_cast<std::size_t>(width) + 15) & ~static_cast<std::size_t>(15);
}

}  // namespace

// One band of input rows [y0, y1) of a scale and the output rows [n0, n1)
// of the vertical pass it completes (n0 < 0 on the first band).
struct Pipeline::Band {
  int scale;
  Mode mode;
  const ImageView* const* views;
  float alpha_background;
  ReferenceCache* cache;
  int width, height;
  int y0, y1;
  int n0, n1;
  int xyb_rows, blurred_rows, map_rows;  // ring sizes
  std::size_t map_stride;
  int map_buffer;  // which of the two map buffers the band's maps go to

  int first_output() const { return std::max(0, n0); }
  // Buffers of the linear and XYB rows per image; one image at a time
  // (reference alone, or distorted against a cached reference) uses slot 0.
  int Slot(int image) const { return mode == Mode::kPair ? image : 0; }
  // XYB row y of image i (0 = reference). The cache keeps the reference's
  // XYB of the channels with SSIM; the others pass through the ring while
  // preparing it, and are not read against it.
  const float* Xyb(const Pipeline& p, int i, int c, int y) const {
    if (i == 0 && mode != Mode::kPair && p.plan_.needs[scale][c].ssim) {
      return cache->scales[scale].xyb.plane[c].Row(y);
    }
    return p.xyb_ring_[Slot(i)][c].Row(y % xyb_rows);
  }
};

std::size_t ReferenceCache::bytes() const {
  std::size_t bytes = 0;
  for (const ScaleReference& s : scales) {
    bytes += Image3Bytes(s.xyb) + Image3Bytes(s.mu) + Image3Bytes(s.sigma) +
             Image3Bytes(s.difference);
  }
  return bytes;
}

int Pipeline::BandRows(int requested, int threads, int height) {
  if (requested <= 0) {
    // Enough row groups per band for every thread to have a few tasks.
    // Taller bands mean fewer rounds, shorter ones less memory: with more
    // than two threads, up to 64 rows give every thread several tasks per
    // round, but no more than a 24th of the image (the rings hold about
    // three bands).
    return threads > 2 ? std::clamp(height / 24 / kRowGroup * kRowGroup, 24, 64) : 32;
  }
  const int tallest = std::max(kMinBandRows, std::min(kMaxBandRows, height + height % 2));
  return std::clamp(requested / 2 * 2, kMinBandRows, tallest);
}

Pipeline::Pipeline(const MetricPlan& plan, ThreadPool* pool, const KernelTable& kernels,
                   int band_rows)
    : plan_(plan),
      pool_(pool),
      k_(kernels),
      blur_(GetBlurConstants()),
      neg_cbrt_bias_(-std::cbrt(kOpsinBias)),
      band_rows_(BandRows(band_rows, pool ? pool->size() : 1, plan.height)),
      strip_scratch_(pool ? pool->size() : 1),
      zeros_(kStripColumns, 0.0f) {}

std::size_t Pipeline::memory_bytes() const {
  std::size_t bytes = 0;
  for (int i = 0; i < 2; ++i) {
    bytes += Image3Bytes(band_linear_[i]) + Image3Bytes(next_[i][0]) + Image3Bytes(next_[i][1]);
    for (const Plane& p : xyb_ring_[i]) bytes += p.bytes();
  }
  for (int c = 0; c < kNumChannels; ++c) {
    for (int q = 0; q < kNumQuantities; ++q) {
      bytes += blurred_rows_[c][q].bytes() + column_state_[c][q].bytes();
    }
    for (int m = 0; m < 2; ++m) {
      bytes += (ssim_map_[m][c].capacity() + edge_map_[m][c].capacity()) * sizeof(double);
    }
  }
  for (const std::vector<float>& s : strip_scratch_) bytes += s.capacity() * sizeof(float);
  return bytes + zeros_.capacity() * sizeof(float);
}

// The strip buffer of a task holds the column-blurred quantities that do
// not go to the cache: all five for a pair; mu2, sigma22 and sigma12 against
// a cached reference; mu1 of the edge-only channels while preparing one.
int Pipeline::ScratchSlots(Mode mode) { return mode == Mode::kPair ? kNumQuantities : 3; }

int Pipeline::ScratchSlot(Mode mode, Quantity q) {
  if (mode == Mode::kPair) return q;
  switch (q) {
    case kSigma22: return 1;
    case kSigma12: return 2;
    default: return 0;  // kMu2 (cached) or kMu1 (preparing)
  }
}

bool Pipeline::Computes(Mode mode, int c, int s, Quantity q) const {
  const ChannelNeeds& needs = plan_.needs[s][c];
  const bool reference = q == kMu1 || q == kSigma11;
  if (mode == Mode::kPrepare && !reference) return false;
  if (mode == Mode::kCached && reference) return false;
  return q == kMu1 || q == kMu2 ? needs.any() : needs.ssim;
}

void Pipeline::Allocate(int s, Mode mode) {
  const int w = plan_.scales[s].width;
  const int n = blur_.radius;
  const int b = band_rows_;
  const bool last = s + 1 == plan_.num_scales;
  for (int slot = 0; slot < (mode == Mode::kPair ? 2 : 1); ++slot) {
    if (s == 0) band_linear_[slot].Resize(w, b);
    if (!last) next_[slot][s % 2].Resize(plan_.scales[s + 1].width, plan_.scales[s + 1].height);
    for (int c = 0; c < kNumChannels; ++c) {
      // While preparing, the XYB of channels with SSIM goes straight into
      // the cache.
      if (mode == Mode::kPrepare && plan_.needs[s][c].ssim) continue;
      xyb_ring_[slot][c].Resize(w, XybRingRows(b, n));
    }
  }
  const int map_rows = b + n;
  for (int c = 0; c < kNumChannels; ++c) {
    for (int q = 0; q < kNumQuantities; ++q) {
      if (!Computes(mode, c, s, static_cast<Quantity>(q))) continue;
      blurred_rows_[c][q].Resize(w, BlurredRingRows(b, n));
      Plane& state = column_state_[c][q];
      state.Resize(w, 6);
      for (int k = 0; k < 6; ++k) std::fill(state.Row(k), state.Row(k) + state.stride(), 0.0f);
    }
    if (mode == Mode::kPrepare) continue;
    const std::size_t map_size = Stride(w) * map_rows;
    for (int m = 0; m < 2; ++m) {
      std::vector<double>& ssim = ssim_map_[m][c];
      std::vector<double>& edge = edge_map_[m][c];
      if (plan_.needs[s][c].ssim && ssim.size() < map_size) ssim.resize(map_size);
      if (plan_.needs[s][c].edge && edge.size() < map_size) edge.resize(map_size);
    }
  }
  const std::size_t scratch =
      static_cast<std::size_t>(ScratchSlots(mode)) * map_rows * kStripColumns;
  for (std::vector<float>& v : strip_scratch_) {
    if (v.size() < scratch) v.resize(scratch);
  }
}

void Pipeline::ConvertRows(const Band& band, int i, int y0, int y1) {
  const int s = band.scale;
  const int w = band.width;
  const int h = band.height;
  Image3& band_linear = band_linear_[band.Slot(i)];
  const Image3& scale_input = next_[band.Slot(i)][(s + 1) % 2];
  if (s == 0) {
    ToLinearRgbRows(*band.views[i], band.alpha_background, y0, y1, band.y0, &band_linear);
  }
  auto linear = [&](int c, int y) -> const float* {
    return s == 0 ? band_linear.plane[c].Row(y - band.y0) : scale_input.plane[c].Row(y);
  };
  // Every scale of an image uses the opsin matrix of its intensity target.
  float opsin[9];
  hdr::PremultipliedOpsin(IntensityTarget(band.views[i]->color), opsin);
  for (int y = y0; y < y1; ++y) {
    float* out[3];
    for (int c = 0; c < 3; ++c) out[c] = const_cast<float*>(band.Xyb(*this, i, c, y));
    k_.to_xyb_row(linear(0, y), linear(1, y), linear(2, y), w, opsin, neg_cbrt_bias_, out[0],
                  out[1], out[2]);
  }
  if (s + 1 == plan_.num_scales) return;
  // y0 is even (bands have an even number of rows, groups 8), so the
  // output rows of this group read input rows of this group only.
  Image3& next = next_[band.Slot(i)][s % 2];
  const int ow = next.width();
  for (int c = 0; c < 3; ++c) {
    for (int oy = y0 / 2; oy < CeilDiv(y1, 2); ++oy) {
      const float* r0 = linear(c, 2 * oy);
      const float* r1 = linear(c, std::min(2 * oy + 1, h - 1));
      float* out = next.plane[c].Row(oy);
      for (int ox = 0; ox < ow; ++ox) {
        const int x0 = 2 * ox;
        const int x1 = std::min(2 * ox + 1, w - 1);
        out[ox] = arith::Downsample4(r0[x0], r0[x1], r1[x0], r1[x1]);
      }
    }
  }
}

void Pipeline::BlurRows(const Band& band, int c, Quantity q, int y0, int y1) {
  const float* a[kRowGroup];
  const float* b[kRowGroup];
  float* out[kRowGroup];
  const int first = q == kMu1 || q == kSigma11 || q == kSigma12 ? 0 : 1;
  const int second = q == kSigma11 ? 0 : 1;
  const bool product = q == kSigma11 || q == kSigma22 || q == kSigma12;
  for (int y = y0; y < y1; ++y) {
    a[y - y0] = band.Xyb(*this, first, c, y);
    b[y - y0] = product ? band.Xyb(*this, second, c, y) : nullptr;
    out[y - y0] = blurred_rows_[c][q].Row(y % band.blurred_rows);
  }
  k_.blur_row_list(blur_, a, product ? b : nullptr, y1 - y0, band.width, out);
}

void Pipeline::BlurStrip(const Band& band, int c, int x0, int x1) {
  const int s = band.scale;
  float* scratch = strip_scratch_.empty() ? nullptr
                                          : strip_scratch_[pool_ ? pool_->ThreadIndex() : 0].data();
  auto scratch_ring = [&](int q) {
    const std::size_t slot = ScratchSlot(band.mode, static_cast<Quantity>(q));
    return RowRing{scratch + slot * band.map_rows * kStripColumns, kStripColumns, band.map_rows};
  };
  ScaleReference* cached = band.cache ? &band.cache->scales[s] : nullptr;
  auto cached_strip = [&](const Image3& planes) {
    return StripOf(planes.plane[c], band.height, x0);
  };
  for (int qi = 0; qi < kNumQuantities; ++qi) {
    const Quantity q = static_cast<Quantity>(qi);
    if (!Computes(band.mode, c, s, q)) continue;
    ColumnStream cs;
    cs.in = Ring(blurred_rows_[c][q], band.blurred_rows);
    if (band.mode == Mode::kPrepare && plan_.needs[s][c].ssim) {
      cs.out = cached_strip(q == kMu1 ? cached->mu : cached->sigma);
      cs.out_first_column = x0;
    } else {
      cs.out = scratch_ring(q);
      cs.out_first_column = x0;
    }
    cs.state = column_state_[c][q].Row(0);
    cs.state_stride = column_state_[c][q].stride();
    cs.height = band.height;
    k_.blur_columns_stream(blur_, cs, band.n0, band.n1, x0, x1);
  }
  const ChannelNeeds& needs = plan_.needs[s][c];
  if (band.mode == Mode::kPrepare) {
    if (needs.ssim) return;
    // The edge maps read the reference only as |xyb - mu|.
    const RowRing difference = cached_strip(cached->difference);
    for (int n = band.first_output(); n < band.n1; ++n) {
      const float* xyb = band.Xyb(*this, 0, c, n) + x0;
      const float* mu = scratch_ring(kMu1).Row(n);
      float* out = difference.Row(n);
      for (int x = 0; x < x1 - x0; ++x) out[x] = std::fabs(xyb[x] - mu[x]);
    }
    return;
  }

  const bool from_cache = band.mode == Mode::kCached;
  // With |xyb - mu| in the cache, a zero mu makes the edge kernel read it as is.
  const bool cached_difference = from_cache && !needs.ssim;
  const int width = x1 - x0;
  // A strip reads a few cache lines per row of the cached XYB plane, one
  // page apart, which the hardware prefetchers do not follow: ask for them
  // ahead. (The planes in strips are contiguous runs.)
  const bool cached_xyb = from_cache && needs.ssim && needs.edge;
  auto prefetch_cached = [&](int n) {
    if (!cached_xyb || n >= band.n1) return;
    const char* row = reinterpret_cast<const char*>(cached->xyb.plane[c].Row(n) + x0);
    for (int line = 0; line < width * 4; line += 64) __builtin_prefetch(row + line);
  };
  constexpr int kPrefetchRows = 6;
  for (int n = band.first_output(); n < band.first_output() + kPrefetchRows; ++n) {
    prefetch_cached(n);
  }
  for (int n = band.first_output(); n < band.n1; ++n) {
    prefetch_cached(n + kPrefetchRows);
    const float* mu1 = cached_difference ? zeros_.data()
                       : from_cache      ? cached_strip(cached->mu).Row(n)
                                         : scratch_ring(kMu1).Row(n);
    const float* mu2 = scratch_ring(kMu2).Row(n);
    const std::size_t map_offset = band.map_stride * (n - band.first_output()) + x0;
    if (needs.ssim) {
      const float* s11 =
          from_cache ? cached_strip(cached->sigma).Row(n) : scratch_ring(kSigma11).Row(n);
      k_.ssim_row(mu1, mu2, s11, scratch_ring(kSigma22).Row(n), scratch_ring(kSigma12).Row(n),
                  width, ssim_map_[band.map_buffer][c].data() + map_offset);
    }
    if (needs.edge) {
      const float* xyb1 = cached_difference ? cached_strip(cached->difference).Row(n)
                                            : band.Xyb(*this, 0, c, n) + x0;
      k_.edge_row(xyb1, mu1, band.Xyb(*this, 1, c, n) + x0, mu2, width,
                  edge_map_[band.map_buffer][c].data() + map_offset);
    }
  }
}

// std::max(v, 0.0) without a branch (the sign of the edge map is noise, so
// a branch mispredicts half the time): maxsd returns its second operand
// unless the first is greater, which keeps -0.0 and NaN as std::max does.
inline double NonNegative(double v) {
#if defined(__SSE2__)
  return _mm_cvtsd_f64(_mm_max_sd(_mm_setzero_pd(), _mm_set_sd(v)));
#else
  return std::max(v, 0.0);
#endif
}

namespace {

// `rows` rows of the maps into the six running sums s[], pixel after pixel;
// one loop body whatever maps the channel has (the flags are compile-time so
// that each variant keeps only its own chains of adds).
template <bool kSsim, bool kEdge>
void SumMapRows(const double* ssim_rows, const double* edge_rows, std::ptrdiff_t stride, int rows,
                int w, double s[kNumMapSums]) {
  double s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], s4 = s[4], s5 = s[5];
  for (int r = 0; r < rows; ++r) {
    const double* ssim = kSsim ? ssim_rows + stride * r : nullptr;
    const double* edge = kEdge ? edge_rows + stride * r : nullptr;
    for (int x = 0; x < w; ++x) {
      if constexpr (kSsim) {
        s0 += ssim[x];
        s1 += arith::ToThe4th(ssim[x]);
      }
      if constexpr (kEdge) {
        const double a = NonNegative(edge[x]);
        const double d = NonNegative(-edge[x]);
        s2 += a;
        s3 += arith::ToThe4th(a);
        s4 += d;
        s5 += arith::ToThe4th(d);
      }
    }
  }
  const double out[kNumMapSums] = {s0, s1, s2, s3, s4, s5};
  std::copy(out, out + kNumMapSums, s);
}

}  // namespace

// The reference's sums, one pixel after the other in row-major order; the
// SSIM and edge series are independent and interleave freely. This is the
// sequential part of the pipeline: the sums live in registers, so each
// series costs one floating-point add latency per pixel.
void Pipeline::SumRows(const Band& band, int c) {
  const ChannelNeeds& needs = plan_.needs[band.scale][c];
  const int rows = band.n1 - band.first_output();
  // A map this channel does not need was never allocated: its data() is
  // null, and even an offset from null is undefined, so it gets none.
  const double* ssim = needs.ssim ? ssim_map_[band.map_buffer][c].data() : nullptr;
  const double* edge = needs.edge ? edge_map_[band.map_buffer][c].data() : nullptr;
  const std::ptrdiff_t stride = band.map_stride;
  if (needs.ssim && needs.edge) {
    SumMapRows<true, true>(ssim, edge, stride, rows, band.width, sums_[c]);
  } else if (needs.ssim) {
    SumMapRows<true, false>(ssim, edge, stride, rows, band.width, sums_[c]);
  } else if (needs.edge) {
    SumMapRows<false, true>(ssim, edge, stride, rows, band.width, sums_[c]);
  }
}

void Pipeline::RunScale(int s, Mode mode, const ImageView* const views[2],
                        float alpha_background, ReferenceCache* cache, Result* result) {
  Allocate(s, mode);
  const int w = plan_.scales[s].width;
  const int h = plan_.scales[s].height;
  const int radius = blur_.radius;
  const bool maps = mode != Mode::kPrepare;
  if (mode == Mode::kPrepare) {
    ScaleReference& ref = cache->scales[s];
    for (int c = 0; c < kNumChannels; ++c) {
      // A plane a channel does not need is never allocated (the plan is
      // the scorer's, the same for every reference).
      const ChannelNeeds& needs = plan_.needs[s][c];
      if (needs.ssim) {
        ref.xyb.plane[c].Resize(w, h);
        ResizeStrips(w, h, &ref.mu.plane[c]);
        ResizeStrips(w, h, &ref.sigma.plane[c]);
      } else if (needs.edge) {
        ResizeStrips(w, h, &ref.difference.plane[c]);
      }
    }
  }

  std::vector<int> images, channels;
  for (int i = 0; i < 2; ++i) {
    if ((i == 0 && mode != Mode::kCached) || (i == 1 && mode != Mode::kPrepare)) {
      images.push_back(i);
    }
  }
  std::vector<std::pair<int, Quantity>> blurred;
  for (int c = 0; c < kNumChannels; ++c) {
    if (!plan_.needs[s][c].any()) continue;
    channels.push_back(c);
    for (int q = 0; q < kNumQuantities; ++q) {
      const Quantity quantity = static_cast<Quantity>(q);
      if (Computes(mode, c, s, quantity)) blurred.emplace_back(c, quantity);
    }
  }
  for (double (&sum)[kNumMapSums] : sums_) std::fill(sum, sum + kNumMapSums, 0.0);

  Band first{};
  first.scale = s;
  first.mode = mode;
  first.views = views;
  first.alpha_background = alpha_background;
  first.cache = cache;
  first.width = w;
  first.height = h;
  first.xyb_rows = XybRingRows(band_rows_, radius);
  first.blurred_rows = BlurredRingRows(band_rows_, radius);
  first.map_rows = band_rows_ + radius;
  first.map_stride = Stride(w);
  // Band t: input rows [t * band_rows_, ...), and the output rows of the
  // vertical pass that they complete (row n reads input rows up to
  // n + radius - 1).
  const int bands = CeilDiv(h, band_rows_);
  std::vector<Band> all(bands, first);
  for (int t = 0; t < bands; ++t) {
    Band& band = all[t];
    band.y0 = t * band_rows_;
    band.y1 = std::min(h, band.y0 + band_rows_);
    band.n0 = t == 0 ? 1 - radius : all[t - 1].n1;
    band.n1 = band.y1 == h ? h : band.y1 - radius + 1;
    band.map_buffer = t % 2;
  }

  const int strips = CeilDiv(w, kStripColumns);
  const int num_channels = static_cast<int>(channels.size());
  const int num_images = static_cast<int>(images.size());
  const int num_blurred = static_cast<int>(blurred.size());
  auto groups_of = [&](const Band& band) { return CeilDiv(band.y1 - band.y0, kRowGroup); };
  auto group_rows = [&](const Band& band, int g, int* ya, int* yb) {
    *ya = band.y0 + g * kRowGroup;
    *yb = std::min(band.y1, *ya + kRowGroup);
  };
  // One round per band: round k sums band k-3 (first: those are the long
  // sequential tasks), converts band k, runs the horizontal pass of band k-1
  // and the vertical pass and maps of band k-2. Each stage of a band depends
  // only on earlier rounds.
  auto in_range = [&](int t) { return t >= 0 && t < bands; };
  for (int k = 0; k < bands + (maps ? 3 : 2); ++k) {
    const int sum_tasks = maps && in_range(k - 3) ? num_channels : 0;
    const int convert_tasks = in_range(k) ? groups_of(all[k]) * num_images : 0;
    const int row_tasks = in_range(k - 1) ? groups_of(all[k - 1]) * num_blurred : 0;
    const int strip_tasks = in_range(k - 2) ? num_channels * strips : 0;
    ParallelFor(pool_, sum_tasks + convert_tasks + row_tasks + strip_tasks, [&](int task) {
      if (task < sum_tasks) {
        SumRows(all[k - 3], channels[task]);
        return;
      }
      task -= sum_tasks;
      int ya, yb;
      if (task < convert_tasks) {
        const int groups = groups_of(all[k]);
        group_rows(all[k], task % groups, &ya, &yb);
        ConvertRows(all[k], images[task / groups], ya, yb);
        return;
      }
      task -= convert_tasks;
      if (task < row_tasks) {
        const int groups = groups_of(all[k - 1]);
        group_rows(all[k - 1], task % groups, &ya, &yb);
        const auto& [c, q] = blurred[task / groups];
        BlurRows(all[k - 1], c, q, ya, yb);
        return;
      }
      task -= row_tasks;
      const int x0 = (task % strips) * kStripColumns;
      BlurStrip(all[k - 2], channels[task / strips], x0, std::min(w, x0 + kStripColumns));
    });
  }
  if (!maps) return;
  for (int c : channels) {
    FeaturesFromSums(sums_[c], ScaleSize{w, h}, plan_.needs[s][c], result->features[s][c]);
  }
}

void Pipeline::Score(const ImageView& reference, const ImageView& distorted,
                     float alpha_background, Result* result) {
  *result = Result();
  result->num_scales = plan_.num_scales;
  const ImageView* views[2] = {&reference, &distorted};
  for (int s = 0; s < plan_.num_scales; ++s) {
    RunScale(s, Mode::kPair, views, alpha_background, nullptr, result);
  }
  MarkSkippedFeatures(plan_, result);
  result->score = ScoreFromFeatures(*result);
}

void Pipeline::PrepareReference(const ImageView& reference, float alpha_background,
                                ReferenceCache* cache) {
  cache->scales.resize(plan_.num_scales);
  const ImageView* views[2] = {&reference, nullptr};
  for (int s = 0; s < plan_.num_scales; ++s) {
    RunScale(s, Mode::kPrepare, views, alpha_background, cache, nullptr);
  }
}

void Pipeline::ScoreCached(const ReferenceCache& reference, const ImageView& distorted,
                           float alpha_background, Result* result) {
  *result = Result();
  result->num_scales = plan_.num_scales;
  const ImageView* views[2] = {nullptr, &distorted};
  // The cache is only read in this mode.
  ReferenceCache* cache = const_cast<ReferenceCache*>(&reference);
  for (int s = 0; s < plan_.num_scales; ++s) {
    RunScale(s, Mode::kCached, views, alpha_background, cache, result);
  }
  MarkSkippedFeatures(plan_, result);
  result->score = ScoreFromFeatures(*result);
}

}  // namespace cpu
}  // namespace ssim2
