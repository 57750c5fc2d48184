// Error handling and move-only owners of CUDA resources (runtime API).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "ssim2/ssim2.h"

namespace ssim2 {
namespace gpu {

// A Status for a failed CUDA call: the call's text, the error and file:line.
// Allocation failures are kOutOfMemory, a missing device or driver
// kBackendUnavailable, anything else kCudaError.
Status CudaStatus(cudaError_t error, const char* call, const char* file, int line);

#define SSIM2_CUDA_CHECK(call)                                                        \
  do {                                                                                \
    const cudaError_t ssim2_cuda_error_ = (call);                                     \
    if (ssim2_cuda_error_ != cudaSuccess) {                                           \
      return ::ssim2::gpu::CudaStatus(ssim2_cuda_error_, #call, __FILE__, __LINE__);  \
    }                                                                                 \
  } while (0)

#define SSIM2_RETURN_IF_ERROR(expr)                       \
  do {                                                    \
    ::ssim2::Status ssim2_status_ = (expr);               \
    if (!ssim2_status_.ok()) return ssim2_status_;        \
  } while (0)

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { Reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      Reset();
      std::swap(ptr_, o.ptr_);
      std::swap(bytes_, o.bytes_);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  Status Allocate(std::size_t bytes) {
    Reset();
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
      cudaGetLastError();  // allocation errors are not sticky; clear it
      if (e == cudaErrorMemoryAllocation) {
        return Status(StatusCode::kOutOfMemory,
                      "cudaMalloc of " + std::to_string(bytes) + " bytes failed: out of device memory");
      }
      return CudaStatus(e, "cudaMalloc", __FILE__, __LINE__);
    }
    ptr_ = static_cast<char*>(p);
    bytes_ = bytes;
    return Status::Ok();
  }
  void Reset() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  char* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  char* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() { Reset(); }
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      Reset();
      std::swap(ptr_, o.ptr_);
      std::swap(bytes_, o.bytes_);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  Status Allocate(std::size_t bytes) {
    Reset();
    void* p = nullptr;
    const cudaError_t e = cudaMallocHost(&p, bytes);
    if (e != cudaSuccess) {
      cudaGetLastError();
      if (e == cudaErrorMemoryAllocation) {
        return Status(StatusCode::kOutOfMemory,
                      "cudaMallocHost of " + std::to_string(bytes) + " bytes failed");
      }
      return CudaStatus(e, "cudaMallocHost", __FILE__, __LINE__);
    }
    ptr_ = static_cast<char*>(p);
    bytes_ = bytes;
    return Status::Ok();
  }
  // Grows only.
  Status Reserve(std::size_t bytes) { return bytes <= bytes_ ? Status::Ok() : Allocate(bytes); }
  void Reset() {
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  char* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  char* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

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

}  // namespace gpu
}  // namespace ssim2
