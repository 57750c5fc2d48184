// ssim2::cuda::Engine: host side of the CUDA engine. Decides what to launch
// (from the tables of layout.cpp), moves host inputs through pinned staging,
// and turns the device's float64 sums into Results.
//
// Launches per pass (S scales): 1 prepare for scale 0 (input -> XYB + next
// scale's linear RGB), S - 1 prepares for the smaller scales, one horizontal
// and one vertical launch covering all scales, one reduction: S + 3
// launches, plus one copy of 864 bytes to the host.
#include "ssim2/cuda_engine.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "blur_constants.h"
#include "constants.h"
#include "gpu/cuda_util.h"
#include "gpu/kernels.h"
#include "gpu/layout.h"

namespace ssim2 {
namespace gpu {

Status CudaStatus(cudaError_t error, const char* call, const char* file, int line) {
  StatusCode code = StatusCode::kCudaError;
  if (error == cudaErrorMemoryAllocation) code = StatusCode::kOutOfMemory;
  if (error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver ||
      error == cudaErrorInvalidDevice) {
    code = StatusCode::kBackendUnavailable;
  }
  return Status(code, std::string(call) + " failed: " + cudaGetErrorName(error) + " (" +
                          cudaGetErrorString(error) + ") at " + file + ":" +
                          std::to_string(line));
}

}  // namespace gpu

namespace cuda {

using namespace gpu;

namespace {

// cuCtxPushCurrent / cuCtxPopCurrent through the runtime's driver entry
// points, so that the library does not link libcuda (binaries then still
// start, and report "no device", on machines without a driver).
using CtxPushFn = int (*)(void*);
using CtxPopFn = int (*)(void**);

struct DriverFns {
  CtxPushFn push = nullptr;
  CtxPopFn pop = nullptr;
};

const DriverFns& Driver() {
  static const DriverFns fns = [] {
    DriverFns d;
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuCtxPushCurrent", &f, 12000, cudaEnableDefault, &q) ==
            cudaSuccess &&
        q == cudaDriverEntryPointSuccess) {
      d.push = reinterpret_cast<CtxPushFn>(f);
    }
    f = nullptr;
    if (cudaGetDriverEntryPointByVersion("cuCtxPopCurrent", &f, 12000, cudaEnableDefault, &q) ==
            cudaSuccess &&
        q == cudaDriverEntryPointSuccess) {
      d.pop = reinterpret_cast<CtxPopFn>(f);
    }
    return d;
  }();
  return fns;
}

// Makes the engine's context (or device) current for the scope of a call.
class ContextGuard {
 public:
  ContextGuard(void* context, int device) {
    if (context) {
      const DriverFns& d = Driver();
      if (!d.push || !d.pop) {
        status_ = Status(StatusCode::kCudaError, "cuCtxPushCurrent is not available");
        return;
      }
      if (d.push(context) != 0) {
        status_ = Status(StatusCode::kCudaError, "cuCtxPushCurrent failed");
        return;
      }
      pushed_ = true;
    } else if (device >= 0) {
      if (cudaGetDevice(&previous_) == cudaSuccess && previous_ != device) {
        if (cudaSetDevice(device) != cudaSuccess) {
          status_ = Status(StatusCode::kCudaError, "cudaSetDevice failed");
          return;
        }
        restore_ = true;
      }
    }
  }
  ~ContextGuard() {
    if (pushed_) {
      void* ctx = nullptr;
      Driver().pop(&ctx);
    }
    if (restore_) cudaSetDevice(previous_);
  }
  ContextGuard(const ContextGuard&) = delete;
  ContextGuard& operator=(const ContextGuard&) = delete;
  const Status& status() const { return status_; }

