/* gst-ssim2: how much host memory the CPU path needs and the machine gives.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The CPU scorer allocates its planes as it first scores, and under memory
 * overcommit an allocation far beyond the machine's memory succeeds: the
 * process is then killed by the kernel while it fills the pages. The
 * element checks the need against what it can get before it scores. */
#pragma once

#include <cstdint>
#include <string>

namespace ssim2gst {

// Working memory of the CPU scorer per pixel of a frame, as the core library
// reports it (Scorer::memory_bytes() after scoring a 512x512 pair once): an
// upper estimate for frames of that size and larger.
double CpuScorerBytesPerPixel();

struct HostMemory {
  std::uint64_t bytes = UINT64_MAX;  // UINT64_MAX: no limit found
  std::string limited_by;            // "MemAvailable", "RLIMIT_AS", "cgroup"
};

// The host memory this process can still get: the smallest of the kernel's
// MemAvailable, the address-space limit (RLIMIT_AS) less the current size,
// and the memory cgroup's limit less its usage.
HostMemory AvailableHostMemory();

}  // namespace ssim2gst
