// Host-side planning of the CUDA engine (no device needed): regions do not
// overlap, uploads fit, job tables cover exactly the maps the plan needs,
// and the memory per pixel stays within today's plan.
#include <cstdio>
#include <vector>

#include "cuda/layout.h"
#include "cuda_test_util.h"

using namespace ssim2;
using namespace ssim2::cuda;

namespace {

struct Region {
  std::size_t begin, end;
  const char* name;
};

bool Overlap(const Region& a, const Region& b) { return a.begin < b.end && b.begin < a.end; }

// Regions of one allocation: aligned, inside it, pairwise disjoint.
void CheckRegions(const std::vector<Region>& regions, std::size_t total, int w, int h) {
  for (std::size_t i = 0; i < regions.size(); ++i) {
    EXPECT_TRUE(regions[i].begin % kRegionAlign == 0) << cudatest::Format("%s not aligned", regions[i].name);
    EXPECT_TRUE(regions[i].end <= total) << cudatest::Format("%dx%d: %s past the end", w, h, regions[i].name);
    for (std::size_t j = i + 1; j < regions.size(); ++j) {
      EXPECT_TRUE(!Overlap(regions[i], regions[j])) << cudatest::Format("%dx%d: %s overlaps %s", w, h, regions[i].name, regions[j].name);
    }
  }
}

LayoutOptions Options(bool all, Executor executor = Executor::kEngine, int groups = 1) {
  LayoutOptions o;
  o.all_features = all;
  o.result_slots = 16;
  o.executor = executor;
  o.groups = groups;
  return o;
}

void CheckLayout(int w, int h, bool all, Executor executor, int groups) {
  const Layout l = MakeLayout(w, h, Options(all, executor, groups));
  const bool lane = executor == Executor::kLane;
  const bool pairs = executor == Executor::kEngine;
  const bool second = executor == Executor::kPreparer;
  // Images with XYB, upload areas and linear RGB here: both for pair passes,
  // else the distorted image; none on a second engine (a reference pass
  // works in the cache slot it fills).
  const int first_image = pairs ? 0 : 1;
  const int last_image = second ? 0 : 1;
  // With two scale groups the smaller scales are blurred first and their
  // XYB lives in temp, dead before scale 0's horizontal planes are written.
  const bool small_xyb_in_temp = groups > 1;
  std::vector<Region> regions, small_xyb;
  for (int i = first_image; i <= last_image; ++i)
    for (int s = 0; s < l.plan.num_scales; ++s) {
      const Region r{l.xyb[i][s], l.xyb[i][s] + 3 * l.geom[s].plane_bytes, "xyb"};
      (s > 0 && small_xyb_in_temp ? small_xyb : regions).push_back(r);
    }
  if (!pairs) {
    EXPECT_EQ(l.xyb[0][0], kNoPlane) << "the reference's XYB is in the cache";
  }
  if (second) {
    EXPECT_EQ(l.xyb[1][0], kNoPlane) << "a second engine scores nothing";
  }
  const Region temp{l.temp, l.temp + l.temp_bytes, "temp"};
  regions.push_back(temp);
  regions.push_back({l.partials, l.partials + l.max_partials * kNumSums * 8, "partials"});
  regions.push_back({l.sums, l.sums + l.num_result_slots * kSumsPerResult * 8, "sums"});
  regions.push_back({l.jobs, l.jobs + l.jobs_bytes, "jobs"});
  CheckRegions(regions, l.total_bytes, w, h);
  // Before the horizontal pass temp holds the uploads (the largest host
  // upload: linear float, 3 planes, 16-byte rows) and the linear RGB of the
  // smaller scales, disjoint: the first prepare reads the uploads and writes
  // the next scale's linear RGB.
  const std::size_t upload = 3 * ((static_cast<std::size_t>(w) * 4 + 15) / 16 * 16) * h;
  std::vector<Region> early, lin;
  if (!pairs) {
    EXPECT_EQ(l.upload[0], kNoPlane) << "a reference pass uploads into the cache";
  }
  if (second) {
    EXPECT_EQ(l.upload[1], kNoPlane);
    EXPECT_EQ(l.temp_bytes, 0u) << "a second engine works in the cache";
  }
  for (int i = first_image; i <= last_image; ++i) {
    EXPECT_TRUE(upload <= l.upload_bytes) << cudatest::Format("%dx%d: upload %zu > %zu", w, h, upload, l.upload_bytes);
    early.push_back({l.upload[i], l.upload[i] + l.upload_bytes, "upload"});
    for (int s = 1; s < l.plan.num_scales; ++s)
      lin.push_back({l.lin[i][s], l.lin[i][s] + 3 * l.geom[s].plane_bytes, "lin"});
  }
  if (lane) {
    EXPECT_EQ(l.upload[0], kNoPlane);
  }
  for (const Region& r : small_xyb) {
    EXPECT_TRUE(r.begin >= temp.begin && r.end <= temp.end) << cudatest::Format("%dx%d: small scales' xyb outside temp", w, h);
  }
  early.insert(early.end(), lin.begin(), lin.end());
  for (const Region& r : early) {
    EXPECT_TRUE(r.begin >= temp.begin && r.end <= temp.end) << cudatest::Format("%dx%d: %s outside temp", w, h, r.name);
  }
  CheckRegions(early, l.total_bytes, w, h);
  // The prepares of scales >= 1 read and write the linear RGB while they
  // write the smaller scales' XYB (which may reuse the uploads' bytes: the
  // prepare of scale 0 has read them by then).
  lin.insert(lin.end(), small_xyb.begin(), small_xyb.end());
  CheckRegions(lin, l.total_bytes, w, h);
  // Temp planes: inside temp, disjoint within a scale group, present exactly
  // for the maps this executor blurs there: the reference's (mu1, sigma11)
  // only for pair passes (a reference pass blurs them in the cache).
  std::vector<Region> planes[kMaxGroups];
  for (int s = 0; s < l.plan.num_scales; ++s)
    for (int c = 0; c < 3; ++c)
      for (int m = 0; m < kNumMapSlots; ++m) {
        const ChannelNeeds& n = l.plan.needs[s][c];
        const bool reference_map = m == kMapMu1 || m == kMapS11;
        const bool needed =
            (n.ssim || (n.edge && m < 2)) && (pairs || (!reference_map && !second));
        const std::size_t off = l.TempPlane(s, c, m);
        EXPECT_TRUE((off != kNoPlane) == needed) << cudatest::Format("%dx%d: temp plane s%d c%d m%d", w, h, s, c, m);
        if (off == kNoPlane) continue;
        EXPECT_TRUE(off % 128 == 0) << "temp plane not 128-byte aligned";
        EXPECT_TRUE(off >= l.temp && off + l.geom[s].plane_bytes <= l.temp + l.temp_bytes) << cudatest::Format("%dx%d: temp plane s%d c%d m%d outside temp", w, h, s, c, m);
        planes[l.Group(s)].push_back({off, off + l.geom[s].plane_bytes, "temp plane"});
      }
  for (const auto& group : planes)
    for (std::size_t i = 0; i < group.size(); ++i)
      for (std::size_t j = i + 1; j < group.size(); ++j)
        EXPECT_TRUE(!Overlap(group[i], group[j])) << cudatest::Format("%dx%d: temp planes overlap", w, h);
  // The smaller scales' group reads their XYB.
  if (l.plan.num_scales > 1) {
    for (const Region& p : planes[l.Group(1)])
      for (const Region& x : small_xyb)
        EXPECT_TRUE(!Overlap(p, x)) << cudatest::Format("%dx%d: a smaller scale's temp plane overlaps its xyb", w, h);
  }
  // The cache: pyramid, mu1 of every channel with an error map, sigma11 of
  // every channel with the SSIM map, disjoint; an alpha reference's samples
  // fit.
  const CacheLayout& cache = l.cache;
  std::vector<Region> cached;
  for (int s = 0; s < l.plan.num_scales; ++s) {
    cached.push_back({cache.xyb[s], cache.xyb[s] + 3 * l.geom[s].plane_bytes, "cached xyb"});
    for (int c = 0; c < 3; ++c) {
      const ChannelNeeds& n = l.plan.needs[s][c];
      EXPECT_EQ(cache.mu1[s][c] != kNoPlane, n.any());
      EXPECT_EQ(cache.s11[s][c] != kNoPlane, n.ssim);
      if (n.any()) cached.push_back({cache.mu1[s][c], cache.mu1[s][c] + l.geom[s].plane_bytes, "mu1"});
      if (n.ssim) cached.push_back({cache.s11[s][c], cache.s11[s][c] + l.geom[s].plane_bytes, "s11"});
    }
  }
  CheckRegions(cached, cache.total_bytes, w, h);
  EXPECT_TRUE(cache.raw_ref + cache.raw_ref_bytes <= cache.total_bytes);
  EXPECT_GE(cache.raw_ref_bytes, static_cast<std::size_t>(w) * 8 * h);
  // A reference pass's staging (its host upload, then the linear RGB of
  // scales >= 1): disjoint, inside the cache, over the blurred planes only
  // (the prepares write the pyramid while they read it).
  std::vector<Region> staging{{cache.upload, cache.upload + l.upload_bytes, "cached upload"}};
  for (int s = 1; s < l.plan.num_scales; ++s)
    staging.push_back({cache.lin[s], cache.lin[s] + 3 * l.geom[s].plane_bytes, "cached lin"});
  CheckRegions(staging, cache.total_bytes, w, h);
  for (const Region& r : staging)
    for (int s = 0; s < l.plan.num_scales; ++s) {
      const Region pyramid{cache.xyb[s], cache.xyb[s] + 3 * l.geom[s].plane_bytes, "cached xyb"};
      EXPECT_TRUE(!Overlap(r, pyramid)) << cudatest::Format("%dx%d: %s overlaps the pyramid", w, h, r.name);
    }
  if (l.prepares_reference()) {
    // kRef tables, into the cache slot they were made for: rows written
    // into the cache's mu1 / sigma11 planes and blurred there in place,
    // nothing of the working memory written.
    char* base = reinterpret_cast<char*>(0x100000000ull);
    char* cache_base = reinterpret_cast<char*>(0x900000000ull);
    const LaunchTables t = MakeTables(l, base, cache_base, 1);
    EXPECT_EQ(t.jobs, l.jobs + l.jobs_slot_bytes);
    EXPECT_TRUE(t.blob.size() <= l.jobs_slot_bytes);
    const int ref = static_cast<int>(PassMode::kRef);
    auto in_cache = [&](const void* p) {
      const char* c = static_cast<const char*>(p);
      return c >= cache_base && c < cache_base + cache.total_bytes;
    };
    for (int m = 0; m < kNumPassModes; ++m)
      for (int g = 0; g < l.num_groups; ++g) {
        if (second) {
          EXPECT_EQ(t.h[m][g].empty(), m != ref);
        }
        if (m != ref) continue;
        for (const HJob& j : t.h[m][g]) {
          EXPECT_TRUE(in_cache(j.out)) << "rows into the cache";
          EXPECT_TRUE(in_cache(j.a)) << "reads the cache";
        }
        for (const VJob& v : t.v[m][g])
          for (int slot : {kMapMu1, kMapS11}) {
            if (v.mode[slot] == kSlotNone) continue;
            EXPECT_TRUE(in_cache(v.dst[slot]));
            EXPECT_EQ(v.src[slot], v.dst[slot]) << "blurred in place";
          }
      }
  }
  if (!pairs) return;

  // Job tables: every needed map appears once per mode.
  char* base = reinterpret_cast<char*>(0x100000000ull);
  char* cache_base = reinterpret_cast<char*>(0x900000000ull);
  // Before the cache exists only pairs have tables.
  const LaunchTables pairs_only = MakeTables(l, base, nullptr);
  EXPECT_TRUE(pairs_only.h[0][0].empty() && pairs_only.h[1][0].empty());
  EXPECT_FALSE(pairs_only.h[2][0].empty());
  const LaunchTables t = MakeTables(l, base, cache_base);
  for (int m = 0; m < kNumPassModes; ++m) {
    int h_jobs = 0, v_jobs = 0, expect_h = 0, expect_v = 0, partial_end = 0;
    for (int s = 0; s < l.plan.num_scales; ++s)
      for (int c = 0; c < 3; ++c) {
        const ChannelNeeds& n = l.plan.needs[s][c];
        if (!n.any()) continue;
        ++expect_v;
        if (m == 0) expect_h += n.ssim ? 2 : 1;
        if (m == 1) expect_h += n.ssim ? 3 : 1;
        if (m == 2) expect_h += n.ssim ? 5 : 2;
      }
    for (int g = 0; g < l.num_groups; ++g) {
      h_jobs += static_cast<int>(t.h[m][g].size());
      v_jobs += static_cast<int>(t.v[m][g].size());
      partial_end = std::max(partial_end, t.partial_base[m][g] + t.v_blocks[m][g]);
      int blocks = 0;
      for (const HJob& j : t.h[m][g]) {
        EXPECT_TRUE(j.first_block == blocks) << "H job blocks not contiguous";
        blocks += (j.height + kHBlockThreads - 1) / kHBlockThreads;
        EXPECT_TRUE(j.pitch % 4 == 0) << "pitch not a multiple of 4 floats";
      }
      EXPECT_TRUE(blocks == t.h_blocks[m][g]) << "H block count";
    }
    EXPECT_TRUE(h_jobs == expect_h) << cudatest::Format("%dx%d mode %d: %d H jobs, expected %d", w, h, m, h_jobs, expect_h);
    EXPECT_TRUE(v_jobs == expect_v) << cudatest::Format("%dx%d mode %d: %d V jobs, expected %d", w, h, m, v_jobs, expect_v);
    EXPECT_TRUE(partial_end <= l.max_partials) << "partials overflow";
    if (m != 0) {
      EXPECT_TRUE(t.reduce[m].num_jobs == expect_v) << cudatest::Format("reduce jobs %d vs %d", t.reduce[m].num_jobs, expect_v);
    }
  }
  EXPECT_TRUE(t.blob.size() <= l.jobs_slot_bytes) << cudatest::Format("job blob %zu > %zu", t.blob.size(), l.jobs_slot_bytes);
  EXPECT_EQ(l.jobs_bytes, kCacheSlots * l.jobs_slot_bytes) << "a share of the job region per cache slot";
}

}  // namespace

