/* gst-ssim2: the ssim2compare element.
 * SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * SECTION:element-ssim2compare
 * @title: ssim2compare
 * @short_description: SSIMULACRA 2.1 score of every frame of a video against a reference
 *
 * ssim2compare scores the frames arriving on its `dist` pad against the frames
 * arriving on its `ref` pad with SSIMULACRA 2.1 (Cloudinary's perceptual
 * metric, cloudinary/ssimulacra2 v2.1, weights of 2023-04-20). The scores
 * match the reference implementation to its printed digits when the frames
 * are the same RGB pixels (see "Colour conversion").
 *
 * The `dist` buffers leave on the `src` pad unchanged (same caps, same
 * memory), each scored one carrying a #GstSsim2Meta (see gstssim2meta.h) with
 * its score and pair index. `ref` buffers are consumed.
 *
 * ## Renditions
 *
 * Further renditions of the reference (an ABR ladder) go to request pads
 * `dist_%u`; the always `dist` pad is the first rendition. Each rendition is
 * paired with `ref` on its own (rules below) and has its own measurement and
 * summary; each ref frame is prepared once and every rendition frame paired
 * with it is scored against that preparation (on CUDA concurrently). In a
 * non-live pipeline scoring is pipelined: the element submits the next ref
 * frames' pairs before it pushes the frames of the earlier ones, so two
 * frames per pad are in flight (never in a live pipeline). `src` carries the `dist`
 * buffers only; those of the request pads are consumed. Every message and
 * warning about a rendition has a `pad` field. A rendition must have the
 * reference's size (upscale it first: the scaler is part of what is
 * measured); one that cannot be scored is a warning naming its pad while
 * another rendition still measures, and an error when none is left.
 *
 * ## Pairing
 *
 * With #GstSsim2Compare:alignment=running-time (the default) a `dist` frame is
 * paired with the `ref` frame whose running time is within half a frame
 * duration of its own (the shorter of the two buffers' durations, or of the
 * caps' frame rates; 1 ms when neither is known). Both pads may start at
 * different times, run from live sources, and drop frames:
 *
 * - a `ref` frame older than the current `dist` frame that matched nothing is
 *   dropped (counted as an unmatched reference frame);
 * - a `dist` frame with no `ref` frame at its time is pushed downstream
 *   unscored, without meta and without message (counted as an unmatched
 *   distorted frame);
 * - buffers without a timestamp are paired in arrival order.
 *
 * With alignment=sequence the Nth buffer of each pad is paired, whatever the
 * timestamps say. With alignment=stream-time frames are paired as with
 * running-time, but by their stream time (position in each stream): use it
 * for files compared by position, where a seek may restart the two streams
 * at different positions.
 *
 * Only frames shown inside their segment are paired: buffers outside it,
 * cut by it to less than half a frame, or of zero duration are dropped as
 * they arrive. A flushing seek ends the measurement (its summary is posted)
 * and starts a new one; the stats file then holds the new one.
 *
 * Live sources: the element is a #GstAggregator and reports the upstream
 * latency of both branches (the larger one) plus its own `latency` property;
 * when the deadline passes with a frame on only one pad, that frame is treated
 * as unmatched (see above). Encoders that announce their latency late (x264enc
 * without tune=zerolatency) make the first frames miss their deadline: set
 * the `latency` property to cover the encoder's delay.
 *
 * A GAP event on `dist` leaves as a GAP event and counts as unmatched.
 *
 * When one pad ends before the other the element posts a warning that gives
 * both frame counts (streams of the same length at different frame rates
 * end together: no warning). If `ref` ends first the remaining `dist` frames are
 * pushed unscored until `dist` ends; if `dist` ends first the element ends the
 * stream at once (the remaining `ref` frames are not read). Either way the
 * summary is posted and EOS is sent.
 *
 * ## Caps
 *
 * `video/x-raw` and `video/x-raw(memory:CUDAMemory)`, progressive, at least
 * 8x8, in RGB, RGBA, BGRA, RGBx, BGRx, I420, NV12, Y444, P010_10LE or
 * I420_10LE. The two pads may use different formats but must have the same
 * width and height. Interlaced caps are refused.
 *
 * ## Colour conversion
 *
 * RGB formats are read as sRGB, as the reference reads PNG files (alpha is
 * blended the way the reference does). Y'CbCr formats are converted with the
 * matrix (BT.601, BT.709 or BT.2020) and range (limited or full) of the caps'
 * colorimetry:
 *
 * - chroma is taken from the nearest sample: luma pixel (x, y) uses chroma
 *   sample (x/2, y/2) in 4:2:0 formats, no interpolation;
 * - the plain matrix equations from Kr and Kb, in double precision;
 * - 8-bit input: each R', G', B' is rounded to 8 bits (clamp(floor(255 v +
 *   0.5), 0, 255)), exactly the frames a point-sampling converter
 *   (zscale filter=point) would export to PNG, so the scores are those of the
 *   reference run on such PNG frames;
 * - 10-bit input keeps its precision: R', G', B' stay float, clamped to [0, 1];
 * - the transfer curve is taken to be sRGB in every case.
 *
 * Other matrices (FCC, SMPTE 240M, "RGB" Y'CbCr) are refused with an error:
 * convert with videoconvert first.
 *
 * ## CUDA
 *
 * With backend=auto or cuda the element shares a #GstCudaContext with its
 * neighbours (context query and set_context, as the nvcodec elements do).
 * `video/x-raw(memory:CUDAMemory)` input of that context is read in place
 * (zero copy); system memory (and CUDA memory of another context) is copied
 * to the device by the scorer itself. No nvcodec element is needed in the
 * pipeline. With backend=auto, when the CUDA path cannot score the
 * stream (no device; context, upload or engine failure) the element
 * posts a warning that says why and scores on the CPU; backend=cuda posts an
 * error instead.
 *
 * ## Memory
 *
 * The CPU path needs about 76 bytes per pixel. Before it scores frames of a
 * new size the element checks that need against what the process can get
 * (MemAvailable, RLIMIT_AS, memory cgroup) and posts a
 * GST_RESOURCE_ERROR_NO_SPACE_LEFT error when it is too much.
 *
 * ## Messages
 *
 * For each scored frame (when #GstSsim2Compare:post-messages is TRUE) an
 * element message with a structure named `ssim2`:
 *
 * - `score` (G_TYPE_DOUBLE): the SSIMULACRA 2.1 score (100: identical;
 *   90 very high quality, 70 high, 50 medium, 30 low; can be negative)
 * - `index` (G_TYPE_UINT64): the pair index, from 0
 * - `timestamp` (G_TYPE_UINT64): PTS of the `dist` buffer
 * - `stream-time` (G_TYPE_UINT64): its stream time
 * - `running-time` (G_TYPE_UINT64): its running time
 * - `duration` (G_TYPE_UINT64): its duration (GST_CLOCK_TIME_NONE if unknown)
 *
 * At the end of the stream (and at a flushing seek, for the measurement it
 * ends), an element message `ssim2-summary`: `frames`
 * (G_TYPE_UINT64, number of scored frames), `mean`, `stddev` (population),
 * `min`, `p1`, `p5`, `p50`, `p95`, `p99` (percentiles interpolated linearly
 * between ranks, as numpy.percentile does), `max` and `harmonic-mean` (of
 * max(score, 0)), all G_TYPE_DOUBLE (NaN when no frame was scored), plus
 * `unmatched-ref` and `unmatched-dist` (G_TYPE_UINT64) and `ended-first`
 * (G_TYPE_STRING: "ref" or "dist" when that pad ended while the other still
 * had frames, else "") and `backend` (G_TYPE_STRING: the scorer that ran,
 * e.g. "CPU (avx2, 4 threads)" or "CUDA, NVIDIA H200"; "" when nothing was scored).
 *
 * #GstSsim2Compare:stats-file writes the same rows and summary to a file, as
 * CSV, JSON or libvmaf's JSON layout (#GstSsim2Compare:stats-format); the
 * schema is in docs/LOGS.md. A file that cannot be created is an error; a
 * write that fails later posts a RESOURCE/WRITE warning and scoring goes on.
 *
 * With #GstSsim2Compare:interval set, an `ssim2-interval` message per
 * rendition and window of that much running time: `pad`, `frames`,
 * `skipped`, `mean`, `min`, `p5`, `max`, `start` and `end`. Pairs later than
 * #GstSsim2Compare:max-lateness behind the clock are not scored (their
 * frames still leave on `src`) and count as `skipped` in the summary and the
 * windows; by default only in live pipelines, with 1 s.
 *
 * When a frame scores below #GstSsim2Compare:threshold a warning message is
 * posted; its details structure (gst_message_parse_warning_details()) holds
 * `score`, `index` and `running-time`. The warning about one pad ending
 * first carries `ended-first` ("ref" or "dist"), `ref-frames` and
 * `dist-frames` instead. Both are STREAM/FAILED warnings.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 ssim2compare name=c backend=cpu stats-file=scores.csv ! fakesink \
 *     filesrc location=reference.mkv ! decodebin ! c.ref \
 *     filesrc location=distorted.mkv ! decodebin ! c.dist
 * ]| Scores two files frame by frame, writes the scores to scores.csv and posts
 * one `ssim2` message per frame (print them with `gst-launch-1.0 -m`).
 * |[
 * gst-launch-1.0 ssim2compare name=c stats-file=vmaf.json stats-format=vmaf-json ! fakesink \
 *     filesrc location=reference.mkv ! decodebin ! c.ref \
 *     filesrc location=distorted.mkv ! decodebin ! c.dist
 * ]| The same, with the scores in the JSON layout of libvmaf's log.
 * |[
 * gst-launch-1.0 -m videotestsrc is-live=true pattern=ball ! video/x-raw,format=I420,width=1280,height=720,framerate=30/1 ! \
 *     tee name=t ! queue ! c.ref \
 *     t. ! queue ! x264enc tune=zerolatency bitrate=1000 ! avdec_h264 ! c.dist \
 *     ssim2compare name=c threshold=50 ! videoconvert ! autovideosink
 * ]| A live encode loop: each frame is encoded and decoded again and the
 * decoded frame is scored against the source; frames under 50 raise a warning.
 * |[
 * gst-launch-1.0 ssim2compare name=c backend=cuda ! fakesink \
 *     filesrc location=reference.mp4 ! qtdemux ! h264parse ! nvh264dec ! 'video/x-raw(memory:CUDAMemory)' ! c.ref \
 *     filesrc location=distorted.mp4 ! qtdemux ! h264parse ! nvh264dec ! 'video/x-raw(memory:CUDAMemory)' ! c.dist
 * ]| Zero copy: the decoders' CUDA frames are scored on the GPU where they are.
 * |[
 * gst-launch-1.0 -m ssim2compare name=c backend=cpu ! fakesink \
 *     filesrc location=source.mp4 ! decodebin ! c.ref \
 *     filesrc location=ladder_1080p.mp4 ! decodebin ! c.dist \
 *     filesrc location=ladder_720p.mp4 ! decodebin ! videoscale method=bilinear ! video/x-raw,width=1920,height=1080 ! c.dist_1
 * ]| Two renditions of a 1080p source, the 720p one upscaled to the source's
 * size, each with its own messages and summary.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstssim2compare.h"
#include "gstssim2compare-private.h"
#include "gstssim2meta-private.h"
#include "gstssim2pairing.h"

#include <gst/video/video.h>

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ssim2/score_log.h"
#include "ssim2/ssim2.h"
#include "ssim2/stats.h"

GST_DEBUG_CATEGORY (gst_ssim2_compare_debug);
#define GST_CAT_DEFAULT gst_ssim2_compare_debug

using ssim2gst::PadState;
using ssim2gst::RefFrame;
using ssim2gst::Rendition;
using ssim2gst::Settings;
using ssim2gst::PendingPair;
using RenditionPtr = std::shared_ptr < Rendition >;

#define SSIM2_FORMATS \
  "{ RGB, RGBA, BGRA, RGBx, BGRx, I420, NV12, Y444, P010_10LE, I420_10LE }"
#define SSIM2_CAPS \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory", SSIM2_FORMATS) "; " \
  GST_VIDEO_CAPS_MAKE (SSIM2_FORMATS)

static GstStaticPadTemplate ref_template = GST_STATIC_PAD_TEMPLATE ("ref",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (SSIM2_CAPS));
static GstStaticPadTemplate dist_template = GST_STATIC_PAD_TEMPLATE ("dist",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (SSIM2_CAPS));
static GstStaticPadTemplate rendition_template =
GST_STATIC_PAD_TEMPLATE ("dist_%u", GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS (SSIM2_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (SSIM2_CAPS));

enum
{
  PROP_0,
  PROP_ALIGNMENT,
  PROP_BACKEND,
  PROP_CUDA_DEVICE_ID,
  PROP_POST_MESSAGES,
  PROP_STATS_FILE,
  PROP_STATS_FORMAT,
  PROP_THRESHOLD,
  PROP_FRAME_STEP,
  PROP_THREADS,
  PROP_INTERVAL,
  PROP_MAX_LATENESS,
};

#define GST_TYPE_SSIM2_COMPARE_ALIGNMENT (gst_ssim2_compare_alignment_get_type ())
static GType
gst_ssim2_compare_alignment_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_SSIM2_COMPARE_ALIGNMENT_RUNNING_TIME,
        "Pair frames by running time", "running-time"},
    {GST_SSIM2_COMPARE_ALIGNMENT_SEQUENCE,
        "Pair the Nth buffer of each pad, ignoring timestamps", "sequence"},
    {GST_SSIM2_COMPARE_ALIGNMENT_STREAM_TIME,
          "Pair frames by their position in each stream (stream time)",
        "stream-time"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSsim2CompareAlignment", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_SSIM2_COMPARE_BACKEND (gst_ssim2_compare_backend_get_type ())
static GType
gst_ssim2_compare_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_SSIM2_COMPARE_BACKEND_AUTO,
        "CUDA when a device works, else the CPU (with a warning)", "auto"},
    {GST_SSIM2_COMPARE_BACKEND_CUDA,
        "CUDA only (error when there is no usable device)", "cuda"},
    {GST_SSIM2_COMPARE_BACKEND_CPU, "CPU only", "cpu"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSsim2CompareBackend", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_SSIM2_COMPARE_STATS_FORMAT \
  (gst_ssim2_compare_stats_format_get_type ())
static GType
gst_ssim2_compare_stats_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_SSIM2_COMPARE_STATS_FORMAT_AUTO,
        "JSON if the file name ends in .json, else CSV", "auto"},
    {GST_SSIM2_COMPARE_STATS_FORMAT_CSV, "CSV", "csv"},
    {GST_SSIM2_COMPARE_STATS_FORMAT_JSON, "JSON", "json"},
    {GST_SSIM2_COMPARE_STATS_FORMAT_VMAF_JSON,
        "JSON in the layout of libvmaf's log", "vmaf-json"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSsim2CompareStatsFormat", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_ssim2_compare_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstSsim2Compare, gst_ssim2_compare,
    GST_TYPE_AGGREGATOR,
    GST_DEBUG_CATEGORY_INIT (gst_ssim2_compare_debug, "ssim2compare", 0,
        "SSIMULACRA 2.1 comparison"));
GST_ELEMENT_REGISTER_DEFINE (ssim2compare, "ssim2compare", GST_RANK_NONE,
    GST_TYPE_SSIM2_COMPARE);

static void gst_ssim2_compare_finalize (GObject * object);
static void gst_ssim2_compare_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_ssim2_compare_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_ssim2_compare_set_context (GstElement * element,
    GstContext * context);
static gboolean gst_ssim2_compare_start (GstAggregator * agg);
static gboolean gst_ssim2_compare_stop (GstAggregator * agg);
static GstFlowReturn gst_ssim2_compare_flush (GstAggregator * agg);
static gboolean gst_ssim2_compare_sink_event (GstAggregator * agg,
    GstAggregatorPad * pad, GstEvent * event);
static gboolean gst_ssim2_compare_sink_query (GstAggregator * agg,
    GstAggregatorPad * pad, GstQuery * query);
static gboolean gst_ssim2_compare_src_query (GstAggregator * agg,
    GstQuery * query);
static GstFlowReturn gst_ssim2_compare_update_src_caps (GstAggregator * agg,
    GstCaps * caps, GstCaps ** ret);
static GstFlowReturn gst_ssim2_compare_aggregate (GstAggregator * agg,
    gboolean timeout);
static GstBuffer *gst_ssim2_compare_clip (GstAggregator * agg,
    GstAggregatorPad * pad, GstBuffer * buf);
static GstAggregatorPad *gst_ssim2_compare_create_new_pad (GstAggregator *
    agg, GstPadTemplate * templ, const gchar * req_name,
    const GstCaps * caps);
static void gst_ssim2_compare_release_pad (GstElement * element, GstPad * pad);

static void
gst_ssim2_compare_class_init (GstSsim2CompareClass * klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);

  object_class->finalize = gst_ssim2_compare_finalize;
  object_class->set_property = gst_ssim2_compare_set_property;
  object_class->get_property = gst_ssim2_compare_get_property;

  /**
   * GstSsim2Compare:alignment:
   *
   * How frames of the two pads are paired.
   */
  g_object_class_install_property (object_class, PROP_ALIGNMENT,
      g_param_spec_enum ("alignment", "Alignment",
          "How frames of the two pads are paired: by running time, the Nth "
          "buffer of each pad, or by stream time (position in each stream)",
          GST_TYPE_SSIM2_COMPARE_ALIGNMENT,
          DEFAULT_ALIGNMENT,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:backend:
   *
   * Where the metric runs. auto: CUDA when a device works, else the CPU with
   * a warning message; cuda: an error when there is no usable device.
   */
  g_object_class_install_property (object_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where the metric runs (auto: CUDA when a device works, else CPU)",
          GST_TYPE_SSIM2_COMPARE_BACKEND, DEFAULT_BACKEND,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:cuda-device-id:
   *
   * CUDA device to use; -1 takes the context of the neighbouring elements,
   * or device 0.
   */
  g_object_class_install_property (object_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1: automatic)", -1, G_MAXINT,
          DEFAULT_CUDA_DEVICE_ID,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  g_object_class_install_property (object_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post an element message named ssim2 for every scored frame "
          "(the ssim2-summary message at the end is always posted)",
          DEFAULT_POST_MESSAGES,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
              G_PARAM_STATIC_STRINGS)));

  g_object_class_install_property (object_class, PROP_STATS_FILE,
      g_param_spec_string ("stats-file", "Stats file",
          "Write per-frame scores to this file as they come, completed with "
          "the summary at the end, in the format of stats-format "
          "(NULL: no file)", NULL,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  g_object_class_install_property (object_class, PROP_STATS_FORMAT,
      g_param_spec_enum ("stats-format", "Stats format",
          "Format of the stats-file: csv, json, vmaf-json (libvmaf's JSON "
          "layout), or auto: json if the file name ends in .json, else csv",
          GST_TYPE_SSIM2_COMPARE_STATS_FORMAT, DEFAULT_STATS_FORMAT,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  g_object_class_install_property (object_class, PROP_THRESHOLD,
      g_param_spec_double ("threshold", "Threshold",
          "Post a warning message for every frame that scores below this "
          "(-1.79769e+308, the default: never)", -G_MAXDOUBLE, G_MAXDOUBLE,
          DEFAULT_THRESHOLD,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
              G_PARAM_STATIC_STRINGS)));

  g_object_class_install_property (object_class, PROP_FRAME_STEP,
      g_param_spec_uint ("frame-step", "Frame step",
          "Score every Nth pair of frames and pass the others through "
          "unscored", 1, G_MAXUINT, DEFAULT_FRAME_STEP,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:threads:
   *
   * Threads of the CPU path (backend=cpu, or auto without a usable CUDA
   * device); 0 uses every core. The CUDA path ignores it. Scores do not
   * depend on it.
   */
  g_object_class_install_property (object_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads",
          "Threads of the CPU path (0: all cores)", 0, MAX_THREADS,
          DEFAULT_THREADS,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:interval:
   *
   * Length of the windows of the `ssim2-interval` messages, in running time;
   * 0: no such messages.
   */
  g_object_class_install_property (object_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Post an ssim2-interval message per rendition for every window of "
          "this much running time (ns) that holds pairs (0: none)", 0,
          G_MAXUINT64, DEFAULT_INTERVAL,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:max-lateness:
   *
   * A pair later than this (ns of running time behind the clock, the
   * element's latency included) is not scored: its frame is still passed
   * on, and the pair is counted as `skipped`. -1: 1 s in a live pipeline,
   * no skipping in any other.
   */
  g_object_class_install_property (object_class, PROP_MAX_LATENESS,
      g_param_spec_int64 ("max-lateness", "Max lateness",
          "Skip the scoring of pairs later than this (ns) behind the clock "
          "(-1: 1 s in live pipelines, never in others)", -1, G_MAXINT64,
          DEFAULT_MAX_LATENESS,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
              G_PARAM_STATIC_STRINGS)));

  element_class->set_context = GST_DEBUG_FUNCPTR (gst_ssim2_compare_set_context);
  element_class->release_pad = GST_DEBUG_FUNCPTR (gst_ssim2_compare_release_pad);

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &ref_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &dist_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &rendition_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &src_template, GST_TYPE_AGGREGATOR_PAD);

  gst_element_class_set_static_metadata (element_class,
      "SSIMULACRA 2.1 video comparison", "Filter/Analyzer/Video",
      "Scores every frame of the dist pad (and of any dist_%u pad) against "
      "the ref pad with SSIMULACRA 2.1 (CPU or NVIDIA CUDA) and passes the "
      "dist frames on",
      "gst-ssim2 developers");

  agg_class->start = GST_DEBUG_FUNCPTR (gst_ssim2_compare_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_ssim2_compare_stop);
  agg_class->flush = GST_DEBUG_FUNCPTR (gst_ssim2_compare_flush);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_ssim2_compare_sink_event);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_ssim2_compare_sink_query);
  agg_class->src_query = GST_DEBUG_FUNCPTR (gst_ssim2_compare_src_query);
  agg_class->update_src_caps =
      GST_DEBUG_FUNCPTR (gst_ssim2_compare_update_src_caps);
  agg_class->aggregate = GST_DEBUG_FUNCPTR (gst_ssim2_compare_aggregate);
  agg_class->clip = GST_DEBUG_FUNCPTR (gst_ssim2_compare_clip);
  agg_class->create_new_pad =
      GST_DEBUG_FUNCPTR (gst_ssim2_compare_create_new_pad);
  agg_class->get_next_time = gst_aggregator_simple_get_next_time;

  gst_type_mark_as_plugin_api (GST_TYPE_SSIM2_COMPARE_ALIGNMENT,
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_SSIM2_COMPARE_BACKEND,
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_SSIM2_COMPARE_STATS_FORMAT,
      (GstPluginAPIFlags) 0);

  /* Register the meta API type now, so that applications can look it up by
   * name (gstssim2meta.h) as soon as the element class exists. */
  gst_ssim2_meta_get_info ();
}

static void
gst_ssim2_compare_init (GstSsim2Compare * self)
{
  GstElement *element = GST_ELEMENT (self);
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (self);

  self->priv = new GstSsim2ComparePrivate ();

  self->ref_pad = GST_AGGREGATOR_PAD (g_object_new (GST_TYPE_AGGREGATOR_PAD,
          "name", "ref", "direction", GST_PAD_SINK, "template",
          gst_element_class_get_pad_template (klass, "ref"), NULL));
  gst_element_add_pad (element, GST_PAD (self->ref_pad));

  self->dist_pad = GST_AGGREGATOR_PAD (g_object_new (GST_TYPE_AGGREGATOR_PAD,
          "name", "dist", "direction", GST_PAD_SINK, "template",
          gst_element_class_get_pad_template (klass, "dist"), NULL));
  gst_element_add_pad (element, GST_PAD (self->dist_pad));

  g_mutex_init (&self->priv->renditions_lock);
  auto first = std::make_shared < Rendition > ();
  first->pad = GST_AGGREGATOR_PAD (gst_object_ref (self->dist_pad));
  first->name = "dist";
  first->to_src = true;
  self->priv->renditions.push_back (first);
}

/* The rendition of @pad; null for ref and for a released pad. */
static RenditionPtr
find_rendition (GstSsim2Compare * self, GstAggregatorPad * pad)
{
  GstSsim2ComparePrivate *priv = self->priv;
  RenditionPtr found;
  g_mutex_lock (&priv->renditions_lock);
  for (const RenditionPtr & r:priv->renditions) {
    if (r->pad == pad) {
      found = r;
      break;
    }
  }
  g_mutex_unlock (&priv->renditions_lock);
  return found;
}

static std::vector < RenditionPtr > renditions_snapshot (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  g_mutex_lock (&priv->renditions_lock);
  std::vector < RenditionPtr > list = priv->renditions;
  g_mutex_unlock (&priv->renditions_lock);
  return list;
}

/* A request pad dist_%u: one more rendition, scored against the same ref
 * frames, from its first buffer on. */
static GstAggregatorPad *
gst_ssim2_compare_create_new_pad (GstAggregator * agg, GstPadTemplate * templ,
    const gchar * req_name, const GstCaps * caps)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);
  GstSsim2ComparePrivate *priv = self->priv;
  (void) caps;
  if (GST_PAD_TEMPLATE_DIRECTION (templ) != GST_PAD_SINK ||
      GST_PAD_TEMPLATE_PRESENCE (templ) != GST_PAD_REQUEST)
    return nullptr;

  g_mutex_lock (&priv->renditions_lock);
  guint serial = priv->next_serial;
  if (req_name && g_str_has_prefix (req_name, "dist_") &&
      !strchr (req_name, '%')) {
    gchar *end = nullptr;
    const guint64 asked = g_ascii_strtoull (req_name + 5, &end, 10);
    if (!end || *end != '\0' || end == req_name + 5 || asked > G_MAXUINT) {
      g_mutex_unlock (&priv->renditions_lock);
      GST_WARNING_OBJECT (self, "invalid pad name %s", req_name);
      return nullptr;
    }
    serial = (guint) asked;
  }
  gchar *name = g_strdup_printf ("dist_%u", serial);
  for (const RenditionPtr & r:priv->renditions) {
    if (r->name == name) {
      g_mutex_unlock (&priv->renditions_lock);
      GST_WARNING_OBJECT (self, "pad %s exists already", name);
      g_free (name);
      return nullptr;
    }
  }
  priv->next_serial = MAX (priv->next_serial, serial + 1);
  GstAggregatorPad *pad = GST_AGGREGATOR_PAD (g_object_new
      (GST_TYPE_AGGREGATOR_PAD, "name", name, "direction", GST_PAD_SINK,
          "template", templ, NULL));
  auto r = std::make_shared < Rendition > ();
  r->pad = GST_AGGREGATOR_PAD (gst_object_ref (pad));
  r->name = name;
  /* It pairs from the ref frame the others are at now. */
  r->ResetMeasurement (GST_CLOCK_TIME_NONE);     /* set by aggregate */
  priv->renditions.push_back (r);
  g_mutex_unlock (&priv->renditions_lock);
  GST_INFO_OBJECT (self, "rendition pad %s", name);
  g_free (name);
  return pad;
}

/* A released rendition ends its measurement: the aggregator thread posts
 * its summary at its next pass and forgets it. */
static void
gst_ssim2_compare_release_pad (GstElement * element, GstPad * pad)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (element);
  RenditionPtr r = find_rendition (self, GST_AGGREGATOR_PAD (pad));
  if (r) {
    GST_INFO_OBJECT (self, "rendition pad %s released", r->name.c_str ());
    r->released = true;
  }
  GST_ELEMENT_CLASS (parent_class)->release_pad (element, pad);
}

static void
gst_ssim2_compare_finalize (GObject * object)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (object);

  self->priv->renditions.clear ();
  g_mutex_clear (&self->priv->renditions_lock);
  delete self->priv;
  self->priv = nullptr;

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_ssim2_compare_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (object);
  Settings & s = self->priv->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ALIGNMENT:
      s.alignment = (GstSsim2CompareAlignment) g_value_get_enum (value);
      break;
    case PROP_BACKEND:
      s.backend = (GstSsim2CompareBackend) g_value_get_enum (value);
      break;
    case PROP_CUDA_DEVICE_ID:
      s.device_id = g_value_get_int (value);
      break;
    case PROP_POST_MESSAGES:
      s.post_messages = g_value_get_boolean (value);
      break;
    case PROP_STATS_FILE:{
      const gchar *str = g_value_get_string (value);
      s.stats_file = str ? str : "";
      break;
    }
    case PROP_STATS_FORMAT:
      s.stats_format = (GstSsim2CompareStatsFormat) g_value_get_enum (value);
      break;
    case PROP_THRESHOLD:
      s.threshold = g_value_get_double (value);
      break;
    case PROP_FRAME_STEP:
      s.frame_step = g_value_get_uint (value);
      break;
    case PROP_THREADS:
      s.threads = g_value_get_uint (value);
      break;
    case PROP_INTERVAL:
      s.interval = g_value_get_uint64 (value);
      break;
    case PROP_MAX_LATENESS:
      s.max_lateness = g_value_get_int64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_ssim2_compare_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (object);
  const Settings & s = self->priv->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ALIGNMENT:
      g_value_set_enum (value, s.alignment);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, s.backend);
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, s.device_id);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, s.post_messages);
      break;
    case PROP_STATS_FILE:
      g_value_set_string (value,
          s.stats_file.empty () ? NULL : s.stats_file.c_str ());
      break;
    case PROP_STATS_FORMAT:
      g_value_set_enum (value, s.stats_format);
      break;
    case PROP_THRESHOLD:
      g_value_set_double (value, s.threshold);
      break;
    case PROP_FRAME_STEP:
      g_value_set_uint (value, s.frame_step);
      break;
    case PROP_THREADS:
      g_value_set_uint (value, s.threads);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, s.interval);
      break;
    case PROP_MAX_LATENESS:
      g_value_set_int64 (value, s.max_lateness);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ------------------------------------------------------------------------ */
