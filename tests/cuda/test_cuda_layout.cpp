// Host-side planning of the CUDA engine (no device needed): regions do not
// overlap, uploads fit, job tables cover exactly the maps the plan needs,
// and the memory stays under 160 bytes per pixel.
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

void CheckLayout(int w, int h, bool all) {
  const Layout l = MakeLayout(w, h, all, 16);
  std::vector<Region> regions;
  for (int i = 0; i < 2; ++i)
    for (int s = 0; s < l.plan.num_scales; ++s) {
      regions.push_back({l.xyb[i][s], l.xyb[i][s] + 3 * l.geom[s].plane_bytes, "xyb"});
      if (s > 0) regions.push_back({l.lin[i][s], l.lin[i][s] + 3 * l.geom[s].plane_bytes, "lin"});
    }
  for (int s = 0; s < l.plan.num_scales; ++s) {
    regions.push_back({l.mu1[s], l.mu1[s] + 3 * l.geom[s].plane_bytes, "mu1"});
    regions.push_back({l.s11[s], l.s11[s] + 3 * l.geom[s].plane_bytes, "s11"});
  }
  regions.push_back({l.temp, l.temp + l.temp_bytes, "temp"});
  regions.push_back({l.sum_scratch, l.sum_scratch + l.sum_scratch_bytes, "sum scratch"});
  regions.push_back({l.sums, l.sums + l.num_result_slots * kSumsPerResult * 8, "sums"});
  regions.push_back({l.jobs, l.jobs + l.jobs_bytes, "jobs"});
  for (std::size_t i = 0; i < regions.size(); ++i) {
    EXPECT_TRUE(regions[i].begin % kRegionAlign == 0) << cudatest::Format("%s not aligned", regions[i].name);
    EXPECT_TRUE(regions[i].end <= l.total_bytes) << cudatest::Format("%s past the end", regions[i].name);
    for (std::size_t j = i + 1; j < regions.size(); ++j) {
      const bool overlap = regions[i].begin < regions[j].end && regions[j].begin < regions[i].end;
      EXPECT_TRUE(!overlap) << cudatest::Format("%dx%d: %s overlaps %s", w, h, regions[i].name, regions[j].name);
    }
  }
  // Temp planes: inside temp, disjoint, present exactly for needed maps.
  std::vector<Region> planes;
  for (int s = 0; s < l.plan.num_scales; ++s)
    for (int c = 0; c < 3; ++c)
      for (int m = 0; m < kNumMapSlots; ++m) {
        const ChannelNeeds& n = l.plan.needs[s][c];
        const bool needed = n.ssim || (n.edge && m < 2);
        const std::size_t off = l.TempPlane(s, c, m);
        EXPECT_TRUE((off != Layout::kNoPlane) == needed) << cudatest::Format("%dx%d: temp plane s%d c%d m%d", w, h, s, c, m);
        if (off == Layout::kNoPlane) continue;
        EXPECT_TRUE(off % 128 == 0) << "temp plane not 128-byte aligned";
        EXPECT_TRUE(off >= l.temp && off + l.geom[s].plane_bytes <= l.temp + l.temp_bytes) << cudatest::Format("%dx%d: temp plane s%d c%d m%d outside temp", w, h, s, c, m);
        planes.push_back({off, off + l.geom[s].plane_bytes, "temp plane"});
      }
  for (std::size_t i = 0; i < planes.size(); ++i)
    for (std::size_t j = i + 1; j < planes.size(); ++j)
      EXPECT_TRUE(!(planes[i].begin < planes[j].end && planes[j].begin < planes[i].end)) << cudatest::Format("%dx%d: temp planes overlap", w, h);
  // The alpha reference's samples sit inside the cache region of scale 0.
  EXPECT_TRUE(l.raw_ref == l.mu1[0] && l.raw_ref + l.raw_ref_bytes <= l.mu1[0] + 3 * l.geom[0].plane_bytes) << cudatest::Format("%dx%d: raw_ref does not fit the mu1 region", w, h);
  // Largest host upload (linear float, 3 planes, 16-byte rows) fits in half of temp.
  const std::size_t upload = 3 * ((static_cast<std::size_t>(w) * 4 + 15) / 16 * 16) * h;
  EXPECT_TRUE(upload <= l.UploadBytes()) << cudatest::Format("%dx%d: upload %zu > %zu", w, h, upload, l.UploadBytes());

  // Job tables: every needed map appears once per mode.
  char* base = reinterpret_cast<char*>(0x100000000ull);
  const LaunchTables t = MakeTables(l, base);
  for (int m = 0; m < kNumPassModes; ++m) {
    int h_jobs = 0, v_jobs = 0, expect_h = 0, expect_v = 0;
    for (int s = 0; s < l.plan.num_scales; ++s)
      for (int c = 0; c < 3; ++c) {
        const ChannelNeeds& n = l.plan.needs[s][c];
        if (!n.any()) continue;
        ++expect_v;
        if (m == 0) expect_h += n.ssim ? 2 : 1;
        if (m == 1) expect_h += n.ssim ? 3 : 1;
        if (m == 2) expect_h += n.ssim ? 5 : 2;
      }
    for (int g = 0; g < kNumGroups; ++g) {
      h_jobs += static_cast<int>(t.h[m][g].size());
      v_jobs += static_cast<int>(t.v[m][g].size());
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
    if (m != 0) {
      // One sum job per V job, its chunks and groups consecutive, all of
      // them inside the scratch region.
      const SumParams& sp = t.sums[m][0];
      static_assert(kNumGroups == 1, "one group's sums cover every job");
      EXPECT_TRUE(sp.num_jobs == expect_v) << cudatest::Format("sum jobs %d vs %d", sp.num_jobs, expect_v);
      int chunks = 0, groups = 0;
      for (int j = 0; j < sp.num_jobs; ++j) {
        const SumJob& job = sp.jobs[j];
        EXPECT_TRUE(job.first_chunk == chunks && job.first_group == groups) << "sum chunks not contiguous";
        const long long terms = static_cast<long long>(job.width) * job.height;
        EXPECT_TRUE(static_cast<long long>(job.num_chunks) * kSumChunkTerms >= terms &&
                    static_cast<long long>(job.num_chunks - 1) * kSumChunkTerms < terms);
        EXPECT_TRUE(job.num_groups == (job.num_chunks + kSumGroupChunks - 1) / kSumGroupChunks);
        chunks += job.num_chunks;
        groups += job.num_groups;
      }
      EXPECT_TRUE(sp.total_chunks == chunks && chunks == l.sum_chunks) << "chunk count";
      EXPECT_TRUE(sp.total_groups == groups && groups == l.sum_groups) << "group count";
      const char* scratch = base + l.sum_scratch;
      const char* end = reinterpret_cast<const char*>(sp.group_summaries + kNumSums * groups);
      EXPECT_TRUE(reinterpret_cast<const char*>(sp.chunk_sums) == scratch);
      EXPECT_TRUE(end == scratch + l.sum_scratch_bytes) << "sum scratch size";
    }
  }
  EXPECT_TRUE(t.blob.size() <= l.jobs_bytes) << cudatest::Format("job blob %zu > %zu", t.blob.size(), l.jobs_bytes);
}

}  // namespace

