/* gst-ssim2: the frame adapter of ssim2compare.
 * SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstssim2frame.h"

#ifdef HAVE_GST_CUDA
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
  view->color = format.color;
}

// The caps' name of an enumeration value ("bt2020", "smpte2084").
std::string EnumNick(GType type, int value) {
  GEnumClass* klass = static_cast<GEnumClass*>(g_type_class_ref(type));
  const GEnumValue* v = g_enum_get_value(klass, value);
  std::string nick = v ? v->value_nick : "unknown";
  g_type_class_unref(klass);
  return nick;
}

}  // namespace

bool PixelFormatOf(GstVideoFormat f, ssim2::PixelFormat* out) {
  struct FormatPair {
    GstVideoFormat gst;
    ssim2::PixelFormat ssim2;
  };
  /* The formats of the pad templates (SSIM2_FORMATS). */
  static constexpr FormatPair kFormats[] = {
      {GST_VIDEO_FORMAT_RGB, ssim2::PixelFormat::kRGB8},
      {GST_VIDEO_FORMAT_RGBA, ssim2::PixelFormat::kRGBA8},
      {GST_VIDEO_FORMAT_BGRA, ssim2::PixelFormat::kBGRA8},
      {GST_VIDEO_FORMAT_RGBx, ssim2::PixelFormat::kRGBX8},
      {GST_VIDEO_FORMAT_BGRx, ssim2::PixelFormat::kBGRX8},
      {GST_VIDEO_FORMAT_I420, ssim2::PixelFormat::kI420},
      {GST_VIDEO_FORMAT_NV12, ssim2::PixelFormat::kNV12},
      {GST_VIDEO_FORMAT_Y444, ssim2::PixelFormat::kY444},
      {GST_VIDEO_FORMAT_I420_10LE, ssim2::PixelFormat::kI420_10LE},
      {GST_VIDEO_FORMAT_P010_10LE, ssim2::PixelFormat::kP010_10LE},
      // Grey is what the reference makes of a grey PNG: R' = G' = B' = the
      // sample, full range (the caller refuses limited-range grey).
      {GST_VIDEO_FORMAT_GRAY8, ssim2::PixelFormat::kGray8},
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
      // 16 bits per sample (PQ and HLG RGB, grey), in host byte order as the
      // library's.
      {GST_VIDEO_FORMAT_RGBA64_LE, ssim2::PixelFormat::kRGBA16},
      {GST_VIDEO_FORMAT_GRAY16_LE, ssim2::PixelFormat::kGray16},
#endif
  };
  for (const FormatPair& p : kFormats) {
    if (p.gst == f) {
      *out = p.ssim2;
      return true;
    }
  }
  return false;
}

bool ColorDescriptionOf(const GstVideoInfo& info, GstCaps* caps, ssim2::PixelFormat format,
                        ssim2::ColorDescription* out, std::string* why, std::string* warning) {
  const GstVideoColorimetry& c = info.colorimetry;
  const GstVideoFormatInfo* finfo = info.finfo;
  const bool rgb = GST_VIDEO_FORMAT_INFO_IS_RGB(finfo);
  const bool yuv10 = ssim2::IsYuvFormat(format) && GST_VIDEO_FORMAT_INFO_DEPTH(finfo, 0) == 10;
  const std::string primaries = EnumNick(GST_TYPE_VIDEO_COLOR_PRIMARIES, c.primaries);
  *out = ssim2::ColorDescription{};
  switch (c.transfer) {
    case GST_VIDEO_TRANSFER_SMPTE2084: out->transfer = ssim2::Transfer::kPq; break;
    case GST_VIDEO_TRANSFER_ARIB_STD_B67: out->transfer = ssim2::Transfer::kHlg; break;
    case GST_VIDEO_TRANSFER_GAMMA10: out->transfer = ssim2::Transfer::kLinear; break;
    default:
      if (c.primaries == GST_VIDEO_COLOR_PRIMARIES_BT2020) {
        *warning = "BT.2020 primaries with the " +
                   EnumNick(GST_TYPE_VIDEO_TRANSFER_FUNCTION, c.transfer) +
                   " transfer are scored as sRGB with BT.709 primaries (the gamut is not "
                   "converted), as the reference scores a PNG without cICP";
      }
      return true;
  }
  const char* name = ssim2::TransferName(out->transfer);
  if (out->is_hdr()) {
    if (c.primaries != GST_VIDEO_COLOR_PRIMARIES_BT2020) {
      *why = std::string(name) + " with " + primaries +
             " primaries cannot be scored: PQ and HLG are scored with BT.2020 primaries";
      return false;
    }
    if (!(rgb || yuv10)) {
      *why = std::string(name) + " frames in " + GST_VIDEO_FORMAT_INFO_NAME(finfo) +
             " cannot be scored: PQ and HLG need RGB or a 10-bit Y'CbCr format (P010_10LE, "
             "I420_10LE)";
      return false;
    }
    out->primaries = ssim2::Primaries::kBT2020;
  } else if (!rgb || GST_VIDEO_FORMAT_INFO_IS_GRAY(finfo) ||
             (c.primaries != GST_VIDEO_COLOR_PRIMARIES_BT709 &&
              c.primaries != GST_VIDEO_COLOR_PRIMARIES_UNKNOWN)) {
    *why = std::string("linear (gamma10) frames in ") + GST_VIDEO_FORMAT_INFO_NAME(finfo) +
           " with " + primaries +
           " primaries cannot be scored: linear light needs RGB with BT.709 primaries";
    return false;
  }
  GstVideoContentLightLevel cll;
  if (gst_video_content_light_level_from_caps(&cll, caps)) {
    out->max_cll = ssim2::MaxCllFromClli(cll.max_content_light_level * 10000u);
  }
  return true;
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
}