 private:
  Status status_;
  bool pushed_ = false;
  bool restore_ = false;
  int previous_ = 0;
};

#define SSIM2_GUARD()                                           \
  ContextGuard guard_(impl_->options.context, impl_->device);  \
  if (!guard_.status().ok()) return guard_.status()

std::size_t AlignUp(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// How the kernels read a format, and the shape of its planes.
struct FormatInfo {
  int kind = -1;
  int channels = 0;
  int r = 0, g = 0, b = 0, a = -1;
  int num_planes = 1;
};

FormatInfo Describe(PixelFormat f) {
  FormatInfo i;
  auto packed = [&](int kind, int ch, int r, int g, int b, int a) {
    i.kind = kind;
    i.channels = ch;
    i.r = r;
    i.g = g;
    i.b = b;
    i.a = a;
  };
  switch (f) {
    case PixelFormat::kRGB8: packed(kInPacked8, 3, 0, 1, 2, -1); break;
    case PixelFormat::kRGBA8: packed(kInPacked8, 4, 0, 1, 2, 3); break;
    case PixelFormat::kBGRA8: packed(kInPacked8, 4, 2, 1, 0, 3); break;
    case PixelFormat::kRGBX8: packed(kInPacked8, 4, 0, 1, 2, -1); break;
    case PixelFormat::kBGRX8: packed(kInPacked8, 4, 2, 1, 0, -1); break;
    case PixelFormat::kGray8: packed(kInPacked8, 1, 0, 0, 0, -1); break;
    case PixelFormat::kGrayAlpha8: packed(kInPacked8, 2, 0, 0, 0, 1); break;
    case PixelFormat::kRGB16: packed(kInPacked16, 3, 0, 1, 2, -1); break;
    case PixelFormat::kRGBA16: packed(kInPacked16, 4, 0, 1, 2, 3); break;
    case PixelFormat::kGray16: packed(kInPacked16, 1, 0, 0, 0, -1); break;
    case PixelFormat::kGrayAlpha16: packed(kInPacked16, 2, 0, 0, 0, 1); break;
    case PixelFormat::kLinearRGBPlanarF32: i.kind = kInLinearF32; i.num_planes = 3; break;
    case PixelFormat::kI420: i.kind = kInI420; i.num_planes = 3; break;
    case PixelFormat::kNV12: i.kind = kInNV12; i.num_planes = 2; break;
    case PixelFormat::kY444: i.kind = kInY444; i.num_planes = 3; break;
    case PixelFormat::kI420_10LE: i.kind = kInI420_10; i.num_planes = 3; break;
    case PixelFormat::kP010_10LE: i.kind = kInP010; i.num_planes = 2; break;
  }
  return i;
}

// Bytes per row and rows of plane p.
void PlaneShape(const ImageView& v, const FormatInfo& fi, int p, std::size_t* row_bytes,
                int* rows) {
  const std::size_t w = v.width;
  const std::size_t half = (w + 1) / 2;
  const int half_h = (v.height + 1) / 2;
  *rows = v.height;
  switch (fi.kind) {
    case kInPacked8: *row_bytes = w * fi.channels; break;
    case kInPacked16: *row_bytes = 2 * w * fi.channels; break;
    case kInLinearF32: *row_bytes = 4 * w; break;
    case kInI420:
      *row_bytes = p == 0 ? w : half;
      if (p > 0) *rows = half_h;
      break;
    case kInNV12:
      *row_bytes = p == 0 ? w : 2 * half;
      if (p > 0) *rows = half_h;
      break;
    case kInY444: *row_bytes = w; break;
    case kInI420_10:
      *row_bytes = p == 0 ? 2 * w : 2 * half;
      if (p > 0) *rows = half_h;
      break;
    default:  // P010
      *row_bytes = p == 0 ? 2 * w : 4 * half;
      if (p > 0) *rows = half_h;
      break;
  }
}

std::size_t UploadSize(const ImageView& v, const FormatInfo& fi) {
  std::size_t total = 0;
  for (int p = 0; p < fi.num_planes; ++p) {
    std::size_t row;
    int rows;
    PlaneShape(v, fi, p, &row, &rows);
    total += AlignUp(row, 16) * rows;
  }
  return total;
}

struct Slot {
  // Set by Enqueue; cleared by Wait/Query, or for tickets with a callback by
  // the callback itself (on CUDA's host-function thread) once it returned.
  std::atomic<bool> busy{false};
  Engine::Ticket ticket = 0;
  int passes = 0;
  ResultCallback callback = nullptr;
  void* user_data = nullptr;
  const MetricPlan* plan = nullptr;
  const double* sums = nullptr;  // pinned, passes x kSumsPerResult
  Event done;
};

// Lower score of the passes (the reference tool's alpha rule: dark first,
// bright only if strictly lower).
void ResultFromSums(const MetricPlan& plan, const double* sums, int passes, Result* out) {
  Result best;
  for (int p = 0; p < passes; ++p) {
    Result r;
    FinishResult(plan, sums + p * kSumsPerResult, &r);
    if (p == 0 || r.score < best.score) best = r;
  }
  *out = best;
}

void CUDART_CB HostCallback(void* data) {
  Slot* slot = static_cast<Slot*>(data);
  Result r;
  ResultFromSums(*slot->plan, slot->sums, slot->passes, &r);
  slot->callback(slot->user_data, r);
  slot->busy.store(false, std::memory_order_release);
}

}  // namespace

struct Engine::Impl {
  int width = 0;
  int height = 0;
  EngineOptions options;
  int device = -1;
  std::string device_name;
  Layout layout;
  LaunchTables tables;
  BlurParams blur{};
  float neg_cbrt_bias = 0.0f;

