/* gst-ssim2: the backend of ssim2compare, where and how a pair is scored:
 * the choice between the CUDA engine and the CPU path at start, the CUDA
 * context and stream, the scorer per frame size (with the CPU path's memory
 * check), and the switch to the CPU under backend=auto when the CUDA path
 * fails for the stream.
 * SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstssim2compare-private.h"
#include "gstssim2memory.h"
#include "gstssim2sync.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

#include <algorithm>
#include <memory>
#include <new>
#include <vector>

#define GST_CAT_DEFAULT gst_ssim2_compare_debug

using ssim2gst::PadState;

bool
gst_ssim2_compare_test_fault_is (const char *fault)
{
  return g_strcmp0 (g_getenv ("GST_SSIM2_COMPARE_TEST_FAULT"), fault) == 0;
}

#ifdef HAVE_GST_CUDA
/* Loads the CUDA driver library through GStreamer's CUDA library. A
 * pipeline need not contain any nvcodec element (software decoders,
 * videotestsrc, appsrc), so the element cannot rely on one having done it. */
static bool
cuda_library_init (std::string * why)
{
  if (!gst_cuda_load_library ()) {
    *why = "the CUDA driver library could not be loaded";
    return false;
  }
  return true;
}

static bool
cuda_ok (GstSsim2Compare * self, CUresult res, const char *what)
{
  if (res == CUDA_SUCCESS)
    return true;
  const char *name = nullptr;
  CuGetErrorName (res, &name);
  GST_WARNING_OBJECT (self, "%s failed: %s (%d)", what, name ? name : "?",
      (int) res);
  return false;
}

static void
gst_ssim2_compare_release_cuda (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;

  /* Its device work runs in the context, after the element's stream. */
  gst_ssim2_compare_content_release_device (self);
  if (priv->stream && priv->context) {
    if (gst_cuda_context_push (priv->context)) {
      cuda_ok (self, CuStreamDestroy (priv->stream), "cuStreamDestroy");
      gst_cuda_context_pop (nullptr);
    }
  }
  priv->stream = nullptr;
  gst_clear_object (&priv->context);
}
#endif

/* CUDA context sharing with the neighbouring elements. */

void
gst_ssim2_compare_backend_set_context (GstSsim2Compare * self,
    GstContext * context)
{
#ifdef HAVE_GST_CUDA
  GstSsim2ComparePrivate *priv = self->priv;
  gint cuda_device;

  GST_OBJECT_LOCK (self);
  cuda_device = priv->settings.cuda_device;
  bool want_cuda = priv->settings.backend != GST_SSIM2_COMPARE_BACKEND_CPU;
  GST_OBJECT_UNLOCK (self);

  if (want_cuda && gst_cuda_load_library ())
    gst_cuda_handle_set_context (GST_ELEMENT (self), context, cuda_device,
        &priv->context);
#else
  (void) self;
  (void) context;
#endif
}

gboolean
gst_ssim2_compare_handle_context_query (GstSsim2Compare * self,
    GstQuery * query)
{
#ifdef HAVE_GST_CUDA
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT && self->priv->context &&
      gst_cuda_handle_context_query (GST_ELEMENT (self), query,
          self->priv->context)) {
    /* A neighbour may now allocate in it: it stays the element's. */
    self->priv->context_in_use = true;
    return TRUE;
  }
#else
  (void) self;
  (void) query;
#endif
  return FALSE;
}

