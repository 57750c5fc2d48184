/* gst-ssim2: what ssim2compare reports about its measurements, and the
 * properties that set it: the meta and the `ssim2` message of each scored
 * pair, the stats file, the `ssim2-interval` windows, the `ssim2-summary`
 * message, the summary file, the `ssim2-sync` messages of
 * alignment=content, and the warnings about scores below the threshold and
 * about an input that ended first. docs/ELEMENT.md gives the messages'
 * schema, docs/LOGS.md the files'.
 * SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstssim2report.h"

#include <gst/video/video.h>

#include <algorithm>
#include <string>

#include "gstssim2message.h"
#include "gstssim2meta-private.h"
#include "gstssim2sync.h"
#include "ssim2/score_log.h"
#include "ssim2/stats.h"

#define GST_CAT_DEFAULT gst_ssim2_compare_debug

using ssim2gst::Rendition;

/* ------------------------------------------------------------------------ */
/* The properties */

GType
gst_ssim2_compare_stats_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_SSIM2_COMPARE_STATS_FORMAT_AUTO,
        "JSON if the file name ends in .json, else CSV", "auto"},
    {GST_SSIM2_COMPARE_STATS_FORMAT_CSV, "CSV", "csv"},
    {GST_SSIM2_COMPARE_STATS_FORMAT_JSON, "JSON", "json"},
    {GST_SSIM2_COMPARE_STATS_FORMAT_VMAF_JSON,
        "libvmaf's JSON log", "vmaf-json"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSsim2CompareStatsFormat", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

void
gst_ssim2_compare_install_report_properties (GObjectClass * object_class,
    guint post_messages_id, guint stats_file_id, guint stats_format_id,
    guint summary_file_id, guint threshold_id)
{
  /**
   * GstSsim2Compare:post-messages:
   *
   * Whether an element message `ssim2` is posted for every scored frame
   * (docs/ELEMENT.md, "Messages"). The `ssim2-summary` message is always
   * posted.
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, post_messages_id,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post an element message named ssim2 for every scored frame "
          "(the ssim2-summary message at the end is always posted)",
          DEFAULT_POST_MESSAGES,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:stats-file:
   *
   * A file that receives one row per scored pair as it is scored, in the
   * format of #GstSsim2Compare:stats-format (docs/LOGS.md gives the
   * schema); the JSON formats end with the summary.
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, stats_file_id,
      g_param_spec_string ("stats-file", "Stats file",
          "Write per-frame scores to this file as they come, in the format of "
          "stats-format (the JSON ones end with the summary; NULL: no file)",
          NULL,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:stats-format:
   *
   * The format of #GstSsim2Compare:stats-file: CSV (rows only), JSON, or
   * libvmaf's JSON log; auto picks JSON for a name ending in .json.
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, stats_format_id,
      g_param_spec_enum ("stats-format", "Stats format",
          "Format of the stats-file: csv, json, vmaf-json (libvmaf's JSON "
          "log), or auto: json if the file name ends in .json, else csv",
          GST_TYPE_SSIM2_COMPARE_STATS_FORMAT, DEFAULT_STATS_FORMAT,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:summary-file:
   *
   * A JSON file that holds what the `ssim2-summary` messages hold, one
   * summary per rendition pad (its latest), rewritten at each of them;
   * docs/LOGS.md gives its schema.
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, summary_file_id,
      g_param_spec_string ("summary-file", "Summary file",
          "Write the summaries (what the ssim2-summary messages hold) to this "
          "JSON file, rewritten at each of them (NULL: no file)", NULL,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:threshold:
   *
   * A STREAM/FAILED warning is posted for every frame that scores below
   * this. The default, -inf, is off: no score is below it.
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, threshold_id,
      g_param_spec_double ("threshold", "Threshold",
          "Post a warning message for every frame that scores below this "
          "(-inf, the default: off)", -INFINITY, G_MAXDOUBLE,
          DEFAULT_THRESHOLD,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
              G_PARAM_STATIC_STRINGS)));
}

/* ------------------------------------------------------------------------ */
/* The stats file */

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

/* What @r's measurement comes to: what its ssim2-summary message, the stats
 * file's summary and the summary file carry. */
/* The transfer of a pad's frames by its caps, "" before any caps. */
static const char *
pad_transfer (const ssim2gst::PadState & pad)
{
  return pad.have_info ? ssim2::TransferName (pad.fmt.color.transfer) : "";
}

static ssim2::LogSummary
rendition_summary (GstSsim2Compare * self, const Rendition & r)
{
  GstSsim2ComparePrivate *priv = self->priv;
  ssim2::LogSummary summary;
  summary.scores = ssim2::Summarize (r.scores);
  summary.unmatched_ref = r.unmatched_ref;
  summary.unmatched_dist = r.unmatched_dist;
  summary.ended_first = r.ended_first;
  const GstSsim2ContentCounts counts = gst_ssim2_compare_content_counts (r);
  summary.dropped = counts.dropped;
  summary.repeated = counts.repeated;
  summary.unaligned = counts.unaligned;
  summary.skipped = r.skipped;
  if (priv->scorer)
    summary.backend = priv->scorer->description ();
  if (r.failed)
    summary.failure = r.failure;
  summary.ref_transfer = pad_transfer (priv->ref);
  summary.dist_transfer = pad_transfer (r.st);
  return summary;
}

void
gst_ssim2_compare_close_stats (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  if (!priv->stats)
    return;
  const Rendition & dist = *priv->renditions.front ();
  ssim2::LogRunInfo info;
  info.alignment = ssim2gst::AlignmentName (priv->run.alignment);
  info.every = MAX (priv->run.every, 1u);
  if (dist.st.have_info) {
    info.width = GST_VIDEO_INFO_WIDTH (&dist.st.fmt.info);
    info.height = GST_VIDEO_INFO_HEIGHT (&dist.st.fmt.info);
  }
  if (!priv->stats->Close (rendition_summary (self, dist), info))
    stats_write_failed (self);
  priv->stats.reset ();
}

/* ------------------------------------------------------------------------ */
/* The summary file */

/* Rewrites the summary file with priv->summaries; false (and one warning,
 * after which the file is left alone) when that fails. */
static bool
summary_file_write (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  std::string error;
  if (ssim2::WriteSummaryFile (priv->run.summary_file, priv->summaries,
          &error))
    return true;
  GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
      ("Could not write the summary file (%s); it is not written again.",
          error.c_str ()),
      ("The ssim2-summary messages still carry every summary."));
  priv->summary_file_ok = false;
  return false;
}

bool
gst_ssim2_compare_open_summary_file (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  priv->summaries.clear ();
  priv->summary_file_ok = !priv->run.summary_file.empty ();
  if (!priv->summary_file_ok)
    return true;
  std::string error;
  if (!ssim2::WriteSummaryFile (priv->run.summary_file, priv->summaries,
          &error)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not open summary-file \"%s\" for writing (%s).",
            priv->run.summary_file.c_str (), error.c_str ()),
        ("Check that the folder exists and is writable."));
    priv->summary_file_ok = false;
    return false;
  }
  return true;
}

