// A CPU stand-in for the CUDA runtime and for the engine's kernel launchers,
// so that the whole engine (the host code of cuda/ and the kernels'
// own source) runs in the GPU tests on a machine without a GPU.
// Everything is synchronous: "device" memory is host memory, copies are
// memcpy, a kernel launch runs the kernel through cuda_emulation.h, a host
// function is called at once. It checks logic and indexing, not timing or
// stream ordering (compute-sanitizer on the device does that).
#include "cuda_emulation.h"
#include "emulated_runtime.h"
// clang-format off
#include "cuda/kernels_device.cuh"
// clang-format on

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

// ---------------------------------------------------------------------------
// Kernel launchers (the emulated counterparts of kernels.cu's).

namespace ssim2 {
namespace cuda {

cudaError_t LaunchPrepare(const PrepareParams& params, cudaStream_t) {
  const LaunchShape shape = PrepareShape(params);
  emu::Launch(shape.grid, shape.block, false, [&] { PrepareKernel(params); });
  return cudaSuccess;
}

cudaError_t LaunchHBlur(const HJob* jobs, int num_jobs, int num_blocks, const BlurParams& blur,
                        cudaStream_t) {
  if (num_jobs == 0 || num_blocks == 0) return cudaSuccess;
  const LaunchShape shape = HBlurShape(num_blocks);
  emu::Launch(shape.grid, shape.block, true, [&] { HBlurKernel(jobs, num_jobs, blur); });
  return cudaSuccess;
}

cudaError_t LaunchVBlur(const VJob* jobs, int num_jobs, int num_blocks, const BlurParams& blur,
                        double* partials, cudaStream_t) {
  if (num_jobs == 0 || num_blocks == 0) return cudaSuccess;
  const LaunchShape shape = VBlurShape(num_blocks);
  emu::Launch(shape.grid, shape.block, true,
              [&] { VBlurKernel(jobs, num_jobs, blur, partials); });
  return cudaSuccess;
}

cudaError_t LaunchReduce(const ReduceParams& params, const double* partials, double* out,
                         cudaStream_t) {
  if (params.num_jobs == 0) return cudaSuccess;
  const LaunchShape shape = ReduceShape(params);
  emu::Launch(shape.grid, shape.block, false, [&] { ReduceKernel(params, partials, out); });
  return cudaSuccess;
}

cudaError_t LaunchSequentialSums(const SeqParams& params, double* out, cudaStream_t) {
  if (params.num_jobs == 0) return cudaSuccess;
  const LaunchShape chunks = SeqChunkShape(params);
  emu::Launch(chunks.grid, chunks.block, true, [&] { SeqApproxKernel(params); });
  emu::Launch(chunks.grid, chunks.block, true, [&] { SeqStepsKernel(params); });
  const LaunchShape walk = SeqWalkShape(params);
  emu::Launch(walk.grid, walk.block, true, [&] { SeqWalkKernel(params, out); });
  return cudaSuccess;
}

cudaError_t LaunchSignature(const SignatureLaunch& launch, cudaStream_t) {
  emu::CountLaunch();
  const LaunchShape shape = SignatureShape(launch);
  emu::Launch(shape.grid, shape.block, true, [&] { SignatureKernel(launch); });
  return cudaSuccess;
}

}  // namespace cuda
}  // namespace ssim2

// ---------------------------------------------------------------------------
// Runtime API subset.

namespace {

std::mutex g_mutex;
std::map<void*, std::size_t> g_device;  // live "device" allocations
std::map<void*, std::size_t> g_pinned;  // live cudaMallocHost allocations
constexpr std::size_t kFakeDeviceMemory = std::size_t(64) << 30;
std::size_t g_device_limit = ~std::size_t(0);  // of the live allocations' sum

std::size_t LiveDeviceBytes() {
  std::size_t sum = 0;
  for (const auto& a : g_device) sum += a.second;
  return sum;
}
int g_fake_context;  // its address is "the" CUcontext

int FakeCtxPush(void*) { return 0; }
int FakeCtxPop(void** ctx) {
  if (ctx) *ctx = &g_fake_context;
  return 0;
}
int FakeCtxGetCurrent(void** ctx) {
  *ctx = &g_fake_context;
  return 0;
}

struct FakeEvent {
  int recorded = 0;
};
struct FakeStream {
  int id = 0;
};
std::set<FakeStream*> g_streams;  // created and not destroyed
std::atomic<std::size_t> g_waits{0};     // calls that wait for the device
std::atomic<std::size_t> g_launches{0};  // kernels of the frame signatures

// A handle the runtime accepts as a stream: the default streams or one it
// created (anything else is cudaErrorInvalidResourceHandle, as the driver
// says of a handle that is not a stream).
bool LiveStream(cudaStream_t s) {
  if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) return true;
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_streams.count(reinterpret_cast<FakeStream*>(s)) != 0;
}

}  // namespace

