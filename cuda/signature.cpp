#include "cuda/signature.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "cuda/context.h"
#include "cuda/engine.h"
#include "cuda/kernels.h"
#include "cuda/upload.h"
#include "frame_signature.h"
#include "pixel_format.h"

namespace ssim2 {
namespace cuda {

SignatureParams SignatureParamsFor(const ImageView& image) {
  const signature::Grid grid = signature::MakeGrid(image.width, image.height);
  const FormatTraits& f = *FindFormat(image.format);
  SignatureParams p{};
  for (int i = 0; i < f.num_planes; ++i) {
    p.plane[i] = static_cast<const unsigned char*>(image.planes[i]);
    p.stride[i] = image.strides[i];
  }
  switch (f.family) {
    case FormatFamily::kPacked:
      p.kind = f.bytes_per_sample == 1 ? kLumaPacked8 : kLumaPacked16;
      p.channels = f.channels;
      p.r = f.r;
      p.g = f.g;
      p.b = f.b;
      break;
    case FormatFamily::kLinearPlanar: p.kind = kLumaLinearF32; break;
    case FormatFamily::kYuv:
      p.kind = f.bytes_per_sample == 1 ? kLumaPlane8 : kLumaPlane16;
      p.shift = f.msb_aligned ? 16 - f.bit_depth : 0;
      p.mask = (1u << f.bit_depth) - 1u;
      break;
  }
  p.width = image.width;
  p.height = image.height;
  p.grid_width = grid.width;
  p.grid_height = grid.height;
  p.full_scale = signature::LumaFullScale(image.format);
  return p;
}

namespace {

constexpr std::size_t kStatsBytes = 2 * sizeof(double);

// A frame's results: its mean and contrast, then its cells (8-byte aligned).
std::size_t ResultBytes(std::size_t cells) {
  return kStatsBytes + (cells * sizeof(float) + 7) / 8 * 8;
}

}  // namespace

struct DeviceSignatures::Frame {
  std::uint64_t ticket = 0;
  SignatureParams params{};  // device pointers set at launch
  std::size_t result_offset = 0;
  bool collected = false;
};

struct DeviceSignatures::Batch {
  cudaStream_t stream = nullptr;  // the frames' stream
  std::vector<Frame> frames;
  PinnedBuffer staging;  // the frames' results
  Event done;            // recorded after the copy of the results
  Status status;         // a failed launch or wait: every ticket's answer
  bool finished = false;
  std::size_t collected = 0;

