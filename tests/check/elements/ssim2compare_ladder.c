/* gst-check tests of ssim2compare with several renditions (CPU backend).
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * A reference clip and three renditions of it (x264enc at three bitrates,
 * Matroska) are made at the start and decoded in software by avdec_h264.
 * One element scores the three renditions on its dist and dist_%u pads;
 * every rendition must get exactly the scores of its own one-to-one run.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gsttestclock.h>
#include <gst/base/gstaggregator.h>

#include "check_util.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define CLIP_FRAMES 30          /* 1 s at 30 fps */
#define RENDITIONS 3

static const guint bitrates[RENDITIONS] = { 60, 150, 400 };        /* kbit/s */

/* The pads the renditions are linked to, in the ladder pipeline. */
static const gchar *pad_names[RENDITIONS] = { "dist", "dist_1", "dist_2" };

static gchar *tmp_dir;
static gchar *ref_path;
static gchar *rendition_paths[RENDITIONS];

static const gchar *const clip_factories[] = { "x264enc", "avdec_h264", "matroskamux",
    "matroskademux", "videotestsrc", "videoscale", NULL
};

/* @encoder: the x264enc rate settings. */
static void
make_clip (const gchar * path, const gchar * encoder)
{
  make_x264_clip (path, CLIP_FRAMES, encoder);
}

static void
clips_setup (void)
{
  fail_unless (have_factories (clip_factories));
  tmp_dir = g_dir_make_tmp ("ssim2-ladder-XXXXXX", NULL);
  fail_unless (tmp_dir != NULL);
  ref_path = g_build_filename (tmp_dir, "ref.mkv", NULL);
  make_clip (ref_path, "pass=quant quantizer=5");
  for (guint i = 0; i < RENDITIONS; i++) {
    gchar *name = g_strdup_printf ("r%u.mkv", bitrates[i]);
    gchar *enc = g_strdup_printf ("bitrate=%u", bitrates[i]);
    rendition_paths[i] = g_build_filename (tmp_dir, name, NULL);
    make_clip (rendition_paths[i], enc);
    g_free (enc);
    g_free (name);
  }
}

static void
clips_teardown (void)
{
  g_unlink (ref_path);
  g_free (ref_path);
  for (guint i = 0; i < RENDITIONS; i++) {
    g_unlink (rendition_paths[i]);
    g_free (rendition_paths[i]);
  }
  g_rmdir (tmp_dir);
  g_free (tmp_dir);
}

typedef struct
{
  GstClockTime timestamp;
  GstClockTime running_time;
  gdouble score;
  guint measurement;            /* summaries of its pad posted before it */
} Score;

/* What one pad got in a run. */
typedef struct
{
  GArray *scores;               /* Score, in the order posted */
  /* GstSsim2IntervalMessage (pad NULL: the message is gone), in the order
   * posted */
  GArray *windows;
  guint summaries;
  guint64 first_summary_frames; /* of the first summary */
  guint64 summary_frames;       /* of the last summary */
  guint scores_at_summary;      /* scores posted before the last summary */
  guint64 summary_skipped;
  guint64 summary_unmatched_ref;
  guint64 summary_unmatched_dist;
  gchar *failure;               /* of the last summary */
  gboolean window_after_summary;
} PadResult;

/* What a run posted: results by pad name, warnings, and whether it ended
 * with EOS (else an error). */
typedef struct
{
  GHashTable *pads;             /* pad name -> PadResult */
  GPtrArray *warnings;          /* "pad|message" of each warning */
  gchar *error;                 /* NULL: EOS */
  /* A flushing seek to seek_to once seek_after scores (of any pad) came;
   * 0: none. */
  guint seek_after;
  GstClockTime seek_to;
  guint scores_seen;
  gboolean seeked;
} Run;

static void
pad_result_free (gpointer p)
{
  PadResult *r = (PadResult *) p;
  g_array_unref (r->scores);
  g_array_unref (r->windows);
  g_free (r->failure);
  g_free (r);
}

static void
run_init (Run * run)
{
  run->pads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      pad_result_free);
  run->warnings = g_ptr_array_new_with_free_func (g_free);
  run->error = NULL;
  run->seek_after = 0;
  run->seek_to = 0;
  run->scores_seen = 0;
  run->seeked = FALSE;
}

static void
run_clear (Run * run)
{
  g_hash_table_unref (run->pads);
  g_ptr_array_unref (run->warnings);
  g_free (run->error);
}

static PadResult *
run_pad (Run * run, const gchar * pad)
{
  PadResult *r = (PadResult *) g_hash_table_lookup (run->pads, pad);
  if (!r) {
    r = g_new0 (PadResult, 1);
    r->scores = g_array_new (FALSE, FALSE, sizeof (Score));
    r->windows = g_array_new (FALSE, FALSE, sizeof (GstSsim2IntervalMessage));
    g_hash_table_insert (run->pads, g_strdup (pad), r);
  }
  return r;
}

/* Collects the element's messages of @pipe (PLAYING already) until EOS or
 * an error. */
static void
collect (GstElement * pipe, Run * run)
{
  GstBus *bus = gst_element_get_bus (pipe);
  while (TRUE) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
            GST_MESSAGE_WARNING | GST_MESSAGE_ELEMENT));
    fail_unless (m != NULL, "timeout");
    GError *err = NULL;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
      gst_message_unref (m);
      break;
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &err, NULL);
      run->error = g_strdup (err->message);
      g_clear_error (&err);
      gst_message_unref (m);
      break;
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING) {
      const GstStructure *details = NULL;
      gst_message_parse_warning (m, &err, NULL);
      gst_message_parse_warning_details (m, &details);
      const gchar *pad = details ? gst_structure_get_string (details, "pad") :
          NULL;
      g_ptr_array_add (run->warnings, g_strdup_printf ("%s|%s",
              pad ? pad : "", err->message));
      g_clear_error (&err);
      gst_message_unref (m);
      continue;
    }
    GstSsim2ScoreMessage score;
    GstSsim2SummaryMessage summary;
    GstSsim2IntervalMessage window;
    if (gst_ssim2_score_message_parse_message (m, &score)) {
      fail_unless (score.pad != NULL, "ssim2 message without pad");
      Score sc;
      sc.timestamp = score.timestamp;
      sc.running_time = score.running_time;
      sc.score = score.score;
      sc.measurement = run_pad (run, score.pad)->summaries;
      g_array_append_val (run_pad (run, score.pad)->scores, sc);
      if (run->seek_after && !run->seeked &&
          ++run->scores_seen == run->seek_after) {
        run->seeked = TRUE;
        fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
                (GstSeekFlags) (GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE),
                run->seek_to));
      }
    } else if (gst_ssim2_summary_message_parse_message (m, &summary)) {
      fail_unless (summary.pad[0] != '\0', "ssim2-summary without pad");
      PadResult *r = run_pad (run, summary.pad);
      r->summaries++;
      r->summary_frames = summary.frames;
      if (r->summaries == 1)
        r->first_summary_frames = r->summary_frames;
      r->scores_at_summary = r->scores->len;
      r->summary_skipped = summary.skipped;
      r->summary_unmatched_ref = summary.unmatched_ref;
      r->summary_unmatched_dist = summary.unmatched_dist;
      g_free (r->failure);
      r->failure = g_strdup (summary.failure);
    } else if (gst_ssim2_interval_message_parse_message (m, &window)) {
      fail_unless (window.pad[0] != '\0', "ssim2-interval without pad");
      PadResult *r = run_pad (run, window.pad);
      window.pad = NULL;
      g_array_append_val (r->windows, window);
      if (r->summaries > 0)
        r->window_after_summary = TRUE;
    }
    gst_message_unref (m);
  }
  gst_object_unref (bus);
}