TEST(GpuLayout, RegionsUploadsAndJobTables) {
  const int sizes[][2] = {{8, 8}, {9, 9}, {17, 33}, {64, 64}, {127, 255}, {1921, 1081}};
  for (const auto& s : sizes) {
    CheckLayout(s[0], s[1], false);
    CheckLayout(s[0], s[1], true);
  }
}

// A batch lane's memory has no cache of its own: its regions stay disjoint,
// it is smaller by the mu1 and sigma11 planes, it has no kRef tables, and
// its kCached tables read the owner's XYB pyramid, mu1 and sigma11 while
// writing only its own memory.
TEST(GpuLayout, LaneReadsItsOwnersCache) {
  for (bool all : {false, true}) {
    const Layout owner = MakeLayout(1921, 1081, all, 16);
    const Layout lane = MakeLayout(1921, 1081, all, 16, /*with_cache=*/false);
    EXPECT_FALSE(lane.has_cache);
    std::size_t cache_bytes = 0;
    for (int s = 0; s < owner.plan.num_scales; ++s) cache_bytes += 2 * 3 * owner.geom[s].plane_bytes;
    EXPECT_LE(lane.total_bytes, owner.total_bytes - cache_bytes);
    EXPECT_EQ(lane.mu1[0], Layout::kNoPlane);
    EXPECT_EQ(lane.raw_ref_bytes, 0u);
    EXPECT_EQ(lane.xyb[0][0], owner.xyb[0][0]);

    char* owner_base = reinterpret_cast<char*>(0x100000000ull);
    char* lane_base = reinterpret_cast<char*>(0x900000000ull);
    const LaunchTables t = MakeTables(lane, lane_base, owner_base, &owner);
    const int ref = static_cast<int>(PassMode::kRef);
    const int cached = static_cast<int>(PassMode::kCached);
    EXPECT_TRUE(t.h[ref][0].empty() && t.v[ref][0].empty()) << "a lane never prepares a reference";
    auto in = [](const void* p, char* base, std::size_t bytes) {
      const char* c = static_cast<const char*>(p);
      return c >= base && c < base + bytes;
    };
    for (const VJob& v : t.v[cached][0]) {
      EXPECT_TRUE(in(v.img1, owner_base, owner.total_bytes)) << "reference XYB from the owner";
      EXPECT_TRUE(in(v.img2, lane_base, lane.total_bytes)) << "distorted XYB of the lane";
      EXPECT_EQ(v.mode[kMapMu1], kSlotLoad);
      EXPECT_TRUE(in(v.src[kMapMu1], owner_base, owner.total_bytes)) << "mu1 from the owner";
      const std::size_t mu1 = reinterpret_cast<const char*>(v.src[kMapMu1]) - owner_base;
      bool at_mu1 = false;
      for (int s = 0; s < owner.plan.num_scales; ++s)
        for (int c = 0; c < 3; ++c) at_mu1 = at_mu1 || mu1 == owner.mu1[s] + c * owner.geom[s].plane_bytes;
      EXPECT_TRUE(at_mu1) << "mu1 at one of the owner's mu1 planes";
      if (v.quotient) {
        EXPECT_TRUE(in(v.src[kMapS11], owner_base, owner.total_bytes)) << "sigma11 from the owner";
      }
      EXPECT_EQ(v.mu1, nullptr) << "a cached pass never writes mu1";
    }
    const SumParams& sums = t.sums[cached][0];
    for (int j = 0; j < sums.num_jobs; ++j) {
      const SumJob& job = sums.jobs[j];
      if (job.edge) {
        EXPECT_TRUE(in(job.mu1, owner_base, owner.total_bytes)) << "the sums' mu1: the owner's cache";
        EXPECT_TRUE(in(job.mu2, lane_base, lane.total_bytes)) << "the sums' mu2: the lane's temp";
      }
      if (job.ssim) {
        EXPECT_TRUE(in(job.quotient, lane_base, lane.total_bytes)) << "the quotient: the lane's temp";
      }
    }
    EXPECT_TRUE(in(sums.chunk_sums, lane_base, lane.total_bytes)) << "the lane's own sum scratch";
    for (const HJob& j : t.h[cached][0]) {
      EXPECT_TRUE(in(j.out, lane_base, lane.total_bytes)) << "the lane writes its own temp";
    }
  }
}

TEST(GpuLayout, AtMost160BytesPerPixel) {
  const int video[][2] = {{1280, 720}, {1920, 1080}, {3840, 2160}};
  for (const auto& s : video) {
    for (bool all : {false, true}) {
      const Layout l = MakeLayout(s[0], s[1], all, 16);
      const double bpp = static_cast<double>(l.total_bytes) / (static_cast<double>(s[0]) * s[1]);
      std::printf("%dx%d%s: %zu bytes of device memory, %.1f bytes per pixel\n", s[0], s[1],
                  all ? " (all features)" : "", l.total_bytes, bpp);
      EXPECT_LE(bpp, 160.0) << s[0] << "x" << s[1];
      const Layout lane = MakeLayout(s[0], s[1], all, 16, /*with_cache=*/false);
      std::printf("  a batch lane: %zu bytes, %.1f bytes per pixel\n", lane.total_bytes,
                  static_cast<double>(lane.total_bytes) / (static_cast<double>(s[0]) * s[1]));
    }
  }
}
