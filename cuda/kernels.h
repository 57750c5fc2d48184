// CUDA kernels of the engine: plain-old-data job descriptions shared by the
// host code (layout.cpp, upload.cpp, passes.cpp) and the kernels
// (kernels.cu), the launch geometry, and the thin launchers. Everything about which planes go where is decided on the
// host (layout.cpp); the kernels only follow the job tables.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arith.h"  // SSIM2_HD
#include "blur_constants.h"
#include "sequential_sum.h"
#include "ssim2/ssim2.h"  // kMaxScales, kNumChannels

#include <cuda_runtime_api.h>

namespace ssim2 {
namespace cuda {

// Maps of one (scale, channel): the five planes the SSIM map needs.
enum MapIndex : int { kMapMu1 = 0, kMapMu2 = 1, kMapS11 = 2, kMapS22 = 3, kMapS12 = 4 };
constexpr int kNumMapSlots = 5;

// Float32 copy of the blur constants, passed by value to the kernels.
struct BlurParams {
  float n2[3];
  float neg_d1[3];
  float mul_in[3][4];
  float mul_prev[3][4];
  float mul_prev2[3][4];
};
BlurParams MakeBlurParams(const BlurConstants& c);

// ---------------------------------------------------------------------------
// Input stage

// Where one input image is, as the kernels read it.
enum InputKind : int {
  kInPacked8 = 0,   // packed 8-bit samples
  kInPacked16 = 1,  // packed 16-bit samples (host byte order)
  kInLinearF32 = 2, // three float planes of linear RGB
  kInI420 = 3,
  kInNV12 = 4,
  kInY444 = 5,
  kInI420_10 = 6,
  kInP010 = 7,
};

// The transfer of an input's samples (ssim2::Transfer).
enum InputTransfer : int {
  kTransferSrgb = 0,    // the sRGB curve
  kTransferLinear = 1,  // none: the samples are linear light
  kTransferPq = 2,      // PQ, BT.2020 primaries (hdr::PqToLinearSrgb)
  kTransferHlg = 3,     // HLG, BT.2020 primaries (hdr::HlgToLinearSrgb, glibc's libm replayed)
};

struct InputDesc {
  const unsigned char* plane[3];
  long long stride[3];  // bytes
  int kind;             // InputKind
  int channels;         // packed: samples per pixel
  int r, g, b, a;       // packed: sample index of each colour, a = -1: no alpha
  float mul;            // packed: (float)(1.0 / max)
  float background;     // alpha background
  // Y'CbCr
  int yuv_matrix;  // 0 BT.601, 1 BT.709, 2 BT.2020
  int yuv_full;    // 1: full range
  // Colour: packed and 10-bit Y'CbCr inputs (linear planar float is linear).
  int transfer;    // InputTransfer; Y'CbCr PQ and HLG are rounded to 16-bit R'G'B' first
  float pq_scale;  // hdr::PqScale of the image's intensity target
  int hlg_ootf_skip;       // hdr::MakeHlgOotf of the image's intensity target:
  float hlg_ootf_exponent; // skip, and gamma - 1
  // The opsin matrix premultiplied by the image's intensity target / 255
  // (hdr::PremultipliedOpsin), used on every scale of this image.
  float opsin[9];
};

// Output planes of the input / downsampling stage for one image.
struct PyramidStep {
  float* xyb;              // channel c at xyb + c * xyb_plane (floats)
  long long xyb_plane;
  int xyb_pitch;
  float* lin_next;         // null: no next scale
  long long lin_next_plane;
  int lin_next_pitch;
  const float* lin_src;    // scale >= 1: linear RGB of this scale
  long long lin_src_plane;
  int lin_src_pitch;
};

// One launch converts `count` images (1 or 2) of width x height: from
// `inputs[i]` (scale 0) or from PyramidStep::lin_src (scale >= 1), writing
// XYB of this scale and the 2x2-downsampled linear RGB of the next.
struct PrepareParams {
  int width, height, count;
  int from_input;  // 1: scale 0 from InputDesc, 0: from lin_src
  InputDesc inputs[2];
  PyramidStep steps[2];
  float opsin[2][9];  // of image i on every scale: its InputDesc::opsin
  float neg_cbrt_bias;
  float mul8;  // (float)(1.0 / 255), for 8-bit Y'CbCr
  // Optional (null: computed per sample): SrgbToLinear((float)(1.0 / 255) * v)
  // for v = 0..255, the linear value of every 8-bit sRGB sample (packed 8-bit
  // inputs without alpha look their samples up instead of evaluating the
  // rational polynomial and its division three times per pixel).
  const float* srgb8;
};
constexpr int kSrgb8Entries = 256;
// The table's values, computed on the host with the same arithmetic.
void FillSrgb8Table(float* table);

cudaError_t LaunchPrepare(const PrepareParams& params, cudaStream_t stream);

// ---------------------------------------------------------------------------
// Horizontal blur: one thread per row; rows of one plane start at a block
// boundary (first_block) so that a warp never mixes widths.

enum RowSource : int {
  kRowA = 0,     // a
  kRowB = 1,     // b
  kRowAA = 2,    // a * a
  kRowBB = 3,    // b * b
  kRowAB = 4,    // a * b
};

struct HJob {
  const float* a;
  const float* b;
  float* out;
  int width, height, pitch;  // pitch in floats, shared by a, b and out
  int source;                // RowSource
  int first_block;
};

constexpr int kHBlockThreads = 32;

cudaError_t LaunchHBlur(const HJob* jobs_device, int num_jobs, int num_blocks,
                        const BlurParams& blur, cudaStream_t stream);

// ---------------------------------------------------------------------------
// Vertical blur fused with the error maps and their sums. A block is 32
// columns x (5 map slots + 5 error-map warps) of one (scale, channel); slot m either blurs the
// horizontally blurred plane src[m] (kSlotBlur), reads an already blurred
// plane (kSlotLoad, the cached mu1 / sigma11), or is unused.

enum SlotMode : int { kSlotNone = 0, kSlotBlur = 1, kSlotLoad = 2 };

struct VJob {
  const float* src[kNumMapSlots];
  float* dst[kNumMapSlots];    // non-null: write the blurred plane there
  const float* img1;           // XYB of the reference (edge map)
  const float* img2;           // XYB of the distorted image
  int mode[kNumMapSlots];
  int width, height, pitch;
  int first_block;
  int ssim, edge;              // which error maps to sum (none: only dst)
  // Sequential sums (Seq* below): non-null, each pixel's SSIM error d and
  // edge difference d1 as doubles, row-major (width apart), for the
  // sequential-sum launches to add in the CPU's order.
  double* terms_ssim;
  double* terms_edge;
};

constexpr int kVColumns = 32;
constexpr int kVRows = 10;        // rows per batch between the blur and the error phase
constexpr int kVWarps = 2 * kNumMapSlots;  // 5 recursion warps + 5 error-map warps
constexpr int kNumSums = 6;       // d, d^4 (ssim); artifact, ^4; detail lost, ^4

// Partial sums: kNumSums doubles per block at partials + block * kNumSums.
cudaError_t LaunchVBlur(const VJob* jobs_device, int num_jobs, int num_blocks,
                        const BlurParams& blur, double* partials, cudaStream_t stream);

// Sums the partials of each job, in block order: out[job.out_index * 6 + k].
struct ReduceJob {
  int first_partial;
  int num_partials;
  int out_index;
};
constexpr int kMaxReduceJobs = 64;
struct ReduceParams {
  ReduceJob jobs[kMaxReduceJobs];
  int num_jobs;
};
cudaError_t LaunchReduce(const ReduceParams& params, const double* partials, double* out,
                         cudaStream_t stream);

// ---------------------------------------------------------------------------
// Sequential sums (EngineOptions::sequential_sums): instead of the reduction
// above, the error maps' per-pixel terms (VJob::terms_*) are summed in the
// CPU's (and the reference's) order, one pixel after the other, bit for bit
// (core/src/sequential_sum.h says why steps can do that in parallel). Each
// term array is cut into chunks of kSeqChunkTerms, a chunk into
// kSeqChunkLeaves leaves of kSeqLeafTerms (a warp, kSeqLaneTerms a lane).
// Three launches:
// - SeqApprox: each chunk's sums in any order (approximate);
// - SeqSteps: per leaf and series, the grid its approximate prefix lies in
//   (g), the leaf's step in g and, where its sums may cross a power of two,
//   in g + 1 (in float64 units, seqsum::TermUnits, where the leaf has no
//   tie; else term steps composed in lane order); per chunk, its leaves'
//   steps composed where all share the chunk's grid (leaf 0's);
// - SeqWalk: a warp per series applies the chunks' steps in order from s = 0,
//   32 at a time; where one does not fit (another grid, or it would leave
//   its grid) it goes down to that chunk's leaves, then to a leaf's terms,
//   and adds the terms of one lane with true additions.
// A term array gives 2 series (SSIM: d, d^4) or 4 (edge: artifact, ^4,
// detail lost, ^4), as the VBlur kernel sums them.

constexpr int kSeqLaneTerms = 4;
constexpr int kSeqLeafTerms = 32 * kSeqLaneTerms;  // 128
constexpr int kSeqChunkLeaves = 32;
constexpr int kSeqChunkTerms = kSeqChunkLeaves * kSeqLeafTerms;  // 4096
constexpr int kSeqSeriesSlots = 4;  // series per term array, at most
constexpr int kSeqThreads = 256;     // SeqApprox and SeqSteps blocks
constexpr int kSeqLeafSteps = 2;     // a leaf's steps: grid g and g + 1

struct SeqJob {
  const double* terms;  // n doubles
  long long n;
  int first_chunk;      // chunks of all jobs are numbered in one sequence
  int num_chunks;
  int edge;             // 0: the SSIM series (2), 1: the edge series (4)
  int out;              // sums index of its first series
};
constexpr int kSeqMaxJobs = kMaxScales * kNumChannels * 2;

// Scratch (device), per chunk and series slot: chunk * kSeqSeriesSlots + k.
struct SeqScratch {
  double* approx;
  seqsum::Step* chunk_step;  // in the grid of the chunk's leaf 0
  seqsum::Step* leaf_step;  // [chunk][slot][leaf][kSeqLeafSteps]
  int* leaf_grid;           // [chunk][slot][leaf]: the grid of a leaf's first step
};

struct SeqParams {
  SeqJob jobs[kSeqMaxJobs];
  int num_jobs;
  int num_chunks;  // all jobs'
  SeqScratch scratch;
};
static_assert(sizeof(SeqParams) <= 4096, "a kernel's parameters fit 4 KiB");

SSIM2_HD int SeqSeries(const SeqJob& job) { return job.edge ? 4 : 2; }

// Series k of a term array, from one pixel's term v: exactly what the VBlur
// kernel and the CPU path add.
SSIM2_HD double SeqSeriesTerm(int edge, int k, double v) {
  if (!edge) return k == 0 ? v : arith::ToThe4th(v);
  const double a = k < 2 ? (v < 0.0 ? 0.0 : v)     // std::max(d1, 0.0)
                         : (-v < 0.0 ? 0.0 : -v);  // std::max(-d1, 0.0)
  return (k & 1) ? arith::ToThe4th(a) : a;
}

// The three launches of one pass; `out`: the pass's sums (kSumsPerResult).
cudaError_t LaunchSequentialSums(const SeqParams& params, double* out, cudaStream_t stream);

// ---------------------------------------------------------------------------
// Frame signatures (cuda/signature.cpp): one launch for up to
// kSignatureFramesPerLaunch frames of a batch, their parameters passed by
// value. Blocks of a frame sum its luma over the cells of a grid, a cell row
// at a time ((image row, cell column) runs, then each cell's rows in order: the
// CPU's sums), and the last of its blocks to finish normalises the frame as
// the CPU does (core/src/frame_signature.h).

enum SignatureLuma : int {
  kLumaPlane8 = 0,     // Y'CbCr 8-bit luma plane
  kLumaPlane16 = 1,    // Y'CbCr 16-bit words: (word >> shift) & mask
  kLumaPacked8 = 2,    // packed 8-bit: grey sample (r == g == b) or weighted R'G'B'
  kLumaPacked16 = 3,   // packed 16-bit, likewise
  kLumaLinearF32 = 4,  // three float planes of linear RGB: double sums
};

// Every sum is 8 bytes: std::uint64_t, or double for kLumaLinearF32.
constexpr int kSignatureSumBytes = 8;

// One frame of a launch.
struct SignatureParams {
  const unsigned char* plane[3];
  long long stride[3];  // bytes
  int kind;             // SignatureLuma
  int channels, r, g, b;
  int shift;
  unsigned mask;
  int width, height;
  int grid_width, grid_height;
  double full_scale;  // signature::LumaFullScale (1 for kLumaLinearF32)
  void* rows;   // grid_width sums per image row: the row's run of each cell
  void* cells;  // grid_width x grid_height sums: each cell's rows in order
  double* stats;      // out: the mean and the contrast
  float* signature;   // out: the normalised cells
};

// The frames of one launch. A kernel's parameters must stay within 4 KiB, so
// a batch of more frames is several launches.
constexpr int kSignatureFramesPerLaunch = 16;

// A launch: `count` frames, the largest grid height among them (the launch
// geometry), and a counter per frame in device memory, zero before the launch
// and left zero after it (the frame's last block counts the others and resets
// it).
struct SignatureLaunch {
  SignatureParams frames[kSignatureFramesPerLaunch];
  int count;
  int max_grid_height;
  unsigned* blocks_done;
};
static_assert(sizeof(SignatureLaunch) <= 4096, "a kernel's parameters fit 4 KiB");

// A block's threads: its statistics lanes (the normalisation's fixed order).
// Means of up to kSignatureSharedMeans cells go through shared memory, more in
// place over the cell sums. A frame gets a block per cell row, at most
// kSignatureBlocksPerFrame (each then takes every so many cell rows).
constexpr int kSignatureThreads = 128;
constexpr int kSignatureSharedMeans = 4608;
constexpr int kSignatureBlocksPerFrame = 64;

// Blocks of a frame of `grid_height` cell rows.
SSIM2_HD int SignatureBlocks(int grid_height) {
  return grid_height < kSignatureBlocksPerFrame ? grid_height : kSignatureBlocksPerFrame;
}

cudaError_t LaunchSignature(const SignatureLaunch& launch, cudaStream_t stream);

// ---------------------------------------------------------------------------
// Launch geometry of each kernel, for the launchers of kernels.cu and of the
// tests' emulated runtime alike.

struct LaunchShape {
  dim3 grid;
  dim3 block;
};

// A thread per 2x2 block of input pixels (one output pixel of the next
// scale), blockIdx.z picks the image.
inline LaunchShape PrepareShape(const PrepareParams& params) {
  const dim3 block(32, 8);
  const int ow = (params.width + 1) / 2;
  const int oh = (params.height + 1) / 2;
  return {dim3((ow + block.x - 1) / block.x, (oh + block.y - 1) / block.y, params.count), block};
}
inline LaunchShape HBlurShape(int num_blocks) { return {dim3(num_blocks), dim3(kHBlockThreads)}; }
inline LaunchShape VBlurShape(int num_blocks) {
  return {dim3(num_blocks), dim3(kVColumns, kVWarps)};
}
// A thread per (job, sum).
inline LaunchShape ReduceShape(const ReduceParams& params) {
  const int threads = params.num_jobs * kNumSums;
  return {dim3((threads + 127) / 128), dim3(128)};
}

// A block per chunk (SeqApprox, SeqSteps); a warp per series of a term array
// (SeqWalk).
inline LaunchShape SeqChunkShape(const SeqParams& params) {
  return {dim3(params.num_chunks), dim3(kSeqThreads)};
}
inline LaunchShape SeqWalkShape(const SeqParams& params) {
  return {dim3(params.num_jobs), dim3(32 * kSeqSeriesSlots)};
}

// Blocks of a frame (SignatureBlocks) along x, the frame along y.
inline LaunchShape SignatureShape(const SignatureLaunch& launch) {
  return {dim3(SignatureBlocks(launch.max_grid_height), launch.count), dim3(kSignatureThreads)};
}

}  // namespace cuda
}  // namespace ssim2
