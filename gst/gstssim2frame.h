/* gst-ssim2: the frame adapter of ssim2compare. A video buffer (system
 * memory or CUDA memory) becomes the ssim2::ImageView the core library
 * reads: CUDA memory in place for the CUDA engine, everything else as host
 * memory (which the engine copies to the device itself).
 * SPDX-License-Identifier: BSD-3-Clause */
#pragma once

#include <gst/video/video.h>

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#endif

#include <string>

#include "ssim2/ssim2.h"

namespace ssim2gst {

/* What the adapter knows about the frames of one pad (from its caps). */
struct FrameFormat {
  GstVideoInfo info;
  ssim2::PixelFormat format = ssim2::PixelFormat::kRGB8;
  ssim2::YuvColorimetry yuv;
  ssim2::ColorDescription color;
};

/* The core library's pixel format for a GStreamer video format; false when
 * the format cannot be scored. */
bool PixelFormatOf(GstVideoFormat format, ssim2::PixelFormat* out);

/* The Y'CbCr matrix and range of the caps' colorimetry (an unknown matrix
 * is BT.709); false when the matrix cannot be compared (FCC, SMPTE 240M,
 * "RGB"). */
bool YuvColorimetryOf(const GstVideoColorimetry& colorimetry, ssim2::YuvColorimetry* out);

/* What the samples of frames with these caps mean (ssim2::ColorDescription),
 * read the way the HDR reference reads the same cICP and cLLi chunks:
 * transfer smpte2084 is PQ and arib-std-b67 HLG (both need BT.2020
 * primaries, and packed RGB or a 10-bit Y'CbCr format), gamma10 is linear
 * light (BT.709 primaries, packed RGB), any other transfer is scored with the
 * sRGB curve as before; content-light-level's MaxCLL N cd/m2 is a cLLi chunk
 * of N * 10000. Returns false with *why set when the frames cannot be scored
 * as the caps describe them; sets *warning to what is scored otherwise than
 * described (BT.2020 primaries with an SDR transfer: the gamut is not
 * converted). */
bool ColorDescriptionOf(const GstVideoInfo& info, GstCaps* caps, ssim2::PixelFormat format,
                        ssim2::ColorDescription* out, std::string* why, std::string* warning);

/* A mapped frame and the view the core library reads. Unmaps the frame
 * when it goes. */
class MappedFrame {
 public:
  MappedFrame() = default;
  ~MappedFrame();
  MappedFrame(const MappedFrame&) = delete;
  MappedFrame& operator=(const MappedFrame&) = delete;

  const ssim2::ImageView& view() const { return view_; }

 private:
  friend bool MapHostFrame(const FrameFormat&, GstBuffer*, MappedFrame*, std::string*);
#ifdef HAVE_GST_CUDA
  friend class CudaFrameReader;
#endif
  GstVideoFrame frame_;
  bool mapped_ = false;
  ssim2::ImageView view_;
};

/* Maps @buf (system memory, or CUDA memory, which GStreamer downloads) for
 * the CPU path. */
bool MapHostFrame(const FrameFormat& format, GstBuffer* buf, MappedFrame* out,
                  std::string* why);

#ifdef HAVE_GST_CUDA
/* Reads the frames of one pad for the CUDA engine in one context: CUDA
 * memory of that context in place (zero copy); anything else is mapped as
 * host memory, and the engine uploads it through its pinned staging. */
class CudaFrameReader {
 public:
  bool Map(GstCudaContext* context, const FrameFormat& format, GstBuffer* buf,
           MappedFrame* out, std::string* why);

  /* Whether Map() reads @buf in place: CUDA memory of @context. */
  static bool InPlace(GstCudaContext* context, GstBuffer* buf);

  guint64 in_place() const { return in_place_; }  /* frames read in place */
  guint64 host() const { return host_; }  /* frames the engine copied */

 private:
  guint64 in_place_ = 0;
  guint64 host_ = 0;
};
#endif

}  // namespace ssim2gst