  // Everything that must be released with the context current.
  struct Resources {
    DeviceBuffer memory;
    Stream stream;
    PinnedBuffer results;        // 2 passes x kSumsPerResult doubles per slot
    PinnedBuffer staging[3];     // 0: reference, 1-2: distorted (ring)
    Event staging_done[3];
    std::vector<Slot> slots;
  };
  std::unique_ptr<Resources> res;

  Ticket next_ticket = 1;
  int next_dist_staging = 0;
  // SSIM2_CUDA_PAGEABLE_UPLOAD=direct: pageable host inputs are handed to
  // cudaMemcpy2DAsync as they are (the driver stages them) instead of being
  // copied into the engine's pinned staging first. Read at creation; for
  // measuring which is faster on a given machine (ssim2-bench does both).
  bool pageable_direct = false;
  bool has_reference = false;
  bool reference_alpha = false;
  InputDesc reference_raw{};  // alpha reference, kept in raw_ref

  // A host input's copy, kept so that a second alpha pass can repeat it.
  struct Upload {
    struct Copy {
      const void* src;
      std::size_t src_pitch;
      void* dst;
      std::size_t dst_pitch;
      std::size_t width;
      std::size_t rows;
    };
    bool active = false;
    Copy copies[3] = {};
    int num_copies = 0;
    int staging = -1;  // staging buffer read by the copies, -1: caller's pinned memory
  };

  ~Impl() {
    if (!res) return;
    ContextGuard guard(options.context, device);
    if (res->stream.get()) cudaStreamSynchronize(res->stream.get());
    res.reset();
  }

  cudaStream_t stream() const { return res->stream.get(); }
  char* base() const { return res->memory.get(); }

  Status CheckImage(const ImageView& v) const {
    SSIM2_RETURN_IF_ERROR(ValidateImage(v));
    if (v.width != width || v.height != height) {
      return Status(StatusCode::kSizeMismatch,
                    "Image size mismatch: engine is " + std::to_string(width) + "x" +
                        std::to_string(height) + ", image is " + std::to_string(v.width) + "x" +
                        std::to_string(v.height));
    }
    if (Describe(v.format).kind < 0) {
      return Status(StatusCode::kUnsupportedFormat,
                    std::string("unsupported pixel format ") + PixelFormatName(v.format));
    }
    if (v.location == MemoryLocation::kCudaDevice) {
      const FormatInfo fi = Describe(v.format);
      // The kernels read 16-bit words and floats in place: they must be aligned.
      const std::uintptr_t align = fi.kind == kInLinearF32 ? 4
                                   : (fi.kind == kInPacked16 || fi.kind == kInI420_10 ||
                                      fi.kind == kInP010)
                                       ? 2
                                       : 1;
      for (int p = 0; p < fi.num_planes; ++p) {
        if (v.strides[p] <= 0) {
          return Status(StatusCode::kInvalidArgument,
                        "CUDA device images need positive strides");
        }
        if (reinterpret_cast<std::uintptr_t>(v.planes[p]) % align != 0 ||
            static_cast<std::uintptr_t>(v.strides[p]) % align != 0) {
          return Status(StatusCode::kInvalidArgument,
                        "CUDA device image plane " + std::to_string(p) +
                            ": pointer and stride must be multiples of " +
                            std::to_string(align) + " bytes for " + PixelFormatName(v.format));
        }
      }
    }
    return Status::Ok();
  }

