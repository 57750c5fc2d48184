/* gst-check tests of ssim2compare under flushing seeks (CPU backend).
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Two short H.264 clips are made at the start (x264enc, Matroska: timestamps
 * in milliseconds, as real files have them) and decoded in software by
 * avdec_h264. A run without seek gives the score of every frame; each seeked
 * run must give the same score for every frame it scores, whatever the
 * decoders do at the segment start.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include "check_util.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define CLIP_FRAMES 60          /* 2 s at 30 fps */

static gchar *tmp_dir;
static gchar *ref_path, *dist_path;

static const gchar *const clip_factories[] = { "x264enc", "avdec_h264", "matroskamux",
    "matroskademux", "videotestsrc", NULL
};

/* With one keyframe (at 0) every seek decodes from the start and the
 * decoder clips the frame that straddles the segment start. */
static void
make_clip (const gchar * path, guint quantizer, guint keyframe_interval)
{
  gchar *settings = g_strdup_printf ("pass=quant quantizer=%u key-int-max=%u",
      quantizer, keyframe_interval);
  make_x264_clip (path, CLIP_FRAMES, settings);
  g_free (settings);
}

static void
clips_setup (void)
{
  fail_unless (have_factories (clip_factories));
  tmp_dir = g_dir_make_tmp ("ssim2-seek-XXXXXX", NULL);
  fail_unless (tmp_dir != NULL);
  ref_path = g_build_filename (tmp_dir, "ref.mkv", NULL);
  dist_path = g_build_filename (tmp_dir, "dist.mkv", NULL);
  make_clip (ref_path, 5, 1000);
  make_clip (dist_path, 40, 1000);
}

static void
clips_teardown (void)
{
  g_unlink (ref_path);
  g_unlink (dist_path);
  g_rmdir (tmp_dir);
  g_free (ref_path);
  g_free (dist_path);
  g_free (tmp_dir);
}

typedef struct
{
  GstClockTime timestamp;
  gdouble score;
  guint measurement;            /* summaries posted before this score */
} Score;

typedef struct
{
  GArray *scores;               /* Score */
  GArray *summary_frames;       /* guint64, one per ssim2-summary */
  GPtrArray *warnings;          /* texts of the warning messages */
  gchar *stats;                 /* stats file at the end */
  gchar *summary;               /* summary file at the end */
} Run;

static void
run_clear (Run * r)
{
  g_array_unref (r->scores);
  g_array_unref (r->summary_frames);
  g_ptr_array_unref (r->warnings);
  g_free (r->stats);
  g_free (r->summary);
}

/* Runs the two clips through the element. After @seek_after scores (or
 * after EOS when @seek_after is G_MAXUINT) it seeks once (FLUSH | @flags) to
 * @seek_to, then runs to EOS. */
static void
run_compare_files (const gchar * ref, const gchar * dist,
    const gchar * alignment, guint seek_after, GstSeekFlags flags,
    GstClockTime seek_to, Run * out)
{
  gchar *stats_path = g_build_filename (tmp_dir, "stats.csv", NULL);
  gchar *summary_path = g_build_filename (tmp_dir, "summary.json", NULL);
  gchar *desc = g_strdup_printf ("ssim2compare name=c backend=cpu "
      "alignment=%s stats-file=\"%s\" summary-file=\"%s\" ! fakesink "
      "sync=false "
      "filesrc location=\"%s\" ! matroskademux ! avdec_h264 ! queue ! c.ref "
      "filesrc location=\"%s\" ! matroskademux ! avdec_h264 ! queue ! c.dist",
      alignment, stats_path, summary_path, ref, dist);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  fail_unless (pipe != NULL, "%s", err ? err->message : "?");
  g_free (desc);

  out->scores = g_array_new (FALSE, FALSE, sizeof (Score));
  out->summary_frames = g_array_new (FALSE, FALSE, sizeof (guint64));
  out->warnings = g_ptr_array_new_with_free_func (g_free);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  gboolean seeked = seek_after == 0;
  guint n = 0;
  while (TRUE) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
            GST_MESSAGE_WARNING | GST_MESSAGE_ELEMENT));
    fail_unless (m != NULL, "timeout");
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &err, NULL);
      fail ("error: %s", err->message);
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (m, &err, NULL);
      g_ptr_array_add (out->warnings, g_strdup (err->message));
      g_clear_error (&err);
      gst_message_unref (m);
      continue;
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
      gst_message_unref (m);
      if (!seeked && seek_after == G_MAXUINT) {
        seeked = TRUE;
        fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
                (GstSeekFlags) (GST_SEEK_FLAG_FLUSH | flags), seek_to));
        continue;
      }
      break;
    }
    GstSsim2ScoreMessage score;
    GstSsim2SummaryMessage summary;
    if (gst_ssim2_score_message_parse_message (m, &score)) {
      Score sc;
      sc.timestamp = score.timestamp;
      sc.score = score.score;
      sc.measurement = out->summary_frames->len;
      g_array_append_val (out->scores, sc);
      if (++n == seek_after && !seeked) {
        seeked = TRUE;
        fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
                (GstSeekFlags) (GST_SEEK_FLAG_FLUSH | flags), seek_to));
      }
    } else if (gst_ssim2_summary_message_parse_message (m, &summary)) {
      guint64 frames = summary.frames;
      g_array_append_val (out->summary_frames, frames);
    }
    gst_message_unref (m);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  fail_unless (g_file_get_contents (stats_path, &out->stats, NULL, NULL));
  fail_unless (g_file_get_contents (summary_path, &out->summary, NULL, NULL));
  g_unlink (stats_path);
  g_unlink (summary_path);
  g_free (stats_path);
  g_free (summary_path);
}