static gchar *
branch (const gchar * path, const gchar * pad)
{
  return g_strdup_printf ("filesrc location=\"%s\" ! matroskademux ! "
      "avdec_h264 ! queue ! c.%s ", path, pad);
}

/* Runs the reference against @paths[i] on the pads @pads[i]. */
static GstElement *
make_pipeline (const gchar ** paths, const gchar ** pads, guint n,
    const gchar * extra)
{
  GString *desc = g_string_new ("ssim2compare name=c backend=cpu ! "
      "fakesink sync=false ");
  gchar *b = branch (ref_path, "ref");
  g_string_append (desc, b);
  g_free (b);
  for (guint i = 0; i < n; i++) {
    b = branch (paths[i], pads[i]);
    g_string_append (desc, b);
    g_free (b);
  }
  if (extra)
    g_string_append (desc, extra);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc->str, &err);
  fail_unless (pipe != NULL, "%s: %s", desc->str, err ? err->message : "?");
  g_string_free (desc, TRUE);
  return pipe;
}

/* Runs @pipe to its end; @run was set up by run_init. */
static void
run_initialised (GstElement * pipe, Run * run)
{
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  collect (pipe, run);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

static void
run_pipeline (GstElement * pipe, Run * run)
{
  run_init (run);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  collect (pipe, run);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

/* The one-to-one run of rendition @i (on the dist pad); returns its pad's
 * results. */
static const PadResult *
run_alone (guint i, Run * run)
{
  const gchar *paths[] = { rendition_paths[i] };
  const gchar *pads[] = { "dist" };
  run_pipeline (make_pipeline (paths, pads, 1, NULL), run);
  fail_unless (run->error == NULL, "%s", run->error);
  return run_pad (run, "dist");
}

/* The first @n scores of @got are those of @want, in order, timestamps
 * included. */
static void
check_same_scores (const PadResult * want, const PadResult * got, guint n,
    const gchar * pad)
{
  fail_unless (got->scores->len >= n && want->scores->len >= n);
  for (guint k = 0; k < n; k++) {
    const Score *w = &g_array_index (want->scores, Score, k);
    const Score *g = &g_array_index (got->scores, Score, k);
    fail_unless_equals_uint64 (g->timestamp, w->timestamp);
    fail_unless (g->score == w->score, "%s frame %u: %.10f in the ladder, "
        "%.10f alone", pad, k, g->score, w->score);
  }
}

GST_START_TEST (test_ladder_equals_separate_runs)
{
  Run ladder;
  const gchar *paths[RENDITIONS];
  for (guint i = 0; i < RENDITIONS; i++)
    paths[i] = rendition_paths[i];
  run_pipeline (make_pipeline (paths, pad_names, RENDITIONS, NULL), &ladder);
  fail_unless (ladder.error == NULL, "%s", ladder.error);
  fail_unless_equals_int (g_hash_table_size (ladder.pads), RENDITIONS);

  gdouble previous_first = 0.0;
  for (guint i = 0; i < RENDITIONS; i++) {
    Run alone;
    const PadResult *want = run_alone (i, &alone);
    const PadResult *got = run_pad (&ladder, pad_names[i]);
    fail_unless_equals_int (got->summaries, 1);
    fail_unless_equals_uint64 (got->summary_frames, CLIP_FRAMES);
    fail_unless_equals_int (got->scores->len, CLIP_FRAMES);
    fail_unless_equals_int (want->scores->len, CLIP_FRAMES);
    check_same_scores (want, got, CLIP_FRAMES, pad_names[i]);
    /* Three different renditions: a mix-up of pads would show. */
    const gdouble first = g_array_index (got->scores, Score, 0).score;
    fail_if (i > 0 && first == previous_first, "%s scores as %s",
        pad_names[i], pad_names[i - 1]);
    previous_first = first;
    run_clear (&alone);
  }
  fail_unless_equals_int (ladder.warnings->len, 0);
  run_clear (&ladder);
}

GST_END_TEST;

/* Releases the request pad after RELEASE_AT buffers went to it, from the
 * streaming thread of its queue, and drops what the queue sends after. */
#define RELEASE_AT 10

typedef struct
{
  GstElement *compare;
  GstPad *pad;                  /* the request pad */
  guint buffers;
  gboolean released;
} Release;

static GstPadProbeReturn
release_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Release *rel = (Release *) data;
  (void) pad;
  if (rel->released)
    return GST_PAD_PROBE_DROP;
  if (!(GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER))
    return GST_PAD_PROBE_OK;
  if (++rel->buffers <= RELEASE_AT)
    return GST_PAD_PROBE_OK;
  rel->released = TRUE;
  gst_element_release_request_pad (rel->compare, rel->pad);
  return GST_PAD_PROBE_DROP;
}

GST_START_TEST (test_ladder_pad_released_mid_stream)
{
  const gchar *paths[RENDITIONS];
  for (guint i = 0; i < RENDITIONS; i++)
    paths[i] = rendition_paths[i];
  GstElement *pipe = make_pipeline (paths, pad_names, RENDITIONS, NULL);
  Release rel = { 0 };
  rel.compare = gst_bin_get_by_name (GST_BIN (pipe), "c");
  rel.pad = gst_element_get_static_pad (rel.compare, "dist_1");
  fail_unless (rel.pad != NULL);
  GstPad *queue_src = gst_pad_get_peer (rel.pad);
  gst_pad_add_probe (queue_src, GST_PAD_PROBE_TYPE_DATA_DOWNSTREAM,
      release_probe, &rel, NULL);

  Run ladder;
  run_pipeline (pipe, &ladder);
  fail_unless (ladder.error == NULL, "%s", ladder.error);
  fail_unless (rel.released);
  fail_unless (gst_element_get_static_pad (rel.compare, "dist_1") == NULL);

  /* The released rendition: one summary of the frames scored before. */
  const PadResult *gone = run_pad (&ladder, "dist_1");
  fail_unless_equals_int (gone->summaries, 1);
  fail_unless (gone->summary_frames > 0 &&
      gone->summary_frames <= RELEASE_AT, "%" G_GUINT64_FORMAT,
      gone->summary_frames);
  fail_unless_equals_int (gone->scores->len, (guint) gone->summary_frames);
  fail_unless_equals_int (gone->scores_at_summary, gone->scores->len);
  Run alone;
  check_same_scores (run_alone (1, &alone), gone, gone->scores->len, "dist_1");
  run_clear (&alone);

  /* The others go on to the end. */
  for (guint i = 0; i < RENDITIONS; i += 2) {
    const PadResult *r = run_pad (&ladder, pad_names[i]);
    fail_unless_equals_int (r->summaries, 1);
    fail_unless_equals_uint64 (r->summary_frames, CLIP_FRAMES);
  }
  run_clear (&ladder);
  gst_object_unref (queue_src);
  gst_object_unref (rel.pad);
  gst_object_unref (rel.compare);
}

GST_END_TEST;

#define LONG_FRAMES 300
#define LATE_FRAMES 60

/* A rendition pad requested while PLAYING pairs from the ref frames of its
 * running time on, with its own summary, while the others go on. */
GST_START_TEST (test_ladder_pad_requested_while_playing)
{
  const gchar *caps = "video/x-raw,format=I420,width=320,height=240,"
      "framerate=30/1";
  gchar *desc = g_strdup_printf ("ssim2compare name=c backend=cpu ! "
      "fakesink sync=false "
      "videotestsrc num-buffers=%d pattern=ball ! %s ! queue ! c.ref "
      "videotestsrc num-buffers=%d pattern=ball ! %s ! queue ! c.dist",
      LONG_FRAMES, caps, LONG_FRAMES, caps);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  g_free (desc);
  GstElement *c = gst_bin_get_by_name (GST_BIN (pipe), "c");
  GstBus *bus = gst_element_get_bus (pipe);
  Run run;
  run_init (&run);
  gst_element_set_state (pipe, GST_STATE_PLAYING);

  /* After 10 scores of dist, a new branch whose frames start at the running
   * time where dist is now. */
  GstClockTime offset = GST_CLOCK_TIME_NONE;
  guint dist_scores = 0;
  while (!GST_CLOCK_TIME_IS_VALID (offset)) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_ELEMENT);
    fail_unless (m != NULL);
    GstSsim2ScoreMessage score;
    if (gst_ssim2_score_message_parse_message (m, &score) &&
        GST_CLOCK_TIME_IS_VALID (score.running_time) && ++dist_scores == 10)
      offset = score.running_time;
    gst_message_unref (m);
  }
  gchar *branch_desc = g_strdup_printf ("videotestsrc num-buffers=%d "
      "pattern=ball ! %s ! queue name=late", LATE_FRAMES, caps);
  GstElement *branch = gst_parse_bin_from_description (branch_desc, TRUE,
      NULL);
  g_free (branch_desc);
  fail_unless (branch != NULL);
  gst_bin_add (GST_BIN (pipe), branch);
  GstPad *pad = gst_element_request_pad_simple (c, "dist_%u");
  fail_unless (pad != NULL);
  fail_unless_equals_string (GST_PAD_NAME (pad), "dist_0");
  GstPad *branch_src = gst_element_get_static_pad (branch, "src");
  gst_pad_set_offset (branch_src, (gint64) offset);
  fail_unless_equals_int (gst_pad_link (branch_src, pad), GST_PAD_LINK_OK);
  fail_unless (gst_element_sync_state_with_parent (branch));

  collect (pipe, &run);
  fail_unless (run.error == NULL, "%s", run.error);
  gst_element_set_state (pipe, GST_STATE_NULL);

  const PadResult *late = run_pad (&run, "dist_0");
  fail_unless_equals_int (late->summaries, 1);
  fail_unless (late->summary_frames > 0);
  fail_unless_equals_uint64 (late->summary_frames +
      late->summary_unmatched_dist, LATE_FRAMES);
  fail_unless (g_array_index (late->scores, Score, 0).running_time >= offset);
  const PadResult *dist = run_pad (&run, "dist");
  fail_unless_equals_int (dist->summaries, 1);
  fail_unless_equals_uint64 (dist->summary_frames, LONG_FRAMES);
  /* Only the short late rendition warns: it ends first, and with several
   * renditions the text names its pad too. */
  fail_unless_equals_int (run.warnings->len, 1);
  const gchar *w = (const gchar *) g_ptr_array_index (run.warnings, 0);
  fail_unless (g_str_has_prefix (w, "dist_0|dist_0: the dist input ended "
          "first"), "%s", w);
  run_clear (&run);
  gst_object_unref (branch_src);
  gst_object_unref (pad);
  gst_object_unref (bus);
  gst_object_unref (c);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* A rendition of another size is reported with its pad (a warning that
 * shows the scaler to insert) while the other renditions are scored to the
 * end. */
