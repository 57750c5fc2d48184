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

int DefaultLaneGroups(int width, int height) {
  return static_cast<long long>(width) * height >= kLaneTwoGroupsPixels ? kMaxGroups : 1;
}

std::size_t Layout::TempPlane(int scale, int channel, int map) const {
  return temp_plane[scale][channel][map];
}

bool Layout::NeedsTempPlane(const ChannelNeeds& needs, int map) const {
  if (!needs.any()) return false;
  // The edge maps need only mu1 and mu2.
  const bool edge_map = map == kMapMu1 || map == kMapMu2;
  if (!needs.ssim && !edge_map) return false;
  // A reference pass (kRef) blurs its rows in the cache's planes, so only a
  // pair pass blurs the reference's here.
  const bool reference_map = map == kMapMu1 || map == kMapS11;
  return scores_pairs() || (!reference_map && scores_against_cache());
}

Layout MakeLayout(int width, int height, const LayoutOptions& options) {
  Layout l;
  l.plan = MakePlan(width, height, options.all_features);
  l.options = options;
  // A second engine has no temp for groups to share (its passes work in the
  // cache): two would only make its passes longer.
  l.num_groups = l.is_preparer() ? 1 : std::max(1, std::min(options.groups, kMaxGroups));
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
    for (int s = 0; s < kMaxScales; ++s) l.xyb[i][s] = l.lin[i][s] = kNoPlane;
  }
  l.upload[0] = l.upload[1] = kNoPlane;
  // The images prepared here: both in a pair pass, else only the distorted
  // image (kCached). A reference pass (kRef) works in the cache slot it
  // fills (its XYB, its input and linear RGB: CacheLayout::upload, lin), so
  // a second engine, which only prepares references, has none of them here.
  const int first_image = l.scores_pairs() ? 0 : 1;
  const int last_image = l.scores_against_cache() ? 1 : 0;
  // With two scale groups the smaller scales are blurred first, so their
  // XYB is dead before scale 0's horizontal pass: it lives at the start of
  // temp (over the upload areas, which the first prepare has read before the
  // second writes there) and scale 0's horizontal planes reuse it.
  const bool small_xyb_in_temp = l.num_groups > 1 && !options.keep_linear;
  std::size_t small_xyb = 0;  // bytes at the start of temp
  std::size_t xyb_rel[2][kMaxScales] = {};
  for (int i = first_image; i <= last_image; ++i) {
    for (int s = 0; s < scales; ++s) {
      const std::size_t bytes = 3 * l.geom[s].plane_bytes;
      if (s > 0 && small_xyb_in_temp) {
        xyb_rel[i][s] = small_xyb;
        small_xyb = AlignUp(small_xyb + bytes, kRegionAlign);
      } else {
        l.xyb[i][s] = take(bytes);
      }
    }
  }
  // Horizontal-pass planes of each group in temp: the groups run one after
  // the other and reuse it; the smaller scales' after their XYB.
  std::size_t group_used[kMaxGroups] = {};
  group_used[l.Group(scales - 1)] = small_xyb;
  std::size_t temp_rel[kMaxScales][kNumChannels][kNumMapSlots];
  for (int s = 0; s < kMaxScales; ++s)
    for (int c = 0; c < kNumChannels; ++c)
      for (int m = 0; m < kNumMapSlots; ++m) temp_rel[s][c][m] = l.temp_plane[s][c][m] = kNoPlane;
  for (int s = 0; s < scales; ++s) {
    for (int c = 0; c < kNumChannels; ++c) {
      for (int m = 0; m < kNumMapSlots; ++m) {
        if (!l.NeedsTempPlane(l.plan.needs[s][c], m)) continue;
        temp_rel[s][c][m] = group_used[l.Group(s)];
        group_used[l.Group(s)] += l.geom[s].plane_bytes;
      }
    }
  }
  // Before the horizontal pass temp holds the host uploads (at most three
  // 16-byte-aligned float planes per image) and after them the linear RGB
  // of scales >= 1, which the prepares write and read.
  l.upload_bytes =
      AlignUp(3 * AlignUp(static_cast<std::size_t>(width) * 4, 16) * height, kRegionAlign);
  std::size_t early = 0;
  std::size_t upload_rel[2] = {kNoPlane, kNoPlane};
  for (int i = first_image; i <= last_image; ++i) {
    upload_rel[i] = early;
    early += l.upload_bytes;
  }
  // The linear RGB is written and read while the smaller scales' XYB is
  // written: after both it and the upload areas.
  early = std::max(early, small_xyb);
  // keep_linear (tests read it back) gives every image that is prepared
  // here, the reference of a kRef pass included, a region of its own.
  std::size_t lin_rel[2][kMaxScales] = {};  // GCC 14 cannot see that each read follows its write
  const int first_linear = options.keep_linear && l.prepares_reference() ? 0 : first_image;
  for (int i = first_linear; i <= last_image; ++i) {
    for (int s = 1; s < scales; ++s) {
      if (options.keep_linear) {
        l.lin[i][s] = take(3 * l.geom[s].plane_bytes);
      } else {
        lin_rel[i][s] = early;
        early = AlignUp(early + 3 * l.geom[s].plane_bytes, kRegionAlign);
      }
    }
  }
  l.temp_bytes = std::max(early, *std::max_element(group_used, group_used + kMaxGroups));
  l.temp = take(l.temp_bytes);
  for (int s = 0; s < scales; ++s)
    for (int c = 0; c < kNumChannels; ++c)
      for (int m = 0; m < kNumMapSlots; ++m)
        if (temp_rel[s][c][m] != kNoPlane) l.temp_plane[s][c][m] = l.temp + temp_rel[s][c][m];
  if (small_xyb_in_temp) {
    for (int i = first_image; i <= last_image; ++i)
      for (int s = 1; s < scales; ++s) l.xyb[i][s] = l.temp + xyb_rel[i][s];
  }
  for (int i = first_image; i <= last_image; ++i) {
    l.upload[i] = l.temp + upload_rel[i];
    if (!options.keep_linear) {
      for (int s = 1; s < scales; ++s) l.lin[i][s] = l.temp + lin_rel[i][s];
    }
  }
  int partials = 0;
  for (int s = 0; s < scales; ++s) {
    partials += kNumChannels * ((l.geom[s].width + kVColumns - 1) / kVColumns);
  }
  l.max_partials = partials;
  l.partials = take(static_cast<std::size_t>(partials) * kNumSums * sizeof(double));
  for (int s = 0; s < kMaxScales; ++s)
    for (int c = 0; c < kNumChannels; ++c) l.terms[s][c][0] = l.terms[s][c][1] = kNoPlane;
  if (options.sequential_sums && l.scores_against_cache()) {
    for (int s = 0; s < scales; ++s) {
      const std::size_t n = static_cast<std::size_t>(l.geom[s].width) * l.geom[s].height;
      const int chunks = static_cast<int>((n + kSeqChunkTerms - 1) / kSeqChunkTerms);
      for (int c = 0; c < kNumChannels; ++c) {
        const ChannelNeeds& needs = l.plan.needs[s][c];
        for (int kind = 0; kind < 2; ++kind) {
          if (!(kind == 0 ? needs.ssim : needs.edge)) continue;
          l.terms[s][c][kind] = take(n * sizeof(double));
          l.seq_chunks += chunks;
        }
      }
    }
    const std::size_t slots = static_cast<std::size_t>(l.seq_chunks) * kSeqSeriesSlots;
    l.seq_approx = take(slots * sizeof(double));
    l.seq_chunk_step = take(slots * sizeof(seqsum::Step));
    l.seq_leaf_step = take(slots * kSeqChunkLeaves * kSeqLeafSteps * sizeof(seqsum::Step));
    l.seq_leaf_grid = take(slots * kSeqChunkLeaves * sizeof(int));
  }
  l.num_result_slots = options.result_slots;
  l.sums = take(static_cast<std::size_t>(options.result_slots) * kSumsPerResult * sizeof(double));
  // Upper bound of the job tables: every mode with all jobs, split over the
  // groups (each group's tables 64-byte aligned).
  const std::size_t h_max = kMaxScales * kNumChannels * kNumMapSlots;
  const std::size_t v_max = kMaxScales * kNumChannels;
  l.jobs_slot_bytes = AlignUp(
      kNumPassModes * (AlignUp(h_max * sizeof(HJob), 64) + AlignUp(v_max * sizeof(VJob), 64) +
                       2 * 64 * (kMaxGroups - 1)) +
          kSrgb8Entries * sizeof(float),
      64);
  l.jobs_bytes = kCacheSlots * l.jobs_slot_bytes;
  l.jobs = take(l.jobs_bytes);
  l.total_bytes = off;

  // The reference cache: the pyramid, then mu1 and sigma11 of the
  // (scale, channel)s whose error maps need them.
  CacheLayout& cache = l.cache;
  off = 0;
  for (int s = 0; s < kMaxScales; ++s)
    for (int c = 0; c < kNumChannels; ++c) cache.mu1[s][c] = cache.s11[s][c] = kNoPlane;
  for (int s = 0; s < scales; ++s) cache.xyb[s] = take(3 * l.geom[s].plane_bytes);
  const std::size_t blurred_planes = off;  // mu1 and sigma11 from here on
  for (int s = 0; s < scales; ++s) {
    for (int c = 0; c < kNumChannels; ++c) {
      const ChannelNeeds& n = l.plan.needs[s][c];
      if (n.any()) cache.mu1[s][c] = take(l.geom[s].plane_bytes);
      if (n.ssim) cache.s11[s][c] = take(l.geom[s].plane_bytes);
    }
  }
  // A reference pass stages its input (a host upload) and the linear RGB of
  // scales >= 1 over the mu1 and sigma11 planes: the prepares read them
  // before the horizontal pass writes the first row there.
  std::size_t staging = blurred_planes;
  for (int s = 0; s < kMaxScales; ++s) cache.lin[s] = kNoPlane;
  cache.upload = staging;
  staging = AlignUp(staging + l.upload_bytes, kRegionAlign);
  for (int s = 1; s < scales; ++s) {
    cache.lin[s] = staging;
    staging = AlignUp(staging + 3 * l.geom[s].plane_bytes, kRegionAlign);
  }
  // Alpha formats have at most 8 bytes per pixel (RGBA16); rows 16-byte
  // aligned.
  cache.raw_ref = 0;
  cache.raw_ref_bytes = AlignUp(static_cast<std::size_t>(width) * 8, 16) * height;
  cache.total_bytes = std::max({off, staging, AlignUp(cache.raw_ref_bytes, kRegionAlign)});
  return l;
}

