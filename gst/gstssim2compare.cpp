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
 * are the same RGB pixels (docs/ELEMENT.md, "Colour conversion").
 *
 * The `dist` buffers leave on the `src` pad unchanged (same caps, same
 * memory), each scored one carrying a #GstSsim2Meta (see gstssim2meta.h) with
 * its score and pair index. `ref` buffers are consumed.
 *
 * Further renditions of the reference (an ABR ladder) go to request pads
 * `dist_%u`, each paired with `ref` on its own and with its own messages and
 * summary; each ref frame is prepared once for all of them. With
 * #GstSsim2Compare:alignment frames are paired by running time (the
 * default), by order, or by stream time. Frames without a partner pass on
 * unscored.
 *
 * For each scored frame (#GstSsim2Compare:post-messages) the element posts an
 * element message `ssim2`, at the end of each measurement an `ssim2-summary`,
 * and with #GstSsim2Compare:interval an `ssim2-interval` per window;
 * #GstSsim2Compare:stats-file writes the scores to a file (CSV, JSON or
 * libvmaf's JSON log) and #GstSsim2Compare:summary-file the summaries. With
 * backend=auto or cuda it scores on an NVIDIA GPU,
 * reading `video/x-raw(memory:CUDAMemory)` in place, else on the CPU.
 *
 * The full reference is docs/ELEMENT.md of gst-ssim2: the pairing rules,
 * live behaviour, caps and colour conversion, CUDA, memory, and the schema
 * of every message (said there once; gstssim2message.h reads and writes
 * them). The stats and summary files' schema is in docs/LOGS.md.
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
 * ]| The same, with the scores in libvmaf's JSON log.
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
 *
 * ## Messages
 *
 * Element messages, each with a `pad` field naming its rendition (fields in
 * docs/ELEMENT.md, "Messages"), all since 0.1: `ssim2` (a scored frame),
 * `ssim2-summary` (the end of a measurement), `ssim2-interval` (a window of
 * #GstSsim2Compare:interval) and `ssim2-sync` (alignment=content locked,
 * lost or locked again).
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstssim2compare.h"
#include "gstssim2compare-private.h"
#include "gstssim2meta-private.h"
#include "gstssim2report.h"
#include "gstssim2pairing.h"
#include "gstssim2sync.h"

#include <gst/video/video.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "ssim2/ssim2.h"

GST_DEBUG_CATEGORY (gst_ssim2_compare_debug);
#define GST_CAT_DEFAULT gst_ssim2_compare_debug

using ssim2gst::PadState;
using ssim2gst::RefFrame;
using ssim2gst::Rendition;
using ssim2gst::Settings;
using ssim2gst::PendingPair;
using RenditionPtr = std::shared_ptr < Rendition >;

#define SSIM2_FORMATS \
  "{ RGB, RGBA, BGRA, RGBx, BGRx, RGBA64_LE, I420, NV12, Y444, P010_10LE, " \
  "I420_10LE, GRAY8, GRAY16_LE }"
/* The metric's minimum frame size (the reference refuses smaller images),
 * stated in the pad templates so that negotiation knows it. */
#define SSIM2_MIN_SIZE 8
#define SSIM2_SIZE_RANGE "(int) [ " G_STRINGIFY (SSIM2_MIN_SIZE) ", max ]"
#define SSIM2_VIDEO_CAPS(media) \
  media ", format = (string) " SSIM2_FORMATS ", width = " SSIM2_SIZE_RANGE \
  ", height = " SSIM2_SIZE_RANGE ", framerate = " GST_VIDEO_FPS_RANGE