  // Fills the kernels' view of an input. Host memory goes through pinned
  // staging buffer `staging` to device address `dst` (upload recorded in
  // *upload); device memory is read in place.
  Status PrepareInput(const ImageView& v, int staging, std::size_t dst_offset, InputDesc* desc,
                      Upload* upload) {
    const FormatInfo fi = Describe(v.format);
    *desc = InputDesc{};
    desc->kind = fi.kind;
    desc->channels = fi.channels;
    desc->r = fi.r;
    desc->g = fi.g;
    desc->b = fi.b;
    desc->a = fi.a;
    desc->mul = static_cast<float>(1.0 / (fi.kind == kInPacked16 ? 65535 : 255));
    desc->background = kAlphaBackgroundDefault;
    desc->yuv_matrix = static_cast<int>(v.yuv.matrix);
    desc->yuv_full = v.yuv.range == YuvRange::kFull ? 1 : 0;
    upload->active = false;
    if (v.location == MemoryLocation::kCudaDevice) {
      for (int p = 0; p < fi.num_planes; ++p) {
        desc->plane[p] = static_cast<const unsigned char*>(v.planes[p]);
        desc->stride[p] = v.strides[p];
      }
      return Status::Ok();
    }
    const std::size_t bytes = UploadSize(v, fi);
    if (bytes > layout.UploadBytes() && dst_offset != layout.raw_ref) {
      return Status(StatusCode::kInternal, "upload area too small");
    }
    // Pinned (page-locked) caller memory with positive strides is copied
    // straight to the device; pageable memory goes through pinned staging.
    bool pinned = true;
    for (int p = 0; p < fi.num_planes; ++p) {
      cudaPointerAttributes attr;
      if (cudaPointerGetAttributes(&attr, v.planes[p]) != cudaSuccess) {
        cudaGetLastError();
        pinned = false;
        continue;
      }
      if (attr.type == cudaMemoryTypeDevice) {
        return Status(StatusCode::kInvalidArgument,
                      "image marked as host memory points to CUDA device memory "
                      "(set ImageView::location = kCudaDevice)");
      }
      pinned = pinned && v.strides[p] > 0 &&
               (attr.type == cudaMemoryTypeHost || pageable_direct);
    }
    upload->num_copies = 0;
    upload->staging = pinned ? -1 : staging;
    PinnedBuffer& pin = res->staging[staging];
    if (!pinned) {
      // The previous copy out of this staging buffer must be done.
      SSIM2_CUDA_CHECK(cudaEventSynchronize(res->staging_done[staging].get()));
      SSIM2_RETURN_IF_ERROR(pin.Reserve(bytes));
    }
    std::size_t off = 0;
    for (int p = 0; p < fi.num_planes; ++p) {
      std::size_t row;
      int rows;
      PlaneShape(v, fi, p, &row, &rows);
      const std::size_t pitch = AlignUp(row, 16);
      const char* src = static_cast<const char*>(v.planes[p]);
      char* dst = base() + dst_offset + off;
      if (pinned) {
        upload->copies[upload->num_copies++] = {src, static_cast<std::size_t>(v.strides[p]), dst,
                                                pitch, row, static_cast<std::size_t>(rows)};
      } else {
        CopyRows(pin.get() + off, pitch, src, v.strides[p], row, rows);
      }
      desc->plane[p] = reinterpret_cast<const unsigned char*>(dst);
      desc->stride[p] = static_cast<long long>(pitch);
      off += pitch * rows;
    }
    if (!pinned) upload->copies[upload->num_copies++] = {pin.get(), bytes, base() + dst_offset, bytes, bytes, 1};
    upload->active = true;
    return IssueUpload(*upload);
  }

