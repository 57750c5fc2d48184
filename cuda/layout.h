// Host-side planning of the CUDA engine: where every plane lives in device
// memory, and the job tables of each kernel launch. Pure host code (no CUDA
// calls), so it is unit-tested on the CPU.
//
// Two allocations (regions 256-byte aligned). Per pixel of scale 0, A = 1 +
// 1/4 + 1/16 + ... ~ 4/3 for all scales, at 1080p with the default plan:
//
// Working memory (Layout; one per executor: the engine and each batch lane),
// made by Create:
//   xyb[1]    XYB of the distorted image, all scales          3 x A floats  16 B
//   xyb[0]    XYB of the reference of a pair pass (kFull)      3 x A floats  16 B
//             (only from an engine's first pair on: before it, and
//             in a lane, passes read the reference from the cache)
//   temp      horizontal-pass output of every needed map of a  9 + ~5 planes 56 B
//             scale group (one group: all scales, so that one
//             launch covers them; two groups: scales 1.., then
//             scale 0, reusing the same bytes: 36 B). Before the
//             horizontal pass it holds the upload areas of host
//             inputs and after them lin[i], the linear RGB of
//             scales >= 1, dead once the prepares have run (of
//             the distorted image only, outside pair passes: a
//             reference pass, kRef, stages its own in the cache
//             and blurs its rows there). With two
//             groups (and no keep_linear) xyb[i][s >= 1] lives at
//             its start too, over the upload areas, from the
//             prepare of scale 1 until the first group's vertical
//             pass; their planes follow it, the linear RGB
//             follows the upload areas and it.
//   partials, sums, job tables: a few KB
//   = 88 B/px (two scale groups: 60) once the engine has scored a pair;
//   before, and for a batch lane, 48 (32): xyb[1] and the planes of the
//   cached pass, 5 at scale 0. A second engine (kPreparer) has no temp,
//   only the partials, sums and job tables: its passes work in the cache.
//
// Reference cache (CacheLayout), made on the first SetReference: the
// reference's XYB pyramid, its blurred mu1 (channels with any error map) and
// sigma11 (channels with the SSIM map) per scale, about 40 B/px; an alpha
// reference keeps its input samples there instead (8 B/px): it is scored with
// full passes. kRef writes it, kCached reads it (a batch lane reads its
// owner's); a pair pass never touches it. A kRef pass needs nothing else:
// its host upload and linear RGB wait over the mu1 / sigma11 planes until
// the prepares have read them, and its horizontal rows are written into
// those planes and blurred vertically in place.
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
// Scale groups share one horizontal and one vertical launch, and temp holds
// one group at a time. One group (the default): the small scales' rows and
// columns run beside scale 0's. Two: scales 1.., then scale 0 (less memory:
// the smaller scales' XYB is dead by scale 0's launches and lives in temp;
// a second pair of launches before the first).
constexpr int kMaxGroups = 2;

constexpr std::size_t kNoPlane = ~std::size_t(0);

// Scale groups of a batch lane when EngineOptions::lane_scale_groups is 0
// and no memory_limit asks for fewer bytes: two from kLaneTwoGroupsPixels
// pixels of scale 0 on (32 instead of 48 bytes per pixel a lane, so that a
// 4K ladder's scorer fits in 2 GB), where a pass fills the GPU and the
// second pair of launches costs a batch little; one below, where it costs
// more (the figures: docs/PERFORMANCE.md, "A reference pass in its cache
// slot; lanes in two scale groups from 4K on").
constexpr long long kLaneTwoGroupsPixels = 3840LL * 2160;
int DefaultLaneGroups(int width, int height);

// The reference cache's regions, byte offsets into its own allocation.
struct CacheLayout {
  std::size_t xyb[kMaxScales] = {};  // channel c at + c * geom[s].plane_bytes
  std::size_t mu1[kMaxScales][kNumChannels];  // kNoPlane: not needed
  std::size_t s11[kMaxScales][kNumChannels];
  // Input samples of an alpha reference (at most 8 bytes per pixel, rows
  // 16-byte aligned), over the pyramid: an alpha reference has none.
  std::size_t raw_ref = 0, raw_ref_bytes = 0;
  // Where a reference pass (kRef) stages a host upload (Layout::upload_bytes)
  // and the linear RGB of scales >= 1 (kNoPlane at 0): over the mu1 and
  // sigma11 planes, which its prepares have read before its horizontal pass
  // writes there. So a pass that prepares a reference needs no working
  // memory of its own for them.
  std::size_t upload = 0;
  std::size_t lin[kMaxScales] = {};
  std::size_t total_bytes = 0;
};

