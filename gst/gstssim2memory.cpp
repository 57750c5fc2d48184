/* gst-ssim2: how much host memory the CPU path needs and the machine gives.
 * SPDX-License-Identifier: BSD-3-Clause */
#include "gstssim2memory.h"

#include <sys/resource.h>

#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

#include "ssim2/ssim2.h"

namespace ssim2gst {
namespace {

// The value of "key:" in a /proc file of "key: value kB" lines, in bytes.
bool ReadKilobytes(const char* path, const std::string& key, std::uint64_t* bytes) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) == 0 && line.size() > key.size() &&
        line[key.size()] == ':') {
      std::istringstream value(line.substr(key.size() + 1));
      std::uint64_t kb = 0;
      if (!(value >> kb)) return false;
      *bytes = kb * 1024;
      return true;
    }
  }
  return false;
}

// A number in a one-line file ("max" or a missing file: false).
bool ReadNumber(const std::string& path, std::uint64_t* out) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return false;
  try {
    *out = std::stoull(word);
  } catch (...) {
    return false;
  }
  return true;
}

// Limit less usage of this process's memory cgroup (v2, else v1).
bool CgroupRoom(std::uint64_t* room) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  std::string v2_path, v1_path;
  while (std::getline(in, line)) {
    if (line.compare(0, 3, "0::") == 0) v2_path = line.substr(3);
    const auto colon = line.find(':');
    const auto second = line.find(':', colon + 1);
    if (colon != std::string::npos && second != std::string::npos &&
        line.substr(colon + 1, second - colon - 1) == "memory")
      v1_path = line.substr(second + 1);
  }
  std::uint64_t limit = 0, usage = 0;
  const std::string v2 = "/sys/fs/cgroup" + v2_path;
  if (!v2_path.empty() && ReadNumber(v2 + "/memory.max", &limit) &&
      ReadNumber(v2 + "/memory.current", &usage)) {
    *room = limit > usage ? limit - usage : 0;
    return true;
  }
  const std::string v1 = "/sys/fs/cgroup/memory" + v1_path;
  // v1 reports "no limit" as a huge number (page-rounded LONG_MAX).
  if (!v1_path.empty() && ReadNumber(v1 + "/memory.limit_in_bytes", &limit) &&
      limit < (std::uint64_t{1} << 60) &&
      ReadNumber(v1 + "/memory.usage_in_bytes", &usage)) {
    *room = limit > usage ? limit - usage : 0;
    return true;
  }
  return false;
}

void TakeSmaller(HostMemory* m, std::uint64_t bytes, const char* source) {
  if (bytes < m->bytes) {
    m->bytes = bytes;
    m->limited_by = source;
  }
}

}  // namespace

double CpuScorerBytesPerPixel() {
  static std::once_flag once;
  static double bytes_per_pixel = 0.0;
  std::call_once(once, [] {
    // The CPU path streams each scale in bands of rows, so its memory per
    // pixel falls with the image size (183 B/px at 64x64, 27 at 512x512, 17
    // at 1920x1080 on one thread): 512x512 gives an upper estimate for the
    // frames worth checking, within 2x, at the cost of one 14 ms pair.
    constexpr int kSide = 512;
    ssim2::ScorerOptions options;
    options.backend = ssim2::Backend::kCpu;
    options.cpu_threads = 1;
    std::unique_ptr<ssim2::Scorer> scorer;
    std::vector<unsigned char> a(kSide * kSide * 3, 100), b(kSide * kSide * 3, 120);
    const auto view = [](const std::vector<unsigned char>& px) {
      return ssim2::ImageView::Packed(ssim2::PixelFormat::kRGB8, kSide, kSide, px.data(),
                                      kSide * 3, ssim2::MemoryLocation::kHost);
    };
    ssim2::Result result;
    if (ssim2::Scorer::Create(kSide, kSide, options, &scorer).ok() &&
        scorer->Compute(view(a), view(b), &result).ok())
      bytes_per_pixel = static_cast<double>(scorer->memory_bytes()) / (kSide * kSide);
  });
  return bytes_per_pixel;
}

HostMemory AvailableHostMemory() {
  HostMemory m;
  std::uint64_t bytes = 0;
  if (ReadKilobytes("/proc/meminfo", "MemAvailable", &bytes))
    TakeSmaller(&m, bytes, "MemAvailable");
  struct rlimit as {};
  std::uint64_t vm_size = 0;
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
      ReadKilobytes("/proc/self/status", "VmSize", &vm_size)) {
    const std::uint64_t limit = as.rlim_cur;
    TakeSmaller(&m, limit > vm_size ? limit - vm_size : 0, "RLIMIT_AS");
  }
  if (CgroupRoom(&bytes)) TakeSmaller(&m, bytes, "cgroup");
  return m;
}

}  // namespace ssim2gst