void emu::CountLaunch() { g_launches++; }
emu::Counts emu::GetCounts() { return {g_waits.load(), g_launches.load()}; }

void emu::SetDeviceMemoryHeadroom(std::size_t bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_device_limit = bytes == ~std::size_t(0) ? bytes : LiveDeviceBytes() + bytes;
}

extern "C" {

cudaError_t cudaMalloc(void** p, size_t bytes) {
  if (bytes > kFakeDeviceMemory) return cudaErrorMemoryAllocation;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_device_limit != ~std::size_t(0) && LiveDeviceBytes() + bytes > g_device_limit) {
      return cudaErrorMemoryAllocation;
    }
  }
  *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!*p) return cudaErrorMemoryAllocation;
  // Not zeroed: uninitialised memory, as on a device.
  std::memset(*p, 0x7f, bytes);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_device[*p] = bytes;
  return cudaSuccess;
}
cudaError_t cudaFree(void* p) {
  if (!p) return cudaSuccess;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_device.erase(p)) return cudaErrorInvalidValue;
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaMallocHost(void** p, size_t bytes) {
  *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
  if (!*p) return cudaErrorMemoryAllocation;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_pinned[*p] = bytes;
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* p) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_pinned.erase(p);
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* ptr) {
  std::memset(attr, 0, sizeof *attr);
  attr->type = cudaMemoryTypeUnregistered;
  std::lock_guard<std::mutex> lock(g_mutex);
  auto inside = [&](const std::map<void*, std::size_t>& m) {
    auto it = m.upper_bound(const_cast<void*>(ptr));
    if (it == m.begin()) return false;
    --it;
    return static_cast<const char*>(ptr) < static_cast<const char*>(it->first) + it->second;
  };
  if (inside(g_device)) attr->type = cudaMemoryTypeDevice;
  if (inside(g_pinned)) attr->type = cudaMemoryTypeHost;
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize() {
  g_waits++;
  return cudaSuccess;
}
cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind) {
  std::memcpy(dst, src, n);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind k, cudaStream_t s) {
  if (!LiveStream(s)) return cudaErrorInvalidResourceHandle;
  return cudaMemcpy(dst, src, n, k);
}
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind) {
  if (width > dpitch || width > spitch) return cudaErrorInvalidPitchValue;
  for (size_t y = 0; y < height; ++y) {
    std::memcpy(static_cast<char*>(dst) + y * dpitch, static_cast<const char*>(src) + y * spitch,
                width);
  }
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind k, cudaStream_t) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, k);
}
cudaError_t cudaMemsetAsync(void* p, int v, size_t n, cudaStream_t) {
  std::memset(p, v, n);
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) {
  *e = reinterpret_cast<cudaEvent_t>(new FakeEvent);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete reinterpret_cast<FakeEvent*>(e);
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (!LiveStream(s)) return cudaErrorInvalidResourceHandle;
  reinterpret_cast<FakeEvent*>(e)->recorded++;
  return cudaSuccess;
}
// The real call treats an event never recorded as complete, which would hide
// a missing fork or join; the emulation refuses it so the tests see it.
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t e, unsigned int) {
  return reinterpret_cast<FakeEvent*>(e)->recorded > 0 ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaEventSynchronize(cudaEvent_t) {
  g_waits++;
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int) {
  auto* stream = new FakeStream;
  *s = reinterpret_cast<cudaStream_t>(stream);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_streams.insert(stream);
  return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t* s) { return cudaStreamCreateWithFlags(s, 0); }
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_streams.erase(reinterpret_cast<FakeStream*>(s))) return cudaErrorInvalidResourceHandle;
  }
  delete reinterpret_cast<FakeStream*>(s);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  g_waits++;
  return LiveStream(s) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t fn, void* data) {
  fn(data);
  return cudaSuccess;
}
cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* d) {
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int) { return cudaSuccess; }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int) {
  std::memset(prop, 0, sizeof *prop);
  std::strcpy(prop->name, "CPU emulation of the CUDA engine");
  return cudaSuccess;
}
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    default: return "cudaError(emulated)";
  }
}
const char* cudaGetErrorString(cudaError_t) { return "emulated runtime error"; }
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int,
                                             unsigned long long,
                                             cudaDriverEntryPointQueryResult* status) {
  *fn = nullptr;
  if (!std::strcmp(symbol, "cuCtxPushCurrent")) *fn = reinterpret_cast<void*>(&FakeCtxPush);
  if (!std::strcmp(symbol, "cuCtxPopCurrent")) *fn = reinterpret_cast<void*>(&FakeCtxPop);
  if (!std::strcmp(symbol, "cuCtxGetCurrent")) *fn = reinterpret_cast<void*>(&FakeCtxGetCurrent);
  if (status) *status = *fn ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  return cudaSuccess;
}

}  // extern "C"