TEST(GpuLayout, RegionsUploadsAndJobTables) {
  const int sizes[][2] = {{8, 8}, {9, 9}, {17, 33}, {64, 64}, {127, 255}, {1921, 1081}};
  for (const auto& s : sizes)
    for (bool all : {false, true})
      for (Executor e :
           {Executor::kEngine, Executor::kReference, Executor::kLane, Executor::kPreparer})
        for (int groups = 1; groups <= kMaxGroups; ++groups) CheckLayout(s[0], s[1], all, e, groups);
}

// A batch lane only scores against its owner's cache: it is smaller than
// the engine's working memory by the reference's planes, has no kRef or kFull
// tables, and its kCached tables read the owner's cached XYB pyramid, mu1 and
// sigma11 while writing only its own memory.
TEST(GpuLayout, LaneReadsItsOwnersCache) {
  for (bool all : {false, true}) {
    const Layout owner = MakeLayout(1921, 1081, Options(all));
    const Layout lane = MakeLayout(1921, 1081, Options(all, Executor::kLane));
    EXPECT_TRUE(lane.is_lane());
    std::size_t reference_xyb = 0;
    for (int s = 0; s < owner.plan.num_scales; ++s) reference_xyb += 3 * owner.geom[s].plane_bytes;
    EXPECT_LE(lane.total_bytes, owner.total_bytes - reference_xyb);

    char* owner_base = reinterpret_cast<char*>(0x100000000ull);
    char* cache_base = reinterpret_cast<char*>(0x500000000ull);
    char* lane_base = reinterpret_cast<char*>(0x900000000ull);
    const LaunchTables t = MakeTables(lane, lane_base, cache_base);
    const int ref = static_cast<int>(PassMode::kRef);
    const int cached = static_cast<int>(PassMode::kCached);
    const int full = static_cast<int>(PassMode::kFull);
    EXPECT_TRUE(t.h[ref][0].empty() && t.v[ref][0].empty()) << "a lane never prepares a reference";
    EXPECT_TRUE(t.h[full][0].empty() && t.v[full][0].empty()) << "a lane scores no pairs";
    auto in = [](const void* p, char* base, std::size_t bytes) {
      const char* c = static_cast<const char*>(p);
      return c >= base && c < base + bytes;
    };
    const std::size_t cache_bytes = owner.cache.total_bytes;
    for (const VJob& v : t.v[cached][0]) {
      EXPECT_TRUE(in(v.img1, cache_base, cache_bytes)) << "reference XYB from the cache";
      EXPECT_TRUE(in(v.img2, lane_base, lane.total_bytes)) << "distorted XYB of the lane";
      EXPECT_EQ(v.mode[kMapMu1], kSlotLoad);
      const std::size_t mu1 = reinterpret_cast<const char*>(v.src[kMapMu1]) - cache_base;
      bool at_mu1 = false;
      for (int s = 0; s < owner.plan.num_scales; ++s)
        for (int c = 0; c < 3; ++c) at_mu1 = at_mu1 || mu1 == owner.cache.mu1[s][c];
      EXPECT_TRUE(at_mu1) << "mu1 at one of the cache's mu1 planes";
      if (v.ssim) {
        EXPECT_TRUE(in(v.src[kMapS11], cache_base, cache_bytes)) << "sigma11 from the cache";
      }
    }
    for (const HJob& j : t.h[cached][0]) {
      EXPECT_TRUE(in(j.out, lane_base, lane.total_bytes)) << "the lane writes its own temp";
    }
    (void)owner_base;
  }
}