#ifdef HAVE_GST_CUDA
/* The element's stream, in its context. */
static bool
create_stream (GstSsim2Compare * self, std::string * why)
{
  GstSsim2ComparePrivate *priv = self->priv;
  if (!gst_cuda_context_push (priv->context)) {
    *why = "the CUDA context could not be made current";
    return false;
  }
  /* Non-blocking: a blocking stream waits for, and holds up, every
   * synchronous copy other elements make on the legacy default stream
   * (cudaupload of each frame, downloads), which serialised scoring with
   * the uploads of every branch of a ladder. GStreamer 1.22's CUDA elements
   * finish their work on a frame before pushing it, so no implicit ordering
   * is needed to read it; since 1.24 a frame may carry work pending on its
   * own stream, which CudaFrameReader::Map waits for. */
  const bool ok = cuda_ok (self, CuStreamCreate (&priv->stream,
          CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  if (!ok)
    *why = "cuStreamCreate failed";
  gst_cuda_context_pop (nullptr);
  return ok;
}

gboolean
gst_ssim2_compare_adopt_cuda_context (GstSsim2Compare * self,
    GstCudaContext * context)
{
  GstSsim2ComparePrivate *priv = self->priv;
  g_return_val_if_fail (!priv->context_in_use, FALSE);
  GST_INFO_OBJECT (self, "taking the CUDA context of the frames, %"
      GST_PTR_FORMAT ", for %" GST_PTR_FORMAT " (nothing was made in it yet)",
      context, priv->context);
  GstCudaContext *old = priv->context;
  CUstream old_stream = priv->stream;
  priv->context = (GstCudaContext *) gst_object_ref (context);
  priv->stream = nullptr;
  std::string why;
  if (!create_stream (self, &why)) {
    GST_WARNING_OBJECT (self, "cannot use the frames' CUDA context (%s): "
        "keeping the element's", why.c_str ());
    gst_object_unref (priv->context);
    priv->context = old;
    priv->stream = old_stream;
    return FALSE;
  }
  if (old_stream && gst_cuda_context_push (old)) {
    cuda_ok (self, CuStreamDestroy (old_stream), "cuStreamDestroy");
    gst_cuda_context_pop (nullptr);
  }
  gst_object_unref (old);
  return TRUE;
}
#endif

gboolean
gst_ssim2_compare_open_backend (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;

  priv->scorer.reset ();
#ifdef HAVE_GST_CUDA
  priv->context_in_use = false;
#endif
  priv->limits_warned.clear ();
  priv->use_cuda = false;
  if (priv->run.backend != GST_SSIM2_COMPARE_BACKEND_CPU) {
    std::string why;
#ifdef HAVE_GST_CUDA
    bool ok = cuda_library_init (&why) && ssim2::CudaAvailable (&why);
#else
    bool ok = ssim2::CudaAvailable (&why);
#endif
    if (ok && gst_ssim2_compare_test_fault_is ("no-cuda-device")) {
      ok = false;
      why = "simulated by GST_SSIM2_COMPARE_TEST_FAULT=no-cuda-device";
    }
#ifdef HAVE_GST_CUDA
    if (ok && !gst_cuda_ensure_element_context (GST_ELEMENT (self),
            priv->run.cuda_device, &priv->context)) {
      ok = false;
      why = "no GstCudaContext could be created for device " +
          std::to_string (priv->run.cuda_device);
    }
    if (ok)
      ok = create_stream (self, &why);
    if (!ok)
      gst_ssim2_compare_release_cuda (self);
#endif
    if (ok) {
      priv->use_cuda = true;
    } else if (priv->run.backend == GST_SSIM2_COMPARE_BACKEND_CUDA) {
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("backend=cuda but no usable CUDA device: %s.", why.c_str ()),
          ("Check the NVIDIA driver and the cuda-device-id property, or set "
              "backend=cpu (or auto) to score on the CPU."));
      return FALSE;
    } else {
      GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
          ("No usable CUDA device (%s): scoring on the CPU.", why.c_str ()),
          ("Set backend=cpu to silence this warning."));
    }
  }
  GST_INFO_OBJECT (self, "backend: %s", priv->use_cuda ? "cuda" : "cpu");
  return TRUE;
}

void
gst_ssim2_compare_close_backend (GstSsim2Compare * self)
{
  self->priv->scorer.reset ();
#ifdef HAVE_GST_CUDA
  gst_ssim2_compare_release_cuda (self);
#endif
}

/* Maps @buf of the pad described by @st for the current backend. */
static bool
map_frame (GstSsim2Compare * self, PadState & st, GstBuffer * buf,
    ssim2gst::MappedFrame * out, std::string * why)
{
#ifdef HAVE_GST_CUDA
  GstSsim2ComparePrivate *priv = self->priv;
  if (priv->use_cuda) {
    if (st.reader.host () == 0 && st.reader.in_place () == 0)
      GST_DEBUG_OBJECT (self, "%s: first frame for the CUDA engine",
          &st == &priv->ref ? "ref" : "a rendition");
    return st.reader.Map (priv->context, st.fmt, buf, out, why);
  }
#else
  (void) self;
#endif
  return ssim2gst::MapHostFrame (st.fmt, buf, out, why);
}

/* Returned by the scoring steps when the CUDA path failed and the element
 * switched to the CPU: the caller tries the same pair again. */
#define FLOW_RETRY_ON_CPU GST_FLOW_CUSTOM_SUCCESS

/* backend=auto keeps scoring when the CUDA path cannot work for this stream
 * (device, context, upload or engine failure): it says why once and
 * continues on the CPU. Returns false with backend=cuda, where the caller
 * posts the error. */
