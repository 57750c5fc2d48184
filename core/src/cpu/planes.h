// Float planes for the CPU path.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <utility>

namespace ssim2 {
namespace cpu {

// One float plane, rows padded to a multiple of 16 floats so that vector
// loops never need a scalar remainder on the row's tail.
class Plane {
 public:
  Plane() = default;
  Plane(int width, int height) { Resize(width, height); }
  Plane(const Plane& other) { *this = other; }
  Plane(Plane&& other) noexcept { *this = std::move(other); }
  Plane& operator=(const Plane& other);
  Plane& operator=(Plane&& other) noexcept {
    std::swap(width_, other.width_);
    std::swap(height_, other.height_);
    std::swap(stride_, other.stride_);
    std::swap(capacity_, other.capacity_);
    std::swap(data_, other.data_);
    return *this;
  }

  // Keeps the storage when it is large enough; contents are not preserved
  // across a reallocation and new storage is not initialised.
  void Resize(int width, int height);
  int width() const { return width_; }
  int height() const { return height_; }
  std::size_t stride() const { return stride_; }  // in floats
  float* Row(int y) { return data_.get() + stride_ * y; }
  const float* Row(int y) const { return data_.get() + stride_ * y; }
  std::size_t bytes() const { return capacity_ * sizeof(float); }

 private:
  int width_ = 0;
  int height_ = 0;
  std::size_t stride_ = 0;
  std::size_t capacity_ = 0;  // floats
  struct Free {
    void operator()(float* p) const;
  };
  std::unique_ptr<float[], Free> data_;
};

struct Image3 {
  Plane plane[3];
  void Resize(int width, int height) {
    for (Plane& p : plane) p.Resize(width, height);
  }
  int width() const { return plane[0].width(); }
  int height() const { return plane[0].height(); }
};

}  // namespace cpu
}  // namespace ssim2