  // Rows of a host image into pinned staging; large images with several
  // threads (one memcpy stream does not saturate the memory bus).
  static void CopyRows(char* dst, std::size_t dst_pitch, const char* src, std::ptrdiff_t src_pitch,
                       std::size_t row, int rows) {
    auto copy = [&](int y0, int y1) {
      for (int y = y0; y < y1; ++y) std::memcpy(dst + dst_pitch * y, src + src_pitch * y, row);
    };
    const std::size_t total = row * static_cast<std::size_t>(rows);
    // About one thread per 1.5 MB, at most 8 and half the hardware threads.
    const int hw = static_cast<int>(std::thread::hardware_concurrency());
    const int max_threads = std::max(1, std::min(8, hw / 2));
    const int threads = total < (std::size_t(3) << 20)
                            ? 1
                            : std::min(max_threads, static_cast<int>(total / (std::size_t(3) << 19)));
    if (threads == 1) {
      copy(0, rows);
      return;
    }
    std::vector<std::thread> workers;
    const int per = (rows + threads - 1) / threads;
    for (int t = 1; t < threads; ++t) {
      const int y0 = std::min(rows, t * per), y1 = std::min(rows, (t + 1) * per);
      workers.emplace_back(copy, y0, y1);
    }
    copy(0, std::min(rows, per));
    for (std::thread& w : workers) w.join();
  }

  Status IssueUpload(const Upload& u) {
    if (!u.active) return Status::Ok();
    for (int i = 0; i < u.num_copies; ++i) {
      const Upload::Copy& c = u.copies[i];
      if (c.rows == 1) {
        SSIM2_CUDA_CHECK(
            cudaMemcpyAsync(c.dst, c.src, c.width, cudaMemcpyHostToDevice, stream()));
        continue;
      }
      SSIM2_CUDA_CHECK(cudaMemcpy2DAsync(c.dst, c.dst_pitch, c.src, c.src_pitch, c.width, c.rows,
                                         cudaMemcpyHostToDevice, stream()));
    }
    if (u.staging >= 0) {
      SSIM2_CUDA_CHECK(cudaEventRecord(res->staging_done[u.staging].get(), stream()));
    }
    return Status::Ok();
  }

  PyramidStep Step(int image, int s) const {
    const ScaleGeom& g = layout.geom[s];
    PyramidStep st{};
    st.xyb = reinterpret_cast<float*>(base() + layout.xyb[image][s]);
    st.xyb_plane = static_cast<long long>(g.plane_bytes / sizeof(float));
    st.xyb_pitch = g.pitch;
    if (s + 1 < layout.plan.num_scales) {
      const ScaleGeom& n = layout.geom[s + 1];
      st.lin_next = reinterpret_cast<float*>(base() + layout.lin[image][s + 1]);
      st.lin_next_plane = static_cast<long long>(n.plane_bytes / sizeof(float));
      st.lin_next_pitch = n.pitch;
    }
    if (s > 0) {
      st.lin_src = reinterpret_cast<const float*>(base() + layout.lin[image][s]);
      st.lin_src_plane = static_cast<long long>(g.plane_bytes / sizeof(float));
      st.lin_src_pitch = g.pitch;
    }
    return st;
  }

