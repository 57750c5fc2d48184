// The kernels of the CUDA engine (device code only), included by kernels.cu.
// Kept in a header of its own so that tests/cuda/test_cuda_emulation.cpp can
// also compile it as plain C++ with a small shim for the CUDA built-ins and
// run it on the CPU, thread by thread, to check indexing and barriers on
// machines without a GPU.
#pragma once

#include "arith.h"
#include "cuda/kernels.h"
#include "frame_signature.h"
#include "hdr_transfer.h"
#include "yuv.h"

namespace ssim2 {
namespace cuda {

namespace {

// ---------------------------------------------------------------------------
// Input stage

struct Rgb {
  float v[3];
};

__device__ __forceinline__ const unsigned char* RowPtr(const InputDesc& in, int p, int y) {
  return in.plane[p] + static_cast<long long>(y) * in.stride[p];
}

__device__ __forceinline__ std::uint16_t Word(const unsigned char* row, int index) {
  return reinterpret_cast<const std::uint16_t*>(row)[index];
}

// Encoded R'G'B' (0..1) to linear light by the input's transfer, as
// cpu::LightConversion does it.
__device__ __forceinline__ Rgb EncodedToLinear(const InputDesc& in, float r, float g, float b) {
  Rgb out;
  switch (in.transfer) {
    case kTransferLinear:
      out.v[0] = r;
      out.v[1] = g;
      out.v[2] = b;
      break;
    case kTransferPq: {
      const hdr::Rgb l = hdr::PqToLinearSrgb(r, g, b, in.pq_scale);
      out.v[0] = l.r;
      out.v[1] = l.g;
      out.v[2] = l.b;
      break;
    }
    case kTransferHlg: {
      const hdr::HlgOotf ootf{in.hlg_ootf_skip != 0, in.hlg_ootf_exponent};
      const hdr::Rgb l = hdr::HlgToLinearSrgb<hdr::ReplayedLibm>(r, g, b, ootf);
      out.v[0] = l.r;
      out.v[1] = l.g;
      out.v[2] = l.b;
      break;
    }
    default:
      out.v[0] = arith::SrgbToLinear(r);
      out.v[1] = arith::SrgbToLinear(g);
      out.v[2] = arith::SrgbToLinear(b);
      break;
  }
  return out;
}

// Linear RGB of input pixel (x, y), as cpu/convert.cpp computes it.
__device__ Rgb LoadLinear(const InputDesc& in, const yuv::Coeffs& yc, float mul8,
                          const float* srgb8, int x, int y) {
  Rgb out;
  if (srgb8 && in.kind == kInPacked8 && in.a < 0 && in.transfer == kTransferSrgb) {
    const unsigned char* row = RowPtr(in, 0, y);
    out.v[0] = __ldg(srgb8 + row[x * in.channels + in.r]);
    out.v[1] = __ldg(srgb8 + row[x * in.channels + in.g]);
    out.v[2] = __ldg(srgb8 + row[x * in.channels + in.b]);
    return out;
  }
  switch (in.kind) {
    case kInPacked8:
    case kInPacked16: {
      const unsigned char* row = RowPtr(in, 0, y);
      float s[4];
      const int idx[4] = {in.r, in.g, in.b, in.a};
      for (int i = 0; i < 4; ++i) {
        if (idx[i] < 0) {
          s[i] = 0.0f;
          continue;
        }
        const int sample = in.kind == kInPacked8 ? row[x * in.channels + idx[i]]
                                                 : Word(row, x * in.channels + idx[i]);
        s[i] = in.mul * static_cast<float>(sample);
      }
      if (in.a >= 0) {
        for (int i = 0; i < 3; ++i) s[i] = arith::AlphaBlend(s[i], s[3], in.background);
      }
      out = EncodedToLinear(in, s[0], s[1], s[2]);
      break;
    }
    case kInLinearF32: {
      for (int i = 0; i < 3; ++i) {
        out.v[i] = reinterpret_cast<const float*>(RowPtr(in, i, y))[x];
      }
      break;
    }
    default: {
      // Y'CbCr: I420, NV12 and Y444 in bytes, I420_10 and P010 in 16-bit words.
      const bool interleaved = in.kind == kInNV12 || in.kind == kInP010;
      const yuv::ChromaSite c = yuv::ChromaSiteOf(x, y, in.kind != kInY444, interleaved);
      const unsigned char* y_row = RowPtr(in, 0, y);
      const unsigned char* u_row = RowPtr(in, 1, c.row);
      // Constant plane indices in both branches: an index chosen at run
      // time makes nvcc copy the descriptor's plane table to local memory
      // for every thread (measured on the H200: -12 % pairs/s at 1080p).
      const unsigned char* v_row = interleaved ? RowPtr(in, 1, c.row) : RowPtr(in, 2, c.row);
      int Y, U, V;
      if (in.kind == kInI420_10 || in.kind == kInP010) {
        const bool high_bits = in.kind == kInP010;
        Y = yuv::Sample10(Word(y_row, x), high_bits);
        U = yuv::Sample10(Word(u_row, c.u), high_bits);
        V = yuv::Sample10(Word(v_row, c.v), high_bits);
      } else {
        Y = y_row[x];
        U = u_row[c.u];
        V = v_row[c.v];
      }
      if (in.transfer == kTransferSrgb) {
        yuv::ToLinear(yc, Y, U, V, mul8, out.v);
        break;
      }
      // PQ and HLG (10-bit only): the 16-bit R'G'B' a PNG export of the frame holds.
      double rgb[3];
      yuv::ToRgbDouble(yc, Y, U, V, rgb);
      float e[3];
      for (int i = 0; i < 3; ++i) {
        e[i] = hdr::SampleFromU16(static_cast<std::uint16_t>(yuv::Quantize16(rgb[i])));
      }
      out = EncodedToLinear(in, e[0], e[1], e[2]);
      break;
    }
  }
  return out;
}

__device__ __forceinline__ Rgb LoadLinearPlanes(const PyramidStep& st, int x, int y) {
  Rgb out;
  for (int c = 0; c < 3; ++c) {
    out.v[c] = st.lin_src[c * st.lin_src_plane + static_cast<long long>(y) * st.lin_src_pitch + x];
  }
  return out;
}

// One thread per 2x2 block of this scale: XYB of its (up to) 4 pixels and
// one pixel of the next scale's linear RGB (edge-clamped box average).
__global__ void PrepareKernel(const PrepareParams p) {
  const int ox = blockIdx.x * blockDim.x + threadIdx.x;
  const int oy = blockIdx.y * blockDim.y + threadIdx.y;
  const int ow = (p.width + 1) / 2;
  const int oh = (p.height + 1) / 2;
  if (ox >= ow || oy >= oh) return;
  const int z = blockIdx.z;
  const PyramidStep st = z == 0 ? p.steps[0] : p.steps[1];
  float opsin[9];
#pragma unroll
  for (int i = 0; i < 9; ++i) opsin[i] = p.opsin[z == 0 ? 0 : 1][i];
  // Value-initialised: read only when p.from_input, as they are set, but
  // gcc (the emulated build) cannot see that and warns.
  InputDesc in{};
  yuv::Coeffs yc{};
  if (p.from_input) {
    in = z == 0 ? p.inputs[0] : p.inputs[1];
    yc = yuv::MakeCoeffs(in.yuv_matrix, in.yuv_full != 0,
                         in.kind == kInI420_10 || in.kind == kInP010);
  }
  float lin[2][2][3];
#pragma unroll
  for (int dy = 0; dy < 2; ++dy) {
#pragma unroll
    for (int dx = 0; dx < 2; ++dx) {
      const int x = min(2 * ox + dx, p.width - 1);
      const int y = min(2 * oy + dy, p.height - 1);
      const Rgb v = p.from_input ? LoadLinear(in, yc, p.mul8, p.srgb8, x, y) : LoadLinearPlanes(st, x, y);
      lin[dy][dx][0] = v.v[0];
      lin[dy][dx][1] = v.v[1];
      lin[dy][dx][2] = v.v[2];
      if (2 * ox + dx < p.width && 2 * oy + dy < p.height) {
        const arith::Xyb q =
            arith::LinearToPositiveXyb(v.v[0], v.v[1], v.v[2], opsin, p.neg_cbrt_bias);
        float* base = st.xyb + static_cast<long long>(y) * st.xyb_pitch + x;
        base[0] = q.x;
        base[st.xyb_plane] = q.y;
        base[2 * st.xyb_plane] = q.b;
      }
    }
  }
  if (st.lin_next) {
    float* base = st.lin_next + static_cast<long long>(oy) * st.lin_next_pitch + ox;
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      base[c * st.lin_next_plane] =
          arith::Downsample4(lin[0][0][c], lin[0][1][c], lin[1][0][c], lin[1][1][c]);
    }
  }
}

// ---------------------------------------------------------------------------
// Horizontal pass: the reference's FastGaussian1D per row (scalar head for
// n = -4..7, four outputs per step while n < width - 7, scalar tail), one
// thread per row, a block (one warp) per 32 rows of one plane. Groups of four
// outputs start at n = 4m (m = -1, 0, ...), so every vector step reads aligned
// quads Q(j) = in[4j .. 4j+3].
//
// The rows are not read by their threads from global memory (32 rows per
// load instruction: uncoalesced, and each step waited for its load): the warp
// loads tiles of 32 rows x 32 floats with coalesced float4 loads one tile
// (8 steps) ahead into registers, stages them in shared memory (products
// formed there), and each thread reads its row's quads from shared memory.
// Outputs go the same way back: a 32 x 32 tile in shared memory, written
// with coalesced stores every 8 steps.

constexpr int kHTile = 32;       // floats of a row per tile (8 quads)
constexpr int kHTilePitch = 36;  // padded: conflict-free float4 row reads

__device__ __forceinline__ float4 Mul4(float4 x, const float4& y) {
  x.x = x.x * y.x;
  x.y = x.y * y.y;
  x.z = x.z * y.z;
  x.w = x.w * y.w;
  return x;
}

__device__ __forceinline__ float QuadAt(const float4& q, int i) {
  return i == 0 ? q.x : i == 1 ? q.y : i == 2 ? q.z : q.w;
}

__global__ void __launch_bounds__(kHBlockThreads) HBlurKernel(const HJob* __restrict__ jobs,
                                                              int num_jobs, const BlurParams bp) {
  static_assert(kHBlockThreads == 32, "one warp per block: 32 rows per tile");
  __shared__ __align__(16) float s_in[2][kHBlockThreads][kHTilePitch];
  __shared__ __align__(16) float s_out[kHBlockThreads][kHTilePitch];
  int j = 0;
  while (j + 1 < num_jobs && jobs[j + 1].first_block <= static_cast<int>(blockIdx.x)) ++j;
  const HJob job = jobs[j];
  const int lane = threadIdx.x;
  const int row0 = (blockIdx.x - job.first_block) * kHBlockThreads;
  const int rows = min(kHBlockThreads, job.height - row0);
  const int width = job.width;
  const long long pitch = job.pitch;
  const int source = job.source;
  const float* a = job.a;
  const float* b = job.b ? job.b : job.a;
  float* out = job.out;

  // Cooperative tile copies: load i moves row 4i + lr, quad lq of the tile.
  const int lr = lane >> 3;
  const int lq = lane & 7;
  // The loads of a tile are only issued here; nothing reads their registers
  // before stash() eight steps later (the products are formed there), so no
  // step waits for memory. Out-of-range quads load a valid address (the
  // plane's first quad) and are zeroed in stash().
  float4 pre_a[8], pre_b[8];
  bool pre_ok[8];
  const bool two = source == kRowAB;
  auto fetch = [&](int tile) {
    const int q = tile * (kHTile / 4) + lq;
    const bool in_width = 4 * q < width;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int r = 4 * i + lr;
      pre_ok[i] = in_width && r < rows;
      const long long off = pre_ok[i] ? (row0 + r) * pitch + 4 * q : 0;
      pre_a[i] = __ldg(reinterpret_cast<const float4*>(a + off));
      if (two) pre_b[i] = __ldg(reinterpret_cast<const float4*>(b + off));
    }
  };
  auto stash = [&](int buf) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      float4 x = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (pre_ok[i]) {
        x = pre_a[i];
        if (source != kRowA) x = Mul4(x, two ? pre_b[i] : x);
      }
      *reinterpret_cast<float4*>(&s_in[buf][4 * i + lr][4 * lq]) = x;
    }
  };
  auto flush = [&](int tile) {
    const int col = tile * kHTile + 4 * lq;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int r = 4 * i + lr;
      if (r >= rows || col >= width) continue;
      const float4 v = *reinterpret_cast<const float4*>(&s_out[r][4 * lq]);
      float* dst = out + (row0 + r) * pitch + col;
      if (col + 3 < width) {
        *reinterpret_cast<float4*>(dst) = v;
      } else {
        for (int k = 0; k < width - col; ++k) dst[k] = QuadAt(v, k);
      }
    }
  };

  const int m_end = (width + 3) / 4;
  const int num_tiles = ((m_end + 2) >> 3) + 1;  // tiles holding quads 0 .. m_end + 2
  fetch(0);
  stash(0);
  __syncthreads();
  fetch(1);

  float prev[3] = {0.0f, 0.0f, 0.0f};
  float prev2[3] = {0.0f, 0.0f, 0.0f};
  // w[i] = Q(m - 2 + i)
  const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float4 w[4] = {zero, zero, zero, *reinterpret_cast<const float4*>(&s_in[0][lane][0])};
  // The quad after w[3], read from shared memory a step before it is used.
  float4 wn = *reinterpret_cast<const float4*>(&s_in[0][lane][4]);
  float* my_out = s_out[lane];

  for (int m = -1; m < m_end; ++m) {
    const int n = 4 * m;
    if (n >= 8 && n < width - 7) {
      float in_sum[4];
      in_sum[0] = w[0].z + w[3].x;
      in_sum[1] = w[0].w + w[3].y;
      in_sum[2] = w[1].x + w[3].z;
      in_sum[3] = w[1].y + w[3].w;
      float o[4];
      arith::BlurRowStep4(bp, in_sum, prev, prev2, o);
      const float4 r = make_float4(o[0], o[1], o[2], o[3]);
      *reinterpret_cast<float4*>(my_out + 4 * (m & 7)) = r;
    } else {
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
        const int nn = n + jj;
        if (nn >= width) break;
        const int lo = nn - 6;  // sample(n - N - 1)
        const int hi = nn + 4;  // sample(n + N - 1)
        const float lo_v = jj < 2 ? QuadAt(w[0], 2 + jj) : QuadAt(w[1], jj - 2);
        const float hi_v = QuadAt(w[3], jj);
        const float sum = (lo >= 0 && lo < width ? lo_v : 0.0f) + (hi < width ? hi_v : 0.0f);
        const float o = arith::BlurRowStep(bp, sum, prev, prev2);
        if (nn >= 0) my_out[4 * (m & 7) + jj] = o;
      }
    }
    if (m >= 0 && ((m & 7) == 7 || m == m_end - 1)) {
      __syncthreads();
      flush(m >> 3);
      __syncthreads();
    }
    w[0] = w[1];
    w[1] = w[2];
    w[2] = w[3];
    w[3] = wn;  // Q(m + 2)
    const int jn = m + 3;  // the quad read ahead
    if ((jn & 7) == 0) {
      const int t = jn >> 3;
      if (t < num_tiles) {
        __syncthreads();
        stash(t & 1);
        __syncthreads();
        fetch(t + 1);  // past the last tile: all quads out of range
      }
    }
    wn = *reinterpret_cast<const float4*>(&s_in[(jn >> 3) & 1][lane][4 * (jn & 7)]);
  }
}

