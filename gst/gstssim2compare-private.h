/* gst-ssim2: what the files of the ssim2compare element share: its private
 * state, and the backend (gstssim2backend.cpp) the element calls.
 * SPDX-License-Identifier: BSD-3-Clause */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstaggregator.h>

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/cuda-gst.h>
#endif

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gstssim2compare.h"
#include "gstssim2frame.h"
#include "ssim2/score_log.h"
#include "ssim2/ssim2.h"

GST_DEBUG_CATEGORY_EXTERN (gst_ssim2_compare_debug);

#define DEFAULT_ALIGNMENT GST_SSIM2_COMPARE_ALIGNMENT_RUNNING_TIME
#define DEFAULT_BACKEND GST_SSIM2_COMPARE_BACKEND_AUTO
#define DEFAULT_CUDA_DEVICE_ID -1
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_STATS_FORMAT GST_SSIM2_COMPARE_STATS_FORMAT_AUTO
#define DEFAULT_THRESHOLD (-G_MAXDOUBLE)
#define DEFAULT_FRAME_STEP 1
#define DEFAULT_THREADS 0
#define MAX_THREADS 1024

/* *INDENT-OFF* */
namespace ssim2gst {

/* The state of one sink pad. */
struct PadState {
  ssim2gst::FrameFormat fmt;
  bool have_info = false;
  guint64 frames = 0;  /* buffers taken from the pad (scored or not) */
  bool ended = false;  /* EOS seen with no buffer left */
  /* Caps of the buffers now at the head of the pad's queue (set when the
   * caps event is processed in stream order, unlike the pad's current caps,
   * which change as soon as the event arrives). */
  GstCaps *caps = nullptr;
#ifdef HAVE_GST_CUDA
  ssim2gst::CudaFrameReader reader;  /* CUDA input, and uploads of the rest */
#endif

  /* Back to the state before any caps. */
  void Reset ()
  {
    gst_clear_caps (&caps);
    fmt = ssim2gst::FrameFormat ();
    have_info = false;
    frames = 0;
    ended = false;
#ifdef HAVE_GST_CUDA
    reader.ReleasePool ();
#endif
  }
};

/* The element's properties. */
struct Settings {
  GstSsim2CompareAlignment alignment = DEFAULT_ALIGNMENT;
  GstSsim2CompareBackend backend = DEFAULT_BACKEND;
  gint device_id = DEFAULT_CUDA_DEVICE_ID;
  bool post_messages = DEFAULT_POST_MESSAGES;
  std::string stats_file;
  GstSsim2CompareStatsFormat stats_format = DEFAULT_STATS_FORMAT;
  gdouble threshold = DEFAULT_THRESHOLD;
  guint frame_step = DEFAULT_FRAME_STEP;
  guint threads = DEFAULT_THREADS;
};

}  // namespace ssim2gst

struct GstSsim2ComparePrivate {
  ssim2gst::Settings settings;  /* under the object lock */

  /* Streaming state (aggregator thread, start/stop). */
  ssim2gst::Settings run;  /* snapshot taken in start() */
  ssim2gst::PadState ref, dist;
  std::unique_ptr<ssim2::Scorer> scorer;
  bool use_cuda = false;
  guint64 pair_index = 0;
  guint64 unmatched_ref = 0;
  guint64 unmatched_dist = 0;
  std::vector<double> scores;
  bool finished = false;
  bool ref_ended_first = false;
  guint64 passed_after_ref_eos = 0;
  guint64 seeks = 0;  /* flushing seeks since start */
  bool seek_positions_checked = false;
  /* End of the last buffer that arrived on each pad (set by clip in the
   * pads' streaming threads), in the alignment's time domain. */
  std::atomic<guint64> ref_end { GST_CLOCK_TIME_NONE };
  std::atomic<guint64> dist_end { GST_CLOCK_TIME_NONE };

  std::unique_ptr<ssim2::ScoreLog> stats;  /* the stats-file; null: none */

#ifdef HAVE_GST_CUDA
  GstCudaContext *context = nullptr;
  CUstream stream = nullptr;
#endif
};
/* *INDENT-ON* */

struct _GstSsim2Compare
{
  GstAggregator parent;

  GstAggregatorPad *ref_pad;
  GstAggregatorPad *dist_pad;
  GstSsim2ComparePrivate *priv;
};

/* Backend: where and how a pair is scored (gstssim2backend.cpp). */

/* Chooses the backend at start: CUDA (context, stream) when the backend
 * property allows and a device works, else the CPU (with a warning under
 * backend=auto; an error, and FALSE, under backend=cuda). */
gboolean gst_ssim2_compare_open_backend (GstSsim2Compare * self);

/* Releases the scorer and the CUDA resources. */
void gst_ssim2_compare_close_backend (GstSsim2Compare * self);

/* Scores @ref against @dist (the heads of the pads' queues) on the current
 * backend; under backend=auto a CUDA failure switches to the CPU for good.
 * Posts an error and returns a flow error when the pair cannot be scored. */
GstFlowReturn gst_ssim2_compare_score_pair (GstSsim2Compare * self,
    GstBuffer * ref, GstBuffer * dist, double *score);
