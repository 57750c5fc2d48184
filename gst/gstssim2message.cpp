/* gst-ssim2: the element messages as typed structs (gstssim2message.h).
 * SPDX-License-Identifier: BSD-3-Clause */
#include "gstssim2message.h"

#include <cmath>
#include <cstddef>
#include <string>

namespace {

/* The summary's pooled values, in the order of ssim2::kSummaryFields,
 * which gives their names. */
constexpr size_t kPooledOffsets[] = {
  offsetof (GstSsim2SummaryMessage, mean),
  offsetof (GstSsim2SummaryMessage, stddev),
  offsetof (GstSsim2SummaryMessage, min),
  offsetof (GstSsim2SummaryMessage, p1),
  offsetof (GstSsim2SummaryMessage, p5),
  offsetof (GstSsim2SummaryMessage, p50),
  offsetof (GstSsim2SummaryMessage, p95),
  offsetof (GstSsim2SummaryMessage, p99),
  offsetof (GstSsim2SummaryMessage, max),
  offsetof (GstSsim2SummaryMessage, harmonic_mean),
};
static_assert (G_N_ELEMENTS (kPooledOffsets) ==
    G_N_ELEMENTS (ssim2::kSummaryFields),
    "a pooled value of ssim2::Summary is missing from the summary message");

gdouble &
Pooled (GstSsim2SummaryMessage * msg, size_t i)
{
  return *reinterpret_cast < gdouble * >(reinterpret_cast < char *>(msg) +
      kPooledOffsets[i]);
}

/* GStreamer field names use '-' where the files (and kSummaryFields) use
 * '_'. */
std::string
FieldName (const char *file_name)
{
  std::string name = file_name;
  for (char &c:name)
    if (c == '_')
      c = '-';
  return name;
}

const gchar *
GetString (const GstStructure * s, const char *field, const gchar * fallback)
{
  const gchar *v = gst_structure_get_string (s, field);
  return v ? v : fallback;
}

}  // namespace

namespace ssim2gst {

void
SetSummaryStatistics (GstSsim2SummaryMessage * msg, const ssim2::Summary & sum)
{
  msg->frames = sum.frames;
  for (size_t i = 0; i < G_N_ELEMENTS (ssim2::kSummaryFields); ++i)
    Pooled (msg, i) = sum.*ssim2::kSummaryFields[i].value;
}

}  // namespace ssim2gst