/* @r's latest summary into the summary file: it replaces the one of an
 * earlier measurement of the same pad. */
static void
summary_file_add (GstSsim2Compare * self, const Rendition & r,
    const ssim2::LogSummary & summary)
{
  GstSsim2ComparePrivate *priv = self->priv;
  if (!priv->summary_file_ok)
    return;
  auto same_pad = std::find_if (priv->summaries.begin (),
      priv->summaries.end (), [&r](const ssim2::SourceSummary & s) {
        return s.source == r.name;
      });
  if (same_pad != priv->summaries.end ())
    same_pad->summary = summary;
  else
    priv->summaries.push_back ({r.name, summary});
  summary_file_write (self);
}

bool
gst_ssim2_compare_open_stats (GstSsim2Compare * self)
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
      gst_ssim2_compare_renditions (self).size () > 1;
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

/* ------------------------------------------------------------------------ */
/* Messages and warnings */

std::string
gst_ssim2_compare_pad_prefix (GstSsim2Compare * self, const Rendition & r)
{
  return gst_ssim2_compare_renditions (self).size () > 1 ? r.name + ": " : "";
}

/* Posts @r's current ssim2-interval window, if it holds any frame
 * counted (scored, skipped, unaligned). */
static void
window_post (GstSsim2Compare * self, Rendition & r)
{
  const guint64 interval = self->priv->run.interval;
  if (interval == 0 || (r.window_scores.empty () && r.window_skipped == 0 &&
          r.window_unaligned == 0)) {
    r.ClearWindow ();
    return;
  }
  const ssim2::Summary sum = ssim2::Summarize (r.window_scores);
  const guint64 start = r.window_start;
  const guint64 end = GST_CLOCK_TIME_IS_VALID (start) ? start + interval :
      GST_CLOCK_TIME_NONE;
  GstSsim2IntervalMessage m;
  gst_ssim2_interval_message_init (&m);
  ssim2gst::SetIntervalStatistics (&m, sum);
  m.pad = r.name.c_str ();
  m.skipped = r.window_skipped;
  m.start = start;
  m.end = end;
  m.unaligned = r.window_unaligned;
  GstStructure *s = gst_ssim2_interval_message_to_structure (&m);
  r.ClearWindow ();
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* Counts a frame of @r (scored: @score; else skipped, or unaligned with
 * @unaligned) at running time @rt
 * in its window, after posting the window it ends. Windows are the
 * multiples of the interval in running time, so that every pair falls in
 * exactly one; a pair without running time joins the current window. */
static void
window_add (GstSsim2Compare * self, Rendition & r, GstClockTime rt,
    const double *score, bool unaligned)
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
  else if (unaligned)
    r.window_unaligned++;
  else
    r.window_skipped++;
}