static void
run_compare (const gchar * alignment, guint seek_after, GstSeekFlags flags,
    GstClockTime seek_to, Run * out)
{
  run_compare_files (ref_path, dist_path, alignment, seek_after, flags,
      seek_to, out);
}

static guint
count_lines (const gchar * text)
{
  guint n = 0;
  for (const gchar * p = text; *p; p++)
    n += *p == '\n';
  return n;
}

/* `frames` of the summary file's only summary (docs/LOGS.md); -1 when
 * there is not exactly one. */
static gint64
summary_frames_in_file (const gchar * text)
{
  const gchar *key = "\"frames\": ";
  const gchar *first = strstr (text, key);
  if (first == NULL || strstr (first + 1, key) != NULL)
    return -1;
  return g_ascii_strtoll (first + strlen (key), NULL, 10);
}

/* Every score of @seeked equals the score of the same frame in @plain, each
 * frame of the last measurement is scored once, and they cover every frame
 * from @from to the end. */
static void
check_same_scores (const Run * plain, const Run * seeked, GstClockTime from)
{
  GHashTable *want = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, g_free);
  for (guint i = 0; i < plain->scores->len; i++) {
    const Score *s = &g_array_index (plain->scores, Score, i);
    gint64 *k = g_new (gint64, 1);
    gdouble *v = g_new (gdouble, 1);
    *k = (gint64) s->timestamp;
    *v = s->score;
    fail_if (g_hash_table_contains (want, k), "frame at %" GST_TIME_FORMAT
        " scored twice in the plain run", GST_TIME_ARGS (s->timestamp));
    g_hash_table_insert (want, k, v);
  }
  fail_unless_equals_int (plain->scores->len, CLIP_FRAMES);

  const guint last = seeked->summary_frames->len - 1;
  GHashTable *seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  guint in_last = 0;
  for (guint i = 0; i < seeked->scores->len; i++) {
    const Score *s = &g_array_index (seeked->scores, Score, i);
    gint64 k = (gint64) s->timestamp;
    gdouble *v = (gdouble *) g_hash_table_lookup (want, &k);
    fail_unless (v != NULL, "no frame at %" GST_TIME_FORMAT " in the plain "
        "run", GST_TIME_ARGS (s->timestamp));
    fail_unless (*v == s->score, "frame at %" GST_TIME_FORMAT " scores %.8f "
        "after the seek, %.8f without", GST_TIME_ARGS (s->timestamp),
        s->score, *v);
    if (s->measurement == last) {
      fail_if (g_hash_table_contains (seen, &s->timestamp),
          "frame at %" GST_TIME_FORMAT " scored twice after the seek",
          GST_TIME_ARGS (s->timestamp));
      g_hash_table_add (seen, (gpointer) & s->timestamp);
      fail_unless (s->timestamp + GST_MSECOND >= from, "frame at %"
          GST_TIME_FORMAT " is before the seek position",
          GST_TIME_ARGS (s->timestamp));
      in_last++;
    }
  }
  /* Frames from @from to the end (timestamps are in ms in the file). */
  guint expect = CLIP_FRAMES - (guint) ((from + GST_MSECOND) * 30 /
      GST_SECOND);
  fail_unless_equals_int (in_last, expect);
  g_hash_table_unref (seen);
  g_hash_table_unref (want);
}

/* The last summary, the stats file and the summary file describe the same
 * pairs: those of the last measurement. */
static void
check_file_matches_summary (const Run * r)
{
  fail_unless (r->summary_frames->len >= 1);
  guint64 last = g_array_index (r->summary_frames, guint64,
      r->summary_frames->len - 1);
  guint in_last = 0;
  for (guint i = 0; i < r->scores->len; i++)
    in_last += g_array_index (r->scores, Score, i).measurement ==
        r->summary_frames->len - 1;
  fail_unless_equals_uint64 (last, in_last);
  /* CSV: a header line and one line per scored frame (docs/LOGS.md); the
   * summary file: the summary of the same measurement, replacing the one
   * before the seek. */
  fail_unless_equals_int (count_lines (r->stats), last + 1);
  fail_unless_equals_int64 (summary_frames_in_file (r->summary),
      (gint64) last);
}