  void Clear() {
    stream = nullptr;
    frames.clear();
    status = Status::Ok();
    finished = false;
    collected = 0;
  }
};

DeviceSignatures::DeviceSignatures(void* context, int batch)
    : context_(context), batch_size_(std::clamp(batch, 1, kMaxSignatureBatch)) {}

DeviceSignatures::~DeviceSignatures() {
  // The context current while the batches finish and everything is freed;
  // if it cannot be made current there is nothing better to do than free.
  ContextGuard guard(context_, -1);
  if (stream_.get()) cudaStreamSynchronize(stream_.get());
  open_.reset();
  launched_.clear();
  spare_.clear();
  counters_.Reset();
  rows_.Reset();
  cells_.Reset();
  results_.Reset();
  ready_.Reset();
  stream_.Reset();
}

DeviceSignatures::Batch* DeviceSignatures::Find(std::uint64_t ticket, std::size_t* index) {
  return const_cast<Batch*>(static_cast<const DeviceSignatures*>(this)->Find(ticket, index));
}

const DeviceSignatures::Batch* DeviceSignatures::Find(std::uint64_t ticket,
                                                      std::size_t* index) const {
  auto in = [&](const Batch* b) {
    if (!b) return false;
    for (std::size_t i = 0; i < b->frames.size(); ++i) {
      if (b->frames[i].ticket == ticket && !b->frames[i].collected) {
        *index = i;
        return true;
      }
    }
    return false;
  };
  for (const auto& b : launched_) {
    if (in(b.get())) return b.get();
  }
  return in(open_.get()) ? open_.get() : nullptr;
}

bool DeviceSignatures::Holds(std::uint64_t ticket) const {
  std::size_t index = 0;
  return Find(ticket, &index) != nullptr;
}

std::size_t DeviceSignatures::in_flight() const {
  std::size_t n = open_ ? open_->frames.size() : 0;
  for (const auto& b : launched_) n += b->frames.size() - b->collected;
  return n;
}

std::size_t DeviceSignatures::bytes() const {
  std::size_t n = counters_.bytes() + rows_.bytes() + cells_.bytes() + results_.bytes();
  if (open_) n += open_->staging.bytes();
  for (const auto& b : launched_) n += b->staging.bytes();
  for (const auto& b : spare_) n += b->staging.bytes();
  return n;
}

Status DeviceSignatures::Add(const ImageView& image, cudaStream_t stream, std::uint64_t ticket) {
  SSIM2_RETURN_IF_ERROR(CheckDeviceImage(image));
  // Before the first allocation: without a device, say so plainly rather
  // than as a failed cudaMalloc.
  if (context_ == nullptr && !stream_.get()) {
    std::string why;
    if (!DeviceAvailable(&why)) {
      return Status(StatusCode::kBackendUnavailable,
                    "the signature of an image in CUDA device memory needs a CUDA device: " + why);
    }
  }
  // One batch waits for one stream.
  if (open_ && !open_->frames.empty() && open_->stream != stream) {
    SSIM2_RETURN_IF_ERROR(LaunchOpen());
  }
  if (!open_) {
    if (spare_.empty()) {
      open_ = std::make_unique<Batch>();
    } else {
      open_ = std::move(spare_.back());
      spare_.pop_back();
      open_->Clear();
    }
  }
  open_->stream = stream;
  Frame frame;
  frame.ticket = ticket;
  frame.params = SignatureParamsFor(image);
  open_->frames.push_back(frame);
  if (static_cast<int>(open_->frames.size()) >= batch_size_) return LaunchOpen();
  return Status::Ok();
}

Status DeviceSignatures::Launch() {
  if (!open_ || open_->frames.empty()) return Status::Ok();
  return LaunchOpen();
}

Status DeviceSignatures::LaunchOpen() {
  std::unique_ptr<Batch> batch = std::move(open_);
  Batch& b = *batch;
  // Launched or failed, its tickets are answered from launched_.
  launched_.push_back(std::move(batch));
  auto fail = [&b](Status s) {
    b.status = s;
    return s;
  };
  ContextGuard guard(context_, -1);
  if (!guard.status().ok()) return fail(guard.status());

  // Where each frame's sums and results go in the shared scratch.
  std::size_t rows_bytes = 0, cells_bytes = 0, results_bytes = 0;
  for (Frame& f : b.frames) {
    const SignatureParams& p = f.params;
    const std::size_t cells = static_cast<std::size_t>(p.grid_width) * p.grid_height;
    f.params.rows = reinterpret_cast<void*>(rows_bytes);  // offsets until allocated
    f.params.cells = reinterpret_cast<void*>(cells_bytes);
    f.result_offset = results_bytes;
    rows_bytes += static_cast<std::size_t>(p.grid_width) * p.height * kSignatureSumBytes;
    cells_bytes += cells * kSignatureSumBytes;
    results_bytes += ResultBytes(cells);
  }

  auto check = [&](cudaError_t e, const char* call) {
    return e == cudaSuccess ? Status::Ok() : fail(CudaStatus(e, call, __FILE__, __LINE__));
  };
  if (!stream_.get()) {
    if (Status s = stream_.CreateOwned(); !s.ok()) return fail(s);
    if (Status s = ready_.Create(); !s.ok()) return fail(s);
    // The kernels' per-frame counters start at zero and every launch leaves
    // them so.
    constexpr std::size_t kCounterBytes = kSignatureFramesPerLaunch * sizeof(unsigned);
    if (Status s = counters_.Reserve(kCounterBytes); !s.ok()) return fail(s);
    SSIM2_RETURN_IF_ERROR(check(cudaMemsetAsync(counters_.get(), 0, kCounterBytes, stream_.get()),
                                "cudaMemsetAsync(counters)"));
  }
  if (!b.done.get()) {
    if (Status s = b.done.Create(); !s.ok()) return fail(s);
  }
  // The scratch is shared by the batches in flight, one after another on
  // stream_: before it grows (a larger batch or frame), they must be done.
  if (rows_bytes > rows_.bytes() || cells_bytes > cells_.bytes() ||
      results_bytes > results_.bytes()) {
    SSIM2_RETURN_IF_ERROR(check(cudaStreamSynchronize(stream_.get()), "cudaStreamSynchronize"));
  }
  for (auto [buffer, need] : {std::pair{&rows_, rows_bytes}, std::pair{&cells_, cells_bytes},
                              std::pair{&results_, results_bytes}}) {
    if (Status s = buffer->Reserve(need); !s.ok()) return fail(s);
  }
  if (Status s = b.staging.Reserve(results_bytes); !s.ok()) return fail(s);

  for (Frame& f : b.frames) {
    SignatureParams& p = f.params;
    p.rows = rows_.get() + reinterpret_cast<std::size_t>(p.rows);
    p.cells = cells_.get() + reinterpret_cast<std::size_t>(p.cells);
    char* result = results_.get() + f.result_offset;
    p.stats = reinterpret_cast<double*>(result);
    p.signature = reinterpret_cast<float*>(result + kStatsBytes);
  }

  const cudaStream_t own = stream_.get();
  // After what the caller enqueued on the frames' stream.
  SSIM2_RETURN_IF_ERROR(check(cudaEventRecord(ready_.get(), b.stream), "cudaEventRecord"));
  SSIM2_RETURN_IF_ERROR(check(cudaStreamWaitEvent(own, ready_.get(), 0), "cudaStreamWaitEvent"));
  // The parameters travel in the launch itself: no copy before the kernel.
  for (std::size_t first = 0; first < b.frames.size(); first += kSignatureFramesPerLaunch) {
    SignatureLaunch launch{};
    launch.blocks_done = reinterpret_cast<unsigned*>(counters_.get());
    for (std::size_t i = first;
         i < b.frames.size() && launch.count < kSignatureFramesPerLaunch; ++i) {
      const SignatureParams& p = b.frames[i].params;
      launch.frames[launch.count++] = p;
      launch.max_grid_height = std::max(launch.max_grid_height, p.grid_height);
    }
    SSIM2_RETURN_IF_ERROR(check(LaunchSignature(launch, own), "LaunchSignature"));
  }
  SSIM2_RETURN_IF_ERROR(check(cudaMemcpyAsync(b.staging.get(), results_.get(), results_bytes,
                                              cudaMemcpyDeviceToHost, own),
                              "cudaMemcpyAsync(results)"));
  return check(cudaEventRecord(b.done.get(), own), "cudaEventRecord");
}

bool DeviceSignatures::Ready(std::uint64_t ticket) {
  std::size_t index = 0;
  Batch* b = Find(ticket, &index);
  if (!b || b == open_.get()) return false;
  if (b->finished || !b->status.ok()) return true;
  ContextGuard guard(context_, -1);
  if (!guard.status().ok()) return true;  // Collect() says why
  const cudaError_t e = cudaEventQuery(b->done.get());
  if (e == cudaErrorNotReady) return false;
  if (e == cudaSuccess) {
    b->finished = true;
  } else {
    b->status = CudaStatus(e, "cudaEventQuery", __FILE__, __LINE__);
  }
  return true;
}

Status DeviceSignatures::Collect(std::uint64_t ticket, FrameSignature* out) {
  *out = FrameSignature();
  std::size_t index = 0;
  Batch* b = Find(ticket, &index);
  if (!b) {
    return Status(StatusCode::kInvalidArgument,
                  "FrameSignatureMaker::Collect: ticket " + std::to_string(ticket) +
                      " is not in flight (never enqueued, or collected already)");
  }
  if (b == open_.get()) LaunchOpen();  // a failure is b->status, below
  Frame& f = b->frames[index];
  f.collected = true;
  b->collected++;
  Status s = b->status;
  if (s.ok() && !b->finished) {
    ContextGuard guard(context_, -1);
    s = guard.status();
    if (s.ok()) {
      const cudaError_t e = cudaEventSynchronize(b->done.get());
      if (e == cudaSuccess) {
        b->finished = true;
      } else {
        s = b->status = CudaStatus(e, "cudaEventSynchronize", __FILE__, __LINE__);
      }
    }
  }
  if (s.ok()) {
    const SignatureParams& p = f.params;
    const char* result = b->staging.get() + f.result_offset;
    const std::size_t cells = static_cast<std::size_t>(p.grid_width) * p.grid_height;
    double stats[2];
    std::memcpy(stats, result, kStatsBytes);
    out->grid_width = p.grid_width;
    out->grid_height = p.grid_height;
    out->mean = stats[0];
    out->contrast = stats[1];
    // Filled straight from pinned memory (a resize would first zero 9 KiB
    // per 1080p frame, on the element's streaming thread).
    const float* first = reinterpret_cast<const float*>(result + kStatsBytes);
    out->cells.assign(first, first + cells);
  }
  if (b->collected == b->frames.size()) {
    for (auto it = launched_.begin(); it != launched_.end(); ++it) {
      if (it->get() == b) {
        spare_.push_back(std::move(*it));
        launched_.erase(it);
        break;
      }
    }
  }
  return s;
}

}  // namespace cuda
}  // namespace ssim2
