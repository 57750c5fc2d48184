// Host-side planning of the CUDA engine: where every plane lives in the one
// device allocation, and the job tables of each kernel launch. Pure host
// code (no CUDA calls), so it is unit-tested on the CPU.
//
// Device memory (one cudaMalloc, regions 256-byte aligned), per pixel of
// scale 0 (A = 1 + 1/4 + 1/16 + ... ~ 4/3 for all scales):
//   xyb[2]    XYB of reference and distorted, all scales      2 x 3 x A floats
//   mu1, s11  cached blur of the reference and of its square  2 x 3 x A floats
//   lin[2]    linear RGB of scales >= 1 (scale 0 never stored) 2 x 3 x
//   temp      horizontal-pass output of every needed map of   <= 15 x A floats
//             every scale (so one launch covers all scales);
//             also the upload area of host inputs
//   raw_ref   input samples of an alpha reference (8 bytes), inside the
//             mu1/s11 region (an alpha reference has no cache: it is
//             scored with full passes)
//   A batch lane has no mu1, s11 or raw_ref (it reads its owner's): about
//   8 floats per pixel less.
//   sum scratch  per 1024 pixels of every summed (scale, channel): 6 chunk
//             sums and 6 summaries, 672 bytes, and 3 % more for the groups
//             (~0.68 bytes per pixel and channel, ~2.7 per pixel of scale 0
//             for all scales and channels)
//   sums, job tables: a few KB
// = at most 38 floats + 2.7 bytes ~ 155 bytes per pixel (all_features),
// ~137 with the zero-weight maps skipped. The sums read the SSIM quotient
// and mu1 / mu2 that the vertical pass writes into temp planes it has read
// (temp_plane[s][c][kMapS12], [kMapMu1], [kMapMu2]), so temp must stay as it
// is until the pass's sums have run.
#pragma once

#include <cstddef>
#include <vector>

#include "cuda/kernels.h"
#include "plan.h"

namespace ssim2 {
namespace cuda {

constexpr int kPitchAlign = 32;          // floats: rows start on 128-byte lines
constexpr std::size_t kRegionAlign = 256;

struct ScaleGeom {
  int width = 0;
  int height = 0;
  int pitch = 0;                 // floats
  std::size_t plane_bytes = 0;   // pitch * height * 4
};

// What a pass computes.
enum class PassMode {
  kRef = 0,     // reference only: XYB pyramid, mu1 and s11 into the cache
  kCached = 1,  // distorted against the cache
  kFull = 2,    // both images, nothing cached
};
constexpr int kNumPassModes = 3;
// Scale groups: temp holds one at a time.
// Scale groups share one horizontal and one vertical launch. All scales form
// one group: the small scales' rows and columns run beside scale 0's.
constexpr int kNumGroups = 1;

struct Layout {
  MetricPlan plan;
  // False for a batch lane's memory: it reads its owner's cache, so it has
  // no mu1 / sigma11 / raw_ref regions of its own (offsets kNoPlane) and no
  // kRef tables.
  bool has_cache = true;
  ScaleGeom geom[kMaxScales];
  // Byte offsets into the allocation; an image's channel c is at
  // offset + c * geom[s].plane_bytes.
  std::size_t xyb[2][kMaxScales] = {};
  std::size_t lin[2][kMaxScales] = {};  // scales >= 1
  std::size_t mu1[kMaxScales] = {};
  std::size_t s11[kMaxScales] = {};
  std::size_t temp = 0, temp_bytes = 0;
  static constexpr std::size_t kNoPlane = ~std::size_t(0);
  std::size_t temp_plane[kMaxScales][kNumChannels][kNumMapSlots];
  std::size_t raw_ref = 0, raw_ref_bytes = 0;
  // Chunks and groups of the series summed by a pass (kernels.h, SumParams).
  int sum_chunks = 0, sum_groups = 0;
  std::size_t sum_scratch = 0, sum_scratch_bytes = 0;
  std::size_t sums = 0;
  int num_result_slots = 0;  // kSumsPerResult doubles each
  std::size_t jobs = 0, jobs_bytes = 0;
  std::size_t total_bytes = 0;

