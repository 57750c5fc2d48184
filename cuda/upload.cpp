#include "cuda/upload.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "alpha_rule.h"
#include "hdr_transfer.h"
#include "pixel_format.h"

namespace ssim2 {
namespace cuda {
namespace {

// The kernels' name for how a format is read, from its facts.
InputKind KindOf(const FormatTraits& f) {
  switch (f.family) {
    case FormatFamily::kPacked: return f.bytes_per_sample == 2 ? kInPacked16 : kInPacked8;
    case FormatFamily::kLinearPlanar: return kInLinearF32;
    case FormatFamily::kYuv: break;
  }
  if (!f.chroma_420) return kInY444;
  if (f.bit_depth > 8) return f.chroma_interleaved ? kInP010 : kInI420_10;
  return f.chroma_interleaved ? kInNV12 : kInI420;
}

// The kernels' name for an image's transfer.
InputTransfer TransferOf(Transfer t) {
  switch (t) {
    case Transfer::kSrgb: break;
    case Transfer::kLinear: return kTransferLinear;
    case Transfer::kPq: return kTransferPq;
    case Transfer::kHlg: return kTransferHlg;
  }
  return kTransferSrgb;
}

// Rows of a host image into pinned staging; large images with several
// threads (one memcpy stream does not saturate the memory bus).
void CopyRows(char* dst, std::size_t dst_pitch, const char* src, std::ptrdiff_t src_pitch,
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

}  // namespace

Status CheckDeviceImage(const ImageView& v) {
  const FormatTraits& f = *FindFormat(v.format);
  // The kernels read 16-bit words and floats in place: they must be aligned.
  const auto align = static_cast<std::uintptr_t>(f.bytes_per_sample);
  for (int p = 0; p < f.num_planes; ++p) {
    if (v.strides[p] <= 0) {
      return Status(StatusCode::kInvalidArgument, "CUDA device images need positive strides");
    }
    if (reinterpret_cast<std::uintptr_t>(v.planes[p]) % align != 0 ||
        static_cast<std::uintptr_t>(v.strides[p]) % align != 0) {
      return Status(StatusCode::kInvalidArgument,
                    "CUDA device image plane " + std::to_string(p) +
                        ": pointer and stride must be multiples of " + std::to_string(align) +
                        " bytes for " + f.name);
    }
  }
  return Status::Ok();
}

std::size_t UploadPitch(std::size_t row_bytes) { return (row_bytes + 15) / 16 * 16; }

std::size_t UploadSize(const ImageView& v) {
  const FormatTraits& f = *FindFormat(v.format);
  std::size_t total = 0;
  for (int p = 0; p < f.num_planes; ++p) {
    total += UploadPitch(PlaneRowBytes(f, v.width, p)) *
             static_cast<std::size_t>(PlaneRows(f, v.height, p));
  }
  return total;
}

Status Uploader::Create(bool pageable_direct) {
  pageable_direct_ = pageable_direct;
  for (Event& e : staging_done_) SSIM2_RETURN_IF_ERROR(e.Create());
  return Status::Ok();
}

int Uploader::NextDistortedStaging() {
  const int staging = 1 + next_distorted_;
  next_distorted_ ^= 1;
  return staging;
}

std::size_t Uploader::pinned_bytes() const {
  std::size_t bytes = 0;
  for (const PinnedBuffer& p : staging_) bytes += p.bytes();
  return bytes;
}

Status Uploader::Prepare(const ImageView& v, int staging, char* dst, std::size_t dst_capacity,
                         cudaStream_t stream, InputDesc* desc, Upload* upload) {
  const FormatTraits& f = *FindFormat(v.format);
  *desc = InputDesc{};
  desc->kind = KindOf(f);
  desc->channels = f.channels;
  desc->r = f.r;
  desc->g = f.g;
  desc->b = f.b;
  desc->a = f.a;
  desc->mul = static_cast<float>(1.0 / (desc->kind == kInPacked16 ? 65535 : 255));
  desc->background = kAlphaBackgroundDefault;
  desc->yuv_matrix = static_cast<int>(v.yuv.matrix);
  desc->yuv_full = v.yuv.range == YuvRange::kFull ? 1 : 0;
  desc->transfer = TransferOf(v.color.transfer);
  const float peak = IntensityTarget(v.color);
  desc->pq_scale = hdr::PqScale(peak);
  const hdr::HlgOotf ootf = hdr::MakeHlgOotf(peak);
  desc->hlg_ootf_skip = ootf.skip ? 1 : 0;
  desc->hlg_ootf_exponent = ootf.exponent;
  hdr::PremultipliedOpsin(peak, desc->opsin);
  upload->active = false;
  if (v.location == MemoryLocation::kCudaDevice) {
    for (int p = 0; p < f.num_planes; ++p) {
      desc->plane[p] = static_cast<const unsigned char*>(v.planes[p]);
      desc->stride[p] = v.strides[p];
    }
    return Status::Ok();
  }
  const std::size_t bytes = UploadSize(v);
  if (bytes > dst_capacity) return Status(StatusCode::kInternal, "upload area too small");
  // Pinned (page-locked) caller memory with positive strides is copied
  // straight to the device; pageable memory goes through pinned staging.
  bool pinned = true;
  for (int p = 0; p < f.num_planes; ++p) {
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
             (attr.type == cudaMemoryTypeHost || pageable_direct_);
  }
  upload->num_copies = 0;
  upload->staging = pinned ? -1 : staging;
  PinnedBuffer& pin = staging_[staging];
  if (!pinned) {
    // The previous copy out of this staging buffer must be done.
    SSIM2_CUDA_CHECK(cudaEventSynchronize(staging_done_[staging].get()));
    SSIM2_RETURN_IF_ERROR(pin.Reserve(bytes));
  }
  std::size_t off = 0;
  for (int p = 0; p < f.num_planes; ++p) {
    const std::size_t row = PlaneRowBytes(f, v.width, p);
    const int rows = PlaneRows(f, v.height, p);
    const std::size_t pitch = UploadPitch(row);
    const char* src = static_cast<const char*>(v.planes[p]);
    char* plane_dst = dst + off;
    if (pinned) {
      upload->copies[upload->num_copies++] = {src, static_cast<std::size_t>(v.strides[p]),
                                              plane_dst, pitch, row,
                                              static_cast<std::size_t>(rows)};
    } else {
      CopyRows(pin.get() + off, pitch, src, v.strides[p], row, rows);
    }
    desc->plane[p] = reinterpret_cast<const unsigned char*>(plane_dst);
    desc->stride[p] = static_cast<long long>(pitch);
    off += pitch * rows;
  }
  if (!pinned) upload->copies[upload->num_copies++] = {pin.get(), bytes, dst, bytes, bytes, 1};
  upload->active = true;
  return Issue(*upload, stream);
}

Status Uploader::Issue(const Upload& u, cudaStream_t stream) {
  if (!u.active) return Status::Ok();
  for (int i = 0; i < u.num_copies; ++i) {
    const Upload::Copy& c = u.copies[i];
    if (c.rows == 1) {
      SSIM2_CUDA_CHECK(cudaMemcpyAsync(c.dst, c.src, c.width, cudaMemcpyHostToDevice, stream));
      continue;
    }
    SSIM2_CUDA_CHECK(cudaMemcpy2DAsync(c.dst, c.dst_pitch, c.src, c.src_pitch, c.width, c.rows,
                                       cudaMemcpyHostToDevice, stream));
  }
  if (u.staging >= 0) {
    SSIM2_CUDA_CHECK(cudaEventRecord(staging_done_[u.staging].get(), stream));
  }
  return Status::Ok();
}

}  // namespace cuda
}  // namespace ssim2
