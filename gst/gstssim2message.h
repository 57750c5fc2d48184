/* gst-ssim2: the element messages of ssim2compare (`ssim2`, `ssim2-interval`,
 * `ssim2-summary`, `ssim2-sync`) as typed structs, and their conversion to and from a
 * GstStructure. The element builds its messages with these, and whoever
 * reads them (the ssim2 tool's video mode, the gst-check tests) parses them
 * with these, so that the field names and types are written once. The
 * schema (what each field means) is in docs/ELEMENT.md, "Messages".
 *
 * Strings (pad, backend, ...) are borrowed: after a parse they point into
 * the structure parsed and live as long as it does.
 *
 * A field absent from a structure keeps the value _init gave it, so that a
 * newer reader parses an older element's messages; fields are added at the
 * end of a struct.
 *
 * Plain C, for the C tests; the C++ section at the end converts the
 * library's pooled summary (ssim2::Summary).
 * SPDX-License-Identifier: BSD-3-Clause */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_SSIM2_SCORE_MESSAGE_NAME "ssim2"
#define GST_SSIM2_INTERVAL_MESSAGE_NAME "ssim2-interval"
#define GST_SSIM2_SUMMARY_MESSAGE_NAME "ssim2-summary"
#define GST_SSIM2_SYNC_MESSAGE_NAME "ssim2-sync"

/* `ssim2`: the score of one pair. */
typedef struct
{
  gdouble score;
  guint64 index;                /* the pair index, from 0 */
  GstClockTime timestamp;       /* PTS of the dist buffer */
  GstClockTime stream_time;
  GstClockTime running_time;
  GstClockTime duration;
  const gchar *pad;             /* the rendition's pad */
  guint64 frame;                /* the dist frame's number, from 0 */
  gint64 ref_frame;             /* the ref frame it was scored against, from
                                 * 0 (-1: unknown, an older element) */
  gint64 offset;                /* ref_frame - frame */
  /* The transfer of each input's frames ("sRGB", "linear", "PQ", "HLG":
   * ssim2::TransferName), as their caps said; "" unknown (an older
   * element). */
  const gchar *ref_transfer;
  const gchar *dist_transfer;
  /* The ref frame's running time on the ref pad (NONE: unknown, an older
   * element): running-time minus it is how long the element held the ref
   * frame for this one, when both inputs are stamped with the time they
   * arrived (as `ssim2 monitor` does). */
  GstClockTime ref_running_time;
} GstSsim2ScoreMessage;

/* `ssim2-interval`: one window of running time of one rendition. */
typedef struct
{
  const gchar *pad;
  guint64 frames;               /* scored pairs */
  guint64 skipped;              /* pairs too late to be scored */
  gdouble mean;
  gdouble min;
  gdouble p5;
  gdouble max;
  GstClockTime start;
  GstClockTime end;
  guint64 unaligned;            /* alignment=content: dist frames passed on
                                 * unscored for want of a sure partner */
} GstSsim2IntervalMessage;

/* `ssim2-summary`: the end of one rendition's measurement. The pooled
 * values (mean ... harmonic_mean) are in the order of ssim2::kSummaryFields. */
typedef struct
{
  guint64 frames;
  gdouble mean;
  gdouble stddev;
  gdouble min;
  gdouble p1;
  gdouble p5;
  gdouble p50;
  gdouble p95;
  gdouble p99;
  gdouble max;
  gdouble harmonic_mean;
  guint64 unmatched_ref;
  guint64 unmatched_dist;
  guint64 skipped;
  const gchar *ended_first;     /* "ref", "dist" or "" */
  const gchar *backend;
  const gchar *pad;
  const gchar *failure;         /* why the rendition was not scored, or "" */
  /* alignment=content (0 in the other modes): ref frames passed over
   * between two pairs, dist frames paired with the ref frame of the frame
   * before them, dist frames passed on unscored for want of a sure
   * partner. */
  guint64 dropped;
  guint64 repeated;
  guint64 unaligned;
  /* The transfer of each input's last frames, as in the score message; ""
   * unknown (no caps, or an older element). */
  const gchar *ref_transfer;
  const gchar *dist_transfer;
} GstSsim2SummaryMessage;