GST_START_TEST (test_ladder_wrong_size_rendition)
{
  const gchar *paths[] = { rendition_paths[0], rendition_paths[2] };
  const gchar *pads[] = { "dist", "dist_2" };
  /* dist_1 gets rendition 1 scaled to 80x60. */
  gchar *extra = g_strdup_printf ("filesrc location=\"%s\" ! matroskademux ! "
      "avdec_h264 ! videoscale ! video/x-raw,width=80,height=60 ! queue ! "
      "c.dist_1 ", rendition_paths[1]);
  Run ladder;
  run_pipeline (make_pipeline (paths, pads, 2, extra), &ladder);
  g_free (extra);
  fail_unless (ladder.error == NULL, "%s", ladder.error);

  gboolean reported = FALSE;
  for (guint i = 0; i < ladder.warnings->len; i++) {
    const gchar *w = (const gchar *) g_ptr_array_index (ladder.warnings, i);
    if (g_str_has_prefix (w, "dist_1|") && strstr (w, "pad dist_1 are 80x60")
        && strstr (w, "160x120"))
      reported = TRUE;
    else
      fail ("unexpected warning %s", w);
  }
  fail_unless (reported);

  const PadResult *bad = run_pad (&ladder, "dist_1");
  fail_unless_equals_int (bad->summaries, 1);
  fail_unless_equals_uint64 (bad->summary_frames, 0);
  for (guint i = 0; i < 2; i++) {
    Run alone;
    const PadResult *want = run_alone (i * 2, &alone);
    const PadResult *r = run_pad (&ladder, pads[i]);
    fail_unless_equals_int (r->summaries, 1);
    fail_unless_equals_uint64 (r->summary_frames, CLIP_FRAMES);
    check_same_scores (want, r, CLIP_FRAMES, pads[i]);
    run_clear (&alone);
  }
  run_clear (&ladder);
}

