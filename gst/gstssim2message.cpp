/* gst-ssim2: the element messages as typed structs (gstssim2message.h).
 * SPDX-License-Identifier: BSD-3-Clause */
#include "gstssim2message.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

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

/* One field of message struct M and its name in the GstStructure; its
 * GType follows from the member's type (GstClockTime is a guint64). A
 * required field missing makes the parse fail. */
template < typename M > struct Field
{
  const char *name;
  std::variant < gdouble M::*, guint64 M::*, gint64 M::*,
      const gchar * M::*>member;
  bool required = false;
};

void
SetValue (GstStructure * s, const char *name, gdouble v)
{
  gst_structure_set (s, name, G_TYPE_DOUBLE, v, NULL);
}

void
SetValue (GstStructure * s, const char *name, guint64 v)
{
  gst_structure_set (s, name, G_TYPE_UINT64, v, NULL);
}

void
SetValue (GstStructure * s, const char *name, gint64 v)
{
  gst_structure_set (s, name, G_TYPE_INT64, v, NULL);
}

void
SetValue (GstStructure * s, const char *name, const gchar * v)
{
  gst_structure_set (s, name, G_TYPE_STRING, v, NULL);
}

bool
GetValue (const GstStructure * s, const char *name, gdouble * v)
{
  return gst_structure_get_double (s, name, v);
}

bool
GetValue (const GstStructure * s, const char *name, guint64 * v)
{
  return gst_structure_get_uint64 (s, name, v);
}

bool
GetValue (const GstStructure * s, const char *name, gint64 * v)
{
  return gst_structure_get_int64 (s, name, v);
}

/* Strings are borrowed from @s; an absent one keeps the value _init gave. */
bool
GetValue (const GstStructure * s, const char *name, const gchar ** v)
{
  const gchar *str = gst_structure_get_string (s, name);
  if (str)
    *v = str;
  return str != nullptr;
}

/* Appends @fields of @msg to @s, in the table's order. */
template < typename M, size_t N > void
SetFields (GstStructure * s, const Field < M > (&fields)[N], const M & msg)
{
  for (const Field < M > &f:fields)
    std::visit ([&](auto member) {
          SetValue (s, f.name, msg.*member);
        }, f.member);
}

/* Reads @fields of @s into @msg: FALSE at the first required one missing. */
template < typename M, size_t N > bool
GetFields (const GstStructure * s, const Field < M > (&fields)[N], M * msg)
{
  for (const Field < M > &f:fields) {
    const bool got = std::visit ([&](auto member) {
          return GetValue (s, f.name, &(msg->*member));
        }, f.member);
    if (!got && f.required)
      return false;
  }
  return true;
}

template < typename M, size_t N > GstStructure *
NewStructure (const char *name, const Field < M > (&fields)[N], const M & msg)
{
  GstStructure *s = gst_structure_new_empty (name);
  SetFields (s, fields, msg);
  return s;
}

template < typename M, size_t N > gboolean
ParseStructure (const GstStructure * s, const char *name,
    const Field < M > (&fields)[N], M * msg)
{
  return s && gst_structure_has_name (s, name) && GetFields (s, fields, msg);
}

/* The messages' fields in their order on the wire (docs/ELEMENT.md,
 * "Messages"). */
using Score = GstSsim2ScoreMessage;
const Field < Score > kScoreFields[] = {
  {"score", &Score::score, true}, {"index", &Score::index, true},
  {"timestamp", &Score::timestamp}, {"stream-time", &Score::stream_time},
  {"running-time", &Score::running_time}, {"duration", &Score::duration},
  {"pad", &Score::pad}, {"frame", &Score::frame},
  {"ref-frame", &Score::ref_frame}, {"offset", &Score::offset},
  {"ref-transfer", &Score::ref_transfer},
  {"dist-transfer", &Score::dist_transfer},
  {"ref-running-time", &Score::ref_running_time},
};

using Interval = GstSsim2IntervalMessage;
const Field < Interval > kIntervalFields[] = {
  {"pad", &Interval::pad}, {"frames", &Interval::frames, true},
  {"skipped", &Interval::skipped}, {"mean", &Interval::mean},
  {"min", &Interval::min}, {"p5", &Interval::p5}, {"max", &Interval::max},
  {"start", &Interval::start}, {"end", &Interval::end},
  {"unaligned", &Interval::unaligned},
};

/* After frames and the pooled values. */
using Summary = GstSsim2SummaryMessage;
const Field < Summary > kSummaryTailFields[] = {
  {"unmatched-ref", &Summary::unmatched_ref},
  {"unmatched-dist", &Summary::unmatched_dist},
  {"skipped", &Summary::skipped}, {"ended-first", &Summary::ended_first},
  {"backend", &Summary::backend}, {"pad", &Summary::pad},
  {"failure", &Summary::failure}, {"dropped", &Summary::dropped},
  {"repeated", &Summary::repeated}, {"unaligned", &Summary::unaligned},
  {"ref-transfer", &Summary::ref_transfer},
  {"dist-transfer", &Summary::dist_transfer},
};

using Sync = GstSsim2SyncMessage;
const Field < Sync > kSyncFields[] = {
  {"pad", &Sync::pad}, {"state", &Sync::state, true},
  {"frame", &Sync::frame}, {"offset", &Sync::offset},
  {"confidence", &Sync::confidence},
  {"running-time", &Sync::running_time},
  {"ref-running-time", &Sync::ref_running_time},
};