/* `ssim2-sync`: alignment=content locked, lost or locked again (state
 * "locked", "lost", "relocked"). */
typedef struct
{
  const gchar *pad;
  const gchar *state;
  guint64 frame;                /* first dist frame decided in that state */
  gint64 offset;                /* ref frame - dist frame of the lock (for
                                 * "lost": of the last pair) */
  gdouble confidence;           /* 1 - best / second-best match, 0..1 (0
                                 * for "lost") */
  /* Locks: the running times of dist frame @frame and of its partner on
   * the ref pad (NONE: not known, e.g. "lost", or the frames already
   * left). */
  GstClockTime running_time;
  GstClockTime ref_running_time;
} GstSsim2SyncMessage;

/* Defaults: times GST_CLOCK_TIME_NONE, numbers 0 (NaN for the pooled
 * values, -1 for ref_frame), strings "" (pad NULL for the score
 * message). */
void gst_ssim2_score_message_init (GstSsim2ScoreMessage * msg);
void gst_ssim2_interval_message_init (GstSsim2IntervalMessage * msg);
void gst_ssim2_summary_message_init (GstSsim2SummaryMessage * msg);
void gst_ssim2_sync_message_init (GstSsim2SyncMessage * msg);

/* A new structure holding @msg, to post with gst_message_new_element(). */
GstStructure *gst_ssim2_score_message_to_structure (const
    GstSsim2ScoreMessage * msg);
GstStructure *gst_ssim2_interval_message_to_structure (const
    GstSsim2IntervalMessage * msg);
GstStructure *gst_ssim2_summary_message_to_structure (const
    GstSsim2SummaryMessage * msg);
GstStructure *gst_ssim2_sync_message_to_structure (const
    GstSsim2SyncMessage * msg);

/* Reads @s into @msg (after _init): FALSE when @s is not that message, or
 * lacks one of its required fields (score and index; frames; frames;
 * state). */
gboolean gst_ssim2_score_message_parse (const GstStructure * s,
    GstSsim2ScoreMessage * msg);
gboolean gst_ssim2_interval_message_parse (const GstStructure * s,
    GstSsim2IntervalMessage * msg);
gboolean gst_ssim2_summary_message_parse (const GstStructure * s,
    GstSsim2SummaryMessage * msg);
gboolean gst_ssim2_sync_message_parse (const GstStructure * s,
    GstSsim2SyncMessage * msg);

/* The same, from an element message (NULL structure: FALSE). */
gboolean gst_ssim2_score_message_parse_message (GstMessage * m,
    GstSsim2ScoreMessage * msg);
gboolean gst_ssim2_interval_message_parse_message (GstMessage * m,
    GstSsim2IntervalMessage * msg);
gboolean gst_ssim2_summary_message_parse_message (GstMessage * m,
    GstSsim2SummaryMessage * msg);
gboolean gst_ssim2_sync_message_parse_message (GstMessage * m,
    GstSsim2SyncMessage * msg);

G_END_DECLS

#ifdef __cplusplus
#include "ssim2/score_log.h"
#include "ssim2/stats.h"

namespace ssim2gst {

/* Sets the frame count and the pooled values of @msg from @sum. */
void SetSummaryStatistics (GstSsim2SummaryMessage * msg,
    const ssim2::Summary & sum);

/* Sets the frame count and the window's pooled values (mean, min, p5, max)
 * of @msg from @sum. */
void SetIntervalStatistics (GstSsim2IntervalMessage * msg,
    const ssim2::Summary & sum);

/* The frame counts of a summary (unmatched, skipped, dropped, repeated,
 * unaligned) from @log into @msg, an unknown count as 0; and back from
 * @msg into @log. */
void SetSummaryCounts (GstSsim2SummaryMessage * msg,
    const ssim2::LogSummary & log);
void GetSummaryCounts (const GstSsim2SummaryMessage & msg,
    ssim2::LogSummary * log);

/* A score message from a score log's row (all but the pad and the
 * transfers, which a row does not hold), and the row (all but source) that
 * a score message holds. */
void SetScoreMessage (GstSsim2ScoreMessage * msg, const ssim2::ScoreRow & row);
ssim2::ScoreRow ScoreRowOf (const GstSsim2ScoreMessage & msg);

}  // namespace ssim2gst
#endif
