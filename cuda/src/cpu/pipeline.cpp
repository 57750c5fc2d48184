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

std::size_t Image3Bytes(const Image3& img) {
  return img.plane[0].bytes() + img.plane[1].bytes() + img.plane[2].bytes();
}

void Norms(double sum, double sum4, double one_per_pixels, double out[2]) {
  out[0] = one_per_pixels * sum;
  out[1] = std::sqrt(std::sqrt(one_per_pixels * sum4));
}

}  // namespace

void Plane::DownsampleInPlace() {
  const int w = width_;
  const int h = height_;
  const std::size_t in_stride = stride_;
  Resize((w + 1) / 2, (h + 1) / 2);
  float* data = data_.get();
  for (int oy = 0; oy < height_; ++oy) {
    const float* r0 = data + in_stride * std::min(2 * oy, h - 1);
    const float* r1 = data + in_stride * std::min(2 * oy + 1, h - 1);
    float* out = data + stride_ * oy;
    for (int ox = 0; ox < width_; ++ox) {
      const int x0 = 2 * ox;
      const int x1 = std::min(2 * ox + 1, w - 1);
      out[ox] = arith::Downsample4(r0[x0], r0[x1], r1[x0], r1[x1]);
    }
  }
}

std::size_t ReferenceCache::bytes() const {
  std::size_t bytes = 0;
  for (const ScaleReference& s : scales) {
    bytes += Image3Bytes(s.xyb) + Image3Bytes(s.mu) + Image3Bytes(s.sigma);
  }
  return bytes;
}

Pipeline::Pipeline(const MetricPlan& plan, ThreadPool* pool, const KernelTable& kernels)
    : plan_(plan),
      pool_(pool),
      k_(kernels),
      blur_(GetBlurConstants()),
      neg_cbrt_bias_(-std::cbrt(kOpsinBias)),
      ssim_row_(plan.width),
      edge_row_(plan.width) {}

std::size_t Pipeline::memory_bytes() const {
  std::size_t bytes = Image3Bytes(xyb1_) + Image3Bytes(xyb2_);
  for (const Plane* p : {&temp_, &product_, &mu1_, &s11_, &mu2_, &s22_, &s12_}) {
    bytes += p->bytes();
  }
  return bytes + (ssim_row_.size() + edge_row_.size()) * sizeof(double);
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

void Pipeline::BlurProduct(const Plane& a, const Plane& b, Plane* out) {
  const int h = a.height();
  product_.Resize(a.width(), h);
  ParallelFor(pool_, CeilDiv(h, kRowsPerTask), [&](int task) {
    const int y0 = task * kRowsPerTask;
    k_.multiply_rows(a, b, y0, std::min(h, y0 + kRowsPerTask), &product_);
  });
  Blur(product_, out);
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
  ParallelFor(pool_, 3, [&](int c) { linear->plane[c].DownsampleInPlace(); });
}

void Pipeline::SsimSums(const Plane& mu1, const Plane& s11, double out[2]) {
  const int w = mu1.width();
  const int h = mu1.height();
  double sum = 0.0, sum4 = 0.0;
  for (int y = 0; y < h; ++y) {
    k_.ssim_row(mu1.Row(y), mu2_.Row(y), s11.Row(y), s22_.Row(y), s12_.Row(y), w,
                ssim_row_.data());
    for (int x = 0; x < w; ++x) {
      sum += ssim_row_[x];
      sum4 += arith::ToThe4th(ssim_row_[x]);
    }
  }
  Norms(sum, sum4, 1.0 / (static_cast<double>(h) * w), out);
}

void Pipeline::EdgeSums(const Plane& img1, const Plane& mu1, const Plane& img2,
                        double artifact[2], double detail_lost[2]) {
  const int w = img1.width();
  const int h = img1.height();
  double sum[4] = {0, 0, 0, 0};
  for (int y = 0; y < h; ++y) {
    k_.edge_row(img1.Row(y), mu1.Row(y), img2.Row(y), mu2_.Row(y), w, edge_row_.data());
    for (int x = 0; x < w; ++x) {
      const double a = std::max(edge_row_[x], 0.0);
      const double d = std::max(-edge_row_[x], 0.0);
      sum[0] += a;
      sum[1] += arith::ToThe4th(a);
      sum[2] += d;
      sum[3] += arith::ToThe4th(d);
    }
  }
  const double one_per_pixels = 1.0 / (static_cast<double>(h) * w);
  Norms(sum[0], sum[1], one_per_pixels, artifact);
  Norms(sum[2], sum[3], one_per_pixels, detail_lost);
}

void Pipeline::ScoreScale(int s, const Image3& xyb1, const ScaleReference* cached,
                          Result* result) {
  for (int c = 0; c < kNumChannels; ++c) {
    const ChannelNeeds& needs = plan_.needs[s][c];
    if (!needs.any()) continue;
    const Plane& img1 = xyb1.plane[c];
    const Plane& img2 = xyb2_.plane[c];
    const Plane* mu1 = &mu1_;
    const Plane* s11 = &s11_;
    if (cached) {
      mu1 = &cached->mu.plane[c];
      s11 = &cached->sigma.plane[c];
    } else {
      Blur(img1, &mu1_);
      if (needs.ssim) BlurProduct(img1, img1, &s11_);
    }
    Blur(img2, &mu2_);
    if (needs.ssim) {
      BlurProduct(img2, img2, &s22_);
      BlurProduct(img1, img2, &s12_);
    }
    // The SSIM and edge sums are independent series: one task each, each
    // summed in the reference's row-major order.
    double (&f)[kNumMaps][kNumNorms] = result->features[s][c];
    ParallelFor(pool_, 2, [&](int task) {
      if (task == 0 && needs.ssim) SsimSums(*mu1, *s11, f[0]);
      if (task == 1 && needs.edge) EdgeSums(img1, *mu1, img2, f[1], f[2]);
    });
  }
}

void Pipeline::Score(Image3* ref_linear, Image3* dist_linear, Result* result) {
  *result = Result();
  result->num_scales = plan_.num_scales;
  for (int s = 0; s < plan_.num_scales; ++s) {
    if (s > 0) {
      Downsample(ref_linear);
      Downsample(dist_linear);
    }
    ToXyb(*ref_linear, &xyb1_);
    ToXyb(*dist_linear, &xyb2_);
    ScoreScale(s, xyb1_, nullptr, result);
  }
  MarkSkippedFeatures(plan_, result);
  result->score = ScoreFromFeatures(*result);
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
      if (needs.ssim) BlurProduct(ref.xyb.plane[c], ref.xyb.plane[c], &ref.sigma.plane[c]);
    }
  }
}

void Pipeline::ScoreCached(const ReferenceCache& reference, Image3* dist_linear,
                           Result* result) {
  *result = Result();
  result->num_scales = plan_.num_scales;
  for (int s = 0; s < plan_.num_scales; ++s) {
    if (s > 0) Downsample(dist_linear);
    ToXyb(*dist_linear, &xyb2_);
    ScoreScale(s, reference.scales[s].xyb, &reference.scales[s], result);
  }
  MarkSkippedFeatures(plan_, result);
  result->score = ScoreFromFeatures(*result);
}

}  // namespace cpu
}  // namespace ssim2