// ---------------------------------------------------------------------------
// Vertical pass + error maps + sums.

__device__ __forceinline__ double WarpSum(double v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// A block is 32 columns of one (scale, channel) and two groups of 5 warps:
// warps 0..4 run the column recursions of the 5 map slots (one batch of
// kVRows rows per iteration, into shared memory), warps 5..9 turn the
// previous batch into SSIM / edge errors and their float64 sums. The two
// groups work on consecutive batches at the same time (one barrier per
// batch), so the error maps' float/double divisions no longer sit on the
// recursion's critical path. Each error thread handles rows e and e + 5 of a
// batch (e = warp - 5), as one thread of the former single group did, so the
// sums (and their order) are unchanged.
__global__ void __launch_bounds__(kVColumns* kVWarps)
    VBlurKernel(const VJob* __restrict__ jobs, int num_jobs, const BlurParams bp,
                double* __restrict__ partials) {
  static_assert(kVWarps == 2 * kNumMapSlots, "recursion warps + error warps");
  static_assert(kVRows == 2 * kNumMapSlots, "two error pixels per error thread and batch");
  __shared__ int s_job;
  __shared__ float buf[2][kVRows][kNumMapSlots][kVColumns];
  __shared__ double red[kNumMapSlots][kNumSums];
  const int lane = threadIdx.x;
  const int warp = threadIdx.y;
  const int tid = warp * kVColumns + lane;
  if (tid == 0) {
    int j = 0;
    while (j + 1 < num_jobs && jobs[j + 1].first_block <= static_cast<int>(blockIdx.x)) ++j;
    s_job = j;
  }
  __syncthreads();
  const VJob& job = jobs[s_job];
  const int width = job.width;
  const int height = job.height;
  const long long pitch = job.pitch;
  const int col0 = (blockIdx.x - job.first_block) * kVColumns;
  const int col = col0 + lane;
  const bool col_ok = col < width;
  const bool sums = job.ssim || job.edge;
  const int batches = (height + kVRows - 1) / kVRows;

  // Both roles run the same loop and meet at one __syncthreads call site per
  // batch (a barrier reached from two code paths is undefined, and
  // compute-sanitizer synccheck reports it).
  const bool rec = warp < kNumMapSlots;
  if (!rec && !sums) return;  // only the blurred planes are wanted: no error work

  // ---- recursion warps' state
  const int slot = rec ? warp : 0;
  const int mode = job.mode[slot];
  const float* src = job.src[slot];
  float* dst = job.dst[slot];
  const int lim = min(6, height);  // min(N + 1, height): rows with one input
  float y1[3] = {0.0f, 0.0f, 0.0f};
  float y2[3] = {0.0f, 0.0f, 0.0f};
  auto step = [&](float sum) { return arith::BlurColumnStep(bp.n2, bp.neg_d1, sum, y1, y2); };
  // bot[i]: the row entering at the bottom (or the plane itself for
  // kSlotLoad), loaded one batch ahead. The row leaving at the top of row n,
  // n - 6, entered at the bottom of row n - 10 = n - kVRows: the same lane of
  // the previous batch, kept in registers instead of read again.
  static_assert(kVRows == 10, "top rows are the previous batch's bottom rows");
  float next_bot[kVRows];
  float prev_bot[kVRows];
  auto load_batch = [&](int n0) {
    if (mode == kSlotBlur && col_ok && n0 + kVRows + 4 <= height) {
      // Interior batch: every row's bottom input exists.
      const float* p = src + (n0 + 4) * pitch + col;
#pragma unroll
      for (int i = 0; i < kVRows; ++i) next_bot[i] = p[i * pitch];
      return;
    }
    if (mode == kSlotLoad && col_ok && n0 + kVRows <= height) {
      // The same for a cached plane (mu1, sigma11 against a cached
      // reference): without it the per-row checks below made the cached
      // pass's vertical kernel run about a fifth more instructions than the
      // pair pass's, although it blurs two planes fewer.
      const float* p = src + n0 * pitch + col;
#pragma unroll
      for (int i = 0; i < kVRows; ++i) next_bot[i] = p[i * pitch];
      return;
    }
#pragma unroll
    for (int i = 0; i < kVRows; ++i) {
      const int n = n0 + i;
      next_bot[i] = 0.0f;
      if (!col_ok || n >= height) continue;
      if (mode == kSlotBlur) {
        if (n + 4 < height) next_bot[i] = src[(n + 4) * pitch + col];
      } else if (mode == kSlotLoad) {
        next_bot[i] = src[n * pitch + col];
      }
    }
  };

  // ---- error warps' state
  const int e = rec ? 0 : warp - kNumMapSlots;
  const bool edge = job.edge != 0;
  const bool ssim = job.ssim != 0;
  const float* img1 = job.img1;
  const float* img2 = job.img2;
  // The edge map's XYB samples of this thread's pixels (rows e and e + 5 of
  // a batch), loaded a batch ahead.
  float next_e1[2], next_e2[2];
  auto load_edge = [&](int n0) {
#pragma unroll
    for (int rep = 0; rep < 2; ++rep) {
      const int n = n0 + e + kNumMapSlots * rep;
      next_e1[rep] = 0.0f;
      next_e2[rep] = 0.0f;
      if (edge && col_ok && n < height) {
        next_e1[rep] = img1[n * pitch + col];
        next_e2[rep] = img2[n * pitch + col];
      }
    }
  };
  double acc[kNumSums] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};

  if (rec) {
    // Rows 0..3 enter before the first output (n = -4..-1); they leave at
    // the top of rows 6..9.
    float head[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (mode == kSlotBlur && col_ok) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        if (i < height) head[i] = src[i * pitch + col];
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) step(head[i]);
    }
    load_batch(0);
#pragma unroll
    for (int i = 0; i < kVRows; ++i) prev_bot[i] = i >= 6 ? head[i - 6] : 0.0f;
  } else {
    load_edge(0);
  }

  for (int bi = 0; bi <= batches; ++bi) {
    if (rec) {
      if (bi < batches) {
        const int n0 = bi * kVRows;
        float bot[kVRows], top[kVRows];
#pragma unroll
        for (int i = 0; i < kVRows; ++i) {
          bot[i] = next_bot[i];
          top[i] = prev_bot[i];
          prev_bot[i] = bot[i];
        }
        if (bi + 1 < batches) load_batch(n0 + kVRows);
        float (*out)[kNumMapSlots][kVColumns] = buf[bi & 1];
        if (mode == kSlotBlur && n0 >= lim && n0 + kVRows <= height) {
          // Interior batch: every row exists and has both inputs.
          float v[kVRows];
#pragma unroll
          for (int i = 0; i < kVRows; ++i) {
            v[i] = step(top[i] + bot[i]);
            out[i][slot][lane] = v[i];
          }
          if (dst && col_ok) {
            float* p = dst + n0 * pitch + col;
#pragma unroll
            for (int i = 0; i < kVRows; ++i) p[i * pitch] = v[i];
          }
        } else if (mode == kSlotLoad && !dst && n0 + kVRows <= height) {
          // Interior batch of a cached plane: the rows go to the error warps.
#pragma unroll
          for (int i = 0; i < kVRows; ++i) out[i][slot][lane] = bot[i];
        } else {
#pragma unroll
          for (int i = 0; i < kVRows; ++i) {
            const int n = n0 + i;
            float v = 0.0f;
            if (mode == kSlotBlur) {
              if (n < height) v = step(n < lim ? bot[i] : top[i] + bot[i]);
            } else {
              v = bot[i];
            }
            out[i][slot][lane] = v;
            if (dst && col_ok && n < height) dst[n * pitch + col] = v;
          }
        }
      }
    } else if (bi >= 1) {
      const int b = bi - 1;  // the batch the recursion warps finished
      const int n0 = b * kVRows;
      float e1[2], e2[2];
#pragma unroll
      for (int rep = 0; rep < 2; ++rep) {
        e1[rep] = next_e1[rep];
        e2[rep] = next_e2[rep];
      }
      if (bi < batches) load_edge(n0 + kVRows);
      float (*out)[kNumMapSlots][kVColumns] = buf[b & 1];
#pragma unroll
      for (int rep = 0; rep < 2; ++rep) {
        const int r = e + kNumMapSlots * rep;
        const int n = n0 + r;
        if (n >= height || !col_ok) continue;
        const float mu1 = out[r][kMapMu1][lane];
        const float mu2 = out[r][kMapMu2][lane];
        if (ssim) {
          const double d = arith::SsimError(mu1, mu2, out[r][kMapS11][lane],
                                            out[r][kMapS22][lane], out[r][kMapS12][lane]);
          acc[0] += d;
          acc[1] += arith::ToThe4th(d);
          if (job.terms_ssim) job.terms_ssim[static_cast<long long>(n) * width + col] = d;
        }
        if (edge) {
          const double d1 = arith::EdgeDiff(e1[rep], mu1, e2[rep], mu2);
          if (job.terms_edge) job.terms_edge[static_cast<long long>(n) * width + col] = d1;
          const double artifact = d1 < 0.0 ? 0.0 : d1;      // std::max(d1, 0.0)
          const double detail_lost = -d1 < 0.0 ? 0.0 : -d1;  // std::max(-d1, 0.0)
          acc[2] += artifact;
          acc[3] += arith::ToThe4th(artifact);
          acc[4] += detail_lost;
          acc[5] += arith::ToThe4th(detail_lost);
        }
      }
    }
    if (sums) __syncthreads();
  }
  if (!sums) return;
  if (!rec) {
#pragma unroll
    for (int k = 0; k < kNumSums; ++k) {
      const double v = WarpSum(acc[k]);
      if (lane == 0) red[e][k] = v;
    }
  }
  __syncthreads();
  if (warp == kNumMapSlots && lane < kNumSums) {
    double total = 0.0;
    for (int s = 0; s < kNumMapSlots; ++s) total += red[s][lane];
    partials[static_cast<long long>(blockIdx.x) * kNumSums + lane] = total;
  }
}