/* CUDA context sharing */

static void
gst_ssim2_compare_set_context (GstElement * element, GstContext * context)
{
#ifdef HAVE_GST_CUDA
  GstSsim2Compare *self = GST_SSIM2_COMPARE (element);
  GstSsim2ComparePrivate *priv = self->priv;
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = priv->settings.device_id;
  bool want_cuda = priv->settings.backend != GST_SSIM2_COMPARE_BACKEND_CPU;
  GST_OBJECT_UNLOCK (self);

  if (want_cuda && gst_cuda_load_library ())
    gst_cuda_handle_set_context (element, context, device_id, &priv->context);
#endif

  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_ssim2_compare_handle_context_query (GstSsim2Compare * self,
    GstQuery * query)
{
#ifdef HAVE_GST_CUDA
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT && self->priv->context) {
    return gst_cuda_handle_context_query (GST_ELEMENT (self), query,
        self->priv->context);
  }
#else
  (void) self;
  (void) query;
#endif
  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* start / stop */

/* The stats file could not be written: say so once, stop writing it and
 * keep scoring (messages, meta and summary lose nothing). */
static void
stats_write_failed (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
      ("Could not write the stats file (%s); scoring goes on without it.",
          priv->stats->error ().c_str ()),
      ("Free some space or choose another stats-file. The ssim2 messages "
          "and the ssim2-summary message still carry every score."));
  priv->stats.reset ();
}