GST_END_TEST;

/* With rendition pads, one stats file holds every rendition's rows, each
 * naming its pad in the source column, and the summary file one summary
 * per pad. */
GST_START_TEST (test_ladder_stats_file_source_column)
{
  const gchar *paths[RENDITIONS];
  for (guint i = 0; i < RENDITIONS; i++)
    paths[i] = rendition_paths[i];
  gchar *csv = g_build_filename (tmp_dir, "ladder.csv", NULL);
  gchar *summary = g_build_filename (tmp_dir, "ladder-summary.json", NULL);
  GstElement *pipe = make_pipeline (paths, pad_names, RENDITIONS, NULL);
  GstElement *c = gst_bin_get_by_name (GST_BIN (pipe), "c");
  g_object_set (c, "stats-file", csv, "summary-file", summary, NULL);
  gst_object_unref (c);
  Run ladder;
  run_pipeline (pipe, &ladder);
  fail_unless (ladder.error == NULL, "%s", ladder.error);

  gchar *text = NULL;
  fail_unless (g_file_get_contents (csv, &text, NULL, NULL));
  gchar **lines = g_strsplit (text, "\n", -1);
  fail_unless (g_str_has_suffix (lines[0], ",score,ref_frame,source"), "%s",
      lines[0]);
  guint rows[RENDITIONS] = { 0 };
  for (guint k = 1; lines[k] && lines[k][0]; k++) {
    const gchar *source = strrchr (lines[k], ',') + 1;
    guint i = 0;
    while (i < RENDITIONS && strcmp (source, pad_names[i]) != 0)
      i++;
    fail_unless (i < RENDITIONS, "row %s", lines[k]);
    /* The row's score is the one of the rendition's k-th message. */
    gchar **cols = g_strsplit (lines[k], ",", -1);
    const PadResult *r = run_pad (&ladder, pad_names[i]);
    fail_unless (rows[i] < r->scores->len);
    const gdouble want = g_array_index (r->scores, Score, rows[i]).score;
    fail_unless (fabs (g_ascii_strtod (cols[6], NULL) - want) < 1e-8,
        "%s: %s, message %.10f", pad_names[i], cols[6], want);
    g_strfreev (cols);
    rows[i]++;
  }
  for (guint i = 0; i < RENDITIONS; i++)
    fail_unless_equals_int (rows[i], CLIP_FRAMES);
  g_strfreev (lines);
  g_free (text);
  g_unlink (csv);
  g_free (csv);

  fail_unless (g_file_get_contents (summary, &text, NULL, NULL));
  for (guint i = 0; i < RENDITIONS; i++) {
    gchar *entry = g_strdup_printf ("{\"source\": \"%s\", \"summary\": {\n"
        "      \"frames\": %u,\n", pad_names[i], CLIP_FRAMES);
    fail_unless (strstr (text, entry) != NULL, "no %s in\n%s", entry, text);
    g_free (entry);
  }
  g_free (text);
  g_unlink (summary);
  g_free (summary);
  run_clear (&ladder);
}

GST_END_TEST;

static GstPadProbeReturn
count_buffers (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  (void) pad;
  (void) info;
  (*(guint *) data)++;
  return GST_PAD_PROBE_OK;
}

/* Caps that cannot be scored on the `dist` pad (frames of another size than
 * the reference's; frames under 8x8 are refused at negotiation already) are
 * a warning naming it while the request pads are scored; its frames still
 * leave on src, unscored. */
GST_START_TEST (test_ladder_bad_caps_on_dist)
{
  const gchar *paths[] = { rendition_paths[1], rendition_paths[2] };
  const gchar *pads[] = { "dist_1", "dist_2" };
  const gchar *extra = "videotestsrc num-buffers=30 ! "
      "video/x-raw,format=I420,width=8,height=8,framerate=30/1 ! queue ! "
      "c.dist ";
  GstElement *pipe = make_pipeline (paths, pads, 2, extra);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "fakesink0");
  fail_unless (sink != NULL);
  GstPad *sink_pad = gst_element_get_static_pad (sink, "sink");
  guint pushed = 0;
  gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffers,
      &pushed, NULL);
  Run ladder;
  run_pipeline (pipe, &ladder);
  fail_unless (ladder.error == NULL, "%s", ladder.error);
  fail_unless_equals_int (pushed, 30);
  gst_object_unref (sink_pad);
  gst_object_unref (sink);

  fail_unless_equals_int (ladder.warnings->len, 1);
  const gchar *w = (const gchar *) g_ptr_array_index (ladder.warnings, 0);
  fail_unless (g_str_has_prefix (w, "dist|") && strstr (w, "pad dist are 8x8"),
      "%s", w);
  const PadResult *bad = run_pad (&ladder, "dist");
  fail_unless_equals_int (bad->summaries, 1);
  fail_unless_equals_uint64 (bad->summary_frames, 0);
  fail_unless (bad->failure && strstr (bad->failure, "reference's size"), "%s",
      bad->failure);
  for (guint i = 0; i < 2; i++) {
    const PadResult *r = run_pad (&ladder, pads[i]);
    fail_unless_equals_uint64 (r->summary_frames, CLIP_FRAMES);
    fail_unless (r->failure && r->failure[0] == '\0');
  }
  run_clear (&ladder);
}

GST_END_TEST;

#define INTERVAL (100 * GST_MSECOND)

/* Every scored frame of every rendition falls in exactly one ssim2-interval
 * window, and the windows' figures are those of their frames. */