__global__ void ReduceKernel(const ReduceParams p, const double* __restrict__ partials,
                             double* __restrict__ out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = t / kNumSums;
  const int k = t % kNumSums;
  if (j >= p.num_jobs) return;
  const ReduceJob job = p.jobs[j];
  double total = 0.0;
  for (int i = 0; i < job.num_partials; ++i) {
    total += partials[static_cast<long long>(job.first_partial + i) * kNumSums + k];
  }
  out[job.out_index * kNumSums + k] = total;
}

// ---------------------------------------------------------------------------
// Sequential sums (kernels.h says what each launch does).

constexpr unsigned kFullWarp = 0xffffffffu;

// The job of chunk `chunk` (jobs in chunk order).
__device__ __forceinline__ int SeqJobOf(const SeqParams& p, int chunk) {
  int j = 0;
  while (j + 1 < p.num_jobs && p.jobs[j + 1].first_chunk <= chunk) ++j;
  return j;
}

// The lane's kSeqLaneTerms terms of leaf `leaf` of chunk `c` (0 past the end:
// adding +0 changes no sum >= 0, and its step is none).
__device__ __forceinline__ void SeqLoadLane(const SeqJob& job, int c, int leaf, int lane,
                                            double v[kSeqLaneTerms]) {
  const long long i0 = static_cast<long long>(c) * kSeqChunkTerms +
                       static_cast<long long>(leaf) * kSeqLeafTerms + lane * kSeqLaneTerms;
#pragma unroll
  for (int q = 0; q < kSeqLaneTerms; ++q) v[q] = i0 + q < job.n ? job.terms[i0 + q] : 0.0;
}

