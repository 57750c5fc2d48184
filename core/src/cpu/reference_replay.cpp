#include "reference_replay.h"

#include <algorithm>
#include <cmath>

#include "alpha_rule.h"
#include "arith.h"
#include "convert.h"
#include "hdr_transfer.h"
#include "image_checks.h"

namespace ssim2 {
namespace replay {

void BlurRow(const BlurConstants& c, const float* in, int width, float* out) {
  const int n_radius = c.radius;
  float prev[3] = {0, 0, 0};
  float prev2[3] = {0, 0, 0};
  auto sample = [&](int i) { return i >= 0 && i < width ? in[i] : 0.0f; };
  // One output of the scalar form (lane 0 of the reference's vectors).
  auto scalar_step = [&](int n) {
    const float sum = sample(n - n_radius - 1) + sample(n + n_radius - 1);
    const float o = arith::BlurRowStep(c, sum, prev, prev2);
    if (n >= 0) out[n] = o;
  };

  int n = -n_radius + 1;
  const int first_aligned = (n_radius + 1 + 3) / 4 * 4;
  for (; n < std::min(first_aligned, width); ++n) scalar_step(n);
  // Four outputs per step from the inputs and the two previous outputs.
  for (; n < width - n_radius + 1 - 3; n += 4) {
    float in_sum[4];
    for (int j = 0; j < 4; ++j) in_sum[j] = in[n + j - n_radius - 1] + in[n + j + n_radius - 1];
    arith::BlurRowStep4(c, in_sum, prev, prev2, out + n);
  }
  for (; n < width; ++n) scalar_step(n);
}

void BlurColumns(const BlurConstants& c, const float* in, int width, int height,
                 std::size_t stride, float* out) {
  const int n_radius = c.radius;
  const float neg_d1[3] = {-c.d1[0], -c.d1[1], -c.d1[2]};
  for (int x = 0; x < width; ++x) {
    float y1[3] = {0, 0, 0};
    float y2[3] = {0, 0, 0};
    auto at = [&](int row) { return in[stride * row + x]; };
    for (int n = -n_radius + 1; n < height; ++n) {
      const int top = n - n_radius - 1;
      const int bottom = n + n_radius - 1;
      const float below = bottom < height ? at(bottom) : 0.0f;
      // Until the top row enters the window the reference loads one input;
      // afterwards it adds both (0 for a bottom row past the edge).
      const float sum = n < std::min(n_radius + 1, height) ? below : at(top) + below;
      const float y = arith::BlurColumnStep(c.n2, neg_d1, sum, y1, y2);
      if (n >= 0) out[stride * n + x] = y;
    }
  }
}

void Blur(const BlurConstants& c, const cpu::Plane& in, cpu::Plane* temp, cpu::Plane* out) {
  temp->Resize(in.width(), in.height());
  out->Resize(in.width(), in.height());
  for (int y = 0; y < in.height(); ++y) BlurRow(c, in.Row(y), in.width(), temp->Row(y));
  BlurColumns(c, temp->Row(0), in.width(), in.height(), temp->stride(), out->Row(0));
}

void ToPositiveXyb(const cpu::Image3& linear, cpu::Image3* xyb, const float* opsin) {
  const float neg_cbrt_bias = -std::cbrt(kOpsinBias);
  xyb->Resize(linear.width(), linear.height());
  for (int y = 0; y < linear.height(); ++y) {
    for (int x = 0; x < linear.width(); ++x) {
      const arith::Xyb v =
          arith::LinearToPositiveXyb(linear.plane[0].Row(y)[x], linear.plane[1].Row(y)[x],
                                     linear.plane[2].Row(y)[x], opsin, neg_cbrt_bias);
      xyb->plane[0].Row(y)[x] = v.x;
      xyb->plane[1].Row(y)[x] = v.y;
      xyb->plane[2].Row(y)[x] = v.b;
    }
  }
}

void Downsample(const cpu::Image3& in, cpu::Image3* out) {
  const int w = in.width();
  const int h = in.height();
  out->Resize((w + 1) / 2, (h + 1) / 2);
  for (int c = 0; c < 3; ++c) {
    for (int oy = 0; oy < out->height(); ++oy) {
      const float* r0 = in.plane[c].Row(std::min(2 * oy, h - 1));
      const float* r1 = in.plane[c].Row(std::min(2 * oy + 1, h - 1));
      for (int ox = 0; ox < out->width(); ++ox) {
        const int x0 = std::min(2 * ox, w - 1);
        const int x1 = std::min(2 * ox + 1, w - 1);
        out->plane[c].Row(oy)[ox] = arith::Downsample4(r0[x0], r0[x1], r1[x0], r1[x1]);
      }
    }
  }
}

void ChannelFeatures(const cpu::Plane& img1, const cpu::Plane& img2, const BlurConstants& c,
                     bool ssim, bool edge, double out[3][2]) {
  const int w = img1.width();
  const int h = img1.height();
  cpu::Plane temp, mu1, mu2, s11, s22, s12, product(w, h);
  Blur(c, img1, &temp, &mu1);
  Blur(c, img2, &temp, &mu2);
  double sum[kNumMapSums] = {};
  if (ssim) {
    auto blur_product = [&](const cpu::Plane& a, const cpu::Plane& b, cpu::Plane* dst) {
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) product.Row(y)[x] = a.Row(y)[x] * b.Row(y)[x];
      Blur(c, product, &temp, dst);
    };
    blur_product(img1, img1, &s11);
    blur_product(img2, img2, &s22);
    blur_product(img1, img2, &s12);
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const double d = arith::SsimError(mu1.Row(y)[x], mu2.Row(y)[x], s11.Row(y)[x],
                                          s22.Row(y)[x], s12.Row(y)[x]);
        sum[0] += d;
        sum[1] += arith::ToThe4th(d);
      }
    }
  }
  if (edge) {
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const double d1 =
            arith::EdgeDiff(img1.Row(y)[x], mu1.Row(y)[x], img2.Row(y)[x], mu2.Row(y)[x]);
        const double artifact = std::max(d1, 0.0);
        const double detail_lost = std::max(-d1, 0.0);
        sum[2] += artifact;
        sum[3] += arith::ToThe4th(artifact);
        sum[4] += detail_lost;
        sum[5] += arith::ToThe4th(detail_lost);
      }
    }
  }
  FeaturesFromSums(sum, ScaleSize{w, h}, ChannelNeeds{ssim, edge}, out);
}