// What a working memory serves.
enum class Executor {
  kEngine,     // every pass: pairs, reference preparation, cached passes
  kReference,  // an engine before its first pair: kRef and kCached passes
               // (no xyb[0]; kRef works in the cache, temp is kCached's)
  kLane,       // a batch lane: kCached passes against its owner's cache only
  kPreparer,   // an engine's second engine: kRef passes only, into either
               // cache slot, beside the batches on the engine's streams (no
               // XYB or temp of its own: kRef works in the cache slot)
};
// Reference caches of an engine: its own, and its second engine's, in which
// the next reference is prepared while batches read the first.
constexpr int kCacheSlots = 2;

struct LayoutOptions {
  bool all_features = false;
  int result_slots = 1;  // device result slots (sums of one pass each)
  Executor executor = Executor::kEngine;
  int groups = 1;  // scale groups, 1..kMaxGroups (a second engine always has one)
  // Keep the linear RGB of scales >= 1 in a region of its own instead of in
  // temp, so that it can be read back after a pass (tests' DebugDownload).
  bool keep_linear = false;
  // Sum the error maps in the CPU's sequential order (EngineOptions::
  // sequential_sums): every scoring executor keeps each pixel's terms
  // (16 bytes a pixel and channel, all scales) and the steps' scratch.
  bool sequential_sums = false;
};

struct Layout {
  MetricPlan plan;
  LayoutOptions options;
  int num_groups = 1;
  ScaleGeom geom[kMaxScales];
  // Byte offsets into the working memory; an image's channel c is at
  // offset + c * geom[s].plane_bytes. kNoPlane where the executor has none.
  std::size_t xyb[2][kMaxScales] = {};
  std::size_t lin[2][kMaxScales] = {};  // scales >= 1
  std::size_t temp = 0, temp_bytes = 0;
  std::size_t temp_plane[kMaxScales][kNumChannels][kNumMapSlots];
  std::size_t upload[2] = {};  // host inputs' areas, inside temp ([0]: pair passes only)
  std::size_t upload_bytes = 0;
  std::size_t partials = 0;
  int max_partials = 0;  // blocks of one pass (kNumSums doubles each)
  std::size_t sums = 0;
  int num_result_slots = 0;  // kSumsPerResult doubles each
  // Sequential sums: the term arrays of each (scale, channel), [0] SSIM,
  // [1] edge (kNoPlane: none), and the scratch of seq_chunks chunks.
  std::size_t terms[kMaxScales][kNumChannels][2];
  int seq_chunks = 0;
  std::size_t seq_approx = 0, seq_chunk_step = 0, seq_leaf_step = 0,
              seq_leaf_grid = 0;
  bool sequential_sums() const { return seq_chunks > 0; }
  // The job tables of each cache slot, jobs_slot_bytes apart.
  std::size_t jobs = 0, jobs_bytes = 0, jobs_slot_bytes = 0;
  std::size_t total_bytes = 0;
  // The reference cache of an engine of this size (a lane reads its owner's,
  // laid out the same).
  CacheLayout cache;

  bool is_lane() const { return options.executor == Executor::kLane; }
  bool is_preparer() const { return options.executor == Executor::kPreparer; }
  // Whether kCached passes run here (everywhere but on a second engine).
  bool scores_against_cache() const { return !is_preparer(); }
  // Whether kFull passes (pairs, an alpha reference's passes) can run here.
  bool scores_pairs() const { return options.executor == Executor::kEngine; }
  // Whether kRef passes run here (into the cache: only a pair pass prepares
  // the reference in this memory).
  bool prepares_reference() const { return !is_lane(); }
  // Offset of the horizontal-pass output of (scale, channel, map).
  std::size_t TempPlane(int scale, int channel, int map) const;
  // Groups run in order: with two, the smaller scales first, then scale 0.
  int Group(int scale) const { return num_groups > 1 && scale == 0 ? 1 : 0; }
  // Whether the horizontal pass of this executor writes map `map` of a
  // (scale, channel) with these needs.
  bool NeedsTempPlane(const ChannelNeeds& needs, int map) const;
};