static bool
fall_back_to_cpu (GstSsim2Compare * self, const std::string & why)
{
  GstSsim2ComparePrivate *priv = self->priv;
  if (!priv->use_cuda || priv->run.backend != GST_SSIM2_COMPARE_BACKEND_AUTO)
    return false;
  GST_ELEMENT_WARNING (self, RESOURCE, FAILED,
      ("The CUDA path cannot score this stream (%s): scoring on the CPU.",
          why.c_str ()),
      ("Set backend=cpu to silence this warning, or backend=cuda to make it "
          "an error."));
  priv->scorer.reset ();
#ifdef HAVE_GST_CUDA
  gst_ssim2_compare_release_cuda (self);
#endif
  priv->use_cuda = false;
  return true;
}

/* Scorer failures that come from the input, not from the backend: another
 * backend would refuse them too. */
static bool
is_caller_error (ssim2::StatusCode code)
{
  switch (code) {
    case ssim2::StatusCode::kInvalidArgument:
    case ssim2::StatusCode::kImageTooSmall:
    case ssim2::StatusCode::kSizeMismatch:
    case ssim2::StatusCode::kUnsupportedFormat:
      return true;
    default:
      return false;
  }
}

/* The CPU scorer allocates as it first scores; under memory overcommit a
 * need far beyond the machine's memory only shows when the kernel kills the
 * process. Checks the need against what the process can get first, and
 * posts an error when it is too much. */
static bool
check_host_memory (GstSsim2Compare * self, int width, int height)
{
  const double per_pixel = ssim2gst::CpuScorerBytesPerPixel ();
  const guint64 need = (guint64) (per_pixel * width * height);
  const ssim2gst::HostMemory avail = ssim2gst::AvailableHostMemory ();
  GST_DEBUG_OBJECT (self, "CPU path for %dx%d: needs %" G_GUINT64_FORMAT
      " bytes (%.1f per pixel), %" G_GUINT64_FORMAT " available (%s)",
      width, height, need, per_pixel, avail.bytes,
      avail.limited_by.empty ()? "no limit found" : avail.limited_by.c_str ());
  if (need <= avail.bytes)
    return true;
  GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
      ("Not enough host memory to score %dx%d frames on the CPU: it needs "
          "about %" G_GUINT64_FORMAT " MiB, %" G_GUINT64_FORMAT " MiB are "
          "available (%s).", width, height, need >> 20, avail.bytes >> 20,
          avail.limited_by.c_str ()),
      ("The CPU path needs about %.0f bytes per pixel. Score smaller frames "
          "(videoscale), free memory or raise the limit, or use backend=cuda "
          "on a GPU.", per_pixel));
  return false;
}

/* Posts a warning each time the scorer has given up more speed under
 * memory-limit (Scorer::limits grows as it meets work it has no memory
 * for: the first batch, the first ref frame set while a batch is in
 * flight). */
static void
warn_of_memory_limit (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  if (!priv->scorer)
    return;
  const std::string limits = priv->scorer->limits ();
  if (limits.empty () || limits == priv->limits_warned)
    return;
  priv->limits_warned = limits;
  GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT,
      ("Scoring more slowly under memory-limit=%" G_GUINT64_FORMAT ": %s",
          priv->run.memory_limit, limits.c_str ()),
      ("The scores are the same. Raise memory-limit (0: no limit) for full "
          "speed."));
}

/* A failure for want of room under memory-limit: the user's to raise, not
 * the CUDA path's failure (no fall-back to the CPU). */
static bool
over_memory_limit (GstSsim2ComparePrivate * priv, const ssim2::Status & s)
{
  return priv->use_cuda && priv->run.memory_limit > 0 &&
      s.code () == ssim2::StatusCode::kOutOfMemory;
}

static void
post_memory_limit_error (GstSsim2Compare * self, const ssim2::Status & s)
{
  const GstVideoInfo & ri = self->priv->ref.fmt.info;
  GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
      ("memory-limit=%" G_GUINT64_FORMAT " is too small to score %dx%d "
          "frames: %s.", self->priv->run.memory_limit,
          GST_VIDEO_INFO_WIDTH (&ri), GST_VIDEO_INFO_HEIGHT (&ri),
          s.message ().c_str ()),
      ("Raise memory-limit (0: no limit), score smaller frames, or set "
          "backend=cpu."));
}

/* The CUDA context could not be made current: the CPU takes over under
 * backend=auto, else the element stops. */