__device__ __forceinline__ seqsum::Step ShuffleDown(const seqsum::Step& s, int offset) {
  return seqsum::Step{{__shfl_down_sync(kFullWarp, s.move[0], offset),
                       __shfl_down_sync(kFullWarp, s.move[1], offset)}};
}

// The warp's steps composed in lane order, in lane 0.
__device__ __forceinline__ seqsum::Step WarpCompose(seqsum::Step s) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const seqsum::Step next = ShuffleDown(s, offset);
    if ((lane & (2 * offset - 1)) == 0) s = seqsum::Compose(s, next);
  }
  return s;
}

// Thread k < kSeqSeriesSlots of the block gets the block's total of v[k]
// (any order: approximate sums); `red` is the block's scratch.
__device__ __forceinline__ double SeqBlockSums(const double v[kSeqSeriesSlots],
                                               double (*red)[kSeqSeriesSlots]) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
#pragma unroll
  for (int k = 0; k < kSeqSeriesSlots; ++k) {
    const double w = WarpSum(v[k]);
    if (lane == 0) red[warp][k] = w;
  }
  __syncthreads();
  double total = 0.0;
  if (threadIdx.x < kSeqSeriesSlots) {
    for (int w = 0; w < kSeqThreads / 32; ++w) total += red[w][threadIdx.x];
  }
  return total;
}