/* Appends the summary of the `dist` pad's rendition and closes the stats
 * file, if one is open. */
static void
stats_close (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  if (!priv->stats)
    return;
  const Rendition & dist = *priv->renditions.front ();
  ssim2::LogSummary summary;
  summary.scores = ssim2::Summarize (dist.scores);
  summary.unmatched_ref = dist.unmatched_ref;
  summary.unmatched_dist = dist.unmatched_dist;
  summary.ended_first = dist.ended_first;
  ssim2::LogRunInfo info;
  switch (priv->run.alignment) {
    case GST_SSIM2_COMPARE_ALIGNMENT_SEQUENCE:
      info.alignment = "sequence";
      break;
    case GST_SSIM2_COMPARE_ALIGNMENT_STREAM_TIME:
      info.alignment = "stream-time";
      break;
    default:
      info.alignment = "running-time";
      break;
  }
  info.every = MAX (priv->run.frame_step, 1u);
  if (dist.st.have_info) {
    info.width = GST_VIDEO_INFO_WIDTH (&dist.st.fmt.info);
    info.height = GST_VIDEO_INFO_HEIGHT (&dist.st.fmt.info);
  }
  if (!priv->stats->Close (summary, info))
    stats_write_failed (self);
  priv->stats.reset ();
}

/* Opens (truncates) the stats file for a new measurement; posts an error
 * when it cannot be created. */
static bool
stats_open (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  const std::string & path = priv->run.stats_file;
  if (path.empty () || priv->stats)
    return true;
  ssim2::LogOptions options;
  switch (priv->run.stats_format) {
    case GST_SSIM2_COMPARE_STATS_FORMAT_CSV:
      options.format = ssim2::LogFormat::kCsv;
      break;
    case GST_SSIM2_COMPARE_STATS_FORMAT_JSON:
      options.format = ssim2::LogFormat::kJson;
      break;
    case GST_SSIM2_COMPARE_STATS_FORMAT_VMAF_JSON:
      options.format = ssim2::LogFormat::kVmafJson;
      break;
    default:
      options.format = ssim2::LogFormatForPath (path);
      break;
  }
  /* Rows go out as they are scored, for whoever reads the file live. */
  options.flush_rows = true;
  /* With rendition pads at the start, one file holds every rendition's
   * rows, each naming its pad in the source column (libvmaf's layout has
   * no such column: there the file holds the dist pad's rows only). */
  priv->stats_with_source = options.format != ssim2::LogFormat::kVmafJson &&
      renditions_snapshot (self).size () > 1;
  options.with_source = priv->stats_with_source;
  std::string error;
  priv->stats = ssim2::ScoreLog::Open (path, options, &error);
  if (!priv->stats) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not open stats-file \"%s\" for writing (%s).", path.c_str (),
            error.c_str ()),
        ("Check that the folder exists and is writable."));
    return false;
  }
  GST_INFO_OBJECT (self, "stats file %s (%s)", path.c_str (),
      ssim2::LogFormatName (options.format));
  return true;
}

/* A measurement runs from the start, or from a flushing seek, to EOS or to
 * the next flushing seek; its summary covers its own pairs only. */
static void
ref_queue_clear (GstSsim2ComparePrivate * priv)
{
  for (RefFrame & f:priv->ref_queue)
    gst_clear_buffer (&f.buf);
  priv->ref_queue.clear ();
  priv->ref_base = priv->ref_next;
}

