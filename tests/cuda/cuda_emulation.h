// Just enough of CUDA's device built-ins to compile the engine's kernels
// (cuda/kernels_device.cuh) as plain C++ and run them on the CPU:
// one std::thread per CUDA thread of a block, blocks one after another,
// __syncthreads as a block-wide barrier and warp shuffles and ballots through
// a per-warp barrier. Slow, but it executes the very same kernel source, so indexing,
// guards and barriers are checked on machines without a GPU.
#pragma once

#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

// The CUDA headers first (dim3, float4, make_float4; on the host they define
// __global__, __device__ ... as nothing), then the emulation's own meanings.
#include <cuda_runtime.h>
#include <vector_functions.h>
#undef __forceinline__
#define __forceinline__ inline
#undef __shared__
#define __shared__ static
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif

inline float4 __ldg(const float4* p) { return *p; }
inline float __ldg(const float* p) { return *p; }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }

namespace emu {
inline thread_local dim3 block_idx;
inline thread_local dim3 thread_idx;
inline dim3 block_dim;
inline std::barrier<>* block_barrier = nullptr;
inline std::vector<std::unique_ptr<std::barrier<>>> warp_barriers;
inline int LinearThread() {
  return static_cast<int>(thread_idx.x + block_dim.x * (thread_idx.y + block_dim.y * thread_idx.z));
}
}  // namespace emu

#define blockIdx (::emu::block_idx)
#define threadIdx (::emu::thread_idx)
#define blockDim (::emu::block_dim)

inline void __syncthreads() { emu::block_barrier->arrive_and_wait(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline unsigned atomicAdd(unsigned* p, unsigned v) {
  return std::atomic_ref<unsigned>(*p).fetch_add(v);
}

namespace emu {
inline std::uint64_t shfl_bits[64][32];
inline unsigned ballot_bits[64];

// Every lane of the warp publishes v; each returns lane `src`'s (its own
// where `src` is outside the warp).
template <typename T>
T Exchange(T v, int src) {
  static_assert(sizeof(T) <= sizeof(std::uint64_t), "a shuffle moves at most 8 bytes");
  const int t = LinearThread();
  const int warp = t / 32, lane = t % 32;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof v);
  shfl_bits[warp][lane] = bits;
  warp_barriers[warp]->arrive_and_wait();
  T r = v;
  if (src >= 0 && src < 32) std::memcpy(&r, &shfl_bits[warp][src], sizeof r);
  warp_barriers[warp]->arrive_and_wait();
  return r;
}
}  // namespace emu

template <typename T>
T __shfl_down_sync(unsigned, T v, int offset) {
  return emu::Exchange(v, emu::LinearThread() % 32 + offset);
}
template <typename T>
T __shfl_up_sync(unsigned, T v, int offset) {
  return emu::Exchange(v, emu::LinearThread() % 32 - offset);
}
template <typename T>
T __shfl_sync(unsigned, T v, int src) {
  return emu::Exchange(v, src & 31);
}
inline unsigned __ballot_sync(unsigned, int predicate) {
  const int t = emu::LinearThread();
  const int warp = t / 32, lane = t % 32;
  if (lane == 0) emu::ballot_bits[warp] = 0;
  emu::warp_barriers[warp]->arrive_and_wait();
  if (predicate) std::atomic_ref<unsigned>(emu::ballot_bits[warp]).fetch_or(1u << lane);
  emu::warp_barriers[warp]->arrive_and_wait();
  const unsigned r = emu::ballot_bits[warp];
  emu::warp_barriers[warp]->arrive_and_wait();
  return r;
}
inline int __ffs(unsigned x) { return x ? __builtin_ctz(x) + 1 : 0; }

namespace emu {

// Runs `kernel()` for every thread of every block. `threaded`: one OS thread
// per CUDA thread (needed when the kernel synchronises); otherwise threads
// run one after another.
template <typename F>
void Launch(dim3 grid, dim3 block, bool threaded, F kernel) {
  block_dim = block;
  const int n = static_cast<int>(block.x * block.y * block.z);
  auto run = [&](int t, unsigned bx, unsigned by, unsigned bz) {
    block_idx = dim3(bx, by, bz);
    thread_idx = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
    kernel();
  };
  if (!threaded) {
    for (unsigned bz = 0; bz < grid.z; ++bz)
      for (unsigned by = 0; by < grid.y; ++by)
        for (unsigned bx = 0; bx < grid.x; ++bx)
          for (int t = 0; t < n; ++t) run(t, bx, by, bz);
    return;
  }
  // One OS thread per CUDA thread of a block; all blocks run one after
  // another on the same threads (a barrier between blocks).
  std::barrier<> bar(n), end_of_block(n);
  block_barrier = &bar;
  warp_barriers.clear();
  for (int w = 0; w < (n + 31) / 32; ++w) {
    warp_barriers.push_back(std::make_unique<std::barrier<>>(std::min(32, n - 32 * w)));
  }
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
          for (unsigned bx = 0; bx < grid.x; ++bx) {
            run(t, bx, by, bz);
            end_of_block.arrive_and_wait();
          }
    });
  }
  for (std::thread& th : threads) th.join();
  block_barrier = nullptr;
}

}  // namespace emu
