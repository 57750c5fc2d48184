// ssim2::cuda::Engine: the public calls. Each one makes the engine's context
// current (context.h) and hands over to Engine::Impl: passes.cpp decides what
// to enqueue, upload.cpp moves host inputs, tickets.cpp returns the results.
#include "ssim2/cuda_engine.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "alpha_rule.h"
#include "gpu/engine_impl.h"

namespace ssim2 {
namespace cuda {

#define SSIM2_GUARD()                                           \
  ContextGuard guard_(impl_->options.context, impl_->device);  \
  if (!guard_.status().ok()) return guard_.status()

Engine::Impl::~Impl() {
  if (!res) return;
  ContextGuard guard(options.context, device);
  if (res->stream.get()) cudaStreamSynchronize(res->stream.get());
  res.reset();
}

Engine::Engine() = default;
Engine::~Engine() = default;
Engine::Engine(Engine&& other) noexcept = default;
Engine& Engine::operator=(Engine&& other) noexcept = default;

Status Engine::Create(int width, int height, const EngineOptions& options, Engine* out) {
  if (!out) return Status(StatusCode::kInvalidArgument, "Engine::Create: out is null");
  *out = Engine();
  if (Status s = ValidateMinimumSize(width, height); !s.ok()) return s;
  if (options.max_batch < 1 || options.max_batch > 1024) {
    return Status(StatusCode::kInvalidArgument, "max_batch must be 1..1024");
  }
  if (!options.context) {
    std::string why;
    if (!DeviceAvailable(&why)) return Status(StatusCode::kBackendUnavailable, why);
  }
  auto impl = std::make_unique<Impl>();
  impl->width = width;
  impl->height = height;
  impl->options = options;
  impl->device = options.context ? -1 : options.device;
  ContextGuard guard(options.context, impl->device);
  if (!guard.status().ok()) return guard.status();
  int dev = 0;
  SSIM2_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  SSIM2_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  impl->device_name = prop.name;
  if (impl->device < 0 && !options.context) impl->device = dev;

  // SSIM2_CUDA_PAGEABLE_UPLOAD=direct: pageable host inputs are handed to
  // cudaMemcpy2DAsync as they are (the driver stages them) instead of being
  // copied into the engine's pinned staging first. For measuring which is
  // faster on a given machine (ssim2-bench does both).
  const char* upload_mode = std::getenv("SSIM2_CUDA_PAGEABLE_UPLOAD");
  const bool pageable_direct = upload_mode && std::string(upload_mode) == "direct";
  impl->layout =
      MakeLayout(width, height, options.all_features, kMaxAlphaPasses * options.max_batch);
  impl->res = std::make_unique<Impl::Resources>();
  Impl::Resources& r = *impl->res;
  SSIM2_RETURN_IF_ERROR(r.memory.Allocate(impl->layout.total_bytes));
  impl->tables = MakeTables(impl->layout, r.memory.get());
  if (options.stream) {
    r.stream.Borrow(static_cast<cudaStream_t>(options.stream));
  } else {
    SSIM2_RETURN_IF_ERROR(r.stream.CreateOwned());
  }
  SSIM2_RETURN_IF_ERROR(r.results.Allocate(static_cast<std::size_t>(impl->layout.num_result_slots) *
                                           kSumsPerResult * sizeof(double)));
  std::memset(r.results.get(), 0, r.results.bytes());
  SSIM2_RETURN_IF_ERROR(r.uploads.Create(pageable_direct));
  SSIM2_RETURN_IF_ERROR(r.tickets.Create(options.max_batch));
  // Zero everything once (row padding is then defined), then the job tables.
  SSIM2_CUDA_CHECK(cudaMemsetAsync(r.memory.get(), 0, impl->layout.total_bytes, r.stream.get()));
  SSIM2_CUDA_CHECK(cudaMemcpyAsync(r.memory.get() + impl->layout.jobs, impl->tables.blob.data(),
                                   impl->tables.blob.size(), cudaMemcpyHostToDevice,
                                   r.stream.get()));
  SSIM2_CUDA_CHECK(cudaStreamSynchronize(r.stream.get()));
  out->impl_ = std::move(impl);
  return Status::Ok();
}

int Engine::width() const { return impl_ ? impl_->width : 0; }
int Engine::height() const { return impl_ ? impl_->height : 0; }
int Engine::num_scales() const { return impl_ ? impl_->layout.plan.num_scales : 0; }
std::size_t Engine::memory_bytes() const {
  return impl_ ? impl_->res->memory.bytes() + impl_->res->saved_reference.bytes() : 0;
}
std::size_t Engine::pinned_bytes() const {
  return impl_ ? impl_->res->results.bytes() + impl_->res->uploads.pinned_bytes() : 0;
}
std::string Engine::device_name() const { return impl_ ? impl_->device_name : std::string(); }
void* Engine::stream() const { return impl_ ? static_cast<void*>(impl_->stream()) : nullptr; }
bool Engine::has_reference() const { return impl_ && impl_->has_reference; }

#define SSIM2_NEED_IMPL()                                                         \
  if (!impl_) return Status(StatusCode::kInvalidArgument, "engine not created")

Status Engine::SetReference(const ImageView& reference) {
  SSIM2_NEED_IMPL();
  SSIM2_GUARD();
  return impl_->SetReference(reference);
}

Status Engine::Compute(const ImageView& reference, const ImageView& distorted, Result* result) {
  SSIM2_NEED_IMPL();
  if (!result) return Status(StatusCode::kInvalidArgument, "result is null");
  SSIM2_GUARD();
  Ticket t;
  SSIM2_RETURN_IF_ERROR(impl_->Enqueue(&reference, distorted, &t, nullptr, nullptr));
  return impl_->res->tickets.Wait(t, result);
}

Status Engine::Compute(const ImageView& distorted, Result* result) {
  SSIM2_NEED_IMPL();
  if (!result) return Status(StatusCode::kInvalidArgument, "result is null");
  SSIM2_GUARD();
  Ticket t;
  SSIM2_RETURN_IF_ERROR(impl_->Enqueue(nullptr, distorted, &t, nullptr, nullptr));
  return impl_->res->tickets.Wait(t, result);
}

Status Engine::ComputeBatch(const ImageView& reference, const ImageView* distorted,
                            std::size_t count, Result* results) {
  SSIM2_NEED_IMPL();
  if (count > 0 && (!distorted || !results)) {
    return Status(StatusCode::kInvalidArgument, "ComputeBatch: null array");
  }
  SSIM2_GUARD();
  for (std::size_t i = 0; i < count; ++i) {
    SSIM2_RETURN_IF_ERROR(ValidatePair(reference, distorted[i]));
  }
  SSIM2_RETURN_IF_ERROR(impl_->SetReference(reference));
  const std::size_t chunk = impl_->res->tickets.size();
  std::vector<Ticket> tickets;
  for (std::size_t first = 0; first < count; first += chunk) {
    const std::size_t n = std::min(chunk, count - first);
    tickets.clear();
    Status status;
    for (std::size_t i = 0; i < n && status.ok(); ++i) {
      Ticket t;
      status = impl_->Enqueue(nullptr, distorted[first + i], &t, nullptr, nullptr);
      if (status.ok()) tickets.push_back(t);
    }
    for (std::size_t i = 0; i < tickets.size(); ++i) {
      const Status w = impl_->res->tickets.Wait(tickets[i], &results[first + i]);
      if (status.ok() && !w.ok()) status = w;
    }
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

Status Engine::ComputeAsync(const ImageView& reference, const ImageView& distorted,
                            Ticket* ticket, ResultCallback callback, void* user_data) {
  SSIM2_NEED_IMPL();
  if (!ticket) return Status(StatusCode::kInvalidArgument, "ticket is null");
  SSIM2_GUARD();
  return impl_->Enqueue(&reference, distorted, ticket, callback, user_data);
}

Status Engine::ComputeAsync(const ImageView& distorted, Ticket* ticket, ResultCallback callback,
                            void* user_data) {
  SSIM2_NEED_IMPL();
  if (!ticket) return Status(StatusCode::kInvalidArgument, "ticket is null");
  SSIM2_GUARD();
  return impl_->Enqueue(nullptr, distorted, ticket, callback, user_data);
}

Status Engine::Query(Ticket ticket, bool* done, Result* result) {
  SSIM2_NEED_IMPL();
  if (!done) return Status(StatusCode::kInvalidArgument, "done is null");
  SSIM2_GUARD();
  return impl_->res->tickets.Query(ticket, done, result);
}

Status Engine::Wait(Ticket ticket, Result* result) {
  SSIM2_NEED_IMPL();
  SSIM2_GUARD();
  return impl_->res->tickets.Wait(ticket, result);
}

Status Engine::Synchronize() {
  SSIM2_NEED_IMPL();
  SSIM2_GUARD();
  SSIM2_CUDA_CHECK(cudaStreamSynchronize(impl_->stream()));
  SSIM2_CUDA_CHECK(cudaGetLastError());
  return Status::Ok();
}

Status Engine::DebugDownload(DebugPlane plane, int scale, int channel, float* host,
                             std::size_t stride) {
  SSIM2_NEED_IMPL();
  const Layout& l = impl_->layout;
  if (scale < 0 || scale >= l.plan.num_scales || channel < 0 || channel > 2 || !host) {
    return Status(StatusCode::kInvalidArgument, "DebugDownload: bad scale/channel/host");
  }
  std::size_t off = 0;
  switch (plane) {
    case DebugPlane::kXybRef: off = l.xyb[0][scale]; break;
    case DebugPlane::kXybDist: off = l.xyb[1][scale]; break;
    case DebugPlane::kLinearRef: off = l.lin[0][scale]; break;
    case DebugPlane::kLinearDist: off = l.lin[1][scale]; break;
    case DebugPlane::kMu1: off = l.mu1[scale]; break;
    case DebugPlane::kSigma11: off = l.s11[scale]; break;
  }
  if ((plane == DebugPlane::kLinearRef || plane == DebugPlane::kLinearDist) && scale == 0) {
    return Status(StatusCode::kInvalidArgument, "linear RGB of scale 0 is never stored");
  }
  SSIM2_GUARD();
  const ScaleGeom& g = l.geom[scale];
  SSIM2_CUDA_CHECK(cudaStreamSynchronize(impl_->stream()));
  SSIM2_CUDA_CHECK(cudaMemcpy2D(host, stride * sizeof(float),
                                impl_->base() + off + channel * g.plane_bytes,
                                g.pitch * sizeof(float), g.width * sizeof(float), g.height,
                                cudaMemcpyDeviceToHost));
  return Status::Ok();
}

}  // namespace cuda
}  // namespace ssim2