void FillSrgb8Table(float* table) {
  const float mul = static_cast<float>(1.0 / 255);  // InputDesc::mul of 8-bit samples
  for (int v = 0; v < kSrgb8Entries; ++v) {
    table[v] = arith::SrgbToLinear(mul * static_cast<float>(v));
  }
}

LaunchTables MakeTables(const Layout& l, char* base, char* cache_base, int slot) {
  LaunchTables t;
  t.jobs = l.jobs + static_cast<std::size_t>(slot) * l.jobs_slot_bytes;
  const MetricPlan& plan = l.plan;
  const CacheLayout& cache = l.cache;
  auto f = [&](std::size_t off) { return reinterpret_cast<float*>(base + off); };
  auto fc = [&](std::size_t off) {
    return off == kNoPlane ? nullptr : reinterpret_cast<float*>(cache_base + off);
  };
  for (int mode_i = 0; mode_i < kNumPassModes; ++mode_i) {
    const PassMode mode = static_cast<PassMode>(mode_i);
    // The reference's planes: kRef writes the cache and kCached reads it;
    // kFull computes them afresh in xyb[0], which only a pair-scoring
    // engine has, and a lane never prepares a reference.
    if (mode != PassMode::kFull && !cache_base) continue;
    if (mode == PassMode::kFull && !l.scores_pairs()) continue;
    if (mode == PassMode::kRef && !l.prepares_reference()) continue;
    if (mode == PassMode::kCached && !l.scores_against_cache()) continue;
    int reduce_jobs = 0;
    int partial_cursor = 0;
    for (int group = 0; group < l.num_groups; ++group) {
      std::vector<HJob>& hj = t.h[mode_i][group];
      std::vector<VJob>& vj = t.v[mode_i][group];
      int hb = 0, vb = 0;
      t.partial_base[mode_i][group] = partial_cursor;
      for (int s = 0; s < plan.num_scales; ++s) {
        if (l.Group(s) != group) continue;
        const ScaleGeom& g = l.geom[s];
        const int row_blocks = (g.height + kHBlockThreads - 1) / kHBlockThreads;
        const int col_blocks = (g.width + kVColumns - 1) / kVColumns;
        for (int c = 0; c < kNumChannels; ++c) {
          const ChannelNeeds& needs = plan.needs[s][c];
          if (!needs.any()) continue;
          const std::size_t cp = c * g.plane_bytes;
          const bool full = mode == PassMode::kFull;
          float* x1 = full ? f(l.xyb[0][s] + cp) : fc(cache.xyb[s] + cp);
          float* x2 = f(l.xyb[1][s] + cp);
          // Only kRef and kCached use them (kFull blurs into temp).
          float* mu1 = full ? nullptr : fc(cache.mu1[s][c]);
          float* s11 = full ? nullptr : fc(cache.s11[s][c]);
          auto add_h = [&](const float* a, const float* b, int source, float* out) {
            HJob j{};
            j.a = a;
            j.b = b;
            j.out = out;
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
          auto rows = [&](int map) { return f(l.TempPlane(s, c, map)); };
          auto blur_slot = [&](int map, const float* src) {
            v.mode[map] = kSlotBlur;
            v.src[map] = src;
          };
          switch (mode) {
            case PassMode::kRef:
              // In place, in the cache: the vertical pass's thread of a
              // column reads each of its rows before it writes that row.
              add_h(x1, nullptr, kRowA, mu1);
              blur_slot(kMapMu1, mu1);
              v.dst[kMapMu1] = mu1;
              if (needs.ssim) {
                add_h(x1, nullptr, kRowAA, s11);
                blur_slot(kMapS11, s11);
                v.dst[kMapS11] = s11;
              }
              break;
            case PassMode::kCached:
              add_h(x2, nullptr, kRowA, rows(kMapMu2));
              blur_slot(kMapMu2, rows(kMapMu2));
              v.mode[kMapMu1] = kSlotLoad;
              v.src[kMapMu1] = mu1;
              if (needs.ssim) {
                add_h(x2, nullptr, kRowAA, rows(kMapS22));
                add_h(x1, x2, kRowAB, rows(kMapS12));
                blur_slot(kMapS22, rows(kMapS22));
                blur_slot(kMapS12, rows(kMapS12));
                v.mode[kMapS11] = kSlotLoad;
                v.src[kMapS11] = s11;
              }
              break;
            case PassMode::kFull:
              add_h(x1, nullptr, kRowA, rows(kMapMu1));
              add_h(x2, nullptr, kRowA, rows(kMapMu2));
              blur_slot(kMapMu1, rows(kMapMu1));
              blur_slot(kMapMu2, rows(kMapMu2));
              if (needs.ssim) {
                add_h(x1, nullptr, kRowAA, rows(kMapS11));
                add_h(x2, nullptr, kRowAA, rows(kMapS22));
                add_h(x1, x2, kRowAB, rows(kMapS12));
                blur_slot(kMapS11, rows(kMapS11));
                blur_slot(kMapS22, rows(kMapS22));
                blur_slot(kMapS12, rows(kMapS12));
              }
              break;
          }
          if (mode != PassMode::kRef) {
            v.ssim = needs.ssim ? 1 : 0;
            v.edge = needs.edge ? 1 : 0;
            ReduceJob& r = t.reduce[mode_i].jobs[reduce_jobs++];
            r.first_partial = partial_cursor + vb;
            r.num_partials = col_blocks;
            r.out_index = s * kNumChannels + c;
            if (l.sequential_sums()) {
              auto terms = [&](int kind) {
                const std::size_t off = l.terms[s][c][kind];
                return off == kNoPlane ? nullptr : reinterpret_cast<double*>(base + off);
              };
              v.terms_ssim = terms(0);
              v.terms_edge = terms(1);
              for (int kind = 0; kind < 2; ++kind) {
                if (!terms(kind)) continue;
                SeqParams& sp = t.seq[mode_i];
                SeqJob& sj = sp.jobs[sp.num_jobs++];
                sj.terms = terms(kind);
                sj.n = static_cast<long long>(g.width) * g.height;
                sj.first_chunk = sp.num_chunks;
                sj.num_chunks = static_cast<int>((sj.n + kSeqChunkTerms - 1) / kSeqChunkTerms);
                sj.edge = kind;
                sj.out = r.out_index * kNumSums + (kind == 0 ? 0 : 2);
                sp.num_chunks += sj.num_chunks;
              }
            }
          }
          vb += col_blocks;
          vj.push_back(v);
        }
      }
      t.h_blocks[mode_i][group] = hb;
      t.v_blocks[mode_i][group] = vb;
      partial_cursor += vb;
    }
    t.reduce[mode_i].num_jobs = reduce_jobs;
    if (l.sequential_sums()) {
      SeqScratch& scratch = t.seq[mode_i].scratch;
      scratch.approx = reinterpret_cast<double*>(base + l.seq_approx);
      scratch.chunk_step = reinterpret_cast<seqsum::Step*>(base + l.seq_chunk_step);
      scratch.leaf_step = reinterpret_cast<seqsum::Step*>(base + l.seq_leaf_step);
      scratch.leaf_grid = reinterpret_cast<int*>(base + l.seq_leaf_grid);
    }
  }
  // Serialise the tables in a fixed order.
  std::size_t off = 0;
  for (int m = 0; m < kNumPassModes; ++m) {
    for (int g = 0; g < kMaxGroups; ++g) {
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
    for (int g = 0; g < kMaxGroups; ++g) {
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

// Where scale s of image `image` (0 reference, 1 distorted) is read and
// written: the reference's XYB goes into the cache when it is prepared for it.
PyramidStep Step(const Layout& layout, char* base, char* cache_base, PassMode mode, int image,
                 int s) {
  const ScaleGeom& g = layout.geom[s];
  PyramidStep st{};
  const bool in_cache = image == 0 && mode == PassMode::kRef;
  // The linear RGB of a reference pass: in the cache slot it fills (kept
  // in the working memory for tests: LayoutOptions::keep_linear).
  auto linear = [&](int scale) {
    return reinterpret_cast<float*>(in_cache && !layout.options.keep_linear
                                        ? cache_base + layout.cache.lin[scale]
                                        : base + layout.lin[image][scale]);
  };
  st.xyb = reinterpret_cast<float*>(in_cache ? cache_base + layout.cache.xyb[s]
                                             : base + layout.xyb[image][s]);
  st.xyb_plane = static_cast<long long>(g.plane_bytes / sizeof(float));
  st.xyb_pitch = g.pitch;
  if (s + 1 < layout.plan.num_scales) {
    const ScaleGeom& n = layout.geom[s + 1];
    st.lin_next = linear(s + 1);
    st.lin_next_plane = static_cast<long long>(n.plane_bytes / sizeof(float));
    st.lin_next_pitch = n.pitch;
  }
  if (s > 0) {
    st.lin_src = linear(s);
    st.lin_src_plane = static_cast<long long>(g.plane_bytes / sizeof(float));
    st.lin_src_pitch = g.pitch;
  }
  return st;
}

}  // namespace

PassLaunches PlanPass(const Layout& layout, const LaunchTables& tables, char* base,
                      char* cache_base, PassMode mode, const InputDesc* ref,
                      const InputDesc* dist, float background, int result_slot) {
  PassLaunches l;
  const int m = static_cast<int>(mode);
  l.num_scales = layout.plan.num_scales;
  l.num_groups = layout.num_groups;
  for (int s = 0; s < l.num_scales; ++s) {
    PrepareParams& p = l.prepare[s];
    p = PrepareParams{};
    p.width = layout.geom[s].width;
    p.height = layout.geom[s].height;
    p.from_input = s == 0 ? 1 : 0;
    p.neg_cbrt_bias = tables.neg_cbrt_bias;
    p.mul8 = static_cast<float>(1.0 / 255);
    p.srgb8 = reinterpret_cast<const float*>(base + tables.jobs + tables.srgb8_offset);
    int count = 0;
    auto add = [&](const InputDesc* in, int image) {
      if (s == 0) {
        p.inputs[count] = *in;
        p.inputs[count].background = background;
      }
      p.steps[count] = Step(layout, base, cache_base, mode, image, s);
      for (int i = 0; i < 9; ++i) p.opsin[count][i] = in->opsin[i];
      ++count;
    };
    if (mode != PassMode::kCached) add(ref, 0);
    if (mode != PassMode::kRef) add(dist, 1);
    p.count = count;
  }
  double* partials = reinterpret_cast<double*>(base + layout.partials);
  for (int g = 0; g < layout.num_groups; ++g) {
    PassLaunches::Group& group = l.groups[g];
    group.h_jobs = reinterpret_cast<const HJob*>(base + tables.jobs + tables.h_offset[m][g]);
    group.h_count = static_cast<int>(tables.h[m][g].size());
    group.h_blocks = tables.h_blocks[m][g];
    group.v_jobs = reinterpret_cast<const VJob*>(base + tables.jobs + tables.v_offset[m][g]);
    group.v_count = static_cast<int>(tables.v[m][g].size());
    group.v_blocks = tables.v_blocks[m][g];
    group.partials = partials + static_cast<std::size_t>(tables.partial_base[m][g]) * kNumSums;
  }
  l.blur = tables.blur;
  if (mode != PassMode::kRef) {
    l.reduce = &tables.reduce[m];
    if (layout.sequential_sums()) l.seq = &tables.seq[m];
    l.partials = partials;
    l.sums = reinterpret_cast<double*>(base + layout.sums) +
             static_cast<std::size_t>(result_slot) * kSumsPerResult;
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