GST_START_TEST (test_ladder_interval_windows)
{
  const gchar *paths[RENDITIONS];
  for (guint i = 0; i < RENDITIONS; i++)
    paths[i] = rendition_paths[i];
  GstElement *pipe = make_pipeline (paths, pad_names, RENDITIONS, NULL);
  GstElement *c = gst_bin_get_by_name (GST_BIN (pipe), "c");
  g_object_set (c, "interval", (guint64) INTERVAL, NULL);
  gst_object_unref (c);
  Run ladder;
  run_pipeline (pipe, &ladder);
  fail_unless (ladder.error == NULL, "%s", ladder.error);

  for (guint i = 0; i < RENDITIONS; i++) {
    const PadResult *r = run_pad (&ladder, pad_names[i]);
    fail_unless_equals_int (r->scores->len, CLIP_FRAMES);
    fail_if (r->window_after_summary);
    /* 30 frames at 30 fps in windows of 100 ms. */
    fail_unless_equals_int (r->windows->len, CLIP_FRAMES / 3);
    guint64 total = 0;
    for (guint k = 0; k < r->windows->len; k++) {
      const GstSsim2IntervalMessage *w = &g_array_index (r->windows,
          GstSsim2IntervalMessage, k);
      fail_unless_equals_uint64 (w->end - w->start, INTERVAL);
      fail_unless (k == 0 || w->start >= g_array_index (r->windows,
              GstSsim2IntervalMessage, k - 1).end, "windows overlap");
      fail_unless_equals_uint64 (w->skipped, 0);
      guint64 n = 0;
      gdouble sum = 0.0, lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;
      for (guint f = 0; f < r->scores->len; f++) {
        const Score *sc = &g_array_index (r->scores, Score, f);
        if (sc->running_time < w->start || sc->running_time >= w->end)
          continue;
        n++;
        sum += sc->score;
        lo = MIN (lo, sc->score);
        hi = MAX (hi, sc->score);
      }
      fail_unless_equals_uint64 (w->frames, n);
      fail_unless (w->min == lo && w->max == hi);
      fail_unless (fabs (w->mean - sum / n) < 1e-9, "mean %.12f, %.12f",
          w->mean, sum / n);
      total += w->frames;
    }
    fail_unless_equals_uint64 (total, CLIP_FRAMES);
  }
  run_clear (&ladder);
}

GST_END_TEST;

#define LATE_FRAMES_N 60          /* 2 s at 30 fps */
#define LATE_NOW (2 * GST_SECOND)
#define LATE_MAX_LATENESS (490 * GST_MSECOND)

/* Pairs later than max-lateness behind the clock are skipped, the others
 * scored, and the summary counts both. The pipeline's clock is a
 * GstTestClock that stays at LATE_NOW of running time (base time 0) from
 * the first pair to the last, as for a scorer that fell that far behind:
 * which pairs are late follows from the rule alone, whatever the machine's
 * speed. Not live, so that no deadline of the aggregator's comes into it:
 * max-lateness set to a value applies in any pipeline. */
GST_START_TEST (test_lateness_skips_late_pairs)
{
  const gchar *src = "videotestsrc num-buffers=%d pattern=ball "
      "! video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! "
      "queue ! c.%s ";
  GString *desc = g_string_new ("ssim2compare name=c backend=cpu ! "
      "fakesink sync=false ");
  g_string_append_printf (desc, src, LATE_FRAMES_N, "ref");
  g_string_append_printf (desc, src, LATE_FRAMES_N, "dist");
  GstElement *pipe = gst_parse_launch (desc->str, NULL);
  fail_unless (pipe != NULL);
  g_string_free (desc, TRUE);
  GstClock *clock = gst_test_clock_new_with_start_time (LATE_NOW);
  gst_pipeline_use_clock (GST_PIPELINE (pipe), clock);
  /* The base time stays 0: the clock reads LATE_NOW of running time. The
   * element has the clock before PLAYING, for the pairs of the preroll. */
  gst_element_set_start_time (pipe, GST_CLOCK_TIME_NONE);
  gst_element_set_base_time (pipe, 0);
  GstElement *c = gst_bin_get_by_name (GST_BIN (pipe), "c");
  gst_element_set_clock (c, clock);
  gst_element_set_base_time (c, 0);
  g_object_set (c, "max-lateness", (gint64) LATE_MAX_LATENESS, NULL);
  gst_object_unref (c);

  Run run;
  run_pipeline (pipe, &run);
  fail_unless (run.error == NULL, "%s", run.error);
  /* The documented rule: a pair is skipped when the clock is more than
   * max-lateness past its running time (no latency: not live). */
  guint64 late = 0;
  for (guint k = 0; k < LATE_FRAMES_N; k++) {
    const GstClockTime rt = gst_util_uint64_scale (k, GST_SECOND, 30);
    if (rt + LATE_MAX_LATENESS < LATE_NOW)
      late++;
  }
  fail_unless (late > 0 && late < LATE_FRAMES_N);
  const PadResult *r = run_pad (&run, "dist");
  fail_unless_equals_int (r->summaries, 1);
  fail_unless_equals_uint64 (r->summary_skipped, late);
  fail_unless_equals_uint64 (r->summary_frames, LATE_FRAMES_N - late);
  fail_unless_equals_uint64 (r->summary_unmatched_dist, 0);
  /* The scored ones are the frames on time, in order. */
  for (guint i = 0; i < r->scores->len; i++) {
    const Score *sc = &g_array_index (r->scores, Score, i);
    fail_unless (LATE_NOW - sc->running_time <= LATE_MAX_LATENESS,
        "scored a pair %" GST_TIME_FORMAT " late",
        GST_TIME_ARGS (LATE_NOW - sc->running_time));
  }
  fail_unless_equals_int (run.warnings->len, 0);
  run_clear (&run);
  gst_object_unref (clock);
}

GST_END_TEST;

#define BEHIND_FRAMES 30
#define BEHIND_LATENCY (100 * GST_MSECOND)
#define BEHIND_MAX_LATENESS (200 * GST_MSECOND)
#define BEHIND_NOW GST_SECOND

/* Pushes frames @first to @last - 1 (64x48 I420, frame k at k/30 s) into
 * the appsrc @name of @pipe, then EOS when @last is BEHIND_FRAMES. */
static void
feed_appsrc (GstElement * pipe, const gchar * name, guint noise, guint first,
    guint last)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), name);
  GstVideoInfo info;
  video_info (&info, "video/x-raw,format=I420,width=64,height=48,"
      "framerate=30/1");
  GstFlowReturn flow;
  for (guint k = first; k < last; k++) {
    GstBuffer *buf = make_frame (&info, k, noise, gst_util_uint64_scale (k,
            GST_SECOND, 30));
    GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (k + 1, GST_SECOND, 30)
        - GST_BUFFER_PTS (buf);
    g_signal_emit_by_name (src, "push-buffer", buf, &flow);
    gst_buffer_unref (buf);
  }
  if (last == BEHIND_FRAMES)
    g_signal_emit_by_name (src, "end-of-stream", &flow);
  gst_object_unref (src);
}