bool MapHostFrame(const FrameFormat& format, GstBuffer* buf, MappedFrame* out,
                  std::string* why) {
  if (!gst_video_frame_map(&out->frame_, const_cast<GstVideoInfo*>(&format.info), buf,
                           GST_MAP_READ)) {
    const gsize size = gst_buffer_get_size(buf);
    const gsize need = GST_VIDEO_INFO_SIZE(&format.info);
    *why = size < need ? "the buffer holds " + std::to_string(size) +
                             " bytes, its caps describe a frame of " +
                             std::to_string(need)
                       : std::string("could not map the frame");
    return false;
  }
  out->mapped_ = true;
  MakeView(format, &out->frame_, false, &out->view_);
  return true;
}

#ifdef HAVE_GST_CUDA
bool CudaFrameReader::InPlace(GstCudaContext* context, GstBuffer* buf) {
  GstMemory* mem = gst_buffer_peek_memory(buf, 0);
  return gst_is_cuda_memory(mem) && GST_CUDA_MEMORY_CAST(mem)->context == context;
}

bool CudaFrameReader::Map(GstCudaContext* context, const FrameFormat& format,
                          GstBuffer* buf, MappedFrame* out, std::string* why) {
  if (!InPlace(context, buf)) {
    // System memory (or CUDA memory of another context, which GStreamer
    // downloads) goes to the engine as a host image: the engine copies it
    // through pinned staging with each plane's own row count. GStreamer
    // 1.22's CUDA buffer pool cannot be written from the CPU for 4:2:0 of
    // odd height: it places the V plane half a pitch into a row and uploads
    // only the luma row width of every pitch row, so the end of each V row
    // never reached the device.
    if (!MapHostFrame(format, buf, out, why)) return false;
    host_++;
    return true;
  }
  in_place_++;
  if (!gst_video_frame_map(&out->frame_, const_cast<GstVideoInfo*>(&format.info), buf,
                           static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA))) {
    *why = "could not map the frame's CUDA memory";
    return false;
  }
  out->mapped_ = true;
#if GST_CHECK_VERSION(1, 24, 0)
  // Since 1.24 CUDA memory may belong to a stream: work on it (the producer's,
  // and the upload of CPU writes that the map above starts) is then only
  // queued there. The engine reads on a stream of its own, so wait for it
  // after the map; gst_cuda_memory_sync returns at once when nothing is pending.
  for (guint i = 0; i < gst_buffer_n_memory(buf); i++) {
    GstMemory* m = gst_buffer_peek_memory(buf, i);
    if (gst_is_cuda_memory(m)) gst_cuda_memory_sync(GST_CUDA_MEMORY_CAST(m));
  }
#endif
  MakeView(format, &out->frame_, true, &out->view_);
  return true;
}
#endif

}  // namespace ssim2gst