// A block per chunk: its approximate sums of every series (any order).
__global__ void __launch_bounds__(kSeqThreads) SeqApproxKernel(const SeqParams p) {
  const SeqJob& job = p.jobs[SeqJobOf(p, blockIdx.x)];
  const int c = blockIdx.x - job.first_chunk;
  const int series = SeqSeries(job);
  double acc[kSeqSeriesSlots] = {0.0, 0.0, 0.0, 0.0};
  const long long i0 = static_cast<long long>(c) * kSeqChunkTerms;
  for (int i = threadIdx.x; i < kSeqChunkTerms; i += kSeqThreads) {
    if (i0 + i >= job.n) break;
    const double v = job.terms[i0 + i];
#pragma unroll
    for (int k = 0; k < kSeqSeriesSlots; ++k) {
      if (k < series) acc[k] += SeqSeriesTerm(job.edge, k, v);
    }
  }
  __shared__ double red[kSeqThreads / 32][kSeqSeriesSlots];
  const double total = SeqBlockSums(acc, red);
  if (threadIdx.x < kSeqSeriesSlots) {
    p.scratch.approx[static_cast<long long>(blockIdx.x) * kSeqSeriesSlots + threadIdx.x] = total;
  }
}

// A block per chunk: the grid each series' approximate prefix lies in (a
// hair low, so that a prefix just above a power of two is given the grid
// below, which its leaves' second step covers), the chunk's step there, and
// its leaves' steps there and in the next grid. A leaf without ties (nearly
// all) is summed as float64 units, exact integers that add in any order; a
// leaf with one (smooth areas: the SSIM error's 4th powers have few bits)
// composes its terms' integer steps in lane order.
__global__ void __launch_bounds__(kSeqThreads) SeqStepsKernel(const SeqParams p) {
  const SeqJob& job = p.jobs[SeqJobOf(p, blockIdx.x)];
  const int c = blockIdx.x - job.first_chunk;
  const int series = SeqSeries(job);
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  constexpr int kWarps = kSeqThreads / 32;
  __shared__ double red[kWarps][kSeqSeriesSlots];
  __shared__ int grid[kSeqSeriesSlots];
  __shared__ double prefix[kSeqSeriesSlots];  // approximate sum of the chunks before
  double pre[kSeqSeriesSlots] = {0.0, 0.0, 0.0, 0.0};
  for (int i = threadIdx.x; i < c; i += kSeqThreads) {
    const double* a = p.scratch.approx + static_cast<long long>(job.first_chunk + i) * kSeqSeriesSlots;
#pragma unroll
    for (int k = 0; k < kSeqSeriesSlots; ++k) pre[k] += a[k];
  }
  const double total = SeqBlockSums(pre, red);
  if (threadIdx.x < kSeqSeriesSlots) {
    prefix[threadIdx.x] = total;
    grid[threadIdx.x] = seqsum::GridOf(total * (1.0 - 0x1p-30));
  }
  __syncthreads();
  const long long slot0 = static_cast<long long>(blockIdx.x) * kSeqSeriesSlots;
  // A chunk whose approximate sums may cross a power of two (rare, but every
  // chunk at the start of a series) gives each leaf the grid of the leaf's
  // own approximate prefix, and its step one grid up where the leaf may
  // cross; elsewhere a leaf has the chunk's grid alone. A wrong guess sends
  // the walk to the terms: slower, never wrong.
  __shared__ bool may_cross[kSeqSeriesSlots];
  __shared__ double leaf_before[kSeqSeriesSlots][kSeqChunkLeaves + 1];
  if (threadIdx.x < kSeqSeriesSlots) {
    const double after =
        prefix[threadIdx.x] + p.scratch.approx[slot0 + threadIdx.x];
    may_cross[threadIdx.x] = seqsum::GridOf(after * (1.0 + 0x1p-30)) != grid[threadIdx.x];
  }
  __syncthreads();
  if (may_cross[0] || may_cross[1] || may_cross[2] || may_cross[3]) {
    for (int leaf = warp; leaf < kSeqChunkLeaves; leaf += kWarps) {
      double v[kSeqLaneTerms];
      SeqLoadLane(job, c, leaf, lane, v);
      for (int k = 0; k < series; ++k) {
        if (!may_cross[k]) continue;
        double sum = 0.0;
#pragma unroll
        for (int q = 0; q < kSeqLaneTerms; ++q) sum += SeqSeriesTerm(job.edge, k, v[q]);
        sum = WarpSum(sum);
        if (lane == 0) leaf_before[k][leaf + 1] = sum;
      }
    }
    __syncthreads();
    if (warp < series && may_cross[warp]) {
      // Inclusive scan of the leaves' sums, after the chunks' before them.
      double run = leaf_before[warp][lane + 1];
#pragma unroll
      for (int offset = 1; offset < 32; offset <<= 1) {
        const double before = __shfl_up_sync(kFullWarp, run, offset);
        if (lane >= offset) run += before;
      }
      leaf_before[warp][lane + 1] = prefix[warp] + run;
      if (lane == 0) leaf_before[warp][0] = prefix[warp];
    }
    __syncthreads();
  }
  __shared__ seqsum::Step leaf_g[kSeqSeriesSlots][kSeqChunkLeaves];
  for (int leaf = warp; leaf < kSeqChunkLeaves; leaf += kWarps) {
    double v[kSeqLaneTerms];
    SeqLoadLane(job, c, leaf, lane, v);
    for (int k = 0; k < series; ++k) {
      int g = grid[k];
      bool both = false;
      if (may_cross[k]) {
        g = seqsum::GridOf(leaf_before[k][leaf] * (1.0 - 0x1p-30));
        both = seqsum::GridOf(leaf_before[k][leaf + 1] * (1.0 + 0x1p-30)) != g;
      }
      const double scale = seqsum::UnitScale(g);
      const double scale_next = seqsum::UnitScale(g + 1);
      double x[kSeqLaneTerms];
      double units_g = 0.0, units_next = 0.0;
#pragma unroll
      for (int q = 0; q < kSeqLaneTerms; ++q) {
        x[q] = SeqSeriesTerm(job.edge, k, v[q]);
        units_g += seqsum::TermUnits(x[q], scale);
        if (both) units_next += seqsum::TermUnits(x[q], scale_next);
      }
      const bool plain = units_g < seqsum::kUnitsLimit && units_next < seqsum::kUnitsLimit;
      seqsum::Step in_g, in_next = seqsum::Saturated();
      if (__ballot_sync(kFullWarp, !plain) == 0) {
        in_g = seqsum::UnitsStep(WarpSum(units_g));
        if (both) in_next = seqsum::UnitsStep(WarpSum(units_next));
      } else {
        in_g = seqsum::NoStep();
        if (both) in_next = seqsum::NoStep();
#pragma unroll
        for (int q = 0; q < kSeqLaneTerms; ++q) {
          in_g = seqsum::Compose(in_g, seqsum::TermStep(x[q], g));
          if (both) in_next = seqsum::Compose(in_next, seqsum::TermStep(x[q], g + 1));
        }
        in_g = WarpCompose(in_g);
        if (both) in_next = WarpCompose(in_next);
      }
      if (lane == 0) {
        const long long at = (slot0 + k) * kSeqChunkLeaves + leaf;
        p.scratch.leaf_step[at * kSeqLeafSteps] = in_g;
        p.scratch.leaf_step[at * kSeqLeafSteps + 1] = in_next;
        p.scratch.leaf_grid[at] = g;
        // The chunk's step is in the chunk's grid: a leaf guessed in another
        // makes it saturate (the walk goes to the leaves).
        leaf_g[k][leaf] = g == grid[k] ? in_g : seqsum::Saturated();
      }
    }
  }
  __syncthreads();
  if (warp == 0) {
    for (int k = 0; k < series; ++k) {
      const seqsum::Step chunk = WarpCompose(leaf_g[k][lane]);
      if (lane == 0) p.scratch.chunk_step[slot0 + k] = chunk;
    }
  }
}