static void
check_seek (const gchar * alignment, GstSeekFlags flags)
{
  Run plain, seeked;
  run_compare (alignment, 0, GST_SEEK_FLAG_NONE, 0, &plain);
  run_compare (alignment, 10, flags, GST_SECOND, &seeked);
  check_same_scores (&plain, &seeked, GST_SECOND);
  /* One summary for the frames before the seek, one for those after. */
  fail_unless_equals_int (seeked.summary_frames->len, 2);
  check_file_matches_summary (&seeked);
  run_clear (&plain);
  run_clear (&seeked);
}

GST_START_TEST (test_flushing_seek_accurate)
{
  check_seek ("running-time", GST_SEEK_FLAG_ACCURATE);
}

GST_END_TEST;

GST_START_TEST (test_flushing_seek_accurate_sequence)
{
  check_seek ("sequence", GST_SEEK_FLAG_ACCURATE);
}

GST_END_TEST;

GST_START_TEST (test_seek_after_eos)
{
  /* The whole clip, then a seek back to its start: a new measurement with
   * the same pairs, and a stats file that holds exactly those. */
  Run plain, again;
  run_compare ("running-time", 0, GST_SEEK_FLAG_NONE, 0, &plain);
  run_compare ("running-time", G_MAXUINT, GST_SEEK_FLAG_ACCURATE, 0, &again);
  fail_unless_equals_int (again.summary_frames->len, 2);
  fail_unless_equals_uint64 (g_array_index (again.summary_frames, guint64,
          0), CLIP_FRAMES);
  fail_unless_equals_uint64 (g_array_index (again.summary_frames, guint64,
          1), CLIP_FRAMES);
  check_same_scores (&plain, &again, 0);
  check_file_matches_summary (&again);
  run_clear (&plain);
  run_clear (&again);
}

GST_END_TEST;

static gboolean
has_warning (const Run * r, const gchar * needle)
{
  for (guint i = 0; i < r->warnings->len; i++)
    if (strstr ((const gchar *) g_ptr_array_index (r->warnings, i), needle))
      return TRUE;
  return FALSE;
}

GST_START_TEST (test_key_unit_seek_different_gops)
{
  /* Keyframes every 30 frames on ref, every 45 on dist: a KEY_UNIT seek to
   * 1.2 s restarts ref at 1.0 s and dist at 0 s, both at running time 0. */
  gchar *ref = g_build_filename (tmp_dir, "ref-gop30.mkv", NULL);
  gchar *dist = g_build_filename (tmp_dir, "dist-gop45.mkv", NULL);
  make_clip (ref, 5, 30);
  make_clip (dist, 40, 45);
  const GstSeekFlags key_unit = GST_SEEK_FLAG_KEY_UNIT;
  const GstClockTime to = GST_SECOND + GST_SECOND / 5;
  Run plain, by_running_time, by_stream_time;
  run_compare_files (ref, dist, "stream-time", 0, GST_SEEK_FLAG_NONE, 0,
      &plain);
  run_compare_files (ref, dist, "running-time", 10, key_unit, to,
      &by_running_time);
  run_compare_files (ref, dist, "stream-time", 10, key_unit, to,
      &by_stream_time);

  /* Running time pairs different moments: a warning says so. */
  fail_unless (has_warning (&by_running_time, "different positions"));
  /* Stream time pairs each frame with its own: the scores of the plain
   * run, for every frame from 1.0 s (where ref restarted), no warning. */
  fail_if (has_warning (&by_stream_time, "different positions"));
  check_same_scores (&plain, &by_stream_time, GST_SECOND);
  check_file_matches_summary (&by_stream_time);

  run_clear (&plain);
  run_clear (&by_running_time);
  run_clear (&by_stream_time);
  g_unlink (ref);
  g_unlink (dist);
  g_free (ref);
  g_free (dist);
}

GST_END_TEST;

static Suite *
ssim2compare_seek_suite (void)
{
  Suite *s = suite_create ("ssim2compare-seek");
  TCase *tc = clip_tcase (s, "seek", clips_setup, clips_teardown);
  tcase_add_test (tc, test_flushing_seek_accurate);
  tcase_add_test (tc, test_flushing_seek_accurate_sequence);
  tcase_add_test (tc, test_seek_after_eos);
  tcase_add_test (tc, test_key_unit_seek_different_gops);
  return s;
}

GST_CHECK_MAIN (ssim2compare_seek);