/* The counts a summary message and a score log's summary both hold. */
struct CountField
{
  guint64 Summary::*message;
  std::optional < std::uint64_t > ssim2::LogSummary::*log;
};
const CountField kSummaryCounts[] = {
  {&Summary::unmatched_ref, &ssim2::LogSummary::unmatched_ref},
  {&Summary::unmatched_dist, &ssim2::LogSummary::unmatched_dist},
  {&Summary::skipped, &ssim2::LogSummary::skipped},
  {&Summary::dropped, &ssim2::LogSummary::dropped},
  {&Summary::repeated, &ssim2::LogSummary::repeated},
  {&Summary::unaligned, &ssim2::LogSummary::unaligned},
};

/* The numbers a score message and a score log's row both hold. */
struct RowField
{
  guint64 Score::*message;
  std::uint64_t ssim2::ScoreRow::*row;
};
const RowField kScoreRowFields[] = {
  {&Score::index, &ssim2::ScoreRow::index},
  {&Score::frame, &ssim2::ScoreRow::frame},
  {&Score::timestamp, &ssim2::ScoreRow::pts},
  {&Score::stream_time, &ssim2::ScoreRow::stream_time},
  {&Score::running_time, &ssim2::ScoreRow::running_time},
  {&Score::duration, &ssim2::ScoreRow::duration},
};

}  // namespace

namespace ssim2gst {

void
SetScoreMessage (GstSsim2ScoreMessage * msg, const ssim2::ScoreRow & row)
{
  for (const RowField & f:kScoreRowFields)
    msg->*f.message = row.*f.row;
  msg->score = row.score;
  msg->ref_frame = row.ref_frame;
  msg->offset = row.ref_frame - (gint64) row.frame;
}

ssim2::ScoreRow
ScoreRowOf (const GstSsim2ScoreMessage & msg)
{
  /* Unknown times are GST_CLOCK_TIME_NONE, which is ssim2::kNoTime. */
  ssim2::ScoreRow row;
  for (const RowField & f:kScoreRowFields)
    row.*f.row = msg.*f.message;
  row.score = msg.score;
  row.ref_frame = msg.ref_frame;
  return row;
}

void
SetSummaryCounts (GstSsim2SummaryMessage * msg, const ssim2::LogSummary & log)
{
  for (const CountField & f:kSummaryCounts)
    msg->*f.message = (log.*f.log).value_or (0);
}

void
GetSummaryCounts (const GstSsim2SummaryMessage & msg, ssim2::LogSummary * log)
{
  for (const CountField & f:kSummaryCounts)
    log->*f.log = msg.*f.message;
}

void
SetSummaryStatistics (GstSsim2SummaryMessage * msg, const ssim2::Summary & sum)
{
  msg->frames = sum.frames;
  for (size_t i = 0; i < G_N_ELEMENTS (ssim2::kSummaryFields); ++i)
    Pooled (msg, i) = sum.*ssim2::kSummaryFields[i].value;
}

void
SetIntervalStatistics (GstSsim2IntervalMessage * msg,
    const ssim2::Summary & sum)
{
  msg->frames = sum.frames;
  msg->mean = sum.mean;
  msg->min = sum.min;
  msg->p5 = sum.p5;
  msg->max = sum.max;
}

}  // namespace ssim2gst

extern "C" {

void
gst_ssim2_score_message_init (GstSsim2ScoreMessage * msg)
{
  *msg = GstSsim2ScoreMessage ();
  msg->timestamp = msg->stream_time = msg->running_time = msg->duration =
      msg->ref_running_time = GST_CLOCK_TIME_NONE;
  msg->ref_frame = -1;
  msg->ref_transfer = msg->dist_transfer = "";
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
  msg->ref_transfer = msg->dist_transfer = "";
}

void
gst_ssim2_sync_message_init (GstSsim2SyncMessage * msg)
{
  *msg = GstSsim2SyncMessage ();
  msg->pad = msg->state = "";
  msg->running_time = msg->ref_running_time = GST_CLOCK_TIME_NONE;
}

GstStructure *
gst_ssim2_score_message_to_structure (const GstSsim2ScoreMessage * msg)
{
  return NewStructure (GST_SSIM2_SCORE_MESSAGE_NAME, kScoreFields, *msg);
}

gboolean
gst_ssim2_score_message_parse (const GstStructure * s,
    GstSsim2ScoreMessage * msg)
{
  gst_ssim2_score_message_init (msg);
  return ParseStructure (s, GST_SSIM2_SCORE_MESSAGE_NAME, kScoreFields, msg);
}

GstStructure *
gst_ssim2_interval_message_to_structure (const GstSsim2IntervalMessage * msg)
{
  return NewStructure (GST_SSIM2_INTERVAL_MESSAGE_NAME, kIntervalFields,
      *msg);
}

gboolean
gst_ssim2_interval_message_parse (const GstStructure * s,
    GstSsim2IntervalMessage * msg)
{
  gst_ssim2_interval_message_init (msg);
  return ParseStructure (s, GST_SSIM2_INTERVAL_MESSAGE_NAME, kIntervalFields,
      msg);
}

/* The summary: frames, the pooled values named by ssim2::kSummaryFields,
 * then kSummaryTailFields. */
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
  SetFields (s, kSummaryTailFields, *msg);
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
  return GetFields (s, kSummaryTailFields, msg);
}

GstStructure *
gst_ssim2_sync_message_to_structure (const GstSsim2SyncMessage * msg)
{
  return NewStructure (GST_SSIM2_SYNC_MESSAGE_NAME, kSyncFields, *msg);
}

gboolean
gst_ssim2_sync_message_parse (const GstStructure * s,
    GstSsim2SyncMessage * msg)
{
  gst_ssim2_sync_message_init (msg);
  return ParseStructure (s, GST_SSIM2_SYNC_MESSAGE_NAME, kSyncFields, msg);
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
