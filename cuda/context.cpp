#include "cuda/context.h"

#include <cuda_runtime.h>

namespace ssim2 {
namespace cuda {
namespace {

// cuCtxPushCurrent / cuCtxPopCurrent through the runtime's driver entry
// points, so that the library does not link libcuda (binaries then still
// start, and report "no device", on machines without a driver).
using CtxPushFn = int (*)(void*);
using CtxPopFn = int (*)(void**);

struct DriverFns {
  CtxPushFn push = nullptr;
  CtxPopFn pop = nullptr;
};

const DriverFns& Driver() {
  static const DriverFns fns = [] {
    DriverFns d;
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuCtxPushCurrent", &f, 12000, cudaEnableDefault, &q) ==
            cudaSuccess &&
        q == cudaDriverEntryPointSuccess) {
      d.push = reinterpret_cast<CtxPushFn>(f);
    }
    f = nullptr;
    if (cudaGetDriverEntryPointByVersion("cuCtxPopCurrent", &f, 12000, cudaEnableDefault, &q) ==
            cudaSuccess &&
        q == cudaDriverEntryPointSuccess) {
      d.pop = reinterpret_cast<CtxPopFn>(f);
    }
    return d;
  }();
  return fns;
}

}  // namespace

ContextGuard::ContextGuard(void* context, int device) {
  if (context) {
    const DriverFns& d = Driver();
    if (!d.push || !d.pop) {
      status_ = Status(StatusCode::kCudaError, "cuCtxPushCurrent is not available");
      return;
    }
    if (d.push(context) != 0) {
      status_ = Status(StatusCode::kCudaError, "cuCtxPushCurrent failed");
      return;
    }
    pushed_ = true;
  } else if (device >= 0) {
    if (cudaGetDevice(&previous_) == cudaSuccess && previous_ != device) {
      if (cudaSetDevice(device) != cudaSuccess) {
        status_ = Status(StatusCode::kCudaError, "cudaSetDevice failed");
        return;
      }
      restore_ = true;
    }
  }
}

ContextGuard::~ContextGuard() {
  if (pushed_) {
    void* ctx = nullptr;
    Driver().pop(&ctx);
  }
  if (restore_) cudaSetDevice(previous_);
}

bool DeviceAvailable(std::string* why_not) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (why_not) {
      *why_not = std::string("no usable CUDA device: cudaGetDeviceCount failed with ") +
                 cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    }
    return false;
  }
  if (count == 0) {
    if (why_not) *why_not = "no CUDA device found";
    return false;
  }
  return true;
}

}  // namespace cuda
}  // namespace ssim2