extern "C" {

void
gst_ssim2_score_message_init (GstSsim2ScoreMessage * msg)
{
  *msg = GstSsim2ScoreMessage ();
  msg->timestamp = msg->stream_time = msg->running_time = msg->duration =
      GST_CLOCK_TIME_NONE;
  msg->ref_frame = -1;
}

void
gst_ssim2_interval_message_init (GstSsim2IntervalMessage * msg)
{
  *msg = GstSsim2IntervalMessage ();
  msg->pad = "";
  msg->mean = msg->min = msg->p5 = msg->max = NAN;
  msg->start = msg->end = GST_CLOCK_TIME_NONE;
}

void
gst_ssim2_summary_message_init (GstSsim2SummaryMessage * msg)
{
  *msg = GstSsim2SummaryMessage ();
  for (size_t i = 0; i < G_N_ELEMENTS (kPooledOffsets); ++i)
    Pooled (msg, i) = NAN;
  msg->ended_first = msg->backend = msg->pad = msg->failure = "";
}

void
gst_ssim2_sync_message_init (GstSsim2SyncMessage * msg)
{
  *msg = GstSsim2SyncMessage ();
  msg->pad = msg->state = "";
}

GstStructure *
gst_ssim2_score_message_to_structure (const GstSsim2ScoreMessage * msg)
{
  return gst_structure_new (GST_SSIM2_SCORE_MESSAGE_NAME,
      "score", G_TYPE_DOUBLE, msg->score,
      "index", G_TYPE_UINT64, msg->index,
      "timestamp", G_TYPE_UINT64, (guint64) msg->timestamp,
      "stream-time", G_TYPE_UINT64, (guint64) msg->stream_time,
      "running-time", G_TYPE_UINT64, (guint64) msg->running_time,
      "duration", G_TYPE_UINT64, (guint64) msg->duration,
      "pad", G_TYPE_STRING, msg->pad,
      "frame", G_TYPE_UINT64, msg->frame,
      "ref-frame", G_TYPE_INT64, msg->ref_frame,
      "offset", G_TYPE_INT64, msg->offset, NULL);
}

gboolean
gst_ssim2_score_message_parse (const GstStructure * s,
    GstSsim2ScoreMessage * msg)
{
  gst_ssim2_score_message_init (msg);
  if (!s || !gst_structure_has_name (s, GST_SSIM2_SCORE_MESSAGE_NAME))
    return FALSE;
  if (!gst_structure_get_double (s, "score", &msg->score) ||
      !gst_structure_get_uint64 (s, "index", &msg->index))
    return FALSE;
  gst_structure_get_uint64 (s, "timestamp", &msg->timestamp);
  gst_structure_get_uint64 (s, "stream-time", &msg->stream_time);
  gst_structure_get_uint64 (s, "running-time", &msg->running_time);
  gst_structure_get_uint64 (s, "duration", &msg->duration);
  msg->pad = gst_structure_get_string (s, "pad");
  gst_structure_get_uint64 (s, "frame", &msg->frame);
  gst_structure_get_int64 (s, "ref-frame", &msg->ref_frame);
  gst_structure_get_int64 (s, "offset", &msg->offset);
  return TRUE;
}

GstStructure *
gst_ssim2_interval_message_to_structure (const GstSsim2IntervalMessage * msg)
{
  return gst_structure_new (GST_SSIM2_INTERVAL_MESSAGE_NAME,
      "pad", G_TYPE_STRING, msg->pad,
      "frames", G_TYPE_UINT64, msg->frames,
      "skipped", G_TYPE_UINT64, msg->skipped,
      "mean", G_TYPE_DOUBLE, msg->mean,
      "min", G_TYPE_DOUBLE, msg->min,
      "p5", G_TYPE_DOUBLE, msg->p5,
      "max", G_TYPE_DOUBLE, msg->max,
      "start", G_TYPE_UINT64, (guint64) msg->start,
      "end", G_TYPE_UINT64, (guint64) msg->end, NULL);
}

gboolean
gst_ssim2_interval_message_parse (const GstStructure * s,
    GstSsim2IntervalMessage * msg)
{
  gst_ssim2_interval_message_init (msg);
  if (!s || !gst_structure_has_name (s, GST_SSIM2_INTERVAL_MESSAGE_NAME) ||
      !gst_structure_get_uint64 (s, "frames", &msg->frames))
    return FALSE;
  msg->pad = GetString (s, "pad", msg->pad);
  gst_structure_get_uint64 (s, "skipped", &msg->skipped);
  gst_structure_get_double (s, "mean", &msg->mean);
  gst_structure_get_double (s, "min", &msg->min);
  gst_structure_get_double (s, "p5", &msg->p5);
  gst_structure_get_double (s, "max", &msg->max);
  gst_structure_get_uint64 (s, "start", &msg->start);
  gst_structure_get_uint64 (s, "end", &msg->end);
  return TRUE;
}

GstStructure *
gst_ssim2_summary_message_to_structure (const GstSsim2SummaryMessage * msg)
{
  GstStructure *s = gst_structure_new (GST_SSIM2_SUMMARY_MESSAGE_NAME,
      "frames", G_TYPE_UINT64, msg->frames, NULL);
  GstSsim2SummaryMessage *m = const_cast < GstSsim2SummaryMessage * >(msg);
  for (size_t i = 0; i < G_N_ELEMENTS (ssim2::kSummaryFields); ++i) {
    gst_structure_set (s, FieldName (ssim2::kSummaryFields[i].name).c_str (),
        G_TYPE_DOUBLE, Pooled (m, i), NULL);
  }
  gst_structure_set (s,
      "unmatched-ref", G_TYPE_UINT64, msg->unmatched_ref,
      "unmatched-dist", G_TYPE_UINT64, msg->unmatched_dist,
      "skipped", G_TYPE_UINT64, msg->skipped,
      "ended-first", G_TYPE_STRING, msg->ended_first,
      "backend", G_TYPE_STRING, msg->backend,
      "pad", G_TYPE_STRING, msg->pad,
      "failure", G_TYPE_STRING, msg->failure,
      "dropped", G_TYPE_UINT64, msg->dropped,
      "repeated", G_TYPE_UINT64, msg->repeated,
      "unaligned", G_TYPE_UINT64, msg->unaligned, NULL);
  return s;
}

gboolean
gst_ssim2_summary_message_parse (const GstStructure * s,
    GstSsim2SummaryMessage * msg)
{
  gst_ssim2_summary_message_init (msg);
  if (!s || !gst_structure_has_name (s, GST_SSIM2_SUMMARY_MESSAGE_NAME) ||
      !gst_structure_get_uint64 (s, "frames", &msg->frames))
    return FALSE;
  for (size_t i = 0; i < G_N_ELEMENTS (ssim2::kSummaryFields); ++i) {
    gst_structure_get_double (s,
        FieldName (ssim2::kSummaryFields[i].name).c_str (), &Pooled (msg, i));
  }
  gst_structure_get_uint64 (s, "unmatched-ref", &msg->unmatched_ref);
  gst_structure_get_uint64 (s, "unmatched-dist", &msg->unmatched_dist);
  gst_structure_get_uint64 (s, "skipped", &msg->skipped);
  msg->ended_first = GetString (s, "ended-first", msg->ended_first);
  msg->backend = GetString (s, "backend", msg->backend);
  msg->pad = GetString (s, "pad", msg->pad);
  msg->failure = GetString (s, "failure", msg->failure);
  gst_structure_get_uint64 (s, "dropped", &msg->dropped);
  gst_structure_get_uint64 (s, "repeated", &msg->repeated);
  gst_structure_get_uint64 (s, "unaligned", &msg->unaligned);
  return TRUE;
}

GstStructure *
gst_ssim2_sync_message_to_structure (const GstSsim2SyncMessage * msg)
{
  return gst_structure_new (GST_SSIM2_SYNC_MESSAGE_NAME,
      "pad", G_TYPE_STRING, msg->pad,
      "state", G_TYPE_STRING, msg->state,
      "frame", G_TYPE_UINT64, msg->frame,
      "offset", G_TYPE_INT64, msg->offset,
      "confidence", G_TYPE_DOUBLE, msg->confidence, NULL);
}

gboolean
gst_ssim2_sync_message_parse (const GstStructure * s,
    GstSsim2SyncMessage * msg)
{
  gst_ssim2_sync_message_init (msg);
  if (!s || !gst_structure_has_name (s, GST_SSIM2_SYNC_MESSAGE_NAME) ||
      !gst_structure_get_string (s, "state"))
    return FALSE;
  msg->state = gst_structure_get_string (s, "state");
  msg->pad = GetString (s, "pad", msg->pad);
  gst_structure_get_uint64 (s, "frame", &msg->frame);
  gst_structure_get_int64 (s, "offset", &msg->offset);
  gst_structure_get_double (s, "confidence", &msg->confidence);
  return TRUE;
}

gboolean
gst_ssim2_score_message_parse_message (GstMessage * m,
    GstSsim2ScoreMessage * msg)
{
  return gst_ssim2_score_message_parse (gst_message_get_structure (m), msg);
}

gboolean
gst_ssim2_interval_message_parse_message (GstMessage * m,
    GstSsim2IntervalMessage * msg)
{
  return gst_ssim2_interval_message_parse (gst_message_get_structure (m), msg);
}

gboolean
gst_ssim2_summary_message_parse_message (GstMessage * m,
    GstSsim2SummaryMessage * msg)
{
  return gst_ssim2_summary_message_parse (gst_message_get_structure (m), msg);
}

gboolean
gst_ssim2_sync_message_parse_message (GstMessage * m,
    GstSsim2SyncMessage * msg)
{
  return gst_ssim2_sync_message_parse (gst_message_get_structure (m), msg);
}

}  // extern "C"