static GstFlowReturn
context_not_current (GstSsim2Compare * self)
{
  if (fall_back_to_cpu (self, "the CUDA context could not be made current"))
    return FLOW_RETRY_ON_CPU;
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("Could not make the CUDA context current."), (NULL));
  return GST_FLOW_ERROR;
}

/* How a failed call of the scorer's (creating it, or scoring) ends, the
 * same for both: a failure of the CUDA engine itself hands over to the CPU
 * under backend=auto (@gpu_failure says what failed); one over
 * memory-limit, out of memory (@oom_when: when it ran out) or any other
 * (@post_other posts it) is the element's error. A caller's error or the
 * memory limit would fail on the CPU too, so they never fall back. */
template < typename PostOther > static GstFlowReturn
scorer_failed (GstSsim2Compare * self, const ssim2::Status & s,
    const gchar * gpu_failure, const std::string & oom_when,
    PostOther post_other)
{
  GstSsim2ComparePrivate *priv = self->priv;
  const bool over_limit = over_memory_limit (priv, s);
  if (priv->use_cuda && !is_caller_error (s.code ()) && !over_limit &&
      fall_back_to_cpu (self, std::string (gpu_failure) + ": " + s.message ()))
    return FLOW_RETRY_ON_CPU;
  if (over_limit) {
    post_memory_limit_error (self, s);
  } else if (s.code () == ssim2::StatusCode::kOutOfMemory) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of %s memory %s: %s.", priv->use_cuda ? "GPU" : "host",
            oom_when.c_str (), s.message ().c_str ()),
        ("Free memory (fewer pipelines on this GPU), score smaller frames, "
            "or set backend=cpu."));
  } else {
    post_other ();
  }
  return GST_FLOW_ERROR;
}

/* Makes sure the scorer matches the current size. */
static GstFlowReturn
ensure_scorer (GstSsim2Compare * self, int width, int height)
{
  GstSsim2ComparePrivate *priv = self->priv;
  if (priv->scorer && priv->scorer->width () == width &&
      priv->scorer->height () == height)
    return GST_FLOW_OK;

  priv->scorer.reset ();
  ssim2::ScorerOptions opts;
  opts.backend = priv->use_cuda ? ssim2::Backend::kCuda : ssim2::Backend::kCpu;
  opts.cpu_threads = (int) priv->run.threads;
  opts.sequential_sums = priv->run.sequential_sums;
#ifdef HAVE_GST_CUDA
  if (priv->use_cuda) {
    guint cuda_device = 0;
    g_object_get (priv->context, "cuda-device-id", &cuda_device, NULL);
    opts.cuda_device = (int) cuda_device;
    opts.cuda_context = gst_cuda_context_get_handle (priv->context);
    opts.cuda_stream = priv->stream;
    priv->context_in_use = true;
    opts.memory_limit = priv->run.memory_limit;
    if (!gst_cuda_context_push (priv->context))
      return context_not_current (self);
  }
#else
  opts.cuda_device = priv->run.cuda_device;
#endif
  if (!priv->use_cuda && !check_host_memory (self, width, height))
    return GST_FLOW_ERROR;
  std::unique_ptr < ssim2::Scorer > scorer;
  ssim2::Status s;
  if (gst_ssim2_compare_test_fault_is ("oom"))
    s = ssim2::Status (ssim2::StatusCode::kOutOfMemory,
        "simulated by GST_SSIM2_COMPARE_TEST_FAULT=oom");
  else if (priv->use_cuda && gst_ssim2_compare_test_fault_is ("cuda-engine"))
    s = ssim2::Status (ssim2::StatusCode::kCudaError,
        "simulated by GST_SSIM2_COMPARE_TEST_FAULT=cuda-engine");
  else
    s = ssim2::Scorer::Create (width, height, opts, &scorer);
#ifdef HAVE_GST_CUDA
  if (priv->use_cuda)
    gst_cuda_context_pop (nullptr);
#endif
  if (!s.ok ()) {
    return scorer_failed (self, s, "the CUDA engine could not be created",
        "for " + std::to_string (width) + "x" + std::to_string (height) +
        " frames", [&]() {
          GST_ELEMENT_ERROR (self, LIBRARY, INIT,
              ("Could not set up the %s scorer for %dx%d frames: %s (%s).",
                  priv->use_cuda ? "CUDA" : "CPU", width, height,
                  s.message ().c_str (), ssim2::StatusCodeName (s.code ())),
              ("Set backend=cpu to use the CPU path."));
        });
  }
  GST_INFO_OBJECT (self, "scorer for %dx%d: %s, %" G_GSIZE_FORMAT " bytes",
      width, height, scorer->description ().c_str (), scorer->memory_bytes ());
  priv->scorer = std::move (scorer);
  priv->scorer_ref = GST_CLOCK_TIME_NONE;
  priv->scorer_serial++;
  warn_of_memory_limit (self);
  return GST_FLOW_OK;
}

