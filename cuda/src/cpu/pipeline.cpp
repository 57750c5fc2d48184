#include "cpu/pipeline.h"

#include <algorithm>
#include <cmath>

#include "arith.h"

namespace ssim2 {
namespace cpu {
namespace {

constexpr int kRowsPerTask = 32;     // multiple of the 8 rows a kernel call takes
constexpr int kColumnsPerTask = 64;  // multiple of the 8 columns of a vector

int CeilDiv(int a, int b) { return (a + b - 1) / b; }

}  // namespace

Pipeline::Pipeline(const MetricPlan& plan, ThreadPool* pool, const KernelTable& kernels)
    : plan_(plan),
      pool_(pool),
      k_(kernels),
      blur_(GetBlurConstants()),
      neg_cbrt_bias_(-std::cbrt(kOpsinBias)) {
  const int w = plan.width;
  const int h = plan.height;
  temp_.Resize(w, h);
  product_.Resize(w, h);
  xyb2_.Resize(w, h);
  mu2_.Resize(w, h);
  s22_.Resize(w, h);
  s12_.Resize(w, h);
  downsampled_.Resize((w + 1) / 2, (h + 1) / 2);
}

std::size_t Pipeline::memory_bytes() const {
  std::size_t bytes = temp_.bytes() + product_.bytes();
  for (const Image3* img : {&xyb2_, &mu2_, &s22_, &s12_, &downsampled_}) {
    for (const Plane& p : img->plane) bytes += p.bytes();
  }
  return bytes;
}

void Pipeline::Blur(const Plane& in, Plane* out) {
  const int w = in.width();
  const int h = in.height();
  temp_.Resize(w, h);
  out->Resize(w, h);
  ParallelFor(pool_, CeilDiv(h, kRowsPerTask), [&](int task) {
    const int y0 = task * kRowsPerTask;
    k_.blur_rows(blur_, in, y0, std::min(h, y0 + kRowsPerTask), &temp_);
  });
  ParallelFor(pool_, CeilDiv(w, kColumnsPerTask), [&](int task) {
    const int x0 = task * kColumnsPerTask;
    k_.blur_columns(blur_, temp_, x0, std::min(w, x0 + kColumnsPerTask), out);
  });
}

void Pipeline::Multiply(const Plane& a, const Plane& b, Plane* out) {
  const int h = a.height();
  out->Resize(a.width(), h);
  ParallelFor(pool_, CeilDiv(h, kRowsPerTask), [&](int task) {
    const int y0 = task * kRowsPerTask;
    k_.multiply_rows(a, b, y0, std::min(h, y0 + kRowsPerTask), out);
  });
}

void Pipeline::ToXyb(const Image3& linear, Image3* xyb) {
  const int h = linear.height();
  xyb->Resize(linear.width(), h);
  ParallelFor(pool_, CeilDiv(h, kRowsPerTask), [&](int task) {
    const int y0 = task * kRowsPerTask;
    k_.to_xyb_rows(linear, y0, std::min(h, y0 + kRowsPerTask), neg_cbrt_bias_, xyb);
  });
}

void Pipeline::Downsample(Image3* linear) {
  const int w = linear->width();
  const int h = linear->height();
  const int ow = (w + 1) / 2;
  const int oh = (h + 1) / 2;
  downsampled_.Resize(ow, oh);
  ParallelFor(pool_, 3 * CeilDiv(oh, kRowsPerTask), [&](int task) {
    const int c = task % 3;
    const int y0 = task / 3 * kRowsPerTask;
    const Plane& in = linear->plane[c];
    Plane& out = downsampled_.plane[c];
    for (int oy = y0; oy < std::min(oh, y0 + kRowsPerTask); ++oy) {
      const float* r0 = in.Row(std::min(2 * oy, h - 1));
      const float* r1 = in.Row(std::min(2 * oy + 1, h - 1));
      float* o = out.Row(oy);
      for (int ox = 0; ox < ow; ++ox) {
        const int x0 = 2 * ox;
        const int x1 = std::min(2 * ox + 1, w - 1);
        o[ox] = arith::Downsample4(r0[x0], r0[x1], r1[x0], r1[x1]);
      }
    }
  });
  // Swap the planes' storage so that `linear` holds the smaller scale.
  std::swap(*linear, downsampled_);
}

void Pipeline::PrepareReference(Image3* linear, ReferenceCache* cache) {
  cache->scales.resize(plan_.num_scales);
  for (int s = 0; s < plan_.num_scales; ++s) {
    if (s > 0) Downsample(linear);
    ScaleReference& ref = cache->scales[s];
    ToXyb(*linear, &ref.xyb);
    for (int c = 0; c < kNumChannels; ++c) {
      const ChannelNeeds& needs = plan_.needs[s][c];
      if (!needs.any()) continue;
      Blur(ref.xyb.plane[c], &ref.mu.plane[c]);
      if (needs.ssim) {
        Multiply(ref.xyb.plane[c], ref.xyb.plane[c], &product_);
        Blur(product_, &ref.sigma.plane[c]);
      }
    }
  }
}

void Pipeline::ChannelSums(const ScaleReference& ref, int c, const ChannelNeeds& needs,
                           double features[3][2]) {
  const Plane& img1 = ref.xyb.plane[c];
  const int w = img1.width();
  const int h = img1.height();
  const double one_per_pixels = 1.0 / (static_cast<double>(h) * w);
  std::vector<double> d(w);
  if (needs.ssim) {
    double sum[2] = {0, 0};
    for (int y = 0; y < h; ++y) {
      k_.ssim_row(ref.mu.plane[c].Row(y), mu2_.plane[c].Row(y), ref.sigma.plane[c].Row(y),
                  s22_.plane[c].Row(y), s12_.plane[c].Row(y), w, d.data());
      for (int x = 0; x < w; ++x) {
        sum[0] += d[x];
        sum[1] += arith::ToThe4th(d[x]);
      }
    }
    features[0][0] = one_per_pixels * sum[0];
    features[0][1] = std::sqrt(std::sqrt(one_per_pixels * sum[1]));
  }
  if (needs.edge) {
    double sum[4] = {0, 0, 0, 0};
    for (int y = 0; y < h; ++y) {
      k_.edge_row(img1.Row(y), ref.mu.plane[c].Row(y), xyb2_.plane[c].Row(y),
                  mu2_.plane[c].Row(y), w, d.data());
      for (int x = 0; x < w; ++x) {
        const double artifact = std::max(d[x], 0.0);
        const double detail_lost = std::max(-d[x], 0.0);
        sum[0] += artifact;
        sum[1] += arith::ToThe4th(artifact);
        sum[2] += detail_lost;
        sum[3] += arith::ToThe4th(detail_lost);
      }
    }
    features[1][0] = one_per_pixels * sum[0];
    features[1][1] = std::sqrt(std::sqrt(one_per_pixels * sum[1]));
    features[2][0] = one_per_pixels * sum[2];
    features[2][1] = std::sqrt(std::sqrt(one_per_pixels * sum[3]));
  }
}

void Pipeline::Score(const ReferenceCache& reference, Image3* dist_linear, Result* result) {
  *result = Result();
  result->num_scales = plan_.num_scales;
  for (int s = 0; s < plan_.num_scales; ++s) {
    if (s > 0) Downsample(dist_linear);
    const ScaleReference& ref = reference.scales[s];
    ToXyb(*dist_linear, &xyb2_);
    for (int c = 0; c < kNumChannels; ++c) {
      const ChannelNeeds& needs = plan_.needs[s][c];
      if (!needs.any()) continue;
      Blur(xyb2_.plane[c], &mu2_.plane[c]);
      if (needs.ssim) {
        Multiply(xyb2_.plane[c], xyb2_.plane[c], &product_);
        Blur(product_, &s22_.plane[c]);
        Multiply(ref.xyb.plane[c], xyb2_.plane[c], &product_);
        Blur(product_, &s12_.plane[c]);
      }
    }
    // One task per channel keeps each channel's sums in the reference's order.
    ParallelFor(pool_, kNumChannels, [&](int c) {
      const ChannelNeeds& needs = plan_.needs[s][c];
      if (needs.any()) ChannelSums(ref, c, needs, result->features[s][c]);
    });
  }
  MarkSkippedFeatures(plan_, result);
  result->score = ScoreFromFeatures(*result);
}

}  // namespace cpu
}  // namespace ssim2