#define SSIM2_CAPS \
  SSIM2_VIDEO_CAPS ("video/x-raw(memory:CUDAMemory)") "; " \
  SSIM2_VIDEO_CAPS ("video/x-raw")

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
  PROP_SUMMARY_FILE,
  PROP_THRESHOLD,
  PROP_FRAME_STEP,
  PROP_THREADS,
  PROP_INTERVAL,
  PROP_MAX_LATENESS,
  PROP_SYNC_WINDOW,
  PROP_SYNC_MAX_BYTES,
  PROP_SCORING_PASSES,
  PROP_HELD_REF_FRAMES,         /* the three watchdog properties, */
  PROP_HELD_REF_BYTES,          /* in gst_ssim2_compare_get_held_ref's order */
  PROP_HELD_REF_FRAMES_BY_PAD,
  PROP_MEMORY_LIMIT,
  PROP_SEQUENTIAL_SUMS,
};

#define GST_TYPE_SSIM2_COMPARE_ALIGNMENT (gst_ssim2_compare_alignment_get_type ())
static GType
gst_ssim2_compare_alignment_get_type (void)
{
  static GType type = 0;
  /* From the one name table (gstssim2alignment.h), ended by a zeroed
   * entry. */
  static GEnumValue values[G_N_ELEMENTS (ssim2gst::kAlignments) + 1];
  if (g_once_init_enter (&type)) {
    for (size_t i = 0; i < G_N_ELEMENTS (ssim2gst::kAlignments); ++i) {
      const ssim2gst::AlignmentInfo & a = ssim2gst::kAlignments[i];
      values[i] = { (gint) a.value, a.description, a.name };
    }
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
   * How frames of the two pads are paired. content finds, for every dist
   * frame, the ref frame that shows the same picture (offsets, dropped and
   * repeated frames, unrelated timestamps) and passes frames it cannot be
   * sure of unscored; see #GstSsim2Compare:sync-window.
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, PROP_ALIGNMENT,
      g_param_spec_enum ("alignment", "Alignment",
          "How frames of the two pads are paired: by running time, the Nth "
          "buffer of each pad, by stream time (position in each stream), or "
          "by content (the ref frame showing the same picture)",
          GST_TYPE_SSIM2_COMPARE_ALIGNMENT,
          (gint) DEFAULT_ALIGNMENT,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:backend:
   *
   * Where the metric runs. auto: CUDA when a device works, else the CPU with
   * a warning message; cuda: an error when there is no usable device.
   *
   * Since: 0.1
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
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1: automatic)", -1, G_MAXINT,
          DEFAULT_CUDA_DEVICE_ID,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  gst_ssim2_compare_install_report_properties (object_class,
      PROP_POST_MESSAGES, PROP_STATS_FILE, PROP_STATS_FORMAT, PROP_SUMMARY_FILE,
      PROP_THRESHOLD);

  /**
   * GstSsim2Compare:frame-step:
   *
   * Only every Nth pair is scored (pairs 0, N, 2N, ...); the others pass
   * through unscored.
   *
   * Since: 0.1
   */
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
   *
   * Since: 0.1
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
   *
   * Since: 0.1
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
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, PROP_MAX_LATENESS,
      g_param_spec_int64 ("max-lateness", "Max lateness",
          "Skip the scoring of pairs later than this (ns) behind the clock "
          "(-1: 1 s in live pipelines, never in others)", -1, G_MAXINT64,
          DEFAULT_MAX_LATENESS,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
              G_PARAM_STATIC_STRINGS)));

  gst_ssim2_compare_install_content_properties (object_class,
      PROP_SYNC_WINDOW, PROP_SYNC_MAX_BYTES, PROP_HELD_REF_FRAMES);

  /**
   * GstSsim2Compare:scoring-passes:
   *
   * Aggregate passes that have handed pairs to the scorer since the element
   * started. It grows as soon as scoring starts, while the `ssim2` messages
   * come only as the scores are collected (several passes later in a
   * non-live pipeline): a watchdog can tell a slow scorer from a stall.
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, PROP_SCORING_PASSES,
      g_param_spec_uint64 ("scoring-passes", "Scoring passes",
          "Aggregate passes that handed pairs to the scorer since start "
          "(read-only: progress for watchdogs)", 0, G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  gst_ssim2_compare_install_backend_properties (object_class,
      PROP_MEMORY_LIMIT, PROP_SEQUENTIAL_SUMS);

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
  gst_element_class_add_metadata (element_class, GST_ELEMENT_METADATA_DOC_URI,
      GST_PACKAGE_ORIGIN "/blob/main/docs/ELEMENT.md");

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
  agg_class->get_next_time =
      GST_DEBUG_FUNCPTR (gst_ssim2_compare_get_next_time);

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

RenditionPtr
gst_ssim2_compare_find_rendition (GstSsim2Compare * self,
    GstAggregatorPad * pad)
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

std::vector < RenditionPtr > gst_ssim2_compare_renditions (GstSsim2Compare * self)
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
    /* A released pad has left the element: its name is free again (its
     * rendition only waits for its summary, or for the next start). */
    if (r->name == name && !r->released) {
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
  RenditionPtr r = gst_ssim2_compare_find_rendition (self,
      GST_AGGREGATOR_PAD (pad));
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

/* One row per property stored in Settings: set_property and get_property
 * both walk this table, so a property's field is named in one place. How a
 * value crosses between GValue and field follows the field's type; a string
 * property keeps NULL as "" (no file) and reads "" back as NULL. */
struct SettingsProperty
{
  guint prop_id;
  void (*set) (Settings & s, const GValue * value);
  void (*get) (const Settings & s, GValue * value);
};

/* The GValue accessors of each plain field type, one row each. */
template < typename T > struct GValueAccess;
#define GVALUE_ACCESS(T, kind) \
  template <> struct GValueAccess < T > { \
    static constexpr auto get = g_value_get_##kind; \
    static constexpr auto set = g_value_set_##kind; \
  }
GVALUE_ACCESS (bool, boolean);
GVALUE_ACCESS (gint, int);
GVALUE_ACCESS (guint, uint);
GVALUE_ACCESS (gint64, int64);
GVALUE_ACCESS (guint64, uint64);
GVALUE_ACCESS (gdouble, double);
#undef GVALUE_ACCESS

template < auto Field > static void
settings_property_set (Settings & s, const GValue * value)
{
  auto &field = s.*Field;
  using T = std::remove_reference_t < decltype (field) >;
  if constexpr (std::is_enum_v < T >) {
    field = (T) g_value_get_enum (value);
  } else if constexpr (std::is_same_v < T, std::string >) {
    const gchar *str = g_value_get_string (value);
    field = str ? str : "";
  } else {
    field = GValueAccess < T >::get (value);
  }
}

template < auto Field > static void
settings_property_get (const Settings & s, GValue * value)
{
  const auto &field = s.*Field;
  using T = std::remove_cv_t < std::remove_reference_t < decltype (field) >>;
  if constexpr (std::is_enum_v < T >)
    g_value_set_enum (value, (gint) field);
  else if constexpr (std::is_same_v < T, std::string >)
    g_value_set_string (value, field.empty ()? NULL : field.c_str ());
  else
    GValueAccess < T >::set (value, field);
}

template < auto Field > static constexpr SettingsProperty
settings_property (guint prop_id)
{
  return {prop_id, settings_property_set < Field >,
      settings_property_get < Field >};
}

static const SettingsProperty settings_properties[] = {
  settings_property < &Settings::alignment > (PROP_ALIGNMENT),
  settings_property < &Settings::backend > (PROP_BACKEND),
  settings_property < &Settings::cuda_device > (PROP_CUDA_DEVICE_ID),
  settings_property < &Settings::post_messages > (PROP_POST_MESSAGES),
  settings_property < &Settings::stats_file > (PROP_STATS_FILE),
  settings_property < &Settings::stats_format > (PROP_STATS_FORMAT),
  settings_property < &Settings::summary_file > (PROP_SUMMARY_FILE),
  settings_property < &Settings::threshold > (PROP_THRESHOLD),
  settings_property < &Settings::every > (PROP_FRAME_STEP),
  settings_property < &Settings::threads > (PROP_THREADS),
  settings_property < &Settings::interval > (PROP_INTERVAL),
  settings_property < &Settings::max_lateness > (PROP_MAX_LATENESS),
  settings_property < &Settings::sync_window > (PROP_SYNC_WINDOW),
  settings_property < &Settings::sync_max_bytes > (PROP_SYNC_MAX_BYTES),
  settings_property < &Settings::memory_limit > (PROP_MEMORY_LIMIT),
  settings_property < &Settings::sequential_sums > (PROP_SEQUENTIAL_SUMS),
};

/* The row of @prop_id; NULL, with GObject's warning, when there is none. */
static const SettingsProperty *
find_settings_property (GObject * object, guint prop_id, GParamSpec * pspec)
{
  for (const SettingsProperty & p : settings_properties) {
    if (p.prop_id == prop_id)
      return &p;
  }
  G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  return NULL;
}

/* Property @prop_id of the settings, under the object lock: set from @in,
 * or read into @out. */
static void
settings_property_transfer (GObject * object, guint prop_id,
    const GValue * in, GValue * out, GParamSpec * pspec)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (object);
  const SettingsProperty *p = find_settings_property (object, prop_id, pspec);

  if (p == NULL)
    return;
  GST_OBJECT_LOCK (self);
  if (in != NULL)
    p->set (self->priv->settings, in);
  else
    p->get (self->priv->settings, out);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_ssim2_compare_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  settings_property_transfer (object, prop_id, value, NULL, pspec);
}