/* @call's status, or kOutOfMemory when a host allocation of the element's
 * (a vector of results) throws. */
template < typename Call > static ssim2::Status
without_exceptions (Call call)
{
  try {
    return call ();
  } catch (const std::bad_alloc &) {
    return ssim2::Status (ssim2::StatusCode::kOutOfMemory,
        "a host allocation failed");
  }
}

/* Runs @call with the element's CUDA context current when scoring on CUDA;
 * false, without running it, when the context cannot be made current. */
template < typename Call > static bool
with_cuda_context (G_GNUC_UNUSED GstSsim2ComparePrivate * priv, Call call)
{
#ifdef HAVE_GST_CUDA
  if (priv->use_cuda && !gst_cuda_context_push (priv->context))
    return false;
#endif
  call ();
#ifdef HAVE_GST_CUDA
  if (priv->use_cuda)
    gst_cuda_context_pop (nullptr);
#endif
  return true;
}

/* Caches @ref as the scorer's reference (ref frame @ref_seq) unless it is
 * null (the scorer holds it already), then runs @score. Nothing throws: a
 * failed host allocation (the CPU scorer allocates its planes as it first
 * scores) is kOutOfMemory. */
template < typename Score > static ssim2::Status
score_against (GstSsim2ComparePrivate * priv, const ssim2::ImageView * ref,
    guint64 ref_seq, Score score)
{
  return without_exceptions ([&]() {
        if (ref) {
          priv->scorer_ref = GST_CLOCK_TIME_NONE;
          const ssim2::Status s = priv->scorer->SetReference (*ref);
          if (!s.ok ())
            return s;
          priv->scorer_ref = ref_seq;
        }
        return score ();
      });
}

/* One attempt at scoring the pair on the current backend. */
static GstFlowReturn
try_score_pair (GstSsim2Compare * self, GstBuffer * ref, guint64 ref_seq,
    ssim2gst::Rendition & rendition, GstBuffer * dist, double *score)
{
  GstSsim2ComparePrivate *priv = self->priv;
  const GstVideoInfo & ri = priv->ref.fmt.info;

  GstFlowReturn ret = ensure_scorer (self, GST_VIDEO_INFO_WIDTH (&ri),
      GST_VIDEO_INFO_HEIGHT (&ri));
  if (ret != GST_FLOW_OK)
    return ret;

  ssim2::Result result;
  ssim2::Status s;
  std::string read_failure;
  bool context_failed = false;
  GstBuffer *unread = nullptr;  /* the frame that could not be read */
  {
    /* The frames are unmapped (and uploads released) at the end of this
     * block, before any switch to the CPU releases the CUDA context. */
    ssim2gst::MappedFrame rf, df;
    /* The reference is read only when the scorer does not hold it yet. */
    const bool set_reference = priv->scorer_ref != ref_seq;
    if (set_reference && !map_frame (self, priv->ref, ref, &rf,
            &read_failure))
      unread = ref;
    else if (!map_frame (self, rendition.st, dist, &df, &read_failure))
      unread = dist;
    if (unread) {
      if (read_failure.empty ())
        read_failure = "the frame could not be read";
    }
    else if (!with_cuda_context (priv, [&]() {
              s = score_against (priv, set_reference ? &rf.view () : nullptr,
                  ref_seq, [&]() {
                    return priv->scorer->ComputeWithReference (df.view (),
                        &result);
                  });
            })) {
      context_failed = true;
    }
  }
  if (!read_failure.empty ()) {
    if (fall_back_to_cpu (self, read_failure))
      return FLOW_RETRY_ON_CPU;
    /* A bad buffer (shorter than its caps say, say) is that pad's failure:
     * a bad ref frame stops the element, a bad rendition frame fails that
     * rendition while the others go on. */
    const bool is_ref = unread == ref;
    const gchar *pad = is_ref ? "ref" : rendition.name.c_str ();
    g_autofree gchar *text = g_strdup_printf ("Could not read the frame at %"
        GST_TIME_FORMAT " of the %s pad: %s.",
        GST_TIME_ARGS (GST_BUFFER_PTS (unread)), pad, read_failure.c_str ());
    const gchar *debug = "Every buffer must hold the frame its caps "
        "describe: check the element before the pad.";
    if (!is_ref && gst_ssim2_compare_rendition_failed (self, rendition, text,
            debug))
      return FLOW_PAIR_UNSCORED;
    if (is_ref)
      GST_ELEMENT_ERROR (self, RESOURCE, READ, ("%s", text), ("%s", debug));
    return GST_FLOW_ERROR;
  }
  if (context_failed)
    return context_not_current (self);
  if (!s.ok ()) {
    return scorer_failed (self, s, "scoring on the GPU failed",
        "while scoring", [&]() {
          if (s.code () == ssim2::StatusCode::kUnsupportedFormat)
            GST_ELEMENT_ERROR (self, STREAM, FORMAT,
                ("These formats cannot be compared: %s.",
                    s.message ().c_str ()),
                ("Insert videoconvert before the element to get RGBA or "
                    "I420."));
          else
            GST_ELEMENT_ERROR (self, STREAM, FAILED,
                ("Scoring failed: %s (%s).", s.message ().c_str (),
                    ssim2::StatusCodeName (s.code ())), (NULL));
        });
  }
  *score = result.score;
  return GST_FLOW_OK;
}