static void
measurement_reset (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  priv->finished = false;
  ref_queue_clear (priv);
  for (const RenditionPtr & r:renditions_snapshot (self))
    r->ResetMeasurement (priv->ref_base);
}

static bool
measurement_started (const Rendition & r)
{
  return r.ref_frames > 0 || r.st.frames > 0;
}

/* Passes whose pairs stay in flight (submitted, not yet collected) in a
 * non-live pipeline. Two, not one: on CUDA the scorer prepares each ref
 * frame on the engine that is not scoring the previous one (cuda_scorer.cpp),
 * so consecutive passes run side by side and end together; with one left in
 * flight the GPU would idle while this thread collects, pushes and steps,
 * with two it has the next pass's work queued meanwhile. */
static const size_t kPassesInFlight = 2;

static GstFlowReturn complete_scoring (GstSsim2Compare * self, size_t keep);
static void drop_scoring (GstSsim2Compare * self);

static gboolean
gst_ssim2_compare_start (GstAggregator * agg)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);
  GstSsim2ComparePrivate *priv = self->priv;

  GST_OBJECT_LOCK (self);
  priv->run = priv->settings;
  GST_OBJECT_UNLOCK (self);

  priv->ref.Reset ();
  /* Pads released while stopped leave nothing to report. */
  g_mutex_lock (&priv->renditions_lock);
  priv->renditions.erase (std::remove_if (priv->renditions.begin (),
          priv->renditions.end (), [](const RenditionPtr & r) {
            return r->released.load ();
          }), priv->renditions.end ());
  g_mutex_unlock (&priv->renditions_lock);
  for (const RenditionPtr & r:renditions_snapshot (self)) {
    r->st.Reset ();
    r->end = GST_CLOCK_TIME_NONE;
  }
  priv->ref_next = 0;
  measurement_reset (self);
  priv->seeks = 0;
  priv->timing = {};
  priv->ref_end = GST_CLOCK_TIME_NONE;

  if (!gst_ssim2_compare_open_backend (self))
    return FALSE;
  if (!stats_open (self)) {
    gst_ssim2_compare_close_backend (self);
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_ssim2_compare_stop (GstAggregator * agg)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);
  GstSsim2ComparePrivate *priv = self->priv;

  /* Pairs in flight are dropped, not pushed: the element stops. */
  drop_scoring (self);
  /* Stopped before EOS: still leave a well-formed file. */
  stats_close (self);
  gst_ssim2_compare_close_backend (self);
  ref_queue_clear (priv);
  gst_clear_caps (&priv->ref.caps);
  for (const RenditionPtr & r:renditions_snapshot (self))
    gst_clear_caps (&r->st.caps);
  return TRUE;
}

static void post_summary (GstSsim2Compare * self, Rendition & r);

/* A flushing seek ends the current measurement (its summary is posted and
 * the stats file completed with it, unless EOS did that already) and starts
 * a new one: the stats file is rewritten from its header, so that it always
 * holds the pairs of the last posted summary. */
static GstFlowReturn
gst_ssim2_compare_flush (GstAggregator * agg)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);
  GstSsim2ComparePrivate *priv = self->priv;

  /* The pairs in flight are flushed like the frames still queued on the
   * pads: they are not pushed, and the measurement ends before them. */
  drop_scoring (self);
  bool ended = false;
  for (const RenditionPtr & r:renditions_snapshot (self)) {
    if (r->finished || !measurement_started (*r))
      continue;
    GST_INFO_OBJECT (self, "flushing seek: ending the measurement of %s "
        "after %" G_GSIZE_FORMAT " scored frames", r->name.c_str (),
        r->scores.size ());
    r->ended_first.reset ();
    r->summary_due = true;
    ended = true;
  }
  /* The stats file is complete before the summaries are posted. */
  if (ended)
    stats_close (self);
  for (const RenditionPtr & r:renditions_snapshot (self)) {
    if (r->summary_due)
      post_summary (self, *r);
  }
  const bool restart_file = !priv->stats;
  measurement_reset (self);
  priv->seeks++;
  if (restart_file && !stats_open (self))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

/* ------------------------------------------------------------------------ */
/* Caps */

/* Rendition @r cannot be scored (@text says why, @debug what to do). While
 * another rendition still measures, a STREAM/FORMAT warning naming its pad
 * (details: `pad`), and @r's frames are taken unscored from then on; when
 * every rendition has failed, an error. Returns TRUE for the warning. */
static gboolean
rendition_failed (GstSsim2Compare * self, Rendition & r, const gchar * text,
    const gchar * debug)
{
  bool others = false;
  for (const RenditionPtr & o:renditions_snapshot (self)) {
    if (o.get () != &r && !o->released && !o->failed)
      others = true;
  }
  if (!others) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", text), ("%s", debug));
    return FALSE;
  }
  r.failed = true;
  r.failure = text;
  GST_ELEMENT_WARNING_WITH_DETAILS (self, STREAM, FORMAT, ("%s The other "
          "renditions are still scored.", text), ("%s", debug),
      ("pad", G_TYPE_STRING, r.name.c_str (), NULL));
  return TRUE;
}

/* Caps that cannot be scored: an error for ref; for a rendition a warning
 * that names its pad while other renditions still measure (its buffers are
 * then taken unscored), else an error. Returns what the caps event
 * returns. */
#define REFUSE_CAPS(text, debug) G_STMT_START { \
    g_autofree gchar *text_ = gst_info_strdup_printf text; \
    g_autofree gchar *debug_ = gst_info_strdup_printf debug; \
    if (rendition && rendition_failed (self, *rendition, text_, debug_)) { \
      /* Its frames go on unscored: the `dist` ones still leave on src. */ \
      gst_caps_replace (&rendition->st.caps, caps); \
      if (rendition->to_src) \
        gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (self)); \
      return TRUE; \
    } \
    if (rendition) \
      return FALSE; \
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", text_), ("%s", debug_)); \
    return FALSE; \
  } G_STMT_END

/* Validates caps arriving on @pad; posts an error (or a rendition's
 * warning) saying what to do when they cannot be scored. */
static gboolean
gst_ssim2_compare_set_pad_caps (GstSsim2Compare * self, GstAggregatorPad * pad,
    GstCaps * caps)
{
  GstSsim2ComparePrivate *priv = self->priv;
  const bool is_ref = pad == self->ref_pad;
  RenditionPtr rendition = is_ref ? nullptr : find_rendition (self, pad);
  if (!is_ref && !rendition)
    return FALSE;               /* released */
  const char *name = is_ref ? "ref" : rendition->name.c_str ();
  PadState & st = is_ref ? priv->ref : rendition->st;
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps)) {
    REFUSE_CAPS (("Invalid caps on the %s pad.", name), ("%" GST_PTR_FORMAT,
            caps));
  }
  if (GST_VIDEO_INFO_IS_INTERLACED (&info)) {
    REFUSE_CAPS (("Interlaced input on the %s pad (interlace-mode=%s) is "
            "not supported.", name,
            gst_video_interlace_mode_to_string (GST_VIDEO_INFO_INTERLACE_MODE
                (&info))),
        ("Deinterlace first (e.g. ... ! deinterlace ! ssim2compare)."));
  }
  if (GST_VIDEO_INFO_WIDTH (&info) < 8 || GST_VIDEO_INFO_HEIGHT (&info) < 8) {
    REFUSE_CAPS (("Frames of the %s pad are %dx%d; SSIMULACRA 2 needs at "
            "least 8x8 pixels.", name, GST_VIDEO_INFO_WIDTH (&info),
            GST_VIDEO_INFO_HEIGHT (&info)),
        ("Scale both inputs up (videoscale) or use larger frames."));
  }
  ssim2::PixelFormat fmt;
  if (!ssim2gst::PixelFormatOf (GST_VIDEO_INFO_FORMAT (&info), &fmt)) {
    REFUSE_CAPS (("Format %s on the %s pad cannot be scored.",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info)), name),
        ("Insert videoconvert to get one of " SSIM2_FORMATS "."));
  }
  ssim2::YuvColorimetry yuv;
  if (ssim2::IsYuvFormat (fmt)) {
    switch (info.colorimetry.matrix) {
      case GST_VIDEO_COLOR_MATRIX_BT601:
        yuv.matrix = ssim2::YuvMatrix::kBT601;
        break;
      case GST_VIDEO_COLOR_MATRIX_BT709:
      case GST_VIDEO_COLOR_MATRIX_UNKNOWN:
        yuv.matrix = ssim2::YuvMatrix::kBT709;
        break;
      case GST_VIDEO_COLOR_MATRIX_BT2020:
        yuv.matrix = ssim2::YuvMatrix::kBT2020;
        break;
      default:{
        g_autofree gchar *cstr =
            gst_video_colorimetry_to_string (&info.colorimetry);
        REFUSE_CAPS (("The colour matrix of the %s pad (colorimetry %s) "
                "cannot be compared; supported: BT.601, BT.709, BT.2020.",
                name, GST_STR_NULL (cstr)),
            ("Convert with videoconvert to RGB or to a BT.709 format "
                "first."));
      }
    }
    yuv.range = info.colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255 ?
        ssim2::YuvRange::kFull : ssim2::YuvRange::kLimited;
  }

  GST_DEBUG_OBJECT (self, "%s caps %" GST_PTR_FORMAT, name, caps);
  gst_caps_replace (&st.caps, caps);
  st.fmt.info = info;
  st.fmt.format = fmt;
  st.fmt.yuv = yuv;
  st.have_info = true;

  if (!is_ref && rendition->to_src)
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (self));
  return TRUE;
}

static GstFlowReturn
gst_ssim2_compare_update_src_caps (GstAggregator * agg, GstCaps * downstream,
    GstCaps ** ret)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);
  const Rendition & dist = *self->priv->renditions.front ();
  GstCaps *dist_caps = dist.st.caps ? gst_caps_ref (dist.st.caps) : nullptr;

  if (!dist_caps)
    return GST_AGGREGATOR_FLOW_NEED_DATA;
  if (!gst_caps_can_intersect (dist_caps, downstream)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream does not accept the caps of the dist pad."),
        ("dist caps %" GST_PTR_FORMAT ", downstream accepts %" GST_PTR_FORMAT,
            dist_caps, downstream));
    gst_caps_unref (dist_caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  *ret = dist_caps;
  return GST_FLOW_OK;
}

static gboolean
gst_ssim2_compare_sink_event (GstAggregator * agg, GstAggregatorPad * pad,
    GstEvent * event)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);

  /* Serialized events come in stream order, in the aggregator's thread: the
   * frames in flight left the pads before this event and are pushed with
   * the caps and segment they came with. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS ||
      GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT) {
    GstFlowReturn ret = complete_scoring (self, 0);
    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT (self, "pushing the pairs in flight before %s: %s",
          GST_EVENT_TYPE_NAME (event), gst_flow_get_name (ret));
  }
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      gst_event_parse_caps (event, &caps);
      if (!gst_ssim2_compare_set_pad_caps (self, pad, caps)) {
        gst_event_unref (event);
        return FALSE;
      }
      break;
    }
    case GST_EVENT_SEGMENT:
      if (pad == self->dist_pad) {
        const GstSegment *segment;
        gst_event_parse_segment (event, &segment);
        /* dist buffers leave with their timestamps: send its segment. */
        if (segment->format == GST_FORMAT_TIME)
          gst_aggregator_update_segment (agg, segment);
      }
      break;
    default:
      break;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->sink_event (agg, pad, event);
}

/* Frame period of the caps on @pad, GST_CLOCK_TIME_NONE when the caps give
 * no frame rate. */