static void
gst_ssim2_compare_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  /* Not settings: atomic counters, read without the object lock. */
  GstSsim2ComparePrivate *priv = GST_SSIM2_COMPARE (object)->priv;
  switch (prop_id) {
    case PROP_SCORING_PASSES:
      g_value_set_uint64 (value, priv->scoring_passes.load ());
      return;
    case PROP_HELD_REF_FRAMES:
    case PROP_HELD_REF_BYTES:
    case PROP_HELD_REF_FRAMES_BY_PAD:
      gst_ssim2_compare_get_held_ref (GST_SSIM2_COMPARE (object),
          prop_id - PROP_HELD_REF_FRAMES, value);
      return;
    default:
      break;
  }
  settings_property_transfer (object, prop_id, NULL, value, pspec);
}

/* CUDA context sharing with the neighbours (the backend's context). */
static void
gst_ssim2_compare_set_context (GstElement * element, GstContext * context)
{
  gst_ssim2_compare_backend_set_context (GST_SSIM2_COMPARE (element),
      context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/* ------------------------------------------------------------------------ */
/* start / stop */

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
  for (const RenditionPtr & r:gst_ssim2_compare_renditions (self)) {
    r->st.Reset ();
    r->end = GST_CLOCK_TIME_NONE;
    r->unlinked = false;
  }
  priv->ref_next = 0;
  gst_ssim2_compare_reset_measurement (self);
  priv->seeks = 0;
  priv->scoring_passes = 0;
  gst_ssim2_compare_reset_deadlines (self);
  priv->timing = {};
  priv->ref_end = GST_CLOCK_TIME_NONE;

  if (!gst_ssim2_compare_open_backend (self))
    return FALSE;
  if (!gst_ssim2_compare_open_stats (self) ||
      !gst_ssim2_compare_open_summary_file (self)) {
    gst_ssim2_compare_close_stats (self);
    gst_ssim2_compare_close_backend (self);
    return FALSE;
  }
  gst_ssim2_compare_update_content_latency (self);
  return TRUE;
}

static gboolean
gst_ssim2_compare_stop (GstAggregator * agg)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);
  GstSsim2ComparePrivate *priv = self->priv;

  gst_ssim2_compare_stop_unlinked_wait (self);
  /* Pairs in flight are dropped, not pushed: the element stops. */
  gst_ssim2_compare_drop_pairs (self);
  /* Stopped before EOS: still leave a well-formed file. */
  gst_ssim2_compare_close_stats (self);
  gst_ssim2_compare_close_backend (self);
  gst_ssim2_compare_clear_ref_queue (self);
  gst_clear_caps (&priv->ref.caps);
  for (const RenditionPtr & r:gst_ssim2_compare_renditions (self))
    gst_clear_caps (&r->st.caps);
  return TRUE;
}

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
  gst_ssim2_compare_drop_pairs (self);
  bool ended = false;
  for (const RenditionPtr & r:gst_ssim2_compare_renditions (self)) {
    if (r->finished || !gst_ssim2_compare_measurement_started (*r))
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
    gst_ssim2_compare_close_stats (self);
  for (const RenditionPtr & r:gst_ssim2_compare_renditions (self)) {
    if (r->summary_due)
      gst_ssim2_compare_post_summary (self, *r);
  }
  const bool restart_file = !priv->stats;
  gst_ssim2_compare_reset_measurement (self);
  priv->seeks++;
  if (restart_file && !gst_ssim2_compare_open_stats (self))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

/* ------------------------------------------------------------------------ */
/* Caps */

/* Caps that cannot be scored: an error for ref; for a rendition a warning
 * that names its pad while other renditions still measure (its buffers are
 * then taken unscored), else an error. Returns what the caps event
 * returns. */
#define REFUSE_CAPS(text, debug) G_STMT_START { \
    g_autofree gchar *text_ = gst_info_strdup_printf text; \
    g_autofree gchar *debug_ = gst_info_strdup_printf debug; \
    if (rendition && gst_ssim2_compare_rendition_failed (self, *rendition, text_, debug_)) { \
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
  RenditionPtr rendition = is_ref ? nullptr :
      gst_ssim2_compare_find_rendition (self, pad);
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
  /* The templates refuse such caps already (accept-caps). */
  if (GST_VIDEO_INFO_WIDTH (&info) < SSIM2_MIN_SIZE
      || GST_VIDEO_INFO_HEIGHT (&info) < SSIM2_MIN_SIZE) {
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
  if (GST_VIDEO_INFO_IS_GRAY (&info) &&
      info.colorimetry.range == GST_VIDEO_COLOR_RANGE_16_235) {
    REFUSE_CAPS (("Grey frames in limited range on the %s pad cannot be "
            "compared: the reference reads a grey sample as full-range sRGB "
            "grey (0 black, the maximum white).", name),
        ("Convert with videoconvert to a full-range format first."));
  }
  ssim2::YuvColorimetry yuv;
  if (ssim2::IsYuvFormat (fmt) &&
      !ssim2gst::YuvColorimetryOf (info.colorimetry, &yuv)) {
    g_autofree gchar *cstr = gst_video_colorimetry_to_string (&info.colorimetry);
    REFUSE_CAPS (("The colour matrix of the %s pad (colorimetry %s) cannot "
            "be compared; supported: BT.601, BT.709, BT.2020.", name,
            GST_STR_NULL (cstr)),
        ("Convert with videoconvert to RGB or to a BT.709 format first."));
  }
  ssim2::ColorDescription color;
  std::string color_refusal, color_warning;
  if (!ssim2gst::ColorDescriptionOf (info, caps, fmt, &color, &color_refusal,
          &color_warning)) {
    REFUSE_CAPS (("Frames of the %s pad: %s.", name, color_refusal.c_str ()),
        ("%" GST_PTR_FORMAT, caps));
  }
  if (!color_warning.empty ())
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("Frames of the %s pad: %s.",
            name, color_warning.c_str ()), ("%" GST_PTR_FORMAT, caps));
  GST_INFO_OBJECT (self, "%s pad: %s, %s primaries, intensity target %g cd/m2",
      name, ssim2::TransferName (color.transfer),
      ssim2::PrimariesName (color.primaries), ssim2::IntensityTarget (color));

  GST_DEBUG_OBJECT (self, "%s caps %" GST_PTR_FORMAT, name, caps);
  gst_caps_replace (&st.caps, caps);
  st.fmt.info = info;
  st.fmt.format = fmt;
  st.fmt.yuv = yuv;
  st.fmt.color = color;
  st.have_info = true;
  if (is_ref)
    gst_ssim2_compare_update_content_latency (self);

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
    GstFlowReturn ret = gst_ssim2_compare_complete_scoring (self);
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
      /* A stream starts on @pad: the other pads have some time to be
       * linked. */
      gst_ssim2_compare_watch_unlinked_pads (self);
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

/* Each pass takes one step of every rendition still measuring, so that the
 * renditions go through the ref frames together and each ref frame is
 * prepared once for all of them. */
static GstFlowReturn
aggregate_pass (GstAggregator * agg, gboolean timeout)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);
  GstSsim2ComparePrivate *priv = self->priv;

  std::vector < RenditionPtr > list = gst_ssim2_compare_renditions (self);
  std::vector < PendingPair > pending;
  bool progressed = false;
  bool all_finished = true;
  for (const RenditionPtr & r:list) {
    if (r->released) {
      /* Its measurement ends where the pad was released, after its pairs
       * in flight. */
      GstFlowReturn ret = gst_ssim2_compare_complete_scoring (self);
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
    if (r->unlinked && !r->finished) {
      /* Left out (gstssim2unlinked.cpp): no frame, no summary. */
      r->finished = true;
      progressed = true;
      continue;
    }
    if (r->finished)
      continue;
    bool stepped = false;
    GstFlowReturn ret = gst_ssim2_compare_step_rendition (self, r, timeout, &stepped,
        pending);
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
  if (submitted) {
    priv->scoring_passes++;
    gst_ssim2_compare_submit_pairs (self, std::move (pending));
  }
  const bool live = GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (agg));
  const size_t in_flight = gst_ssim2_compare_batches_in_flight (self);
  GstFlowReturn scored = gst_ssim2_compare_complete_pairs (self,
      submitted && !live && !all_finished,
      gst_ssim2_compare_push_scored_pair);
  if (scored != GST_FLOW_OK)
    return scored;
  progressed = progressed ||
      in_flight > gst_ssim2_compare_batches_in_flight (self);
  if (timeout)
    priv->sync_idle_timeouts = progressed ? 0 : priv->sync_idle_timeouts + 1;
  gst_ssim2_compare_trim_ref_queue (self, list);

  /* The stats file is complete before the last summary is posted. */
  if (all_finished) {
    priv->finished = true;
    gst_ssim2_compare_close_stats (self);
  }
  for (const RenditionPtr & r:list) {
    if (r->summary_due)
      gst_ssim2_compare_post_summary (self, *r);
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
  gst_ssim2_compare_deadlines_pass (self, timeout);
  const gint64 start = g_get_monotonic_time ();
  const GstFlowReturn ret = aggregate_pass (agg, timeout);
  priv->timing.aggregate_us += g_get_monotonic_time () - start;
  if (priv->finished) {
    GST_INFO_OBJECT (self, "aggregator thread: %.3f s in passes, %.3f s "
        "submitting pairs, %.3f s waiting for scores; scorer memory %"
        G_GSIZE_FORMAT " bytes (second engine %" G_GSIZE_FORMAT ")",
        priv->timing.aggregate_us / 1e6, priv->timing.submit_us / 1e6,
        priv->timing.collect_us / 1e6,
        priv->scorer ? priv->scorer->memory_bytes () : (gsize) 0,
        priv->scorer ? priv->scorer->second_engine_bytes () : (gsize) 0);
  }
  return ret;
}