// The warp applies to *s (the same in every lane) the steps of lanes
// start .. count - 1 in order, each lane's from step_for(grid of *s) (a
// saturated step where it has none for that grid), as far as they fit: the
// steps are scanned in lane order, and every lane up to the first whose
// running step would leave the grid is applied at once. Returns that lane
// (count when all fit).
template <typename StepFor>
__device__ int SeqApplyRun(double* s, int start, int count, StepFor step_for) {
  const int lane = threadIdx.x & 31;
  const int g = seqsum::GridOf(*s);
  const std::uint64_t p = seqsum::PositionOf(*s);
  seqsum::Step st = seqsum::NoStep();
  if (lane >= start) st = lane < count && g >= 1 ? step_for(g) : seqsum::Saturated();
  if (__ballot_sync(kFullWarp, st.move[0] != st.move[1]) == 0) {
    // No lane's step depends on the parity (no ties): composing is adding,
    // saturated at kLimit (32 moves of at most 2^53 cannot overflow).
    std::uint64_t m = st.move[0];
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
      const std::uint64_t before = __shfl_up_sync(kFullWarp, m, offset);
      if (lane >= offset) m += before;
    }
    st.move[0] = st.move[1] = m < seqsum::kLimit ? m : seqsum::kLimit;
  } else {
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
      const seqsum::Step before{{__shfl_up_sync(kFullWarp, st.move[0], offset),
                                 __shfl_up_sync(kFullWarp, st.move[1], offset)}};
      if (lane >= offset) st = seqsum::Compose(before, st);
    }
  }
  const std::uint64_t moved = seqsum::MoveFrom(st, p);
  const bool fits = lane < start || (g >= 1 && moved < seqsum::kLimit - p);
  const unsigned misfits = __ballot_sync(kFullWarp, !fits);
  const int first = misfits ? __ffs(misfits) - 1 : 32;
  if (first > start) {
    const std::uint64_t total = __shfl_sync(kFullWarp, moved, first - 1);
    *s = seqsum::AtPosition(g, p + total);
  }
  return first;
}