static GstClockTime
caps_frame_period (GstPad * pad)
{
  GstClockTime period = GST_CLOCK_TIME_NONE;
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gint n = 0, d = 0;
  if (caps && gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
          "framerate", &n, &d) && n > 0 && d > 0)
    period = gst_util_uint64_scale_int (GST_SECOND, d, n);
  if (caps)
    gst_caps_unref (caps);
  return period;
}

/* Runs in the pad's streaming thread as each buffer arrives, before it is
 * queued. Only frames shown inside the segment are paired:
 * - a buffer entirely outside the segment is dropped;
 * - a buffer cut by the segment start or stop that keeps less than half a
 *   frame period inside it is dropped too: decoders clip the frame that began before the segment
 *   start of an accurate seek to that start, with what is left of its
 *   duration, and the next frame follows at the same running time. The
 *   clipped one would be paired in its place (running-time alignment) or
 *   shift every later pair by one (sequence alignment);
 * - a buffer of zero duration is shown for no time and is dropped.
 * Gap buffers (made from GAP events) are kept: aggregate handles them. */
static GstBuffer *
gst_ssim2_compare_clip (GstAggregator * agg, GstAggregatorPad * pad,
    GstBuffer * buf)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);
  const GstClockTime pts = GST_BUFFER_PTS (buf);
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP) ||
      !GST_CLOCK_TIME_IS_VALID (pts))
    return buf;

  /* The segment of this buffer: the pad's sticky event, stored as it
   * arrived (the pad's own segment follows the queue head instead). */
  GstEvent *ev = gst_pad_get_sticky_event (GST_PAD (pad), GST_EVENT_SEGMENT,
      0);
  if (!ev)
    return buf;
  GstSegment segment;
  gst_event_copy_segment (ev, &segment);
  gst_event_unref (ev);
  if (segment.format != GST_FORMAT_TIME)
    return buf;

  const GstClockTime duration = GST_BUFFER_DURATION (buf);
  const GstClockTime period = caps_frame_period (GST_PAD (pad));
  const char *why = nullptr;
  guint64 start = pts, stop = GST_CLOCK_TIME_NONE;
  const GstClockTime span = GST_CLOCK_TIME_IS_VALID (duration) ? duration :
      period;
  const GstClockTime end = GST_CLOCK_TIME_IS_VALID (span) ? pts + span :
      GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (duration) && duration == 0) {
    why = "it lasts no time";
  } else {
    if (!gst_segment_clip (&segment, GST_FORMAT_TIME, pts, end, &start,
            &stop)) {
      why = "it lies outside the segment";
    } else if (GST_CLOCK_TIME_IS_VALID (period) &&
        GST_CLOCK_TIME_IS_VALID (end) && (start > pts || stop < end ||
            pts == segment.start) && (stop - start) * 2 < period) {
      /* Only a buffer cut by the segment (here or upstream, where it was
       * restamped to the segment start) is judged by its remaining part. */
      why = "less than half a frame of it lies inside the segment";
    }
  }
  if (why) {
    GST_DEBUG_OBJECT (self, "%s: dropping the buffer at %" GST_TIME_FORMAT
        " (duration %" GST_TIME_FORMAT "): %s", GST_PAD_NAME (pad),
        GST_TIME_ARGS (pts), GST_TIME_ARGS (duration), why);
    gst_buffer_unref (buf);
    return nullptr;
  }

  /* Where the pad's stream ends once it is at EOS: the end of its last
   * buffer, in the time domain the pairing uses. */
  const GstClockTime last = GST_CLOCK_TIME_IS_VALID (stop) ? stop : start;
  const GstClockTime end_time =
      self->priv->run.alignment == GST_SSIM2_COMPARE_ALIGNMENT_STREAM_TIME ?
      gst_segment_to_stream_time (&segment, GST_FORMAT_TIME, last) :
      gst_segment_to_running_time (&segment, GST_FORMAT_TIME, last);
  if (pad == self->ref_pad) {
    self->priv->ref_end = end_time;
  } else {
    RenditionPtr r = find_rendition (self, pad);
    if (r)
      r->end = end_time;
  }
  return buf;
}

static gboolean
gst_ssim2_compare_sink_query (GstAggregator * agg, GstAggregatorPad * pad,
    GstQuery * query)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CONTEXT:
      if (gst_ssim2_compare_handle_context_query (self, query))
        return TRUE;
      break;
    case GST_QUERY_CAPS:{
      GstCaps *filter, *templ, *result;
      gst_query_parse_caps (query, &filter);
      templ = gst_pad_get_pad_template_caps (GST_PAD (pad));
      if (pad == self->dist_pad) {
        /* What leaves on src is what enters on dist. */
        GstCaps *peer = gst_pad_peer_query_caps (GST_AGGREGATOR_SRC_PAD (agg),
            templ);
        gst_caps_unref (templ);
        templ = peer;
      }
      if (filter) {
        result = gst_caps_intersect_full (filter, templ,
            GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref (templ);
      } else {
        result = templ;
      }
      gst_query_set_caps_result (query, result);
      gst_caps_unref (result);
      return TRUE;
    }
    case GST_QUERY_ACCEPT_CAPS:{
      GstCaps *caps, *templ;
      gst_query_parse_accept_caps (query, &caps);
      templ = gst_pad_get_pad_template_caps (GST_PAD (pad));
      gboolean ok = gst_caps_is_subset (caps, templ);
      gst_caps_unref (templ);
      if (ok) {
        /* Interlaced input is refused here already. */
        for (guint i = 0; i < gst_caps_get_size (caps); i++) {
          const gchar *mode = gst_structure_get_string (gst_caps_get_structure
              (caps, i), "interlace-mode");
          if (mode && g_strcmp0 (mode, "progressive") != 0)
            ok = FALSE;
        }
      }
      gst_query_set_accept_caps_result (query, ok);
      return TRUE;
    }
    default:
      break;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->sink_query (agg, pad, query);
}

static gboolean
gst_ssim2_compare_src_query (GstAggregator * agg, GstQuery * query)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CONTEXT:
      if (gst_ssim2_compare_handle_context_query (self, query))
        return TRUE;
      break;
    case GST_QUERY_CAPS:{
      /* The src pad carries the dist caps. */
      GstCaps *filter, *caps;
      gst_query_parse_caps (query, &filter);
      caps = gst_pad_get_current_caps (GST_PAD (self->dist_pad));
      if (!caps)
        caps = gst_pad_peer_query_caps (GST_PAD (self->dist_pad), filter);
      if (!caps)
        caps = gst_pad_get_pad_template_caps (GST_AGGREGATOR_SRC_PAD (agg));
      if (filter) {
        GstCaps *tmp = gst_caps_intersect_full (filter, caps,
            GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref (caps);
        caps = tmp;
      }
      gst_query_set_caps_result (query, caps);
      gst_caps_unref (caps);
      return TRUE;
    }
    default:
      break;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->src_query (agg, query);
}

/* ------------------------------------------------------------------------ */
/* Aggregation */

/* @ts of a buffer of @pad in the time domain of @alignment: running time,
 * or stream time for alignment=stream-time (and for sequence, where it only
 * serves the messages). */
static GstClockTime
pad_time (GstAggregatorPad * pad, GstSsim2CompareAlignment alignment,
    GstClockTime ts)
{
  if (!GST_CLOCK_TIME_IS_VALID (ts))
    return GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (pad);
  GstClockTime t = alignment == GST_SSIM2_COMPARE_ALIGNMENT_STREAM_TIME ?
      gst_segment_to_stream_time (&pad->segment, GST_FORMAT_TIME, ts) :
      gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME, ts);
  GST_OBJECT_UNLOCK (pad);
  return t;
}

static GstClockTime
frame_duration (const PadState & st, GstBuffer * buf)
{
  if (GST_BUFFER_DURATION_IS_VALID (buf) && GST_BUFFER_DURATION (buf) > 0)
    return GST_BUFFER_DURATION (buf);
  if (st.have_info && GST_VIDEO_INFO_FPS_N (&st.fmt.info) > 0 &&
      GST_VIDEO_INFO_FPS_D (&st.fmt.info) > 0)
    return gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&st.fmt.info),
        GST_VIDEO_INFO_FPS_N (&st.fmt.info));
  return GST_CLOCK_TIME_NONE;
}

/* "dist_1: ", what starts a warning's text about rendition @r when the
 * element has several; "" with the `dist` pad alone, whose warnings read as
 * they always did. The details always carry the pad. */
static std::string
pad_prefix (GstSsim2Compare * self, const Rendition & r)
{
  return renditions_snapshot (self).size () > 1 ? r.name + ": " : "";
}

