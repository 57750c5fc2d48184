#include "cpu/planes.h"

#include <cstdlib>
#include <new>

#include <sys/mman.h>

namespace ssim2 {
namespace cpu {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

// Fresh pages are what a first call pays most for; on Linux, transparent
// huge pages cut the number of faults 512-fold for the large planes.
float* AllocateFloats(std::size_t count) {
  const std::size_t bytes = count * sizeof(float);
  const std::size_t align = bytes >= kHugePage ? kHugePage : 64;
  const std::size_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (!p) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  if (align == kHugePage) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return static_cast<float*>(p);
}

}  // namespace

void Plane::Free::operator()(float* p) const { std::free(p); }

void Plane::Resize(int width, int height) {
  width_ = width;
  height_ = height;
  stride_ = (static_cast<std::size_t>(width) + 15) & ~static_cast<std::size_t>(15);
  const std::size_t need = stride_ * static_cast<std::size_t>(height);
  if (need > capacity_) {
    data_.reset(AllocateFloats(need));
    capacity_ = need;
  }
}

Plane& Plane::operator=(const Plane& other) {
  if (this == &other) return *this;
  Resize(other.width_, other.height_);
  if (other.capacity_) std::memcpy(data_.get(), other.data_.get(), stride_ * height_ * sizeof(float));
  return *this;
}

}  // namespace cpu
}  // namespace ssim2
