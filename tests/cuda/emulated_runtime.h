// Controls of the emulated CUDA runtime (emulated_runtime.cpp) for tests.
#pragma once

#include <cstddef>

namespace emu {

// From now on, cudaMalloc may add at most `bytes` to the live "device"
// allocations (cudaErrorMemoryAllocation beyond); SIZE_MAX: no limit. For
// tests of what the engine does when the GPU runs out of memory.
void SetDeviceMemoryHeadroom(std::size_t bytes);

}  // namespace emu