Result ComputeLinear(const cpu::Image3& ref_linear, const cpu::Image3& dist_linear,
                     const MetricPlan& plan, const float* ref_opsin, const float* dist_opsin) {
  const BlurConstants& c = GetBlurConstants();
  Result result;
  result.num_scales = plan.num_scales;
  cpu::Image3 lin1 = ref_linear, lin2 = dist_linear, xyb1, xyb2, next;
  for (int s = 0; s < plan.num_scales; ++s) {
    if (s > 0) {
      Downsample(lin1, &next);
      std::swap(lin1, next);
      Downsample(lin2, &next);
      std::swap(lin2, next);
    }
    ToPositiveXyb(lin1, &xyb1, ref_opsin);
    ToPositiveXyb(lin2, &xyb2, dist_opsin);
    for (int ch = 0; ch < kNumChannels; ++ch) {
      const ChannelNeeds& needs = plan.needs[s][ch];
      if (!needs.any()) continue;
      double f[3][2] = {};
      ChannelFeatures(xyb1.plane[ch], xyb2.plane[ch], c, needs.ssim, needs.edge, f);
      for (int m = 0; m < 3; ++m)
        for (int n = 0; n < 2; ++n) result.features[s][ch][m][n] = f[m][n];
    }
  }
  MarkSkippedFeatures(plan, &result);
  result.score = ScoreFromFeatures(result);
  return result;
}

Status Compute(const ImageView& reference, const ImageView& distorted, bool all_features,
               Result* result) {
  if (Status s = ValidatePair(reference, distorted); !s.ok()) return s;
  const MetricPlan plan = MakePlan(reference.width, reference.height, all_features);
  float ref_opsin[9], dist_opsin[9];
  hdr::PremultipliedOpsin(IntensityTarget(reference.color), ref_opsin);
  hdr::PremultipliedOpsin(IntensityTarget(distorted.color), dist_opsin);
  auto with_background = [&](float bg, Result* out) -> Status {
    cpu::Image3 lin1, lin2;
    if (Status s = cpu::ToLinearRgb(reference, bg, &lin1, nullptr); !s.ok()) return s;
    if (Status s = cpu::ToLinearRgb(distorted, bg, &lin2, nullptr); !s.ok()) return s;
    *out = ComputeLinear(lin1, lin2, plan, ref_opsin, dist_opsin);
    return Status::Ok();
  };
  Result best;
  Status status = ForEachAlphaPass(HasAlpha(reference.format), [&](int pass, float bg) {
    Result r;
    if (Status s = with_background(bg, &r); !s.ok()) return s;
    KeepLowerScore(pass, r, &best);
    return Status::Ok();
  });
  if (status.ok()) *result = best;
  return status;
}

}  // namespace replay
}  // namespace ssim2