  // Enqueues one pass; for kCached / kFull its sums land in result slot
  // `result_slot` (device) and are copied to the pinned results.
  Status EnqueuePass(PassMode mode, const InputDesc* ref, const InputDesc* dist, float background,
                     int result_slot) {
    const int m = static_cast<int>(mode);
    const int scales = layout.plan.num_scales;
    for (int s = 0; s < scales; ++s) {
      PrepareParams p{};
      p.width = layout.geom[s].width;
      p.height = layout.geom[s].height;
      p.from_input = s == 0 ? 1 : 0;
      p.neg_cbrt_bias = neg_cbrt_bias;
      p.mul8 = static_cast<float>(1.0 / 255);
      p.srgb8 = reinterpret_cast<const float*>(base() + layout.jobs + tables.srgb8_offset);
      int count = 0;
      auto add = [&](const InputDesc* in, int image) {
        if (s == 0) {
          p.inputs[count] = *in;
          p.inputs[count].background = background;
        }
        p.steps[count] = Step(image, s);
        ++count;
      };
      if (mode != PassMode::kCached) add(ref, 0);
      if (mode != PassMode::kRef) add(dist, 1);
      p.count = count;
      SSIM2_CUDA_CHECK(LaunchPrepare(p, stream()));
    }
    double* partials = reinterpret_cast<double*>(base() + layout.partials);
    for (int g = 0; g < kNumGroups; ++g) {
      const HJob* hj = reinterpret_cast<const HJob*>(base() + layout.jobs + tables.h_offset[m][g]);
      const VJob* vj = reinterpret_cast<const VJob*>(base() + layout.jobs + tables.v_offset[m][g]);
      SSIM2_CUDA_CHECK(LaunchHBlur(hj, static_cast<int>(tables.h[m][g].size()),
                                   tables.h_blocks[m][g], blur, stream()));
      SSIM2_CUDA_CHECK(LaunchVBlur(vj, static_cast<int>(tables.v[m][g].size()),
                                   tables.v_blocks[m][g], blur,
                                   partials + static_cast<std::size_t>(tables.partial_base[m][g]) *
                                                  kNumSums,
                                   stream()));
    }
    if (mode == PassMode::kRef) return Status::Ok();
    double* sums = reinterpret_cast<double*>(base() + layout.sums) +
                   static_cast<std::size_t>(result_slot) * kSumsPerResult;
    SSIM2_CUDA_CHECK(LaunchReduce(tables.reduce[m], partials, sums, stream()));
    double* host = reinterpret_cast<double*>(res->results.get()) +
                   static_cast<std::size_t>(result_slot) * kSumsPerResult;
    SSIM2_CUDA_CHECK(cudaMemcpyAsync(host, sums, kSumsPerResult * sizeof(double),
                                     cudaMemcpyDeviceToHost, stream()));
    return Status::Ok();
  }

  Status SetReference(const ImageView& ref) {
    has_reference = false;
    SSIM2_RETURN_IF_ERROR(CheckImage(ref));
    if (HasAlpha(ref.format)) {
      // Two passes with different backgrounds follow for every distorted
      // image: keep the samples themselves.
      Upload up;
      if (ref.location == MemoryLocation::kHost) {
        SSIM2_RETURN_IF_ERROR(PrepareInput(ref, 0, layout.raw_ref, &reference_raw, &up));
      } else {
        const FormatInfo fi = Describe(ref.format);
        std::size_t row;
        int rows;
        PlaneShape(ref, fi, 0, &row, &rows);
        const std::size_t pitch = AlignUp(row, 16);
        SSIM2_RETURN_IF_ERROR(PrepareInput(ref, 0, 0, &reference_raw, &up));
        SSIM2_CUDA_CHECK(cudaMemcpy2DAsync(base() + layout.raw_ref, pitch, ref.planes[0],
                                           ref.strides[0], row, rows, cudaMemcpyDeviceToDevice,
                                           stream()));
        reference_raw.plane[0] = reinterpret_cast<const unsigned char*>(base() + layout.raw_ref);
        reference_raw.stride[0] = static_cast<long long>(pitch);
      }
      reference_alpha = true;
      has_reference = true;
      return Status::Ok();
    }
    InputDesc rd;
    Upload up;
    SSIM2_RETURN_IF_ERROR(PrepareInput(ref, 0, layout.UploadOffset(0), &rd, &up));
    SSIM2_RETURN_IF_ERROR(EnqueuePass(PassMode::kRef, &rd, nullptr, kAlphaBackgroundDefault, -1));
    reference_alpha = false;
    has_reference = true;
    return Status::Ok();
  }