/* Posts @r's current ssim2-interval window, if it holds any pair. */
static void
window_post (GstSsim2Compare * self, Rendition & r)
{
  const guint64 interval = self->priv->run.interval;
  if (interval == 0 || (r.window_scores.empty () && r.window_skipped == 0)) {
    r.window_scores.clear ();
    r.window_skipped = 0;
    return;
  }
  const ssim2::Summary sum = ssim2::Summarize (r.window_scores);
  const guint64 start = r.window_start;
  const guint64 end = GST_CLOCK_TIME_IS_VALID (start) ? start + interval :
      GST_CLOCK_TIME_NONE;
  GstStructure *s = gst_structure_new ("ssim2-interval",
      "pad", G_TYPE_STRING, r.name.c_str (),
      "frames", G_TYPE_UINT64, (guint64) sum.frames,
      "skipped", G_TYPE_UINT64, r.window_skipped,
      "mean", G_TYPE_DOUBLE, sum.mean,
      "min", G_TYPE_DOUBLE, sum.min,
      "p5", G_TYPE_DOUBLE, sum.p5,
      "max", G_TYPE_DOUBLE, sum.max,
      "start", G_TYPE_UINT64, start, "end", G_TYPE_UINT64, end, NULL);
  r.window_scores.clear ();
  r.window_skipped = 0;
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* Counts a pair of @r (scored: @score; else skipped) at running time @rt
 * in its window, after posting the window it ends. Windows are the
 * multiples of the interval in running time, so that every pair falls in
 * exactly one; a pair without running time joins the current window. */
static void
window_add (GstSsim2Compare * self, Rendition & r, GstClockTime rt,
    const double *score)
{
  const guint64 interval = self->priv->run.interval;
  if (interval == 0)
    return;
  if (GST_CLOCK_TIME_IS_VALID (rt)) {
    const guint64 start = rt - rt % interval;
    if (start != r.window_start) {
      window_post (self, r);
      r.window_start = start;
    }
  }
  if (score)
    r.window_scores.push_back (*score);
  else
    r.window_skipped++;
}

/* Sends on @buf (owned), a frame of @r's pad, scored (score != NULL),
 * skipped for lateness (@skipped) or unscored: pushes it on src for the
 * `dist` pad, drops it for the other renditions. Its times are read from
 * the pad's segment, which has not changed since the frame left the pad
 * (a segment or caps event first completes the batches in flight). */
static GstFlowReturn
push_dist_buffer (GstSsim2Compare * self, Rendition & r, GstBuffer * buf,
    const double *score, guint64 index, bool skipped)
{
  GstSsim2ComparePrivate *priv = self->priv;
  GstAggregator *agg = GST_AGGREGATOR (self);
  r.st.frames++;

  GstClockTime pts = GST_BUFFER_PTS (buf);
  GstClockTime rt = pad_time (r.pad,
      GST_SSIM2_COMPARE_ALIGNMENT_RUNNING_TIME, pts);
  GstClockTime st = GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (pts)) {
    GST_OBJECT_LOCK (r.pad);
    st = gst_segment_to_stream_time (&r.pad->segment, GST_FORMAT_TIME, pts);
    GST_OBJECT_UNLOCK (r.pad);
  }
  GstClockTime duration = GST_BUFFER_DURATION (buf);
  const gchar *pad_name = r.name.c_str ();

  if (score || skipped)
    window_add (self, r, rt, score);
  if (score) {
    if (r.to_src) {
      buf = gst_buffer_make_writable (buf);
      gst_buffer_add_ssim2_meta (buf, *score, index, pad_name);
    }
    r.scores.push_back (*score);

    gboolean post;
    GST_OBJECT_LOCK (self);
    post = priv->settings.post_messages;        /* changeable while playing */
    GST_OBJECT_UNLOCK (self);
    if (post) {
      GstStructure *s = gst_structure_new ("ssim2",
          "score", G_TYPE_DOUBLE, *score,
          "index", G_TYPE_UINT64, index,
          "timestamp", G_TYPE_UINT64, (guint64) pts,
          "stream-time", G_TYPE_UINT64, (guint64) st,
          "running-time", G_TYPE_UINT64, (guint64) rt,
          "duration", G_TYPE_UINT64, (guint64) duration,
          "pad", G_TYPE_STRING, pad_name, NULL);
      gst_element_post_message (GST_ELEMENT (self),
          gst_message_new_element (GST_OBJECT (self), s));
    }

    if (priv->stats && (priv->stats_with_source || r.to_src)) {
      ssim2::ScoreRow row;
      row.index = index;
      row.frame = r.st.frames - 1;
      row.pts = pts;
      row.stream_time = st;
      row.running_time = rt;
      row.duration = duration;
      row.score = *score;
      if (priv->stats_with_source)
        row.source = r.name;
      if (!priv->stats->Append (row))
        stats_write_failed (self);
    }

    gdouble threshold;
    GST_OBJECT_LOCK (self);
    threshold = priv->settings.threshold;
    GST_OBJECT_UNLOCK (self);
    if (*score < threshold) {
      GST_ELEMENT_WARNING_WITH_DETAILS (self, STREAM, FAILED,
          ("%sFrame %" G_GUINT64_FORMAT " scores %.4f, below the "
              "threshold %.4f.", pad_prefix (self, r).c_str (), index, *score,
              threshold),
          ("running time %" GST_TIME_FORMAT, GST_TIME_ARGS (rt)),
          ("score", G_TYPE_DOUBLE, *score, "index", G_TYPE_UINT64, index,
              "running-time", G_TYPE_UINT64, (guint64) rt,
              "pad", G_TYPE_STRING, pad_name, NULL));
    }
  }

  if (!r.to_src) {
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }

  /* The output position drives the deadlines of live aggregation
   * (gst_aggregator_simple_get_next_time). */
  if (GST_CLOCK_TIME_IS_VALID (pts)) {
    GstAggregatorPad *srcpad = GST_AGGREGATOR_PAD (agg->srcpad);
    GST_OBJECT_LOCK (agg);
    srcpad->segment.position = GST_CLOCK_TIME_IS_VALID (duration) ?
        pts + duration : pts;
    GST_OBJECT_UNLOCK (agg);
  }
  gst_aggregator_selected_samples (agg, pts, GST_BUFFER_DTS (buf), duration,
      NULL);
  return gst_aggregator_finish_buffer (agg, buf);
}

/* Takes the head of @r's pad and sends it on (push_dist_buffer). */
static GstFlowReturn
push_dist (GstSsim2Compare * self, Rendition & r, const double *score,
    guint64 index, bool skipped)
{
  GstBuffer *buf = gst_aggregator_pad_pop_buffer (r.pad);
  if (!buf)
    return GST_FLOW_OK;
  return push_dist_buffer (self, r, buf, score, index, skipped);
}

/* GstAggregator queues a GAP event as an empty buffer flagged GAP. The one
 * at the head of the `dist` pad goes downstream as the GAP event it was (an
 * empty buffer with video caps is an invalid frame for the elements after
 * us) and counts as unscored dist time. Before the measurement's first
 * frame has set the caps and segment downstream, it is only counted; so is
 * a gap on any other rendition pad. */
static void
pass_gap (GstSsim2Compare * self, Rendition & r)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstPad *srcpad = GST_AGGREGATOR_SRC_PAD (agg);
  GstBuffer *gap = gst_aggregator_pad_pop_buffer (r.pad);
  if (!gap)
    return;
  r.unmatched_dist++;

  const GstClockTime pts = GST_BUFFER_PTS (gap);
  const GstClockTime duration = GST_BUFFER_DURATION (gap);
  bool forward = r.to_src && GST_CLOCK_TIME_IS_VALID (pts);
  GstEvent *seg_event = forward ?
      gst_pad_get_sticky_event (srcpad, GST_EVENT_SEGMENT, 0) : nullptr;
  if (forward && seg_event) {
    /* The same segment apart from the position, which moves. */
    GstSegment out_segment, dist_segment;
    gst_event_copy_segment (seg_event, &out_segment);
    GST_OBJECT_LOCK (r.pad);
    dist_segment = r.pad->segment;
    GST_OBJECT_UNLOCK (r.pad);
    out_segment.position = dist_segment.position = 0;
    forward = gst_segment_is_equal (&out_segment, &dist_segment);
  } else {
    forward = false;
  }
  if (forward) {
    GstCaps *out_caps = gst_pad_get_current_caps (srcpad);
    forward = out_caps && r.st.caps && gst_caps_is_equal (out_caps,
        r.st.caps);
    if (out_caps)
      gst_caps_unref (out_caps);
  }
  if (seg_event)
    gst_event_unref (seg_event);

  if (forward) {
    GST_LOG_OBJECT (self, "gap at %" GST_TIME_FORMAT " on dist: forwarded",
        GST_TIME_ARGS (pts));
    GST_OBJECT_LOCK (agg);
    GST_AGGREGATOR_PAD (agg->srcpad)->segment.position =
        GST_CLOCK_TIME_IS_VALID (duration) ? pts + duration : pts;
    GST_OBJECT_UNLOCK (agg);
    gst_pad_push_event (srcpad, gst_event_new_gap (pts, duration));
  } else {
    GST_DEBUG_OBJECT (self, "gap at %" GST_TIME_FORMAT " on %s: counted, "
        "not forwarded", GST_TIME_ARGS (pts), r.name.c_str ());
  }
  gst_buffer_unref (gap);
}

/* @r's pad has ended: its measurement ends with its summary (posted by
 * post_due_summaries). @ref is the ref head at that moment: a frame there
 * lies after the end of @r's stream (the pairing took every earlier one). */
static void
finish_rendition (GstSsim2Compare * self, Rendition & r,
    const ssim2gst::PadHead & ref)
{
  r.finished = true;

  /* The pad has ended; ref may still hold frames. Only a ref frame waiting
   * now says that ref had more: an empty ref queue before ref's EOS has
   * arrived says nothing (both may end at the same frame). */
  ssim2::InputEnds ends;
  ends.ref_after_dist_end = ref.has_buffer && !ref.gap ? 1 : 0;
  ends.ref_frames = r.ref_frames + ends.ref_after_dist_end;
  ends.dist_frames = r.st.frames;
  ends.ref_ended = r.ref_ended;
  ends.dist_ended = true;
  ends.dist_after_ref_end = r.ref_ended_first ? r.passed_after_ref_eos : 0;
  r.ended_first = ssim2::EndedFirst (ends);
  if (r.ended_first) {
    const std::string text = ssim2::EndedFirstMessage (*r.ended_first, ends,
        r.scores.size ());
    const std::string prefix = pad_prefix (self, r);
    GST_ELEMENT_WARNING_WITH_DETAILS (self, STREAM, FAILED,
        ("%s%c%s (the other input's remaining frames are not scored).",
            prefix.c_str (), prefix.empty ()? g_ascii_toupper (text[0]) :
            text[0], text.c_str () + 1),
        ("Check that both inputs are the same clip; use alignment=sequence "
            "if their timestamps differ."),
        ("ended-first", G_TYPE_STRING, ssim2::InputName (*r.ended_first),
            "ref-frames", G_TYPE_UINT64, (guint64) ends.ref_frames,
            "dist-frames", G_TYPE_UINT64, (guint64) ends.dist_frames,
            "pad", G_TYPE_STRING, r.name.c_str (), NULL));
  }

#ifdef HAVE_GST_CUDA
  GstSsim2ComparePrivate *priv = self->priv;
  if (priv->use_cuda) {
    GST_INFO_OBJECT (self, "CUDA input: ref %" G_GUINT64_FORMAT " frames in "
        "place, %" G_GUINT64_FORMAT " from system memory; %s %" G_GUINT64_FORMAT
        " in place, %" G_GUINT64_FORMAT " from system memory",
        priv->ref.reader.in_place (), priv->ref.reader.host (),
        r.name.c_str (), r.st.reader.in_place (), r.st.reader.host ());
  }
#endif

  r.summary_due = true;
}

/* Posts the summary of @r's current measurement. */
static void
post_summary (GstSsim2Compare * self, Rendition & r)
{
  r.summary_due = false;
  window_post (self, r);
  GstSsim2ComparePrivate *priv = self->priv;
  const ssim2::Summary sum = ssim2::Summarize (r.scores);
  GstStructure *s = gst_structure_new ("ssim2-summary",
      "frames", G_TYPE_UINT64, (guint64) sum.frames, NULL);
  for (const ssim2::SummaryField & field:ssim2::kSummaryFields) {
    /* GStreamer field names use '-' where the files use '_'. */
    gchar *name = g_strdelimit (g_strdup (field.name), "_", '-');
    gst_structure_set (s, name, G_TYPE_DOUBLE, sum.*field.value, NULL);
    g_free (name);
  }
  gst_structure_set (s,
      "unmatched-ref", G_TYPE_UINT64, r.unmatched_ref,
      "unmatched-dist", G_TYPE_UINT64, r.unmatched_dist,
      "skipped", G_TYPE_UINT64, r.skipped,
      "ended-first", G_TYPE_STRING,
      r.ended_first ? ssim2::InputName (*r.ended_first) : "",
      "backend", G_TYPE_STRING,
      priv->scorer ? priv->scorer->description ().c_str () : "",
      "pad", G_TYPE_STRING, r.name.c_str (),
      "failure", G_TYPE_STRING, r.failed ? r.failure.c_str () : "", NULL);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* The ref frame at @r's head as the pairing decision sees it: from the
 * queue of ref frames taken already, else the head of the ref pad. */
static void
describe_ref_head (GstSsim2Compare * self, const Rendition & r,
    ssim2gst::PadHead * head)
{
  GstSsim2ComparePrivate *priv = self->priv;
  head->stream_end = priv->ref_end.load ();
  const guint64 at = r.ref_pos - priv->ref_base;
  if (at < priv->ref_queue.size ()) {
    const RefFrame & f = priv->ref_queue[at];
    head->has_buffer = true;
    head->gap = f.gap;
    head->time = f.time;
    head->duration = f.duration;
    return;
  }
  GstBuffer *buf = gst_aggregator_pad_peek_buffer (self->ref_pad);
  head->has_buffer = buf != nullptr;
  head->eos = !buf && gst_aggregator_pad_is_eos (self->ref_pad);
  if (!buf)
    return;
  head->gap = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP) &&
      gst_buffer_get_size (buf) == 0;
  head->time = pad_time (self->ref_pad, priv->run.alignment,
      GST_BUFFER_PTS (buf));
  head->duration = frame_duration (priv->ref, buf);
  gst_buffer_unref (buf);
}