/* Live sources with identical timestamps (ref, dist, dist_1) on an element
 * that has fallen far behind its deadlines, as with a scorer too slow to
 * keep up: the pipeline's clock is a GstTestClock held at BEHIND_NOW, past
 * every frame's deadline. After the first pass the ref frames are there
 * and the renditions' are not yet, and the test releases the clock wait
 * the element then makes if it has come (a deadline already passed) before
 * it feeds them. Every frame has its partner, so none may be unmatched:
 * the pairs later than max-lateness are skipped, the others scored, and no
 * input "ended first". (GstAggregator counts a deadline from the frame's
 * time: with it passed, a pad empty for a moment made its frames and their
 * ref frames unmatched.) */
GST_START_TEST (test_live_behind_skips_not_unmatched)
{
  GString *desc = g_string_new ("ssim2compare name=c backend=cpu ");
  g_string_append_printf (desc, "latency=%" G_GUINT64_FORMAT " max-lateness=%"
      G_GUINT64_FORMAT " ! fakesink sync=false ", BEHIND_LATENCY,
      BEHIND_MAX_LATENESS);
  const gchar *pads[] = { "ref", "dist", "dist_1" };
  for (guint i = 0; i < G_N_ELEMENTS (pads); i++)
    g_string_append_printf (desc, "appsrc name=in_%s is-live=true format=time "
        "caps=video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! "
        "c.%s ", pads[i], pads[i]);
  GstElement *pipe = gst_parse_launch (desc->str, NULL);
  fail_unless (pipe != NULL);
  g_string_free (desc, TRUE);
  GstClock *clock = gst_test_clock_new_with_start_time (BEHIND_NOW);
  GstTestClock *test_clock = GST_TEST_CLOCK (clock);
  gst_pipeline_use_clock (GST_PIPELINE (pipe), clock);
  gst_element_set_start_time (pipe, GST_CLOCK_TIME_NONE);
  gst_element_set_base_time (pipe, 0);

  Run run;
  run_init (&run);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  feed_appsrc (pipe, "in_ref", 0, 0, BEHIND_FRAMES);
  feed_appsrc (pipe, "in_dist", 3, 0, 1);
  feed_appsrc (pipe, "in_dist_1", 6, 0, 1);
  /* The first pass pairs frame 0; the element then waits on the clock for
   * the renditions' next frames (the wait before the first pass ends at
   * the latency). Bounded: 10 s of polling. */
  GstClockID id = NULL;
  for (guint i = 0; i < 10000; i++) {
    if (gst_test_clock_peek_next_pending_id (test_clock, &id)) {
      const GstClockTime t = gst_clock_id_get_time (id);
      gst_clock_id_unref (id);
      if (t > BEHIND_LATENCY)
        break;
    }
    g_usleep (1000);
  }
  /* Releases that wait if its time has come: it has for a deadline counted
   * from the frame's time. */
  id = gst_test_clock_process_next_clock_id (test_clock);
  if (id)
    gst_clock_id_unref (id);
  feed_appsrc (pipe, "in_dist", 3, 1, BEHIND_FRAMES);
  feed_appsrc (pipe, "in_dist_1", 6, 1, BEHIND_FRAMES);
  collect (pipe, &run);
  /* The latency the element adds to each frame's running time: its
   * property and what upstream reports. */
  GstElement *c = gst_bin_get_by_name (GST_BIN (pipe), "c");
  const GstClockTime latency = gst_aggregator_get_latency (GST_AGGREGATOR (c));
  gst_object_unref (c);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);

  fail_unless (run.error == NULL, "%s", run.error);
  fail_unless (latency >= BEHIND_LATENCY && latency < BEHIND_NOW);
  guint64 late = 0;
  for (guint k = 0; k < BEHIND_FRAMES; k++) {
    const GstClockTime due = gst_util_uint64_scale (k, GST_SECOND, 30) +
        latency;
    if (due + BEHIND_MAX_LATENESS < BEHIND_NOW)
      late++;
  }
  fail_unless (late > 0 && late < BEHIND_FRAMES);
  for (guint i = 1; i < G_N_ELEMENTS (pads); i++) {
    const PadResult *r = run_pad (&run, pads[i]);
    fail_unless_equals_int (r->summaries, 1);
    fail_unless_equals_uint64 (r->summary_unmatched_ref, 0);
    fail_unless_equals_uint64 (r->summary_unmatched_dist, 0);
    fail_unless_equals_uint64 (r->summary_skipped, late);
    fail_unless_equals_uint64 (r->summary_frames, BEHIND_FRAMES - late);
  }
  for (guint i = 0; i < run.warnings->len; i++)
    fail_if (TRUE, "warning: %s", (const gchar *) g_ptr_array_index
        (run.warnings, i));
  run_clear (&run);
  gst_object_unref (clock);
}

GST_END_TEST;

/* Not live: every pair is scored, however slow (max-lateness=-1). */
GST_START_TEST (test_not_live_no_skipping)
{
  const gchar *src = "videotestsrc num-buffers=6 pattern=ball ! "
      "video/x-raw,format=I420,width=1920,height=1080,framerate=30/1 ! "
      "queue ! c.%s ";
  GString *desc = g_string_new ("ssim2compare name=c backend=cpu threads=1 "
      "! fakesink sync=true ");
  g_string_append_printf (desc, src, "ref");
  g_string_append_printf (desc, src, "dist");
  GstElement *pipe = gst_parse_launch (desc->str, NULL);
  fail_unless (pipe != NULL);
  g_string_free (desc, TRUE);
  Run run;
  run_pipeline (pipe, &run);
  fail_unless (run.error == NULL, "%s", run.error);
  const PadResult *r = run_pad (&run, "dist");
  fail_unless_equals_uint64 (r->summary_frames, 6);
  fail_unless_equals_uint64 (r->summary_skipped, 0);
  run_clear (&run);
}

GST_END_TEST;

/* The element scores a pass's pairs while the next pass steps the
 * renditions (pipelined scoring). A rendition that ends early gets its
 * last scores before its summary, and the others are scored to the end,
 * each frame as in its one-to-one run. */
#define SHORT_FRAMES 20