constexpr int kSumsPerResult = kMaxScales * kNumChannels * kNumSums;  // 108 doubles

Layout MakeLayout(int width, int height, const LayoutOptions& options);

// Job tables of every (mode, group) with device pointers relative to `base`.
struct LaunchTables {
  // Where the blob sits: bytes from the working memory's base (Layout::jobs
  // plus the cache slot's share).
  std::size_t jobs = 0;
  std::vector<HJob> h[kNumPassModes][kMaxGroups];
  int h_blocks[kNumPassModes][kMaxGroups] = {};
  std::vector<VJob> v[kNumPassModes][kMaxGroups];
  int v_blocks[kNumPassModes][kMaxGroups] = {};
  // Where each (mode, group)'s tables sit in the job region (bytes from
  // LaunchTables::jobs) and where its V launch writes partials (blocks from
  // Layout::partials).
  std::size_t h_offset[kNumPassModes][kMaxGroups] = {};
  std::size_t v_offset[kNumPassModes][kMaxGroups] = {};
  int partial_base[kNumPassModes][kMaxGroups] = {};
  ReduceParams reduce[kNumPassModes] = {};
  // Sequential sums (Layout::sequential_sums()) instead of `reduce`.
  SeqParams seq[kNumPassModes] = {};
  // The bytes to copy to base + jobs once at creation.
  std::vector<unsigned char> blob;
  // The 8-bit sRGB table (kSrgb8Entries floats), part of the blob: bytes
  // from jobs.
  std::size_t srgb8_offset = 0;
  // Passed by value to the kernels.
  BlurParams blur{};
  float neg_cbrt_bias = 0.0f;
};

// `cache_base`: the reference cache (Layout::cache) that kRef writes and
// kCached reads; an engine's batch lanes read the cache of the engine that
// owns them (engine_impl.h). Null: no cache yet, so no kRef or kCached
// tables (the engine makes them again once it allocates its cache). `slot`:
// the cache slot (kCacheSlots) whose share of the job region holds the blob.
LaunchTables MakeTables(const Layout& layout, char* base, char* cache_base, int slot = 0);

// Everything one pass launches, in launch order: a prepare per scale, then
// per scale group one horizontal and one vertical blur, then (unless the
// pass only caches the reference) one reduction into result slot
// `result_slot`. The engine enqueues it (LaunchPass); the emulation tests run
// the very same description on the CPU.
struct PassLaunches {
  int num_scales = 0;
  int num_groups = 0;
  PrepareParams prepare[kMaxScales];
  struct Group {
    const HJob* h_jobs;
    int h_count, h_blocks;
    const VJob* v_jobs;
    int v_count, v_blocks;
    double* partials;
  } groups[kMaxGroups];
  BlurParams blur;
  const ReduceParams* reduce = nullptr;  // null: kRef, nothing to reduce
  const SeqParams* seq = nullptr;        // non-null: sequential sums instead of reduce
  const double* partials = nullptr;
  double* sums = nullptr;  // device, kSumsPerResult doubles
};

// `ref` / `dist`: the inputs of scale 0 (unused ones may be null: `ref` for
// kCached, `dist` for kRef); `background`: their alpha background. `base`,
// `cache_base`: the device allocations the tables were made for.
PassLaunches PlanPass(const Layout& layout, const LaunchTables& tables, char* base,
                      char* cache_base, PassMode mode,
                      const InputDesc* ref, const InputDesc* dist, float background,
                      int result_slot);

// Features of one result from its sums (kSumsPerResult doubles), then the
// skipped entries marked and the score computed, as the CPU path does.
void FinishResult(const MetricPlan& plan, const double* sums, Result* result);

}  // namespace cuda
}  // namespace ssim2