GstFlowReturn
gst_ssim2_compare_score_pair (GstSsim2Compare * self, GstBuffer * ref,
    guint64 ref_seq, ssim2gst::Rendition & rendition, GstBuffer * dist,
    double *score)
{
  /* At most two attempts: a CUDA failure under backend=auto switches to the
   * CPU for good. */
  GstFlowReturn ret;
  do {
    ret = try_score_pair (self, ref, ref_seq, rendition, dist, score);
  } while (ret == FLOW_RETRY_ON_CPU);
  return ret;
}

/* ------------------------------------------------------------------------ */
/* Scheduling of the pairs in flight */

namespace ssim2gst {

/* The pairs of one ref frame in a ScoringBatch, handed to the scorer in one
 * call (Scorer::SubmitWithReference) and collected later. Its frames stay
 * mapped until then: the scorer reads them (on the GPU) meanwhile. */
struct ScoringGroup {
  std::vector<size_t> members;  /* indexes into ScoringBatch::pairs */
  bool submitted = false;  /* false: its pairs are scored one by one */
  ssim2::Scorer::BatchHandle handle = 0;
  guint64 scorer_serial = 0;  /* of the scorer that holds the handle */
  std::unique_ptr<MappedFrame> ref_frame;  /* if it set the reference */
  std::vector<std::unique_ptr<MappedFrame>> frames;
};

/* The pairs taken in one aggregate pass, in the order they were taken, from
 * their submission to the scorer until they are pushed on. */
struct ScoringBatch {
  std::vector<PendingPair> pairs;
  std::vector<ScoringGroup> groups;
};

}  // namespace ssim2gst

using ssim2gst::PendingPair;
using ssim2gst::ScoringBatch;
using ssim2gst::ScoringGroup;

/* Passes whose pairs stay in flight (submitted, not yet collected) in a
 * non-live pipeline. Two, not one: on CUDA the scorer prepares each ref
 * frame on the engine that is not scoring the previous one (cuda_scorer.cpp),
 * so consecutive passes run side by side and end together; with one left in
 * flight the GPU would idle while this thread collects, pushes and steps,
 * with two it has the next pass's work queued meanwhile. */
static const size_t kPassesInFlight = 2;

/* Starts scoring the pairs of @g in one call of the scorer (after
 * SetReference when the scorer does not hold their ref frame yet) and keeps
 * their frames mapped in @g. Returns false, having posted nothing and
 * mapped nothing, when that did not work: they are then scored one by one,
 * which reports what failed. */