// Leaf `leaf` of chunk `c` added to s, a lane's terms at a time.
__device__ double SeqWalkLeaf(const SeqJob& job, int k, int c, int leaf, double s) {
  const int lane = threadIdx.x & 31;
  double v[kSeqLaneTerms];
  SeqLoadLane(job, c, leaf, lane, v);
  double x[kSeqLaneTerms];
#pragma unroll
  for (int q = 0; q < kSeqLaneTerms; ++q) x[q] = SeqSeriesTerm(job.edge, k, v[q]);
  int i = 0;
  while (i < 32) {
    i = SeqApplyRun(&s, i, 32, [&](int g) {
      seqsum::Step st = seqsum::NoStep();
#pragma unroll
      for (int q = 0; q < kSeqLaneTerms; ++q) st = seqsum::Compose(st, seqsum::TermStep(x[q], g));
      return st;
    });
    if (i < 32) {
      // Lane i's terms cross a power of two (or start the series): true
      // additions, as the CPU's.
#pragma unroll
      for (int q = 0; q < kSeqLaneTerms; ++q) s = s + __shfl_sync(kFullWarp, x[q], i);
      ++i;
    }
  }
  return s;
}

// Chunk `c` added to s, leaf steps where they fit.
__device__ double SeqWalkChunk(const SeqParams& p, const SeqJob& job, int k, int c, double s) {
  const int lane = threadIdx.x & 31;
  const long long slot = static_cast<long long>(job.first_chunk + c) * kSeqSeriesSlots + k;
  const seqsum::Step* steps = p.scratch.leaf_step + (slot * kSeqChunkLeaves + lane) * kSeqLeafSteps;
  const seqsum::Step in_g = steps[0];
  const seqsum::Step in_next = steps[1];
  const int g0 = p.scratch.leaf_grid[slot * kSeqChunkLeaves + lane];
  int i = 0;
  while (i < kSeqChunkLeaves) {
    i = SeqApplyRun(&s, i, kSeqChunkLeaves, [&](int g) {
      return g == g0 ? in_g : g == g0 + 1 ? in_next : seqsum::Saturated();
    });
    if (i < kSeqChunkLeaves) s = SeqWalkLeaf(job, k, c, i++, s);
  }
  return s;
}

// A warp per series: the sum from s = 0, chunk steps 32 at a time.
__global__ void __launch_bounds__(32 * kSeqSeriesSlots)
    SeqWalkKernel(const SeqParams p, double* __restrict__ out) {
  const SeqJob& job = p.jobs[blockIdx.x];
  const int k = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  if (k >= SeqSeries(job)) return;
  double s = 0.0;
  for (int c0 = 0; c0 < job.num_chunks; c0 += 32) {
    const int count = min(32, job.num_chunks - c0);
    seqsum::Step step = seqsum::Saturated();
    int step_grid = seqsum::kNoGrid;
    if (lane < count) {
      const long long slot = static_cast<long long>(job.first_chunk + c0 + lane) * kSeqSeriesSlots + k;
      step = p.scratch.chunk_step[slot];
      step_grid = p.scratch.leaf_grid[slot * kSeqChunkLeaves];  // leaf 0's is the chunk's
    }
    int i = 0;
    while (i < count) {
      i = SeqApplyRun(&s, i, count,
                      [&](int g) { return g == step_grid ? step : seqsum::Saturated(); });
      if (i < count) s = SeqWalkChunk(p, job, k, c0 + i++, s);
    }
  }
  if (lane == 0) out[job.out + k] = s;
}

// ---------------------------------------------------------------------------
// Frame signatures: per cell row, the luma of every (cell column, image row)
// run, then of every cell, row after row; then, in the frame's last block,
// the normalisation. Integer luma is summed in 64 bits (any order gives the
// CPU's sums); linear float in double, over x in order, as the CPU.

// The integer luma of row[x0 .. x1), the format chosen once per run.
__device__ std::uint64_t IntegerRun(const SignatureParams& p, const unsigned char* row, int x0,
                                    int x1) {
  std::uint64_t s = 0;
  const bool grey = p.r == p.g && p.g == p.b;
  switch (p.kind) {
    case kLumaPlane8:
      for (int x = x0; x < x1; ++x) s += row[x];
      break;
    case kLumaPlane16:
      for (int x = x0; x < x1; ++x) s += (Word(row, x) >> p.shift) & p.mask;
      break;
    case kLumaPacked8:
      for (int x = x0; x < x1; ++x) {
        const unsigned char* px = row + x * p.channels;
        s += grey ? px[p.r] : signature::PackedLuma(px[p.r], px[p.g], px[p.b]);
      }
      break;
    default:  // kLumaPacked16
      for (int x = x0; x < x1; ++x) {
        const int i = x * p.channels;
        s += grey ? Word(row, i + p.r)
                  : signature::PackedLuma(Word(row, i + p.r), Word(row, i + p.g),
                                          Word(row, i + p.b));
      }
      break;
  }
  return s;
}