/* The head of @r's pad as the pairing decision sees it. */
static void
describe_dist_head (GstSsim2Compare * self, const Rendition & r,
    GstBuffer * buf, ssim2gst::PadHead * head)
{
  GstSsim2ComparePrivate *priv = self->priv;
  head->has_buffer = buf != nullptr;
  head->eos = !buf && gst_aggregator_pad_is_eos (r.pad);
  head->stream_end = r.end.load ();
  if (!buf)
    return;
  head->gap = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP) &&
      gst_buffer_get_size (buf) == 0;
  head->time = pad_time (r.pad, priv->run.alignment, GST_BUFFER_PTS (buf));
  head->duration = frame_duration (r.st, buf);
}

/* Moves @r past the ref frame at its head and returns it (owned by the
 * queue), taking it from the ref pad into the queue when @r is the first
 * rendition to go past it. */
static const RefFrame *
take_ref (GstSsim2Compare * self, Rendition & r)
{
  GstSsim2ComparePrivate *priv = self->priv;
  const guint64 at = r.ref_pos - priv->ref_base;
  if (at >= priv->ref_queue.size ()) {
    GstBuffer *buf = gst_aggregator_pad_peek_buffer (self->ref_pad);
    if (!buf)
      return nullptr;
    /* The times before the pop, while the pad's segment is this buffer's. */
    RefFrame f;
    f.gap = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP) &&
        gst_buffer_get_size (buf) == 0;
    f.time = pad_time (self->ref_pad, priv->run.alignment,
        GST_BUFFER_PTS (buf));
    f.stream_time = pad_time (self->ref_pad,
        GST_SSIM2_COMPARE_ALIGNMENT_STREAM_TIME, GST_BUFFER_PTS (buf));
    f.duration = frame_duration (priv->ref, buf);
    gst_buffer_unref (buf);
    f.buf = gst_aggregator_pad_pop_buffer (self->ref_pad);
    if (!f.buf)
      return nullptr;           /* flushed meanwhile */
    priv->ref_queue.push_back (f);
    priv->ref_next++;
  }
  const RefFrame *f = &priv->ref_queue[r.ref_pos - priv->ref_base];
  r.ref_pos++;
  if (!f->gap)
    r.ref_frames++;
  return f;
}

/* Drops the ref frames every rendition still measuring has gone past. */
static void
ref_queue_trim (GstSsim2Compare * self,
    const std::vector < RenditionPtr > &list)
{
  GstSsim2ComparePrivate *priv = self->priv;
  guint64 keep_from = priv->ref_next;
  for (const RenditionPtr & r:list) {
    if (!r->finished && !r->released && !r->failed &&
        r->ref_pos != GST_CLOCK_TIME_NONE)
      keep_from = MIN (keep_from, r->ref_pos);
  }
  while (priv->ref_base < keep_from && !priv->ref_queue.empty ()) {
    gst_clear_buffer (&priv->ref_queue.front ().buf);
    priv->ref_queue.pop_front ();
    priv->ref_base++;
  }
}

/* Output caps follow the `dist` caps (also after renegotiation). */
static bool
ensure_src_caps (GstSsim2Compare * self, const Rendition & dist)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstCaps *scaps = gst_pad_get_current_caps (GST_AGGREGATOR_SRC_PAD (agg));
  bool need = dist.st.caps && (!scaps ||
      !gst_caps_is_equal (dist.st.caps, scaps));
  if (scaps)
    gst_caps_unref (scaps);
  return !need || gst_aggregator_negotiate (agg);
}

/* Running-time pairing after a flushing seek pairs the frames that follow
 * the seek in each stream. When the two streams restarted at different
 * positions (a KEY_UNIT seek on streams with different keyframes) those
 * are different moments: say so once per measurement. */
static void
check_positions_after_seek (GstSsim2Compare * self, Rendition & r,
    const RefFrame & ref, GstBuffer * dist)
{
  GstSsim2ComparePrivate *priv = self->priv;
  if (priv->seeks == 0 || r.seek_positions_checked ||
      priv->run.alignment != GST_SSIM2_COMPARE_ALIGNMENT_RUNNING_TIME)
    return;
  r.seek_positions_checked = true;
  const GstClockTime st_r = ref.stream_time;
  const GstClockTime st_d = pad_time (r.pad,
      GST_SSIM2_COMPARE_ALIGNMENT_STREAM_TIME, GST_BUFFER_PTS (dist));
  if (!GST_CLOCK_TIME_IS_VALID (st_r) || !GST_CLOCK_TIME_IS_VALID (st_d))
    return;
  const GstClockTime tol = ssim2gst::PairingTolerance (ref.duration,
      frame_duration (r.st, dist));
  const GstClockTime diff = st_r > st_d ? st_r - st_d : st_d - st_r;
  if (diff <= tol)
    return;
  GST_ELEMENT_WARNING_WITH_DETAILS (self, STREAM, FAILED,
      ("%sAfter the seek the two streams restarted at different positions "
          "(ref at %" GST_TIME_FORMAT ", %s at %" GST_TIME_FORMAT "): pairing "
          "by running time compares different moments.",
          pad_prefix (self, r).c_str (), GST_TIME_ARGS (st_r),
          r.name.c_str (), GST_TIME_ARGS (st_d)),
      ("Use alignment=stream-time to pair frames by their position in the "
          "media, or seek with GST_SEEK_FLAG_ACCURATE."),
      ("ref-position", G_TYPE_UINT64, (guint64) st_r, "dist-position",
          G_TYPE_UINT64, (guint64) st_d, "pad", G_TYPE_STRING,
          r.name.c_str (), NULL));
}

/* Whether the pair of @dist, the head of @r's pad, is later than
 * max-lateness behind the clock: the time it should have left the element
 * (its running time plus the latency in a live pipeline) is that far in
 * the past. */
static bool
too_late (GstSsim2Compare * self, Rendition & r, GstBuffer * dist)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  gint64 max_lateness;
  GST_OBJECT_LOCK (self);
  max_lateness = self->priv->settings.max_lateness;
  GST_OBJECT_UNLOCK (self);
  /* GST_CLOCK_TIME_NONE when no live source feeds the element. */
  const GstClockTime latency = gst_aggregator_get_latency (agg);
  const bool live = GST_CLOCK_TIME_IS_VALID (latency);
  if (max_lateness < 0) {
    if (!live)
      return false;
    max_lateness = AUTO_LIVE_MAX_LATENESS;
  }
  const GstClockTime rt = pad_time (r.pad,
      GST_SSIM2_COMPARE_ALIGNMENT_RUNNING_TIME, GST_BUFFER_PTS (dist));
  GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));
  if (!clock || !GST_CLOCK_TIME_IS_VALID (rt)) {
    if (clock)
      gst_object_unref (clock);
    return false;
  }
  const GstClockTime now = gst_clock_get_time (clock);
  const GstClockTime base = gst_element_get_base_time (GST_ELEMENT (self));
  gst_object_unref (clock);
  const GstClockTime due = rt + (live ? latency : 0);
  if (now < base || now - base <= due)
    return false;
  const guint64 lateness = now - base - due;
  if (lateness <= (guint64) max_lateness)
    return false;
  GST_LOG_OBJECT (self, "%s: pair at %" GST_TIME_FORMAT " is %"
      GST_TIME_FORMAT " late: not scored", r.name.c_str (), GST_TIME_ARGS (rt),
      GST_TIME_ARGS (lateness));
  return true;
}

/* A rendition must have the reference's size (the reference implementation
 * compares images of one size): else it fails (rendition_failed). */
static bool
same_size (GstSsim2Compare * self, Rendition & r)
{
  const GstVideoInfo & ri = self->priv->ref.fmt.info;
  const GstVideoInfo & di = r.st.fmt.info;
  const int w = GST_VIDEO_INFO_WIDTH (&ri), h = GST_VIDEO_INFO_HEIGHT (&ri);
  if (w == GST_VIDEO_INFO_WIDTH (&di) && h == GST_VIDEO_INFO_HEIGHT (&di))
    return true;
  const gchar *pad = r.name.c_str ();
  g_autofree gchar *text = g_strdup_printf ("The ref frames are %dx%d but "
      "the frames of pad %s are %dx%d: a rendition must have the "
      "reference's size.", w, h, pad, GST_VIDEO_INFO_WIDTH (&di),
      GST_VIDEO_INFO_HEIGHT (&di));
  g_autofree gchar *debug = g_strdup_printf ("Scale it to the reference's "
      "size before the pad (the scaler is part of what is measured): ... ! "
      "videoscale method=bilinear ! video/x-raw,width=%d,height=%d ! c.%s, "
      "or on the GPU ... ! cudascale ! "
      "video/x-raw(memory:CUDAMemory),width=%d,height=%d ! c.%s", w, h, pad,
      w, h, pad);
  rendition_failed (self, r, text, debug);
  return false;
}

/* Takes the ref frame at @r's head and the head of its pad as a pair: into
 * @pending, to be scored with the other renditions' pairs of this pass
 * (submit_pass), or unscored at once under frame-step or when too late.
 * Owns @dist, the peeked buffer of @r's pad. */
static GstFlowReturn
take_pair (GstSsim2Compare * self, Rendition & r, GstBuffer * dist,
    std::vector < PendingPair > &pending)
{
  GstSsim2ComparePrivate *priv = self->priv;
  const guint64 ref_seq = r.ref_pos;
  const RefFrame *ref = take_ref (self, r);
  if (!ref) {
    gst_buffer_unref (dist);
    return GST_FLOW_OK;
  }
  check_positions_after_seek (self, r, *ref, dist);
  if (!same_size (self, r)) {
    gst_buffer_unref (dist);
    return r.failed ? GST_FLOW_OK : GST_FLOW_NOT_NEGOTIATED;
  }
  const guint64 index = r.pair_index++;
  const guint step = MAX (priv->run.frame_step, 1u);
  const bool unscored = index % step != 0;
  const bool late = !unscored && too_late (self, r, dist);
  if (unscored || late) {
    gst_buffer_unref (dist);
    /* The pairs in flight leave first. */
    GstFlowReturn ret = complete_scoring (self, 0);
    if (ret != GST_FLOW_OK)
      return ret;
    if (late)
      r.skipped++;
    return push_dist (self, r, nullptr, index, late);
  }
  /* The frame leaves the pad now: the next pass steps @r while this pair
   * is scored. */
  gst_buffer_unref (dist);
  dist = gst_aggregator_pad_pop_buffer (r.pad);
  if (!dist)
    return GST_FLOW_OK;
  PendingPair p;
  p.rendition = &r;
  p.ref.reset (gst_buffer_ref (ref->buf));
  p.ref_seq = ref_seq;
  p.dist.reset (dist);
  p.index = index;
  pending.push_back (std::move (p));
  return GST_FLOW_OK;
}

/* Hands the pairs taken in this pass to the scorer without waiting for
 * their scores: the pairs of one ref frame in one call (one preparation of
 * the reference; on the GPU the renditions are scored concurrently). A
 * group that cannot be submitted is scored one by one when the batch
 * completes. */
static void
submit_pass (GstSsim2Compare * self, std::vector < PendingPair > &pending)
{
  GstSsim2ComparePrivate *priv = self->priv;
  auto batch = std::make_unique < ssim2gst::ScoringBatch > ();
  batch->pairs = std::move (pending);
  pending.clear ();
  for (size_t i = 0; i < batch->pairs.size (); ++i) {
    const PendingPair & p = batch->pairs[i];
    auto g = std::find_if (batch->groups.begin (), batch->groups.end (),
        [&](const ssim2gst::ScoringGroup & group) {
          return batch->pairs[group.members.front ()].ref_seq == p.ref_seq;
        });
    if (g == batch->groups.end ()) {
      batch->groups.emplace_back ();
      g = batch->groups.end () - 1;
    }
    g->members.push_back (i);
  }
  for (const RenditionPtr & r:renditions_snapshot (self)) {
    for (const PendingPair & p:batch->pairs) {
      if (p.rendition == r.get ()) {
        batch->renditions.push_back (r);
        break;
      }
    }
  }
  for (ssim2gst::ScoringGroup & g:batch->groups)
    gst_ssim2_compare_submit_group (self, batch->pairs, g);
  priv->scoring.push_back (std::move (batch));
}