static bool
submit_group (GstSsim2Compare * self, std::vector < PendingPair > &pairs,
    ScoringGroup & g)
{
  GstSsim2ComparePrivate *priv = self->priv;
  g.submitted = false;
  if (g.members.empty ())
    return false;
  const GstVideoInfo & ri = priv->ref.fmt.info;
  if (ensure_scorer (self, GST_VIDEO_INFO_WIDTH (&ri),
          GST_VIDEO_INFO_HEIGHT (&ri)) != GST_FLOW_OK)
    return false;

  const PendingPair & first = pairs[g.members.front ()];
  const guint64 ref_seq = first.ref_seq;
  const bool set_reference = priv->scorer_ref != ref_seq;
  std::string why;
  auto release = [&g]() {
    g.ref_frame.reset ();
    g.frames.clear ();
    return false;
  };
  if (set_reference) {
    g.ref_frame = std::make_unique < ssim2gst::MappedFrame > ();
    if (!map_frame (self, priv->ref, first.ref.get (), g.ref_frame.get (), &why))
      return release ();
  }
  /* One mapping per rendition; each pad has a reader of its own. */
  std::vector < ssim2::ImageView > views;
  for (size_t i : g.members) {
    g.frames.push_back (std::make_unique < ssim2gst::MappedFrame > ());
    if (!map_frame (self, pairs[i].rendition->st, pairs[i].dist.get (),
            g.frames.back ().get (), &why))
      return release ();
    views.push_back (g.frames.back ()->view ());
  }
  ssim2::Status s;
  const gint64 start = g_get_monotonic_time ();
  if (!with_cuda_context (priv, [&]() {
            s = score_against (priv,
                set_reference ? &g.ref_frame->view () : nullptr, ref_seq,
                [&]() {
                  return priv->scorer->SubmitWithReference (views, &g.handle);
                });
          }))
    return release ();
  priv->timing.submit_us += g_get_monotonic_time () - start;
  warn_of_memory_limit (self);
  if (!s.ok ()) {
    GST_DEBUG_OBJECT (self, "submitting %" G_GSIZE_FORMAT " pairs of ref "
        "frame %" G_GUINT64_FORMAT " failed (%s); scoring them one by one",
        g.members.size (), ref_seq, s.message ().c_str ());
    return release ();
  }
  GST_LOG_OBJECT (self, "ref frame %" G_GUINT64_FORMAT ": %" G_GSIZE_FORMAT
      " pairs submitted together", ref_seq, g.members.size ());
  g.scorer_serial = priv->scorer_serial;
  g.submitted = true;
  return true;
}

/* Waits for the scores of a submitted @g and marks its pairs scored;
 * releases its frames. Returns false, having posted nothing, when the
 * scores could not be had (the pairs are then scored one by one). */
static bool
collect_group (GstSsim2Compare * self, std::vector < PendingPair > &pairs,
    ScoringGroup & g)
{
  GstSsim2ComparePrivate *priv = self->priv;
  if (!g.submitted)
    return false;
  g.submitted = false;
  ssim2::Status s (ssim2::StatusCode::kInternal,
      "the scorer that held the batch is gone");
  std::vector < ssim2::Result > results;
  if (priv->scorer && priv->scorer_serial == g.scorer_serial) {
    const gint64 start = g_get_monotonic_time ();
    if (!with_cuda_context (priv, [&]() {
              s = without_exceptions ([&]() {
                    return priv->scorer->CollectBatch (g.handle, &results);
                  });
            }))
      s = ssim2::Status (ssim2::StatusCode::kCudaError,
          "the CUDA context could not be made current");
    priv->timing.collect_us += g_get_monotonic_time () - start;
  }
  /* The scorer has read them. */
  g.ref_frame.reset ();
  g.frames.clear ();
  if (s.ok () && results.size () != g.members.size ())
    s = ssim2::Status (ssim2::StatusCode::kInternal, "wrong number of results");
  if (!s.ok ()) {
    GST_DEBUG_OBJECT (self, "collecting %" G_GSIZE_FORMAT " pairs failed "
        "(%s); scoring them one by one", g.members.size (),
        s.message ().c_str ());
    return false;
  }
  for (size_t k = 0; k < g.members.size (); ++k) {
    pairs[g.members[k]].score = results[k].score;
    pairs[g.members[k]].scored = true;
  }
  return true;
}

/* Test hook slow-scorer: every pass's scoring takes this much longer, so
 * that the tests can check what watches the element's progress with a
 * scorer that is slow for certain. */
static const gulong kSlowScorerDelayUs = 2 * G_USEC_PER_SEC;

void
gst_ssim2_compare_submit_pairs (GstSsim2Compare * self,
    std::vector < PendingPair > &&pairs)
{
  GstSsim2ComparePrivate *priv = self->priv;
  if (gst_ssim2_compare_test_fault_is ("slow-scorer"))
    g_usleep (kSlowScorerDelayUs);
  auto batch = std::make_shared < ScoringBatch > ();
  batch->pairs = std::move (pairs);
  for (size_t i = 0; i < batch->pairs.size (); ++i) {
    const PendingPair & p = batch->pairs[i];
    auto g = std::find_if (batch->groups.begin (), batch->groups.end (),
        [&](const ScoringGroup & group) {
          return batch->pairs[group.members.front ()].ref_seq == p.ref_seq;
        });
    if (g == batch->groups.end ()) {
      batch->groups.emplace_back ();
      g = batch->groups.end () - 1;
    }
    g->members.push_back (i);
  }
  for (ScoringGroup & g:batch->groups)
    submit_group (self, batch->pairs, g);
  priv->scoring.push_back (std::move (batch));
}

