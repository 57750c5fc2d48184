// Controls of the emulated CUDA runtime (emulated_runtime.cpp) for tests.
#pragma once

#include <cstddef>

namespace emu {

// From now on, cudaMalloc may add at most `bytes` to the live "device"
// allocations (cudaErrorMemoryAllocation beyond); SIZE_MAX: no limit. For
// tests of what the engine does when the GPU runs out of memory.
void SetDeviceMemoryHeadroom(std::size_t bytes);

// What the code under test asked of the runtime since the program started:
// the calls that wait for the device (cudaStreamSynchronize,
// cudaEventSynchronize, cudaDeviceSynchronize) and the launches of the frame
// signatures' kernels. For tests of what must not wait per frame.
struct Counts {
  std::size_t waits = 0;
  std::size_t signature_launches = 0;
};
Counts GetCounts();
void CountLaunch();  // the launchers' count

}  // namespace emu
