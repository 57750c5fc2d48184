/* gst-ssim2: the frame adapter of ssim2compare.
 * SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstssim2frame.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#endif

#include <array>
#include <cstddef>

namespace ssim2gst {
namespace {

void MakeView(const FrameFormat& format, GstVideoFrame* frame, bool device,
              ssim2::ImageView* view) {
  const int w = GST_VIDEO_FRAME_WIDTH(frame);
  const int h = GST_VIDEO_FRAME_HEIGHT(frame);
  const ssim2::MemoryLocation loc =
      device ? ssim2::MemoryLocation::kCudaDevice : ssim2::MemoryLocation::kHost;
  if (ssim2::IsYuvFormat(format.format)) {
    std::array<const void*, 3> planes{};
    std::array<std::ptrdiff_t, 3> strides{};
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(frame) && p < 3; p++) {
      planes[p] = GST_VIDEO_FRAME_PLANE_DATA(frame, p);
      strides[p] = GST_VIDEO_FRAME_PLANE_STRIDE(frame, p);
    }
    *view = ssim2::ImageView::Planar(format.format, w, h, planes, strides, loc);
    view->yuv = format.yuv;
  } else {
    *view = ssim2::ImageView::Packed(format.format, w, h, GST_VIDEO_FRAME_PLANE_DATA(frame, 0),
                                     GST_VIDEO_FRAME_PLANE_STRIDE(frame, 0), loc);
  }
}

}  // namespace

bool PixelFormatOf(GstVideoFormat f, ssim2::PixelFormat* out) {
  switch (f) {
    case GST_VIDEO_FORMAT_RGB: *out = ssim2::PixelFormat::kRGB8; return true;
    case GST_VIDEO_FORMAT_RGBA: *out = ssim2::PixelFormat::kRGBA8; return true;
    case GST_VIDEO_FORMAT_BGRA: *out = ssim2::PixelFormat::kBGRA8; return true;
    case GST_VIDEO_FORMAT_RGBx: *out = ssim2::PixelFormat::kRGBX8; return true;
    case GST_VIDEO_FORMAT_BGRx: *out = ssim2::PixelFormat::kBGRX8; return true;
    case GST_VIDEO_FORMAT_I420: *out = ssim2::PixelFormat::kI420; return true;
    case GST_VIDEO_FORMAT_NV12: *out = ssim2::PixelFormat::kNV12; return true;
    case GST_VIDEO_FORMAT_Y444: *out = ssim2::PixelFormat::kY444; return true;
    case GST_VIDEO_FORMAT_I420_10LE: *out = ssim2::PixelFormat::kI420_10LE; return true;
    case GST_VIDEO_FORMAT_P010_10LE: *out = ssim2::PixelFormat::kP010_10LE; return true;
    default: return false;
  }
}

bool YuvColorimetryOf(const GstVideoColorimetry& colorimetry, ssim2::YuvColorimetry* out) {
  switch (colorimetry.matrix) {
    case GST_VIDEO_COLOR_MATRIX_BT601: out->matrix = ssim2::YuvMatrix::kBT601; break;
    case GST_VIDEO_COLOR_MATRIX_BT709:
    case GST_VIDEO_COLOR_MATRIX_UNKNOWN: out->matrix = ssim2::YuvMatrix::kBT709; break;
    case GST_VIDEO_COLOR_MATRIX_BT2020: out->matrix = ssim2::YuvMatrix::kBT2020; break;
    default: return false;
  }
  out->range = colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255 ? ssim2::YuvRange::kFull
                                                                 : ssim2::YuvRange::kLimited;
  return true;
}

MappedFrame::~MappedFrame() {
  if (mapped_) gst_video_frame_unmap(&frame_);
  if (upload_) gst_buffer_unref(upload_);
}

bool MapHostFrame(const FrameFormat& format, GstBuffer* buf, MappedFrame* out,
                  std::string* why) {
  if (!gst_video_frame_map(&out->frame_, const_cast<GstVideoInfo*>(&format.info), buf,
                           GST_MAP_READ)) {
    *why = "could not map the frame";
    return false;
  }
  out->mapped_ = true;
  MakeView(format, &out->frame_, false, &out->view_);
  return true;
}

#ifdef HAVE_GST_CUDA
void CudaFrameReader::ReleasePool() {
  if (pool_) {
    gst_buffer_pool_set_active(pool_, FALSE);
    gst_clear_object(&pool_);
  }
}

GstBuffer* CudaFrameReader::Upload(GstCudaContext* context, const GstVideoInfo& info,
                                   GstBuffer* in, std::string* why) {
  GstVideoInfo* vinfo = const_cast<GstVideoInfo*>(&info);
  if (!pool_) {
    pool_ = gst_cuda_buffer_pool_new(context);
    GstCaps* caps = gst_video_info_to_caps(vinfo);
    GstStructure* config = gst_buffer_pool_get_config(pool_);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(vinfo), 0, 0);
    gst_caps_unref(caps);
    if (!gst_buffer_pool_set_config(pool_, config) ||
        !gst_buffer_pool_set_active(pool_, TRUE)) {
      gst_clear_object(&pool_);
      *why = "could not configure the CUDA upload pool";
      return nullptr;
    }
  }
  GstBuffer* out = nullptr;
  if (gst_buffer_pool_acquire_buffer(pool_, &out, nullptr) != GST_FLOW_OK) {
    *why = "no buffer from the CUDA upload pool";
    return nullptr;
  }
  GstVideoFrame src, dst;
  if (!gst_video_frame_map(&src, vinfo, in, GST_MAP_READ)) {
    gst_buffer_unref(out);
    *why = "could not map the frame";
    return nullptr;
  }
  if (!gst_video_frame_map(&dst, vinfo, out, GST_MAP_WRITE)) {
    gst_video_frame_unmap(&src);
    gst_buffer_unref(out);
    *why = "could not map a CUDA upload buffer";
    return nullptr;
  }
  // Written to the staging memory; mapping with GST_MAP_CUDA uploads it.
  const gboolean ok = gst_video_frame_copy(&dst, &src);
  gst_video_frame_unmap(&dst);
  gst_video_frame_unmap(&src);
  if (!ok) {
    gst_buffer_unref(out);
    *why = "could not copy the frame into CUDA memory";
    return nullptr;
  }
  return out;
}

bool CudaFrameReader::Map(GstCudaContext* context, const FrameFormat& format,
                          GstBuffer* buf, MappedFrame* out, std::string* why) {
  GstMemory* mem = gst_buffer_peek_memory(buf, 0);
  GstBuffer* src = buf;
  if (!(gst_is_cuda_memory(mem) && GST_CUDA_MEMORY_CAST(mem)->context == context)) {
    std::string upload_failure;
    out->upload_ = Upload(context, format.info, buf, &upload_failure);
    if (!out->upload_) {
      *why = "could not upload the frame into CUDA memory: " + upload_failure;
      return false;
    }
    src = out->upload_;
    uploaded_++;
  } else {
    in_place_++;
  }
#if GST_CHECK_VERSION(1, 24, 0)
  // Since 1.24 CUDA memory may carry pending work on the producer's stream;
  // the engine reads on a stream of its own, so wait for it first.
  for (guint i = 0; i < gst_buffer_n_memory(src); i++) {
    GstMemory* m = gst_buffer_peek_memory(src, i);
    if (gst_is_cuda_memory(m) && gst_cuda_memory_get_stream(GST_CUDA_MEMORY_CAST(m)))
      gst_cuda_memory_sync(GST_CUDA_MEMORY_CAST(m));
  }
#endif
  if (!gst_video_frame_map(&out->frame_, const_cast<GstVideoInfo*>(&format.info), src,
                           static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA))) {
    *why = "could not map the frame's CUDA memory";
    return false;
  }
  out->mapped_ = true;
  MakeView(format, &out->frame_, true, &out->view_);
  return true;
}
#endif

}  // namespace ssim2gst
