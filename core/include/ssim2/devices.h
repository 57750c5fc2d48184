// The CUDA devices this libssim2 could score on, for tools that list them
// (ssim2 --list-devices). Available in every build: without the CUDA engine
// the list is empty and says why. No GStreamer dependency; nothing throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ssim2 {

struct CudaDevice {
  int index = 0;  // the CUDA runtime's device number (ScorerOptions::cuda_device)
  std::string name;
  std::uint64_t memory_bytes = 0;  // total global memory
  int major = 0, minor = 0;        // compute capability
  // The engine's machine code (or its PTX, compiled by the driver) covers
  // this compute capability.
  bool engine_runs = false;
};

struct CudaDeviceList {
  std::vector<CudaDevice> devices;  // in the runtime's order
  // Why `devices` is empty: the library has no CUDA engine, no driver, no
  // device (the CUDA runtime's own words); empty when there are devices.
  std::string none_reason;
};

// Whether this libssim2 was built with the CUDA engine.
bool CudaEngineBuiltIn();

// Asks the CUDA runtime for its devices (loading the driver: slow once).
CudaDeviceList ListCudaDevices();

}  // namespace ssim2
