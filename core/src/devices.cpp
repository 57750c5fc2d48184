#include "ssim2/devices.h"

#ifdef SSIM2_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace ssim2 {

#ifdef SSIM2_HAVE_CUDA

bool CudaEngineBuiltIn() { return true; }

CudaDeviceList ListCudaDevices() {
  CudaDeviceList list;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear it: the error is not sticky
    list.none_reason = std::string("no CUDA device: ") + cudaGetErrorString(e) + " (" +
                       cudaGetErrorName(e) + ")";
    return list;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    CudaDevice d;
    d.index = i;
    d.name = p.name;
    d.memory_bytes = p.totalGlobalMem;
    d.major = p.major;
    d.minor = p.minor;
    // Machine code from SSIM2_MIN_CUDA_ARCH up runs on later minor versions
    // of its major, and the PTX of the newest on anything newer.
    d.engine_runs = d.major * 10 + d.minor >= SSIM2_MIN_CUDA_ARCH;
    list.devices.push_back(d);
  }
  if (list.devices.empty()) list.none_reason = "no CUDA device found";
  return list;
}

#else

bool CudaEngineBuiltIn() { return false; }

CudaDeviceList ListCudaDevices() {
  CudaDeviceList list;
  list.none_reason = "this build has no CUDA engine (configured with -Dcuda=disabled or without nvcc)";
  return list;
}

#endif

}  // namespace ssim2