  Status Enqueue(const ImageView* ref, const ImageView& dist, Ticket* ticket,
                 ResultCallback callback, void* user_data) {
    const int slot_index = static_cast<int>(next_ticket % res->slots.size());
    Slot& slot = res->slots[slot_index];
    if (slot.busy.load(std::memory_order_acquire)) {
      return Status(StatusCode::kInvalidArgument,
                    "more than max_batch (" + std::to_string(res->slots.size()) +
                        ") results outstanding: Wait() for earlier tickets first");
    }
    if (ref) {
      SSIM2_RETURN_IF_ERROR(ValidatePair(*ref, dist));
      SSIM2_RETURN_IF_ERROR(CheckImage(*ref));
    } else if (!has_reference) {
      return Status(StatusCode::kInvalidArgument, "no reference set: call SetReference first");
    }
    SSIM2_RETURN_IF_ERROR(CheckImage(dist));
    const int dist_staging = 1 + next_dist_staging;
    next_dist_staging ^= 1;
    InputDesc dd;
    Upload dist_up;
    SSIM2_RETURN_IF_ERROR(PrepareInput(dist, dist_staging, layout.UploadOffset(1), &dd, &dist_up));
    int passes = 1;
    const int first_result = slot_index * 2;
    if (ref) {
      // Both images: the cache is overwritten (xyb of the reference).
      has_reference = false;
      InputDesc rd;
      Upload ref_up;
      SSIM2_RETURN_IF_ERROR(PrepareInput(*ref, 0, layout.UploadOffset(0), &rd, &ref_up));
      const bool alpha = HasAlpha(ref->format);
      passes = alpha ? 2 : 1;
      for (int p = 0; p < passes; ++p) {
        if (p > 0) {
          // The horizontal pass reused the upload area: upload again.
          SSIM2_RETURN_IF_ERROR(IssueUpload(ref_up));
          SSIM2_RETURN_IF_ERROR(IssueUpload(dist_up));
        }
        const float bg = !alpha ? kAlphaBackgroundDefault
                                : (p == 0 ? kAlphaBackgroundDark : kAlphaBackgroundBright);
        SSIM2_RETURN_IF_ERROR(EnqueuePass(PassMode::kFull, &rd, &dd, bg, first_result + p));
      }
    } else if (reference_alpha) {
      passes = 2;
      for (int p = 0; p < passes; ++p) {
        if (p > 0) SSIM2_RETURN_IF_ERROR(IssueUpload(dist_up));
        const float bg = p == 0 ? kAlphaBackgroundDark : kAlphaBackgroundBright;
        SSIM2_RETURN_IF_ERROR(
            EnqueuePass(PassMode::kFull, &reference_raw, &dd, bg, first_result + p));
      }
    } else {
      SSIM2_RETURN_IF_ERROR(
          EnqueuePass(PassMode::kCached, nullptr, &dd, kAlphaBackgroundDefault, first_result));
    }
    slot.passes = passes;
    slot.callback = callback;
    slot.user_data = user_data;
    slot.plan = &layout.plan;
    slot.sums = reinterpret_cast<const double*>(res->results.get()) +
                static_cast<std::size_t>(first_result) * kSumsPerResult;
    SSIM2_CUDA_CHECK(cudaEventRecord(slot.done.get(), stream()));
    slot.ticket = next_ticket;
    slot.busy.store(true, std::memory_order_release);
    if (callback) {
      const cudaError_t e = cudaLaunchHostFunc(stream(), HostCallback, &slot);
      if (e != cudaSuccess) {
        slot.busy.store(false);
        return CudaStatus(e, "cudaLaunchHostFunc", __FILE__, __LINE__);
      }
    }
    *ticket = next_ticket++;
    return Status::Ok();
  }

  Status FindSlot(Ticket ticket, Slot** out) {
    Slot& slot = res->slots[ticket % res->slots.size()];
    if (!slot.busy.load(std::memory_order_acquire) || slot.ticket != ticket) {
      return Status(StatusCode::kInvalidArgument,
                    "unknown ticket " + std::to_string(ticket) +
                        " (already waited for, or its callback has run)");
    }
    *out = &slot;
    return Status::Ok();
  }