GST_START_TEST (test_ladder_rendition_ends_early)
{
  gchar *short_path = g_build_filename (tmp_dir, "short.mkv", NULL);
  make_x264_clip (short_path, SHORT_FRAMES, "bitrate=150");
  const gchar *paths[] = { rendition_paths[0], short_path,
    rendition_paths[2]
  };
  Run ladder;
  run_pipeline (make_pipeline (paths, pad_names, RENDITIONS, NULL), &ladder);
  fail_unless (ladder.error == NULL, "%s", ladder.error);

  for (guint i = 0; i < RENDITIONS; i++) {
    const guint frames = i == 1 ? SHORT_FRAMES : CLIP_FRAMES;
    Run alone;
    const gchar *one[] = { paths[i] };
    const gchar *dist[] = { "dist" };
    run_pipeline (make_pipeline (one, dist, 1, NULL), &alone);
    fail_unless (alone.error == NULL, "%s", alone.error);
    const PadResult *r = run_pad (&ladder, pad_names[i]);
    fail_unless_equals_int (r->summaries, 1);
    fail_unless_equals_uint64 (r->summary_frames, frames);
    fail_unless_equals_int (r->scores->len, frames);
    /* No score after the summary: the pairs in flight went first. */
    fail_unless_equals_int (r->scores_at_summary, frames);
    check_same_scores (run_pad (&alone, "dist"), r, frames, pad_names[i]);
    run_clear (&alone);
  }
  /* The warning that it ended first counts the pairs in flight too. */
  gchar *counts = g_strdup_printf ("dist %u frames, %u pairs scored",
      SHORT_FRAMES, SHORT_FRAMES);
  guint reported = 0;
  for (guint i = 0; i < ladder.warnings->len; i++) {
    const gchar *w = (const gchar *) g_ptr_array_index (ladder.warnings, i);
    fail_unless (g_str_has_prefix (w, "dist_1|"), "unexpected warning %s", w);
    fail_unless (strstr (w, counts) != NULL, "%s, not %s", w, counts);
    reported++;
  }
  fail_unless_equals_int (reported, 1);
  g_free (counts);
  run_clear (&ladder);
  g_unlink (short_path);
  g_free (short_path);
}

GST_END_TEST;

/* A flushing seek while pairs are in flight: they are flushed with the
 * queued frames. Each rendition's first summary counts exactly the scores
 * posted before it, the second one the frames from the seek position on,
 * and every score is its frame's score in the one-to-one run. */
#define SEEK_TO (GST_SECOND / 2)

GST_START_TEST (test_ladder_flushing_seek)
{
  const gchar *paths[RENDITIONS];
  for (guint i = 0; i < RENDITIONS; i++)
    paths[i] = rendition_paths[i];
  Run ladder;
  run_init (&ladder);
  ladder.seek_after = 4 * RENDITIONS;
  ladder.seek_to = SEEK_TO;
  run_initialised (make_pipeline (paths, pad_names, RENDITIONS, NULL),
      &ladder);
  fail_unless (ladder.error == NULL, "%s", ladder.error);
  fail_unless (ladder.seeked);

  /* Timestamps are in milliseconds in the files. */
  const guint after_seek = CLIP_FRAMES -
      (guint) ((SEEK_TO + GST_MSECOND) * 30 / GST_SECOND);
  for (guint i = 0; i < RENDITIONS; i++) {
    Run alone;
    const PadResult *want = run_alone (i, &alone);
    const PadResult *r = run_pad (&ladder, pad_names[i]);
    fail_unless_equals_int (r->summaries, 2);
    guint before = 0, after = 0;
    for (guint k = 0; k < r->scores->len; k++) {
      const Score *g = &g_array_index (r->scores, Score, k);
      fail_unless (g->measurement <= 1, "%s: a score after the last summary",
          pad_names[i]);
      if (g->measurement == 0) {
        before++;
      } else {
        after++;
        fail_unless (g->timestamp + GST_MSECOND >= SEEK_TO);
      }
      gboolean found = FALSE;
      for (guint j = 0; j < want->scores->len && !found; j++) {
        const Score *w = &g_array_index (want->scores, Score, j);
        if (w->timestamp != g->timestamp)
          continue;
        found = TRUE;
        fail_unless (w->score == g->score, "%s frame at %" GST_TIME_FORMAT
            ": %.10f in the ladder, %.10f alone", pad_names[i],
            GST_TIME_ARGS (g->timestamp), g->score, w->score);
      }
      fail_unless (found, "%s: no frame at %" GST_TIME_FORMAT " alone",
          pad_names[i], GST_TIME_ARGS (g->timestamp));
    }
    fail_unless_equals_uint64 (r->first_summary_frames, before);
    fail_unless_equals_uint64 (r->summary_frames, after);
    fail_unless_equals_int (after, after_seek);
    run_clear (&alone);
  }
  run_clear (&ladder);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Rendition pads without clips: test sources only. */

#define PAD_TEST_FRAMES 8

/* 64x48 I420 test frames, @frames of them, into pad @pad of c; @name
 * names an identity element just before the pad. */
static void
append_test_branch (GString * desc, const gchar * pad, guint frames,
    const gchar * name)
{
  g_string_append_printf (desc, "videotestsrc num-buffers=%u pattern=ball ! "
      "video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! "
      "identity name=%s ! queue ! c.%s ", frames, name, pad);
}

/* A released request pad frees its name at once, also while the element
 * is stopped: the same name can be requested again. */
GST_START_TEST (test_released_pad_name_reusable)
{
  GstElement *e = make_element (NULL);
  GstPad *pad = gst_element_request_pad_simple (e, "dist_1");
  fail_unless (pad != NULL);
  gst_element_release_request_pad (e, pad);
  gst_object_unref (pad);
  pad = gst_element_request_pad_simple (e, "dist_1");
  fail_unless (pad != NULL, "dist_1 cannot be requested again after its "
      "release");
  fail_unless_equals_string (GST_PAD_NAME (pad), "dist_1");
  /* Still one rendition of that name: the element runs to its end. */
  gst_element_release_request_pad (e, pad);
  gst_object_unref (pad);
  gst_object_unref (e);
}

GST_END_TEST;

/* Runs @desc (a launch line whose element c leaves a sink pad unlinked)
 * with a GstTestClock as the system clock, on which the element waits for
 * unlinked pads: the test moves it past that wait, once the element has
 * begun it. Without that wait nothing happens and the test fails; no
 * wall-clock time matters. */
static void
run_with_unlinked_pad (const gchar * desc, Run * run)
{
  GstClock *clock = gst_test_clock_new ();
  gst_system_clock_set_default (clock);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  run_init (run);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  fail_unless (gst_test_clock_timed_wait_for_multiple_pending_ids
      (GST_TEST_CLOCK (clock), 1, 60000, NULL),
      "the element does not wait for its unlinked pad: it would hang");
  gst_test_clock_crank (GST_TEST_CLOCK (clock));
  collect (pipe, run);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  gst_system_clock_set_default (NULL);
  gst_object_unref (clock);
}

/* Renditions on dist_%u only: the always `dist` pad, left unlinked, is
 * left out (an INFO line) instead of holding the pipeline in PAUSED. */
GST_START_TEST (test_unlinked_dist_pad_left_out)
{
  GString *desc = g_string_new ("ssim2compare name=c backend=cpu ! "
      "fakesink sync=false ");
  append_test_branch (desc, "ref", PAD_TEST_FRAMES, "in_ref");
  append_test_branch (desc, "dist_1", PAD_TEST_FRAMES, "in_dist_1");
  Run run;
  run_with_unlinked_pad (desc->str, &run);
  g_string_free (desc, TRUE);
  fail_unless (run.error == NULL, "error: %s", run.error);
  fail_unless_equals_int (run.warnings->len, 0);
  const PadResult *r = run_pad (&run, "dist_1");
  fail_unless_equals_int (r->summaries, 1);
  fail_unless_equals_uint64 (r->summary_frames, PAD_TEST_FRAMES);
  fail_unless_equals_int (run_pad (&run, "dist")->summaries, 0);
  run_clear (&run);
}

GST_END_TEST;

/* An unlinked ref pad cannot be left out: an error that names it. */
GST_START_TEST (test_unlinked_ref_pad_error)
{
  GString *desc = g_string_new ("ssim2compare name=c backend=cpu ! "
      "fakesink sync=false ");
  append_test_branch (desc, "dist", PAD_TEST_FRAMES, "in_dist");
  Run run;
  run_with_unlinked_pad (desc->str, &run);
  g_string_free (desc, TRUE);
  fail_unless (run.error != NULL, "no error");
  fail_unless (strstr (run.error, "ref pad") != NULL, "%s", run.error);
  run_clear (&run);
}

GST_END_TEST;

#define SHORT_BUFFER_AT 3       /* the frame of dist_1 cut short */

/* Replaces buffer number SHORT_BUFFER_AT with a copy 100 bytes short. */
static GstPadProbeReturn
cut_buffer_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  guint *count = (guint *) user_data;
  (void) pad;
  if ((*count)++ != SHORT_BUFFER_AT)
    return GST_PAD_PROBE_OK;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstBuffer *cut = gst_buffer_copy_region (buf, (GstBufferCopyFlags)
      (GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS |
          GST_BUFFER_COPY_MEMORY), 0, gst_buffer_get_size (buf) - 100);
  gst_buffer_unref (buf);
  GST_PAD_PROBE_INFO_DATA (info) = cut;
  return GST_PAD_PROBE_OK;
}