// Image row y's run of cell column gx, into p.rows.
__device__ void SumRun(const SignatureParams& p, int gx, int y) {
  const int x0 = signature::CellEdge(gx, p.width, p.grid_width);
  const int x1 = signature::CellEdge(gx + 1, p.width, p.grid_width);
  const long long out = static_cast<long long>(y) * p.grid_width + gx;
  if (p.kind == kLumaLinearF32) {
    const float* r = reinterpret_cast<const float*>(p.plane[0] + y * p.stride[0]);
    const float* g = reinterpret_cast<const float*>(p.plane[1] + y * p.stride[1]);
    const float* b = reinterpret_cast<const float*>(p.plane[2] + y * p.stride[2]);
    double s = 0.0;
    for (int x = x0; x < x1; ++x) s += signature::LinearLuma(r[x], g[x], b[x]);
    static_cast<double*>(p.rows)[out] = s;
    return;
  }
  static_cast<std::uint64_t*>(p.rows)[out] = IntegerRun(p, p.plane[0] + y * p.stride[0], x0, x1);
}

// Cell (gx, gy): its rows' runs added in row order, into p.cells.
template <typename Sum>
__device__ void SumCellRows(const SignatureParams& p, int gx, int gy) {
  const int y0 = signature::CellEdge(gy, p.height, p.grid_height);
  const int y1 = signature::CellEdge(gy + 1, p.height, p.grid_height);
  const Sum* rows = static_cast<const Sum*>(p.rows);
  Sum total = 0;
  for (int y = y0; y < y1; ++y) total += rows[static_cast<long long>(y) * p.grid_width + gx];
  static_cast<Sum*>(p.cells)[static_cast<long long>(gy) * p.grid_width + gx] = total;
}

// The block's cell rows of the frame: the runs of all their image rows by
// all threads, then each cell by a thread.
__device__ void SumCellRow(const SignatureParams& p, int gy) {
  const int y0 = signature::CellEdge(gy, p.height, p.grid_height);
  const int y1 = signature::CellEdge(gy + 1, p.height, p.grid_height);
  const int runs = (y1 - y0) * p.grid_width;
  for (int i = threadIdx.x; i < runs; i += blockDim.x) {
    SumRun(p, i % p.grid_width, y0 + i / p.grid_width);
  }
  __syncthreads();  // the runs, in global memory, are visible to the block
  for (int gx = threadIdx.x; gx < p.grid_width; gx += blockDim.x) {
    if (p.kind == kLumaLinearF32) {
      SumCellRows<double>(p, gx, gy);
    } else {
      SumCellRows<std::uint64_t>(p, gx, gy);
    }
  }
}

// Cell i's mean from its sum (read before `means[i]` is written: means may
// be the sums' own memory). Other blocks wrote the sums: read past the L1.
__device__ double CellMeanOf(const SignatureParams& p, int i) {
  const int gx = i % p.grid_width;
  const int gy = i / p.grid_width;
  const int rows = signature::CellEdge(gy + 1, p.height, p.grid_height) -
                   signature::CellEdge(gy, p.height, p.grid_height);
  const int cols = signature::CellEdge(gx + 1, p.width, p.grid_width) -
                   signature::CellEdge(gx, p.width, p.grid_width);
  if (p.kind == kLumaLinearF32) {
    return signature::CellMean(static_cast<const volatile double*>(p.cells)[i], rows, cols,
                               p.full_scale);
  }
  return signature::CellMean(static_cast<const volatile std::uint64_t*>(p.cells)[i], rows, cols,
                             p.full_scale);
}

// The block's folded sum of LaneTerms (thread t is lane t), in every thread.
__device__ double BlockStatisticsSum(double* lanes, const double* means, int n, bool squares,
                                     double mean) {
  lanes[threadIdx.x] = signature::LaneTerms(means, n, threadIdx.x, squares, mean);
  __syncthreads();
  for (int half = signature::kStatisticsLanes / 2; half >= 1; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) signature::FoldLane(lanes, threadIdx.x, half);
    __syncthreads();
  }
  const double sum = lanes[0];
  __syncthreads();  // lanes is reused
  return sum;
}

// The frame's normalisation, by one block: the means, then their mean and
// deviation (a lane per thread, signature::CellStatistics' order), then the
// cells, in parallel.
__device__ void NormaliseFrame(const SignatureParams& p) {
  __shared__ double shared_means[kSignatureSharedMeans];
  __shared__ double lanes[signature::kStatisticsLanes];
  const int n = p.grid_width * p.grid_height;
  double* means = n <= kSignatureSharedMeans ? shared_means : static_cast<double*>(p.cells);
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const double mean = CellMeanOf(p, i);
    means[i] = mean;
  }
  __syncthreads();
  const double mean = signature::StatisticsMean(BlockStatisticsSum(lanes, means, n, false, 0.0), n);
  const double contrast =
      signature::StatisticsContrast(BlockStatisticsSum(lanes, means, n, true, mean), n);
  if (threadIdx.x == 0) {
    p.stats[0] = mean;
    p.stats[1] = contrast;
  }
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    p.signature[i] = signature::NormalisedCell(means[i], mean, contrast);
  }
}

// blockIdx.y picks the frame; its SignatureBlocks blocks take cell rows
// blockIdx.x, + blocks, ...; the one that finishes last (the frame's counter)
// normalises the frame and resets the counter for the next launch.
__global__ void __launch_bounds__(kSignatureThreads)
    SignatureKernel(const SignatureLaunch launch) {
  static_assert(kSignatureThreads == signature::kStatisticsLanes,
                "a thread per statistics lane");
  __shared__ bool last;
  // The frame's parameters in shared memory: the functions below take them
  // by reference, and a reference into the kernel's parameters could make
  // the compiler copy all of them into every thread's local memory.
  __shared__ SignatureParams p;
  if (static_cast<int>(blockIdx.x) >= SignatureBlocks(launch.frames[blockIdx.y].grid_height)) {
    return;
  }
  if (threadIdx.x == 0) p = launch.frames[blockIdx.y];
  __syncthreads();
  const int blocks = SignatureBlocks(p.grid_height);
  for (int gy = blockIdx.x; gy < p.grid_height; gy += blocks) SumCellRow(p, gy);
  __threadfence();  // this block's cell sums, before it is counted
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned* done = launch.blocks_done + blockIdx.y;
    last = atomicAdd(done, 1u) == static_cast<unsigned>(blocks - 1);
    if (last) *done = 0;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  NormaliseFrame(p);
}

}  // namespace

}  // namespace cuda
}  // namespace ssim2
