// Float planes for the CPU path.
#pragma once

#include <cstddef>
#include <vector>

namespace ssim2 {
namespace cpu {

// One float plane, rows padded to a multiple of 16 floats so that vector
// loops never need a scalar remainder on the row's tail.
class Plane {
 public:
  Plane() = default;
  Plane(int width, int height) { Resize(width, height); }

  void Resize(int width, int height) {
    width_ = width;
    height_ = height;
    stride_ = (static_cast<std::size_t>(width) + 15) & ~static_cast<std::size_t>(15);
    if (data_.size() < stride_ * height) data_.resize(stride_ * height);
  }
  int width() const { return width_; }
  int height() const { return height_; }
  std::size_t stride() const { return stride_; }  // in floats
  float* Row(int y) { return data_.data() + stride_ * y; }
  const float* Row(int y) const { return data_.data() + stride_ * y; }
  std::size_t bytes() const { return data_.size() * sizeof(float); }

 private:
  int width_ = 0;
  int height_ = 0;
  std::size_t stride_ = 0;
  std::vector<float> data_;
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
