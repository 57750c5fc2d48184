// Which device and context the engine's calls run in: the caller's CUcontext
// (pushed and popped through the driver's entry points) or a device ordinal.
#pragma once

#include <string>

#include "cuda/engine.h"

namespace ssim2 {
namespace cuda {

// Makes `context` (a CUcontext) current for the guard's scope, or when it is
// null, device `device` (>= 0; -1 leaves the current device). status() says
// whether that worked; the destructor restores what was current before.
class ContextGuard {
 public:
  ContextGuard(void* context, int device);
  ~ContextGuard();
  ContextGuard(const ContextGuard&) = delete;
  ContextGuard& operator=(const ContextGuard&) = delete;
  const Status& status() const { return status_; }

 private:
  Status status_;
  bool pushed_ = false;
  bool restore_ = false;
  int previous_ = 0;
};

}  // namespace cuda
}  // namespace ssim2
