#include "cuda/layout.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "arith.h"
#include "constants.h"

namespace ssim2 {
namespace cuda {
namespace {

std::size_t AlignUp(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

}  // namespace

BlurParams MakeBlurParams(const BlurConstants& c) {
  BlurParams p;
  for (int k = 0; k < 3; ++k) {
    p.n2[k] = c.n2[k];
    p.neg_d1[k] = -c.d1[k];
    for (int j = 0; j < 4; ++j) {
      p.mul_in[k][j] = c.mul_in[k][j];
      p.mul_prev[k][j] = c.mul_prev[k][j];
      p.mul_prev2[k][j] = c.mul_prev2[k][j];
    }
  }
  return p;
}

std::size_t Layout::TempPlane(int scale, int channel, int map) const {
  return temp_plane[scale][channel][map];
}

std::size_t Layout::UploadBytes() const { return (temp_bytes / 2) / kRegionAlign * kRegionAlign; }

std::size_t Layout::UploadOffset(int image) const {
  return temp + (image == 0 ? 0 : UploadBytes());
}

namespace {

int SumChunks(const ScaleGeom& g) {
  const long long terms = static_cast<long long>(g.width) * g.height;
  return static_cast<int>((terms + kSumChunkTerms - 1) / kSumChunkTerms);
}

}  // namespace

std::size_t SumScratchBytes(int total_chunks, int total_groups) {
  const std::size_t chunks = static_cast<std::size_t>(total_chunks);
  const std::size_t groups = static_cast<std::size_t>(total_groups);
  return kNumSums * (chunks + groups) * (sizeof(double) + sizeof(seqsum::Summary));
}

void PlaceSumScratch(char* scratch, SumParams* p) {
  static_assert(sizeof(seqsum::Summary) % 8 == 0, "8-byte aligned scratch arrays");
  const std::size_t chunks = static_cast<std::size_t>(p->total_chunks);
  const std::size_t groups = static_cast<std::size_t>(p->total_groups);
  p->chunk_sums = reinterpret_cast<double*>(scratch);
  scratch += kNumSums * chunks * sizeof(double);
  p->group_sums = reinterpret_cast<double*>(scratch);
  scratch += kNumSums * groups * sizeof(double);
  p->chunk_summaries = reinterpret_cast<seqsum::Summary*>(scratch);
  scratch += kNumSums * chunks * sizeof(seqsum::Summary);
  p->group_summaries = reinterpret_cast<seqsum::Summary*>(scratch);
}

Layout MakeLayout(int width, int height, bool all_features, int result_slots,
                  bool with_cache) {
  Layout l;
  l.plan = MakePlan(width, height, all_features);
  l.has_cache = with_cache;
  const int scales = l.plan.num_scales;
  for (int s = 0; s < scales; ++s) {
    ScaleGeom& g = l.geom[s];
    g.width = l.plan.scales[s].width;
    g.height = l.plan.scales[s].height;
    g.pitch = static_cast<int>(AlignUp(static_cast<std::size_t>(g.width), kPitchAlign));
    g.plane_bytes = static_cast<std::size_t>(g.pitch) * g.height * sizeof(float);
  }
  std::size_t off = 0;
  auto take = [&](std::size_t bytes) {
    const std::size_t at = off;
    off = AlignUp(off + bytes, kRegionAlign);
    return at;
  };
  for (int i = 0; i < 2; ++i) {
    for (int s = 0; s < scales; ++s) l.xyb[i][s] = take(3 * l.geom[s].plane_bytes);
  }
  for (int s = 0; s < kMaxScales; ++s) l.mu1[s] = l.s11[s] = Layout::kNoPlane;
  for (int s = 0; s < scales && with_cache; ++s) {
    l.mu1[s] = take(3 * l.geom[s].plane_bytes);
    l.s11[s] = take(3 * l.geom[s].plane_bytes);
  }
  for (int i = 0; i < 2; ++i) {
    for (int s = 1; s < scales; ++s) l.lin[i][s] = take(3 * l.geom[s].plane_bytes);
  }
  // Horizontal-pass planes: every map a (scale, channel) needs (5 for the
  // SSIM map, mu1 and mu2 for the edge maps only), all scales at once.
  std::size_t temp_used = 0;
  for (int s = 0; s < kMaxScales; ++s)
    for (int c = 0; c < kNumChannels; ++c)
      for (int m = 0; m < kNumMapSlots; ++m) l.temp_plane[s][c][m] = Layout::kNoPlane;
  std::size_t temp_rel[kMaxScales][kNumChannels][kNumMapSlots];
  for (int s = 0; s < scales; ++s) {
    for (int c = 0; c < kNumChannels; ++c) {
      const ChannelNeeds& n = l.plan.needs[s][c];
      const int maps = n.ssim ? kNumMapSlots : (n.edge ? 2 : 0);  // mu1, mu2 first
      for (int m = 0; m < maps; ++m) {
        temp_rel[s][c][m] = temp_used;
        temp_used += l.geom[s].plane_bytes;
      }
      for (int m = maps; m < kNumMapSlots; ++m) temp_rel[s][c][m] = Layout::kNoPlane;
    }
  }
  // Host uploads of both images (at most three 16-byte-aligned float planes
  // each) share temp: it is free until the horizontal pass.
  const std::size_t upload = 3 * AlignUp(static_cast<std::size_t>(width) * 4, 16) * height;
  l.temp_bytes = std::max(temp_used, 2 * AlignUp(upload, kRegionAlign));
  l.temp = take(l.temp_bytes);
  for (int s = 0; s < scales; ++s)
    for (int c = 0; c < kNumChannels; ++c)
      for (int m = 0; m < kNumMapSlots; ++m)
        if (temp_rel[s][c][m] != Layout::kNoPlane) l.temp_plane[s][c][m] = l.temp + temp_rel[s][c][m];
  // Alpha formats have at most 8 bytes per pixel (RGBA16); rows 16-byte
  // aligned. They live in the cache region (mu1 then s11 of all scales).
  l.raw_ref_bytes = with_cache ? AlignUp(static_cast<std::size_t>(width) * 8, 16) * height : 0;
  l.raw_ref = l.mu1[0];
  for (int s = 0; s < scales; ++s) {
    for (int c = 0; c < kNumChannels; ++c) {
      if (!l.plan.needs[s][c].any()) continue;
      const int chunks = SumChunks(l.geom[s]);
      l.sum_chunks += chunks;
      l.sum_groups += (chunks + kSumGroupChunks - 1) / kSumGroupChunks;
    }
  }
  l.sum_scratch_bytes = SumScratchBytes(l.sum_chunks, l.sum_groups);
  l.sum_scratch = take(l.sum_scratch_bytes);
  l.num_result_slots = result_slots;
  l.sums = take(static_cast<std::size_t>(result_slots) * kSumsPerResult * sizeof(double));
  // Upper bound of the job tables: every (mode, group) with all jobs.
  const std::size_t h_max = kMaxScales * kNumChannels * kNumMapSlots;
  const std::size_t v_max = kMaxScales * kNumChannels;
  l.jobs_bytes = kNumPassModes * kNumGroups *
                     (AlignUp(h_max * sizeof(HJob), 64) + AlignUp(v_max * sizeof(VJob), 64)) +
                 kSrgb8Entries * sizeof(float);
  l.jobs = take(l.jobs_bytes);
  l.total_bytes = off;
  return l;
}

void FillSrgb8Table(float* table) {
  const float mul = static_cast<float>(1.0 / 255);  // InputDesc::mul of 8-bit samples
  for (int v = 0; v < kSrgb8Entries; ++v) {
    table[v] = arith::SrgbToLinear(mul * static_cast<float>(v));
  }
}

LaunchTables MakeTables(const Layout& l, char* base, char* cache_base, const Layout* cache_layout) {
  LaunchTables t;
  const MetricPlan& plan = l.plan;
  auto f = [&](std::size_t off) { return reinterpret_cast<float*>(base + off); };
  if (!cache_base) cache_base = base;
  if (!cache_layout) cache_layout = &l;
  for (int mode_i = 0; mode_i < kNumPassModes; ++mode_i) {
    const PassMode mode = static_cast<PassMode>(mode_i);
    // A lane never prepares a reference: it has no cache to write.
    if (mode == PassMode::kRef && !l.has_cache) continue;
    // The reference's planes: only the kCached pass reads another
    // allocation's (kRef writes them, kFull computes them afresh).
    const bool cached = mode == PassMode::kCached;
    char* const ref_base = cached ? cache_base : base;
    const Layout& rl = cached ? *cache_layout : l;
    auto fr = [&](std::size_t off) { return reinterpret_cast<float*>(ref_base + off); };
    for (int group = 0; group < kNumGroups; ++group) {
      // A group's sums run right after its vertical pass (the next group's
      // horizontal pass may reuse temp), all groups on one scratch.
      SumParams& sums = t.sums[mode_i][group];
      std::vector<HJob>& hj = t.h[mode_i][group];
      std::vector<VJob>& vj = t.v[mode_i][group];
      int hb = 0, vb = 0;
      for (int s = 0; s < plan.num_scales; ++s) {
        if (l.Group(s) != group) continue;
        const ScaleGeom& g = l.geom[s];
        const int row_blocks = (g.height + kHBlockThreads - 1) / kHBlockThreads;
        const int col_blocks = (g.width + kVColumns - 1) / kVColumns;
        for (int c = 0; c < kNumChannels; ++c) {
          const ChannelNeeds& needs = plan.needs[s][c];
          if (!needs.any()) continue;
          const std::size_t cp = c * g.plane_bytes;
          float* x1 = fr(rl.xyb[0][s] + cp);
          float* x2 = f(l.xyb[1][s] + cp);
          // Only kRef and kCached use them (kFull blurs into temp).
          float* mu1 = mode == PassMode::kFull ? nullptr : fr(rl.mu1[s] + cp);
          float* s11 = mode == PassMode::kFull ? nullptr : fr(rl.s11[s] + cp);
          auto add_h = [&](const float* a, const float* b, int source, int map) {
            HJob j{};
            j.a = a;
            j.b = b;
            j.out = f(l.TempPlane(s, c, map));
            j.width = g.width;
            j.height = g.height;
            j.pitch = g.pitch;
            j.source = source;
            j.first_block = hb;
            hb += row_blocks;
            hj.push_back(j);
          };
          VJob v{};
          v.width = g.width;
          v.height = g.height;
          v.pitch = g.pitch;
          v.first_block = vb;
          v.img1 = x1;
          v.img2 = x2;
          auto blur_slot = [&](int map) {
            v.mode[map] = kSlotBlur;
            v.src[map] = f(l.TempPlane(s, c, map));
          };
          switch (mode) {
            case PassMode::kRef:
              add_h(x1, nullptr, kRowA, kMapMu1);
              blur_slot(kMapMu1);
              v.dst[kMapMu1] = mu1;
              if (needs.ssim) {
                add_h(x1, nullptr, kRowAA, kMapS11);
                blur_slot(kMapS11);
                v.dst[kMapS11] = s11;
              }
              break;
            case PassMode::kCached:
              add_h(x2, nullptr, kRowA, kMapMu2);
              blur_slot(kMapMu2);
              v.mode[kMapMu1] = kSlotLoad;
              v.src[kMapMu1] = mu1;
              if (needs.ssim) {
                add_h(x2, nullptr, kRowAA, kMapS22);
                add_h(x1, x2, kRowAB, kMapS12);
                blur_slot(kMapS22);
                blur_slot(kMapS12);
                v.mode[kMapS11] = kSlotLoad;
                v.src[kMapS11] = s11;
              }
              break;
            case PassMode::kFull:
              add_h(x1, nullptr, kRowA, kMapMu1);
              add_h(x2, nullptr, kRowA, kMapMu2);
              blur_slot(kMapMu1);
              blur_slot(kMapMu2);
              if (needs.ssim) {
                add_h(x1, nullptr, kRowAA, kMapS11);
                add_h(x2, nullptr, kRowAA, kMapS22);
                add_h(x1, x2, kRowAB, kMapS12);
                blur_slot(kMapS11);
                blur_slot(kMapS22);
                blur_slot(kMapS12);
              }
              break;
          }
          if (mode != PassMode::kRef) {
            // The vertical pass keeps the sums' inputs in temp planes it
            // has read (kernels.h, VJob); a cached pass's mu1 is the cache.
            SumJob& j = sums.jobs[sums.num_jobs++];
            j.width = g.width;
            j.height = g.height;
            j.pitch = g.pitch;
            j.ssim = needs.ssim ? 1 : 0;
            j.edge = needs.edge ? 1 : 0;
            j.img1 = x1;
            j.img2 = x2;
            if (needs.ssim) v.quotient = f(l.TempPlane(s, c, kMapS12));
            if (needs.edge) {
              v.mu1 = mode == PassMode::kFull ? f(l.TempPlane(s, c, kMapMu1)) : nullptr;
              v.mu2 = f(l.TempPlane(s, c, kMapMu2));
            }
            j.quotient = v.quotient;
            j.mu1 = v.mu1 ? v.mu1 : (needs.edge ? mu1 : nullptr);
            j.mu2 = v.mu2;
            j.first_chunk = sums.total_chunks;
            j.num_chunks = SumChunks(g);
            j.first_group = sums.total_groups;
            j.num_groups = (j.num_chunks + kSumGroupChunks - 1) / kSumGroupChunks;
            j.out_index = s * kNumChannels + c;
            sums.total_chunks += j.num_chunks;
            sums.total_groups += j.num_groups;
          }
          vb += col_blocks;
          vj.push_back(v);
        }
      }
      t.h_blocks[mode_i][group] = hb;
      t.v_blocks[mode_i][group] = vb;
      if (sums.num_jobs > 0) PlaceSumScratch(base + l.sum_scratch, &sums);
    }
  }
  // Serialise the tables in a fixed order.
  std::size_t off = 0;
  for (int m = 0; m < kNumPassModes; ++m) {
    for (int g = 0; g < kNumGroups; ++g) {
      t.h_offset[m][g] = off;
      off += AlignUp(t.h[m][g].size() * sizeof(HJob), 64);
      t.v_offset[m][g] = off;
      off += AlignUp(t.v[m][g].size() * sizeof(VJob), 64);
    }
  }
  t.srgb8_offset = off;
  t.blur = MakeBlurParams(GetBlurConstants());
  t.neg_cbrt_bias = -std::cbrt(kOpsinBias);
  off += kSrgb8Entries * sizeof(float);
  t.blob.assign(off, 0);
  {
    float table[kSrgb8Entries];
    FillSrgb8Table(table);
    std::memcpy(t.blob.data() + t.srgb8_offset, table, sizeof table);
  }
  for (int m = 0; m < kNumPassModes; ++m) {
    for (int g = 0; g < kNumGroups; ++g) {
      if (!t.h[m][g].empty()) {
        std::memcpy(t.blob.data() + t.h_offset[m][g], t.h[m][g].data(),
                    t.h[m][g].size() * sizeof(HJob));
      }
      if (!t.v[m][g].empty()) {
        std::memcpy(t.blob.data() + t.v_offset[m][g], t.v[m][g].data(),
                    t.v[m][g].size() * sizeof(VJob));
      }
    }
  }
  return t;
}

namespace {

// Where scale s of image `image` (0 reference, 1 distorted) is read and written.
PyramidStep Step(const Layout& layout, char* base, int image, int s) {
  const ScaleGeom& g = layout.geom[s];
  PyramidStep st{};
  st.xyb = reinterpret_cast<float*>(base + layout.xyb[image][s]);
  st.xyb_plane = static_cast<long long>(g.plane_bytes / sizeof(float));
  st.xyb_pitch = g.pitch;
  if (s + 1 < layout.plan.num_scales) {
    const ScaleGeom& n = layout.geom[s + 1];
    st.lin_next = reinterpret_cast<float*>(base + layout.lin[image][s + 1]);
    st.lin_next_plane = static_cast<long long>(n.plane_bytes / sizeof(float));
    st.lin_next_pitch = n.pitch;
  }
  if (s > 0) {
    st.lin_src = reinterpret_cast<const float*>(base + layout.lin[image][s]);
    st.lin_src_plane = static_cast<long long>(g.plane_bytes / sizeof(float));
    st.lin_src_pitch = g.pitch;
  }
  return st;
}

}  // namespace

PassLaunches PlanPass(const Layout& layout, const LaunchTables& tables, char* base, PassMode mode,
                      const InputDesc* ref, const InputDesc* dist, float background,
                      int result_slot) {
  PassLaunches l;
  const int m = static_cast<int>(mode);
  l.num_scales = layout.plan.num_scales;
  for (int s = 0; s < l.num_scales; ++s) {
    PrepareParams& p = l.prepare[s];
    p = PrepareParams{};
    p.width = layout.geom[s].width;
    p.height = layout.geom[s].height;
    p.from_input = s == 0 ? 1 : 0;
    p.neg_cbrt_bias = tables.neg_cbrt_bias;
    p.mul8 = static_cast<float>(1.0 / 255);
    p.srgb8 = reinterpret_cast<const float*>(base + layout.jobs + tables.srgb8_offset);
    int count = 0;
    auto add = [&](const InputDesc* in, int image) {
      if (s == 0) {
        p.inputs[count] = *in;
        p.inputs[count].background = background;
      }
      p.steps[count] = Step(layout, base, image, s);
      for (int i = 0; i < 9; ++i) p.opsin[count][i] = in->opsin[i];
      ++count;
    };
    if (mode != PassMode::kCached) add(ref, 0);
    if (mode != PassMode::kRef) add(dist, 1);
    p.count = count;
  }
  for (int g = 0; g < kNumGroups; ++g) {
    PassLaunches::Group& group = l.groups[g];
    group.h_jobs = reinterpret_cast<const HJob*>(base + layout.jobs + tables.h_offset[m][g]);
    group.h_count = static_cast<int>(tables.h[m][g].size());
    group.h_blocks = tables.h_blocks[m][g];
    group.v_jobs = reinterpret_cast<const VJob*>(base + layout.jobs + tables.v_offset[m][g]);
    group.v_count = static_cast<int>(tables.v[m][g].size());
    group.v_blocks = tables.v_blocks[m][g];
  }
  l.blur = tables.blur;
  if (mode != PassMode::kRef) {
    l.sums = reinterpret_cast<double*>(base + layout.sums) +
             static_cast<std::size_t>(result_slot) * kSumsPerResult;
    for (int g = 0; g < kNumGroups; ++g) {
      l.groups[g].sums = tables.sums[m][g];
      l.groups[g].sums.out = l.sums;
    }
  }
  return l;
}

void FinishResult(const MetricPlan& plan, const double* sums, Result* result) {
  *result = Result();
  result->num_scales = plan.num_scales;
  static_assert(kNumSums == kNumMapSums, "the kernels' sums are FeaturesFromSums' input");
  for (int s = 0; s < plan.num_scales; ++s) {
    for (int c = 0; c < kNumChannels; ++c) {
      FeaturesFromSums(sums + (s * kNumChannels + c) * kNumSums, plan.scales[s], plan.needs[s][c],
                       result->features[s][c]);
    }
  }
  MarkSkippedFeatures(plan, result);
  result->score = ScoreFromFeatures(*result);
}

}  // namespace cuda
}  // namespace ssim2