/* Waits for every group of @b the scorer took; false when one of them
 * could not be collected (its pairs are then scored one by one). */
static bool
collect_batch (GstSsim2Compare * self, ScoringBatch & b)
{
  bool all = true;
  for (ScoringGroup & g:b.groups)
    all = collect_group (self, b.pairs, g) && all;
  return all;
}

void
gst_ssim2_compare_drop_pairs (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  for (auto & b:priv->scoring)
    collect_batch (self, *b);
  priv->scoring.clear ();
}

GstFlowReturn
gst_ssim2_compare_complete_pairs (GstSsim2Compare * self,
    bool leave_in_flight, GstSsim2ComparePushPair push)
{
  GstSsim2ComparePrivate *priv = self->priv;
  auto & scoring = priv->scoring;
  const size_t keep = leave_in_flight ? kPassesInFlight : 0;
  size_t n = scoring.size () > keep ? scoring.size () - keep : 0;
  bool all_scored = true;
  for (size_t i = 0; i < n; ++i)
    all_scored = collect_batch (self, *scoring[i]) && all_scored;
  if (!all_scored) {
    /* Scoring one by one may switch the backend: nothing stays in flight. */
    for (size_t i = n; i < scoring.size (); ++i)
      collect_batch (self, *scoring[i]);
    n = scoring.size ();
  }
  GstFlowReturn ret = GST_FLOW_OK;
  for (; n > 0 && ret == GST_FLOW_OK; --n) {
    std::shared_ptr < ScoringBatch > b = std::move (scoring.front ());
    scoring.pop_front ();
    for (PendingPair & p:b->pairs) {
      if (p.scored)
        continue;
      ret = gst_ssim2_compare_score_pair (self, p.ref.get (), p.ref_seq,
          *p.rendition, p.dist.get (), &p.score);
      if (ret == FLOW_PAIR_UNSCORED) {
        ret = GST_FLOW_OK;      /* pushed unscored */
        continue;
      }
      if (ret != GST_FLOW_OK)
        break;
      p.scored = true;
    }
    for (PendingPair & p:b->pairs) {
      if (ret != GST_FLOW_OK)
        break;
      ret = push (self, p);
    }
  }
  if (ret != GST_FLOW_OK)
    gst_ssim2_compare_drop_pairs (self);        /* the pipeline stops */
  return ret;
}

size_t
gst_ssim2_compare_batches_in_flight (GstSsim2Compare * self)
{
  return self->priv->scoring.size ();
}

/* The properties of where a pair is scored that the backend owns (the
 * element's set/get_property store them in its settings). */
void
gst_ssim2_compare_install_backend_properties (GObjectClass * object_class,
    guint memory_limit_id, guint sequential_sums_id)
{
  /**
   * GstSsim2Compare:memory-limit:
   *
   * backend=cuda: the most device memory the scorer may hold, in bytes (0:
   * no limit). Below what full speed needs the element scores more slowly
   * instead (a batch of renditions on fewer streams, no second engine to
   * prepare the next ref frame beside the batch in flight, at the tightest
   * the small scales blurred before the full-size one) and posts a warning
   * saying what it gave up; scores are unchanged. A limit too small for one
   * pass is an error. The CPU path ignores it.
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, memory_limit_id,
      g_param_spec_uint64 ("memory-limit", "Memory limit",
          "backend=cuda: most device memory of the scorer in bytes (0: no "
          "limit); below full speed's need it scores more slowly and warns",
          0, G_MAXUINT64, DEFAULT_MEMORY_LIMIT,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:sequential-sums:
   *
   * backend=cuda: sum the error maps one pixel after the other, as the CPU
   * path and the reference do, so that every sub-score in the `ssim2`
   * messages and the meta is the CPU's bit for bit (not only the score's
   * printed digits). Off (the default), the GPU adds per-block sums in a
   * fixed order: the same on every GPU and run, sub-scores within about
   * 1e-13 of the CPU's. On, each frame takes about twice the GPU time and
   * 55 more bytes of device memory per pixel and rendition stream (docs/
   * PERFORMANCE.md, "Sequential sums"). The CPU path always sums so.
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, sequential_sums_id,
      g_param_spec_boolean ("sequential-sums", "Sequential sums",
          "backend=cuda: add the error maps in the CPU's order, so that every "
          "sub-score equals the CPU path's bit for bit (slower, more memory)",
          DEFAULT_SEQUENTIAL_SUMS,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));
}
