// Error handling and move-only owners of CUDA resources (runtime API).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
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

class Event {
 public:
  Event() = default;
  ~Event() { Reset(); }
  Event(Event&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
  Event& operator=(Event&& o) noexcept {
    if (this != &o) {
      Reset();
      std::swap(e_, o.e_);
    }
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Status Create() {
    Reset();
    SSIM2_CUDA_CHECK(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming));
    return Status::Ok();
  }
  void Reset() {
    if (e_) cudaEventDestroy(e_);
    e_ = nullptr;
  }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// A stream that is either owned (created here) or borrowed (the caller's).
class Stream {
 public:
  Stream() = default;
  ~Stream() { Reset(); }
  Stream(Stream&& o) noexcept : s_(o.s_), owned_(o.owned_) {
    o.s_ = nullptr;
    o.owned_ = false;
  }
  Stream& operator=(Stream&& o) noexcept {
    if (this != &o) {
      Reset();
      std::swap(s_, o.s_);
      std::swap(owned_, o.owned_);
    }
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Status CreateOwned() {
    Reset();
    SSIM2_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
    owned_ = true;
    return Status::Ok();
  }
  void Borrow(cudaStream_t s) {
    Reset();
    s_ = s;
    owned_ = false;
  }
  void Reset() {
    if (s_ && owned_) cudaStreamDestroy(s_);
    s_ = nullptr;
    owned_ = false;
  }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
  bool owned_ = false;
};

}  // namespace cuda
}  // namespace ssim2