/* Waits for every group of @b the scorer took; false when one of them
 * could not be collected (its pairs are then scored one by one). */
static bool
collect_batch (GstSsim2Compare * self, ssim2gst::ScoringBatch & b)
{
  bool all = true;
  for (ssim2gst::ScoringGroup & g:b.groups)
    all = gst_ssim2_compare_collect_group (self, b.pairs, g) && all;
  return all;
}

/* Waits for the batches in flight and drops them with their frames, not
 * pushed: flushing, stopping. */
static void
drop_scoring (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  for (auto & b:priv->scoring)
    collect_batch (self, *b);
  priv->scoring.clear ();
}

/* Completes the batches in flight but the @keep newest, oldest first: waits
 * for their scores, scores one by one the pairs that did not get one (which
 * reports what failed) and pushes them on in the order they were taken.
 * Scoring one by one may switch the backend, so nothing stays in flight
 * then. */
static GstFlowReturn
complete_scoring (GstSsim2Compare * self, size_t keep)
{
  GstSsim2ComparePrivate *priv = self->priv;
  auto & scoring = priv->scoring;
  size_t n = scoring.size () > keep ? scoring.size () - keep : 0;
  bool all_scored = true;
  for (size_t i = 0; i < n; ++i)
    all_scored = collect_batch (self, *scoring[i]) && all_scored;
  if (!all_scored) {
    for (size_t i = n; i < scoring.size (); ++i)
      collect_batch (self, *scoring[i]);
    n = scoring.size ();
  }
  GstFlowReturn ret = GST_FLOW_OK;
  for (; n > 0 && ret == GST_FLOW_OK; --n) {
    std::unique_ptr < ssim2gst::ScoringBatch > b =
        std::move (scoring.front ());
    scoring.pop_front ();
    for (PendingPair & p:b->pairs) {
      if (p.scored)
        continue;
      ret = gst_ssim2_compare_score_pair (self, p.ref.get (), p.ref_seq,
          *p.rendition, p.dist.get (), &p.score);
      if (ret != GST_FLOW_OK)
        break;
      p.scored = true;
    }
    for (PendingPair & p:b->pairs) {
      if (ret != GST_FLOW_OK)
        break;
      GST_DEBUG_OBJECT (self, "%s pair %" G_GUINT64_FORMAT ": %.8f",
          p.rendition->name.c_str (), p.index, p.score);
      ret = push_dist_buffer (self, *p.rendition,
          p.dist.release (), &p.score, p.index, false);
    }
  }
  if (ret != GST_FLOW_OK)
    drop_scoring (self);        /* the pipeline stops */
  return ret;
}

static ssim2gst::Alignment
pairing_alignment (GstSsim2CompareAlignment a)
{
  switch (a) {
    case GST_SSIM2_COMPARE_ALIGNMENT_SEQUENCE:
      return ssim2gst::Alignment::kSequence;
    case GST_SSIM2_COMPARE_ALIGNMENT_STREAM_TIME:
      return ssim2gst::Alignment::kStreamTime;
    case GST_SSIM2_COMPARE_ALIGNMENT_RUNNING_TIME:
    default:
      return ssim2gst::Alignment::kRunningTime;
  }
}

/* A failed rendition's frames are taken unscored (the `dist` pad's still
 * leave on src) until its pad ends; its summary then says why. */
static GstFlowReturn
take_unscored (GstSsim2Compare * self, Rendition & r, bool *progressed)
{
  GstBuffer *dist = gst_aggregator_pad_peek_buffer (r.pad);
  *progressed = dist || gst_aggregator_pad_is_eos (r.pad);
  if (dist) {
    const bool gap = GST_BUFFER_FLAG_IS_SET (dist, GST_BUFFER_FLAG_GAP) &&
        gst_buffer_get_size (dist) == 0;
    gst_buffer_unref (dist);
    if (r.to_src && !ensure_src_caps (self, r))
      return GST_FLOW_NOT_NEGOTIATED;
    if (gap) {
      pass_gap (self, r);
      return GST_FLOW_OK;
    }
    return push_dist (self, r, nullptr, 0, false);
  }
  if (*progressed) {
    r.finished = true;
    r.summary_due = true;
  }
  return GST_FLOW_OK;
}

/* One pairing step of rendition @r; *progressed tells whether it took
 * anything. */
static GstFlowReturn
step_rendition (GstSsim2Compare * self, Rendition & r, gboolean timeout,
    bool *progressed, std::vector < PendingPair > &pending)
{
  GstSsim2ComparePrivate *priv = self->priv;
  if (r.ref_pos == GST_CLOCK_TIME_NONE)
    r.ref_pos = priv->ref_base;         /* requested since the last pass */
  if (r.failed) {
    /* Its pairs in flight leave before its unscored frames. */
    GstFlowReturn ret = complete_scoring (self, 0);
    if (ret != GST_FLOW_OK)
      return ret;
    return take_unscored (self, r, progressed);
  }

  g_autoptr (GstBuffer) dist = gst_aggregator_pad_peek_buffer (r.pad);
  ssim2gst::PairingInput in;
  in.alignment = pairing_alignment (priv->run.alignment);
  in.timeout = timeout;
  describe_ref_head (self, r, &in.ref);
  describe_dist_head (self, r, dist, &in.dist);

  if (in.ref.eos && !r.ref_ended) {
    r.ref_ended = true;
    r.ref_ended_first = !in.dist.eos;
  }
  if (in.dist.eos)
    r.st.ended = true;
  if (dist && r.to_src && !ensure_src_caps (self, r))
    return GST_FLOW_NOT_NEGOTIATED;

  const ssim2gst::PairingDecision decision = ssim2gst::DecidePairing (in);
  *progressed = decision.action != ssim2gst::PairingAction::kNeedData;
  /* Pushing or ending: the pairs in flight leave first, so that every
   * pad's frames, messages and stats rows keep their order. */
  if (decision.action == ssim2gst::PairingAction::kPassDist ||
      decision.action == ssim2gst::PairingAction::kPassGap ||
      decision.action == ssim2gst::PairingAction::kFinish) {
    GstFlowReturn ret = complete_scoring (self, 0);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  switch (decision.action) {
    case ssim2gst::PairingAction::kPair:
      return take_pair (self, r, (GstBuffer *) g_steal_pointer (&dist),
          pending);
    case ssim2gst::PairingAction::kDropRef:
      GST_LOG_OBJECT (self, "ref %" GST_TIME_FORMAT " has no %s frame, "
          "dropping it", GST_TIME_ARGS (in.ref.time), r.name.c_str ());
      r.unmatched_ref++;
      take_ref (self, r);
      return GST_FLOW_OK;
    case ssim2gst::PairingAction::kDropRefGap:
      take_ref (self, r);
      return GST_FLOW_OK;
    case ssim2gst::PairingAction::kPassDist:
      GST_LOG_OBJECT (self, "%s %" GST_TIME_FORMAT " has no ref frame, "
          "passing it unscored", r.name.c_str (),
          GST_TIME_ARGS (in.dist.time));
      r.unmatched_dist++;
      if (decision.after_ref_end)
        r.passed_after_ref_eos++;
      gst_clear_buffer (&dist);
      return push_dist (self, r, nullptr, 0, false);
    case ssim2gst::PairingAction::kPassGap:
      pass_gap (self, r);
      return GST_FLOW_OK;
    case ssim2gst::PairingAction::kFinish:
      finish_rendition (self, r, in.ref);
      return GST_FLOW_OK;
    case ssim2gst::PairingAction::kNeedData:
    default:
      return GST_FLOW_OK;
  }
}

/* Each pass takes one step of every rendition still measuring, so that the
 * renditions go through the ref frames together and each ref frame is
 * prepared once for all of them. */
static GstFlowReturn
aggregate_pass (GstAggregator * agg, gboolean timeout)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);
  GstSsim2ComparePrivate *priv = self->priv;

  std::vector < RenditionPtr > list = renditions_snapshot (self);
  std::vector < PendingPair > pending;
  bool progressed = false;
  bool all_finished = true;
  for (const RenditionPtr & r:list) {
    if (r->released) {
      /* Its measurement ends where the pad was released, after its pairs
       * in flight. */
      GstFlowReturn ret = complete_scoring (self, 0);
      if (ret != GST_FLOW_OK)
        return ret;
      if (!r->finished) {
        r->finished = true;
        r->summary_due = true;
      }
      g_mutex_lock (&priv->renditions_lock);
      priv->renditions.erase (std::remove (priv->renditions.begin (),
              priv->renditions.end (), r), priv->renditions.end ());
      g_mutex_unlock (&priv->renditions_lock);
      progressed = true;
      continue;
    }
    if (r->finished)
      continue;
    bool stepped = false;
    GstFlowReturn ret = step_rendition (self, *r, timeout, &stepped, pending);
    progressed = progressed || stepped;
    if (ret != GST_FLOW_OK)
      return ret;
    all_finished = all_finished && r->finished;
  }
  /* Pipelined scoring: this pass's pairs go to the scorer before the
   * previous pass's are collected and pushed, so that the scorer (the GPU)
   * works while this thread pushes, maps and steps. A live pipeline gets
   * its scores in the same pass (no added latency); so do the last pairs,
   * and a pass that took none does not leave any waiting for more data. */
  const bool submitted = !pending.empty ();
  if (submitted)
    submit_pass (self, pending);
  const bool live = GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (agg));
  const size_t in_flight = priv->scoring.size ();
  const size_t keep = submitted && !live && !all_finished ? kPassesInFlight : 0;
  GstFlowReturn scored = complete_scoring (self, keep);
  if (scored != GST_FLOW_OK)
    return scored;
  progressed = progressed || in_flight > priv->scoring.size ();
  ref_queue_trim (self, list);

  /* The stats file is complete before the last summary is posted. */
  if (all_finished) {
    priv->finished = true;
    stats_close (self);
  }
  for (const RenditionPtr & r:list) {
    if (r->summary_due)
      post_summary (self, *r);
  }
  if (all_finished)
    return GST_FLOW_EOS;
  return progressed ? GST_FLOW_OK : GST_AGGREGATOR_FLOW_NEED_DATA;
}

/* One pass, timed: at the end the INFO log says how much of the
 * aggregator thread's time went to handing pairs to the scorer and to
 * waiting for scores (most of it when the scorer is the bottleneck, little
 * when the thread itself is). */
static GstFlowReturn
gst_ssim2_compare_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);
  GstSsim2ComparePrivate *priv = self->priv;

  if (priv->finished)
    return GST_FLOW_EOS;
  const gint64 start = g_get_monotonic_time ();
  const GstFlowReturn ret = aggregate_pass (agg, timeout);
  priv->timing.aggregate_us += g_get_monotonic_time () - start;
  if (priv->finished) {
    GST_INFO_OBJECT (self, "aggregator thread: %.3f s in passes, %.3f s "
        "submitting pairs, %.3f s waiting for scores; scorer memory %"
        G_GSIZE_FORMAT " bytes", priv->timing.aggregate_us / 1e6,
        priv->timing.submit_us / 1e6, priv->timing.collect_us / 1e6,
        priv->scorer ? priv->scorer->memory_bytes () : (gsize) 0);
  }
  return ret;
}