// Device memory per pixel of scale 0, planned on the host (nothing is
// allocated, so 8K costs nothing here), with one and with two scale groups:
// the working memory of an engine that has scored a pair (what ssim2-bench's
// MEM line reports), of one that has only prepared references and scored
// against them (the element's), of a batch lane, and the reference cache.
// The bounds are today's plan (docs/PERFORMANCE.md, "Device memory"); before
// it an engine held 128 bytes per pixel from Create on and a lane 96. With
// two scale groups (the smaller scales blurred first, their XYB in temp) an
// engine that scores pairs holds at most 64 bytes per pixel from 720p up
// (issue 25's target; 68 when scale 0 was blurred first); with one group,
// the default, 88.
TEST(GpuLayout, BytesPerPixel) {
  struct Bound {
    double pairs[kMaxGroups], cached[kMaxGroups], lane[kMaxGroups], second[kMaxGroups], cache;
  };
  // A second engine's working memory is its job tables and sums: its
  // reference passes work in the cache slot they fill.
  const Bound bound{{88.5, 64.0}, {48.5, 32.5}, {48.5, 32.5}, {0.5, 0.5}, 40.5};
  const Bound bound_all{{112.5, 84.5}, {64.5, 48.5}, {64.5, 48.5}, {0.5, 0.5}, 48.5};  // all_features
  const int sizes[][2] = {{8, 8},       {33, 17},     {641, 361},   {1280, 720},  {1919, 1079},
                          {1920, 1080}, {3840, 2160}, {7680, 4320}};
  for (const auto& s : sizes) {
    const double px = static_cast<double>(s[0]) * s[1];
    for (bool all : {false, true}) {
      const Bound& b = all ? bound_all : bound;
      auto bpp = [&](const Layout& l) { return static_cast<double>(l.total_bytes) / px; };
      for (int groups = 1; groups <= kMaxGroups; ++groups) {
        const Layout pairs = MakeLayout(s[0], s[1], Options(all, Executor::kEngine, groups));
        const Layout cached = MakeLayout(s[0], s[1], Options(all, Executor::kReference, groups));
        const Layout lane = MakeLayout(s[0], s[1], Options(all, Executor::kLane, groups));
        const Layout second = MakeLayout(s[0], s[1], Options(all, Executor::kPreparer, groups));
        const double cache = static_cast<double>(pairs.cache.total_bytes) / px;
        std::printf("%5dx%-5d%s, %d scale group(s): pairs %6.1f B/px, cached reference only "
                    "%6.1f + cache %5.1f, lane %6.1f, second engine %5.1f + cache\n",
                    s[0], s[1], all ? " all" : "    ", groups, bpp(pairs), bpp(cached), cache,
                    bpp(lane), bpp(second));
        EXPECT_LE(lane.total_bytes, cached.total_bytes);
        EXPECT_LE(second.total_bytes, cached.total_bytes);
        EXPECT_LE(cached.total_bytes, pairs.total_bytes);
        if (px < 9e5) continue;  // the job tables, sums and padding weigh at small sizes
        const int g = groups - 1;
        EXPECT_LE(bpp(pairs), b.pairs[g]) << s[0] << "x" << s[1] << ", groups " << groups;
        EXPECT_LE(bpp(cached), b.cached[g]) << s[0] << "x" << s[1] << ", groups " << groups;
        EXPECT_LE(bpp(lane), b.lane[g]) << s[0] << "x" << s[1] << ", groups " << groups;
        EXPECT_LE(bpp(second), b.second[g]) << s[0] << "x" << s[1] << ", groups " << groups;
        EXPECT_LE(cache, b.cache) << s[0] << "x" << s[1];
      }
    }
  }
}