  // Offset of the horizontal-pass output of (scale, channel, map).
  std::size_t TempPlane(int scale, int channel, int map) const;
  int Group(int) const { return 0; }
  // Upload areas for host inputs (inside temp).
  std::size_t UploadOffset(int image) const;
  std::size_t UploadBytes() const;
};

constexpr int kSumsPerResult = kMaxScales * kNumChannels * kNumSums;  // 108 doubles

// `result_slots`: device result slots (sums of one pass each);
// `with_cache`: false for a batch lane (Layout::has_cache).
Layout MakeLayout(int width, int height, bool all_features, int result_slots,
                  bool with_cache = true);

// Job tables of every (mode, group) with device pointers relative to `base`.
struct LaunchTables {
  std::vector<HJob> h[kNumPassModes][kNumGroups];
  int h_blocks[kNumPassModes][kNumGroups] = {};
  std::vector<VJob> v[kNumPassModes][kNumGroups];
  int v_blocks[kNumPassModes][kNumGroups] = {};
  // Where each (mode, group)'s tables sit in the job region (bytes from
  // Layout::jobs).
  std::size_t h_offset[kNumPassModes][kNumGroups] = {};
  std::size_t v_offset[kNumPassModes][kNumGroups] = {};
  // The sums of each (mode, group): kCached and kFull (out: set by PlanPass).
  SumParams sums[kNumPassModes][kNumGroups] = {};
  // The bytes to copy to base + Layout::jobs once at creation.
  std::vector<unsigned char> blob;
  // The 8-bit sRGB table (kSrgb8Entries floats), part of the blob: bytes
  // from Layout::jobs.
  std::size_t srgb8_offset = 0;
  // Passed by value to the kernels.
  BlurParams blur{};
  float neg_cbrt_bias = 0.0f;
};

// `cache_base` / `cache_layout`: the allocation whose reference pyramid
// (xyb[0]), mu1 and sigma11 the kCached pass reads, and its layout; null:
// `base` and `layout`. An engine's batch lanes read the cache of the engine
// that owns them (engine_impl.h).
LaunchTables MakeTables(const Layout& layout, char* base, char* cache_base = nullptr,
                        const Layout* cache_layout = nullptr);

// Everything one pass launches, in launch order: a prepare per scale, then
// per scale group one horizontal and one vertical blur and (unless the pass
// only caches the reference) the group's sums into result slot
// `result_slot`. The engine enqueues it (LaunchPass); the emulation tests
// run the very same description on the CPU.
struct PassLaunches {
  int num_scales = 0;
  PrepareParams prepare[kMaxScales];
  struct Group {
    const HJob* h_jobs;
    int h_count, h_blocks;
    const VJob* v_jobs;
    int v_count, v_blocks;
    SumParams sums{};  // num_jobs 0 (kRef): nothing to sum
  } groups[kNumGroups];
  BlurParams blur;
  double* sums = nullptr;  // device, kSumsPerResult doubles: every group's SumParams::out
};

// `ref` / `dist`: the inputs of scale 0 (unused ones may be null: `ref` for
// kCached, `dist` for kRef); `background`: their alpha background. `base`:
// the device allocation the tables were made for.
PassLaunches PlanPass(const Layout& layout, const LaunchTables& tables, char* base, PassMode mode,
                      const InputDesc* ref, const InputDesc* dist, float background,
                      int result_slot);

// Features of one result from its sums (kSumsPerResult doubles), then the
// skipped entries marked and the score computed, as the CPU path does.
void FinishResult(const MetricPlan& plan, const double* sums, Result* result);

}  // namespace cuda
}  // namespace ssim2