/* One buffer 100 bytes short on dist_1 fails that rendition with a
 * warning naming the pad; dist and dist_2 are scored to the end, and
 * every rendition gets its summary. */
GST_START_TEST (test_ladder_short_buffer_on_one_rendition)
{
  GString *desc = g_string_new ("ssim2compare name=c backend=cpu ! "
      "fakesink sync=false ");
  append_test_branch (desc, "ref", PAD_TEST_FRAMES, "in_ref");
  append_test_branch (desc, "dist", PAD_TEST_FRAMES, "in_dist");
  append_test_branch (desc, "dist_1", PAD_TEST_FRAMES, "in_dist_1");
  append_test_branch (desc, "dist_2", PAD_TEST_FRAMES, "in_dist_2");
  GstElement *pipe = gst_parse_launch (desc->str, NULL);
  fail_unless (pipe != NULL);
  g_string_free (desc, TRUE);
  GstElement *cut = gst_bin_get_by_name (GST_BIN (pipe), "in_dist_1");
  GstPad *src = gst_element_get_static_pad (cut, "src");
  guint count = 0;
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, cut_buffer_probe,
      &count, NULL);
  gst_object_unref (src);
  gst_object_unref (cut);

  Run run;
  run_pipeline (pipe, &run);
  fail_unless (run.error == NULL, "error: %s", run.error);
  gboolean warned = FALSE;
  for (guint i = 0; i < run.warnings->len; i++) {
    const gchar *w = (const gchar *) g_ptr_array_index (run.warnings, i);
    if (g_str_has_prefix (w, "dist_1|") && strstr (w, "dist_1 pad") &&
        strstr (w, "bytes"))
      warned = TRUE;
  }
  fail_unless (warned, "no warning naming dist_1 and the short buffer");
  for (guint i = 0; i < 3; i++) {
    const gchar *pad = i == 0 ? "dist" : i == 1 ? "dist_1" : "dist_2";
    const PadResult *r = run_pad (&run, pad);
    fail_unless_equals_int (r->summaries, 1);
    if (i == 1) {
      fail_unless_equals_uint64 (r->summary_frames, SHORT_BUFFER_AT);
      fail_unless (r->failure && r->failure[0], "dist_1: no failure");
    } else {
      fail_unless_equals_uint64 (r->summary_frames, PAD_TEST_FRAMES);
    }
  }
  run_clear (&run);
}

GST_END_TEST;

static Suite *
ssim2compare_ladder_suite (void)
{
  Suite *s = suite_create ("ssim2compare-ladder");
  TCase *tc = clip_tcase (s, "ladder", clips_setup, clips_teardown);
  tcase_add_test (tc, test_ladder_equals_separate_runs);
  tcase_add_test (tc, test_ladder_pad_released_mid_stream);
  tcase_add_test (tc, test_ladder_rendition_ends_early);
  tcase_add_test (tc, test_ladder_flushing_seek);
  tcase_add_test (tc, test_ladder_pad_requested_while_playing);
  tcase_add_test (tc, test_ladder_wrong_size_rendition);
  tcase_add_test (tc, test_ladder_bad_caps_on_dist);
  tcase_add_test (tc, test_ladder_stats_file_source_column);
  tcase_add_test (tc, test_ladder_interval_windows);
  tcase_add_test (tc, test_not_live_no_skipping);
  TCase *pads = timed_tcase (s, "pads", 300);
  tcase_add_test (pads, test_lateness_skips_late_pairs);
  tcase_add_test (pads, test_live_behind_skips_not_unmatched);
  tcase_add_test (pads, test_released_pad_name_reusable);
  tcase_add_test (pads, test_unlinked_dist_pad_left_out);
  tcase_add_test (pads, test_unlinked_ref_pad_error);
  tcase_add_test (pads, test_ladder_short_buffer_on_one_rendition);
  return s;
}

GST_CHECK_MAIN (ssim2compare_ladder);