  Status Wait(Ticket ticket, Result* result) {
    Slot* slot = nullptr;
    SSIM2_RETURN_IF_ERROR(FindSlot(ticket, &slot));
    const cudaError_t e = cudaEventSynchronize(slot->done.get());
    if (slot->callback) {
      // The callback releases the ticket; wait until it has run.
      while (e == cudaSuccess && slot->busy.load(std::memory_order_acquire)) {
        std::this_thread::yield();
      }
    } else {
      slot->busy.store(false, std::memory_order_release);
    }
    if (e != cudaSuccess) return CudaStatus(e, "cudaEventSynchronize", __FILE__, __LINE__);
    // Surface asynchronous kernel errors.
    SSIM2_CUDA_CHECK(cudaGetLastError());
    if (result) ResultFromSums(layout.plan, slot->sums, slot->passes, result);
    return Status::Ok();
  }

  Status Query(Ticket ticket, bool* done, Result* result) {
    Slot* slot = nullptr;
    SSIM2_RETURN_IF_ERROR(FindSlot(ticket, &slot));
    const cudaError_t e = cudaEventQuery(slot->done.get());
    if (e == cudaErrorNotReady || (e == cudaSuccess && slot->callback)) {
      // (A ticket with a callback is done once the callback released it.)
      *done = false;
      return Status::Ok();
    }
    slot->busy.store(false, std::memory_order_release);
    if (e != cudaSuccess) return CudaStatus(e, "cudaEventQuery", __FILE__, __LINE__);
    *done = true;
    if (result) ResultFromSums(layout.plan, slot->sums, slot->passes, result);
    return Status::Ok();
  }
};

Engine::Engine() = default;
Engine::~Engine() = default;
Engine::Engine(Engine&& other) noexcept = default;
Engine& Engine::operator=(Engine&& other) noexcept = default;

bool DeviceAvailable(std::string* why_not) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (why_not) {
      *why_not = std::string("no usable CUDA device: cudaGetDeviceCount failed with ") +
                 cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    }
    return false;
  }
  if (count == 0) {
    if (why_not) *why_not = "no CUDA device found";
    return false;
  }
  return true;
}

Status Engine::Create(int width, int height, const EngineOptions& options, Engine* out) {
  if (!out) return Status(StatusCode::kInvalidArgument, "Engine::Create: out is null");
  *out = Engine();
  if (width < 8 || height < 8) {
    return Status(StatusCode::kImageTooSmall, "Minimum image size is 8x8 pixels");
  }
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

  if (const char* up = std::getenv("SSIM2_CUDA_PAGEABLE_UPLOAD")) {
    impl->pageable_direct = std::string(up) == "direct";
  }
  impl->layout = MakeLayout(width, height, options.all_features, 2 * options.max_batch);
  impl->blur = MakeBlurParams(GetBlurConstants());
  impl->neg_cbrt_bias = -std::cbrt(kOpsinBias);
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
  for (Event& e : r.staging_done) SSIM2_RETURN_IF_ERROR(e.Create());
  r.slots = std::vector<Slot>(options.max_batch);
  for (Slot& s : r.slots) SSIM2_RETURN_IF_ERROR(s.done.Create());
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
std::size_t Engine::memory_bytes() const { return impl_ ? impl_->res->memory.bytes() : 0; }
std::size_t Engine::pinned_bytes() const {
  if (!impl_) return 0;
  std::size_t b = impl_->res->results.bytes();
  for (const PinnedBuffer& p : impl_->res->staging) b += p.bytes();
  return b;
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
  return impl_->Wait(t, result);
}

Status Engine::Compute(const ImageView& distorted, Result* result) {
  SSIM2_NEED_IMPL();
  if (!result) return Status(StatusCode::kInvalidArgument, "result is null");
  SSIM2_GUARD();
  Ticket t;
  SSIM2_RETURN_IF_ERROR(impl_->Enqueue(nullptr, distorted, &t, nullptr, nullptr));
  return impl_->Wait(t, result);
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
  const std::size_t chunk = impl_->res->slots.size();
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
      const Status w = impl_->Wait(tickets[i], &results[first + i]);
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
  return impl_->Query(ticket, done, result);
}

Status Engine::Wait(Ticket ticket, Result* result) {
  SSIM2_NEED_IMPL();
  SSIM2_GUARD();
  return impl_->Wait(ticket, result);
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