void
gst_ssim2_compare_report_pair (GstSsim2Compare * self, Rendition & r,
    GstBuffer ** buf, const double *score, guint64 index,
    const ssim2gst::PairedRef & ref, bool skipped, bool unaligned,
    const ssim2gst::FrameTimes & times)
{
  GstSsim2ComparePrivate *priv = self->priv;
  const gchar *pad_name = r.name.c_str ();

  if (score || skipped || unaligned)
    window_add (self, r, times.running_time, score, unaligned && !skipped);
  if (score) {
    if (r.to_src) {
      *buf = gst_buffer_make_writable (*buf);
      gst_buffer_add_ssim2_meta (*buf, *score, index, pad_name);
    }
    r.scores.push_back (*score);

    gboolean post;
    GST_OBJECT_LOCK (self);
    post = priv->settings.post_messages;        /* changeable while playing */
    GST_OBJECT_UNLOCK (self);
    ssim2::ScoreRow row;
    row.index = index;
    row.frame = r.st.frames - 1;
    row.pts = times.pts;
    row.stream_time = times.stream_time;
    row.running_time = times.running_time;
    row.duration = times.duration;
    row.score = *score;
    row.ref_frame = ref.frame;
    if (post) {
      GstSsim2ScoreMessage m;
      gst_ssim2_score_message_init (&m);
      ssim2gst::SetScoreMessage (&m, row);
      m.pad = pad_name;
      m.ref_transfer = pad_transfer (priv->ref);
      m.dist_transfer = pad_transfer (r.st);
      m.ref_running_time = ref.running_time;
      GstStructure *s = gst_ssim2_score_message_to_structure (&m);
      gst_element_post_message (GST_ELEMENT (self),
          gst_message_new_element (GST_OBJECT (self), s));
    }

    if (priv->stats && (priv->stats_with_source || r.to_src)) {
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
              "threshold %.4f.", gst_ssim2_compare_pad_prefix (self, r).c_str (), index, *score,
              threshold),
          ("running time %" GST_TIME_FORMAT, GST_TIME_ARGS (times.running_time)),
          ("score", G_TYPE_DOUBLE, *score, "index", G_TYPE_UINT64, index,
              "running-time", G_TYPE_UINT64, (guint64) times.running_time,
              "pad", G_TYPE_STRING, pad_name, NULL));
    }
  }

}

void
gst_ssim2_compare_report_ended_first (GstSsim2Compare * self, Rendition & r,
    bool ref_frame_waiting)
{
  /* The pad has ended; ref may still hold frames. Only a ref frame waiting
   * now says that ref had more: an empty ref queue before ref's EOS has
   * arrived says nothing (both may end at the same frame). */
  ssim2::InputEnds ends;
  ends.ref_after_dist_end = ref_frame_waiting ? 1 : 0;
  ends.ref_frames = r.ref_frames + ends.ref_after_dist_end;
  ends.dist_frames = r.st.frames;
  ends.ref_ended = r.ref_ended;
  ends.dist_ended = true;
  ends.dist_after_ref_end = r.ref_ended_first ? r.passed_after_ref_eos : 0;
  r.ended_first = ssim2::EndedFirst (ends);
  if (r.ended_first) {
    const std::string text = ssim2::EndedFirstMessage (*r.ended_first, ends,
        r.scores.size ());
    const std::string prefix = gst_ssim2_compare_pad_prefix (self, r);
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
}

void
gst_ssim2_compare_post_summary (GstSsim2Compare * self, Rendition & r)
{
  r.summary_due = false;
  window_post (self, r);
  const ssim2::LogSummary summary = rendition_summary (self, r);
  GstSsim2SummaryMessage m;
  gst_ssim2_summary_message_init (&m);
  ssim2gst::SetSummaryStatistics (&m, summary.scores);
  ssim2gst::SetSummaryCounts (&m, summary);
  if (summary.ended_first)
    m.ended_first = ssim2::InputName (*summary.ended_first);
  m.backend = summary.backend.c_str ();
  m.pad = r.name.c_str ();
  m.failure = summary.failure.c_str ();
  m.ref_transfer = summary.ref_transfer.c_str ();
  m.dist_transfer = summary.dist_transfer.c_str ();
  GstStructure *s = gst_ssim2_summary_message_to_structure (&m);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
  summary_file_add (self, r, summary);
}

void
gst_ssim2_compare_post_sync (GstSsim2Compare * self,
    const GstSsim2SyncMessage & m)
{
  GST_INFO_OBJECT (self, "%s: %s at frame %" G_GUINT64_FORMAT ", offset %"
      G_GINT64_FORMAT ", confidence %.3f", m.pad, m.state, m.frame, m.offset,
      m.confidence);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_ssim2_sync_message_to_structure (&m)));
}
