// Error handling and move-only owners of CUDA resources (runtime API).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "ssim2/ssim2.h"

namespace ssim2 {
namespace cuda {

// A Status for a failed CUDA call: the call's text, the error and file:line.
// Allocation failures are kOutOfMemory, a missing device or driver
// kBackendUnavailable, anything else kCudaError.
Status CudaStatus(cudaError_t error, const char* call, const char* file, int line);

#define SSIM2_CUDA_CHECK(call)                                                        \
  do {                                                                                \
    const cudaError_t ssim2_cuda_error_ = (call);                                     \
    if (ssim2_cuda_error_ != cudaSuccess) {                                           \
      return ::ssim2::cuda::CudaStatus(ssim2_cuda_error_, #call, __FILE__, __LINE__);  \
    }                                                                                 \
  } while (0)

#define SSIM2_RETURN_IF_ERROR(expr)                       \
  do {                                                    \
    ::ssim2::Status ssim2_status_ = (expr);               \
    if (!ssim2_status_.ok()) return ssim2_status_;        \
  } while (0)

// How CudaBuffer allocates and frees: device memory or pinned host memory.
struct DeviceMemory {
  static cudaError_t Allocate(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
  static void Free(void* p) { cudaFree(p); }
  static constexpr const char* kCall = "cudaMalloc";
  static constexpr const char* kOutOfMemory = " failed: out of device memory";
};

struct PinnedMemory {
  static cudaError_t Allocate(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }
  static void Free(void* p) { cudaFreeHost(p); }
  static constexpr const char* kCall = "cudaMallocHost";
  static constexpr const char* kOutOfMemory = " failed";
};

// Move-only owner of one CUDA allocation.
template <class Memory>
class CudaBuffer {
 public:
  CudaBuffer() = default;
  ~CudaBuffer() { Reset(); }
  CudaBuffer(CudaBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  CudaBuffer& operator=(CudaBuffer&& o) noexcept {
    if (this != &o) {
      Reset();
      std::swap(ptr_, o.ptr_);
      std::swap(bytes_, o.bytes_);
    }
    return *this;
  }
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  Status Allocate(std::size_t bytes) {
    Reset();
    void* p = nullptr;
    const cudaError_t e = Memory::Allocate(&p, bytes);
    if (e != cudaSuccess) {
      cudaGetLastError();  // allocation errors are not sticky; clear it
      if (e == cudaErrorMemoryAllocation) {
        return Status(StatusCode::kOutOfMemory, std::string(Memory::kCall) + " of " +
                                                    std::to_string(bytes) + " bytes" +
                                                    Memory::kOutOfMemory);
      }
      return CudaStatus(e, Memory::kCall, __FILE__, __LINE__);
    }
    ptr_ = static_cast<char*>(p);
    bytes_ = bytes;
    return Status::Ok();
  }
  // Grows only.
  Status Reserve(std::size_t bytes) { return bytes <= bytes_ ? Status::Ok() : Allocate(bytes); }
  void Reset() {
    if (ptr_) Memory::Free(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  char* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  char* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

using DeviceBuffer = CudaBuffer<DeviceMemory>;
using PinnedBuffer = CudaBuffer<PinnedMemory>;

// Move-only owner of one CUDA handle (an event, a stream): `Release` frees
// it; the moves are unique_ptr's.
template <class HandleT, class Release>
class CudaHandle {
 public:
  void Reset() { h_.reset(); }
  HandleT get() const { return h_.get(); }

 protected:
  // Replaces the handle with one that `create` (a CUDA call, written out in
  // `call` for the error) makes, freed by `release`.
  template <class Create>
  Status Make(Create create, const char* call, Release release = Release()) {
    Reset();
    HandleT h = nullptr;
    const cudaError_t error = create(&h);
    if (error != cudaSuccess) return CudaStatus(error, call, __FILE__, __LINE__);
    h_ = Owner(h, release);
    return Status::Ok();
  }

  using Owner = std::unique_ptr<std::remove_pointer_t<HandleT>, Release>;
  Owner h_;
};

struct EventDestroy {
  void operator()(cudaEvent_t e) const { cudaEventDestroy(e); }
};

class Event : public CudaHandle<cudaEvent_t, EventDestroy> {
 public:
  Status Create() {
    return Make([](cudaEvent_t* e) { return cudaEventCreateWithFlags(e, cudaEventDisableTiming); },
                "cudaEventCreateWithFlags(&e, cudaEventDisableTiming)");
  }
  // An event that records a time too (cudaEventElapsedTime), for benchmarks.
  Status CreateTiming() {
    return Make([](cudaEvent_t* e) { return cudaEventCreate(e); }, "cudaEventCreate(&e)");
  }
};

// Destroys a stream that was created here; leaves a borrowed one.
struct StreamRelease {
  bool owned = false;
  void operator()(cudaStream_t s) const {
    if (owned) cudaStreamDestroy(s);
  }
};

// A stream that is either owned (created here) or borrowed (the caller's).
class Stream : public CudaHandle<cudaStream_t, StreamRelease> {
 public:
  Status CreateOwned() {
    return Make([](cudaStream_t* s) { return cudaStreamCreateWithFlags(s, cudaStreamNonBlocking); },
                "cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)", StreamRelease{true});
  }
  void Borrow(cudaStream_t s) { h_ = Owner(s, StreamRelease{false}); }
};

}  // namespace cuda
}  // namespace ssim2