// The element's scorer in a non-live pipeline with a ladder of four
// renditions: an engine that prepares references and scores batches against
// them (its working memory before a pair, its cache and three batch lanes in
// their default scale groups: EngineOptions::batch_streams = 4) and its
// second engine, which prepares the next reference beside the batch in
// flight (the second cache and a few KB). The second engine costs at most a
// quarter of the first (issue 25; it cost as much when it was a whole engine
// with lanes of its own, 24 % when it had a reference pass's working memory),
// and the 4K ladder's scorer fits in 2.0 GB (issue 25; 2.39 GB with one-group
// lanes and that working memory).
TEST(GpuLayout, SecondEngineAQuarterOfTheFirst) {
  const int sizes[][2] = {{1920, 1080}, {3840, 2160}, {7680, 4320}};
  constexpr int kLanes = 3;
  for (const auto& s : sizes) {
    const double px = static_cast<double>(s[0]) * s[1];
    for (bool all : {false, true}) {
      const int lane_groups = DefaultLaneGroups(s[0], s[1]);
      const Layout engine = MakeLayout(s[0], s[1], Options(all, Executor::kReference));
      const Layout lane = MakeLayout(s[0], s[1], Options(all, Executor::kLane, lane_groups));
      const Layout second = MakeLayout(s[0], s[1], Options(all, Executor::kPreparer));
      const std::size_t cache = engine.cache.total_bytes;
      const std::size_t first = engine.total_bytes + cache + kLanes * lane.total_bytes;
      const std::size_t second_bytes = second.total_bytes + cache;
      std::printf("%5dx%-5d%s: first engine %6.1f B/px (%zu bytes, lanes in %d group(s)), "
                  "second %5.1f B/px (%zu bytes, %.1f %%), both %.2f GB\n",
                  s[0], s[1], all ? " all" : "    ", first / px, first, lane_groups,
                  second_bytes / px, second_bytes, 100.0 * second_bytes / first,
                  (first + second_bytes) / 1e9);
      EXPECT_LE(4 * second_bytes, first) << s[0] << "x" << s[1] << (all ? " all" : "");
      if (s[0] == 3840 && !all) {
        EXPECT_LE(first + second_bytes, 2000000000u) << "the 4K ladder's scorer in 2.0 GB";
      }
    }
  }
}

// Lanes take two scale groups by default from 4K on, one below.
TEST(GpuLayout, DefaultLaneGroups) {
  EXPECT_EQ(DefaultLaneGroups(1920, 1080), 1);
  EXPECT_EQ(DefaultLaneGroups(2560, 1440), 1);
  EXPECT_EQ(DefaultLaneGroups(3840, 2159), 1);
  EXPECT_EQ(DefaultLaneGroups(3840, 2160), kMaxGroups);
  EXPECT_EQ(DefaultLaneGroups(4096, 2160), kMaxGroups);
  EXPECT_EQ(DefaultLaneGroups(7680, 4320), kMaxGroups);
  EXPECT_EQ(DefaultLaneGroups(1, 1), 1);
  EXPECT_EQ(DefaultLaneGroups(65535, 65535), kMaxGroups) << "no overflow";
}
