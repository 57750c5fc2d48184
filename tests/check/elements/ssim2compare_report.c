/* gst-check tests of what ssim2compare reports (gst/gstssim2report.cpp):
 * the ssim2 and ssim2-summary messages against an independent computation
 * and the meta, post-messages, the stats file in each format (checked by
 * Python's csv and json), its write errors, and the threshold warnings.
 * SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "gstssim2meta.h"
#include "check_util.h"
#include "../../locale/de_locale.h"

/* A stats file that cannot be created (a missing folder) or whose first
 * line cannot be written (a full disk): an error naming the file, and the
 * element does not start. */
GST_START_TEST (test_error_stats_file_unwritable)
{
  const gchar *paths[] = { "/nonexistent-dir/x/s.csv", "/dev/full" };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++) {
    GstElement *e = make_element ("stats-file", paths[i], NULL);
    GError *err = start_error (e);
    fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_OPEN_WRITE), "%s", err->message);
    fail_unless (strstr (err->message, paths[i]) != NULL, "%s", err->message);
    g_clear_error (&err);
    gst_object_unref (e);
  }
}

GST_END_TEST;

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
percentile (const double *sorted, guint n, double q)
{
  double rank = q / 100.0 * (n - 1);
  guint lo = (guint) floor (rank);
  guint hi = lo + 1 < n ? lo + 1 : n - 1;
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

GST_START_TEST (test_messages_summary)
{
  Fixture f;
  const guint n = 10;
  GList *msgs = run_noisy (&f, make_element (NULL), n);
  fail_unless_equals_int (g_list_length (msgs), n);
  double scores[10];
  guint i = 0;
  for (GList * l = msgs; l; l = l->next, i++) {
    GstMessage *m = GST_MESSAGE (l->data);
    fail_unless (GST_MESSAGE_SRC (m) == GST_OBJECT (f.element));
    scores[i] = score_message (m).score;
    fail_unless (scores[i] < 100.0);
    fail_unless_equals_uint64 (score_message (m).index, i);
    fail_unless_equals_uint64 (score_message (m).timestamp, i * FRAME_DUR);
    fail_unless_equals_uint64 (score_message (m).stream_time, i * FRAME_DUR);
    fail_unless_equals_uint64 (score_message (m).running_time, i * FRAME_DUR);
    fail_unless_equals_uint64 (score_message (m).duration, FRAME_DUR);
  }
  /* Meta on the buffers equals the messages. */
  for (i = 0; i < n; i++) {
    GstBuffer *out = gst_harness_pull (f.dist);
    GstSsim2Meta *meta = gst_buffer_get_ssim2_meta (out);
    fail_unless (meta != NULL);
    fail_unless_equals_float (meta->score, scores[i]);
    fail_unless_equals_uint64 (meta->index, i);
    gst_buffer_unref (out);
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);

  /* Summary against an independent computation. */
  GstMessage *s = pop_summary (f.bus);
  double mean = 0, var = 0, inv = 0, sorted[10];
  for (i = 0; i < n; i++) {
    mean += scores[i] / n;
    inv += 1.0 / MAX (scores[i], 0.0);
    sorted[i] = scores[i];
  }
  for (i = 0; i < n; i++)
    var += (scores[i] - mean) * (scores[i] - mean) / n;
  qsort (sorted, n, sizeof (double), cmp_double);
  const GstSsim2SummaryMessage sm = summary_message (s);
  fail_unless_equals_uint64 (sm.frames, n);
  fail_unless (fabs (sm.mean - mean) < 1e-9);
  fail_unless (fabs (sm.stddev - sqrt (var)) < 1e-9);
  fail_unless_equals_float (sm.min, sorted[0]);
  fail_unless_equals_float (sm.max, sorted[n - 1]);
  const double qs[] = { 1, 5, 50, 95, 99 };
  const double got[] = { sm.p1, sm.p5, sm.p50, sm.p95, sm.p99 };
  for (i = 0; i < 5; i++)
    fail_unless (fabs (got[i] - percentile (sorted, n, qs[i])) < 1e-9,
        "p%g", qs[i]);
  double hm = sorted[0] > 0 ? n / inv : 0.0;
  fail_unless (fabs (sm.harmonic_mean - hm) < 1e-9);
  gst_message_unref (s);
  fixture_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_post_messages_off)
{
  Fixture f;
  GList *msgs = run_noisy (&f, make_element ("post-messages", FALSE, NULL), 3);
  fail_unless_equals_int (g_list_length (msgs), 0);
  /* Meta and summary are still there. */
  GstBuffer *out = gst_harness_pull (f.dist);
  fail_unless (gst_buffer_get_ssim2_meta (out) != NULL);
  gst_buffer_unref (out);
  gst_message_unref (pop_summary (f.bus));
  fixture_clear (&f);
}

GST_END_TEST;

/* A temporary folder for a stats file; free with stats_path_free(). */
static gchar *
stats_path_new (const gchar * name)
{
  gchar *dir = g_dir_make_tmp ("ssim2-XXXXXX", NULL);
  fail_unless (dir != NULL);
  gchar *path = g_build_filename (dir, name, NULL);
  g_free (dir);
  return path;
}

static void
stats_path_free (gchar * path)
{
  gchar *dir = g_path_get_dirname (path);
  g_unlink (path);
  g_rmdir (dir);
  g_free (dir);
  g_free (path);
}

/* Runs a Python snippet with the stats file as sys.argv[1] and the scores
 * of @msgs ("%.8f", comma-separated) as sys.argv[2]; fails the test unless
 * it exits 0. */
static void
check_with_python (const gchar * script, const gchar * path, GList * msgs)
{
  gchar *python = g_find_program_in_path ("python3");
  fail_unless (python != NULL, "python3 not found");
  GString *scores = g_string_new (NULL);
  for (GList * l = msgs; l; l = l->next) {
    gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd (buf, sizeof buf, "%.8f", score_message (GST_MESSAGE (l->data)).score);
    g_string_append_printf (scores, "%s%s", l == msgs ? "" : ",", buf);
  }
  const gchar *argv[] = { python, "-c", script, path, scores->str, NULL };
  gchar *out = NULL, *err = NULL;
  gint status = 0;
  fail_unless (g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_DEFAULT,
          NULL, NULL, &out, &err, &status, NULL));
  fail_unless (g_spawn_check_wait_status (status, NULL),
      "python check of %s failed:\n%s%s", path, out, err);
  g_free (out);
  g_free (err);
  g_string_free (scores, TRUE);
  g_free (python);
}

/* The documented CSV schema (docs/LOGS.md), read with Python's csv module:
 * the header, one row per ssim2 message with its timestamps, the summary as
 * '#' lines. Numbers must parse with float(), which takes only '.'. */
static const gchar *csv_check =
    "import csv, sys\n"
    "want = [float(v) for v in sys.argv[2].split(',')]\n"
    "lines = open(sys.argv[1], encoding='utf-8').read().splitlines()\n"
    "rows = list(csv.reader(l for l in lines if not l.startswith('#')))\n"
    "assert rows[0] == ['index', 'frame', 'pts', 'stream_time', "
    "'running_time', 'duration', 'score', 'ref_frame'], rows[0]\n"
    "assert len(rows) == 1 + len(want), rows\n"
    "for i, r in enumerate(rows[1:]):\n"
    "    assert len(r) == 8, r\n"
    "    assert [int(v) for v in r[:6]] == "
    "[i, i, i * 33333333, i * 33333333, i * 33333333, 33333333], r\n"
    "    assert abs(float(r[6]) - want[i]) < 1e-8, (r, want[i])\n"
    "    assert int(r[7]) == i, r\n"
    "summary = dict(l[2:].split(',', 1) for l in lines if l.startswith('# '))\n"
    "assert int(summary['frames']) == len(want), summary\n"
    "assert abs(float(summary['mean']) - sum(want) / len(want)) < 1e-7\n"
    "assert summary['unmatched_ref'] == '0' and summary['ended_first'] == ''\n";

/* The JSON schema, parsed by a strict parser (and accepted by
 * `python3 -m json.tool`). */
static const gchar *json_check =
    "import json, subprocess, sys\n"
    "subprocess.run([sys.executable, '-m', 'json.tool', sys.argv[1]], "
    "stdout=subprocess.DEVNULL, check=True)\n"
    "want = [float(v) for v in sys.argv[2].split(',')]\n"
    "doc = json.load(open(sys.argv[1], encoding='utf-8'))\n"
    "assert [f['score'] for f in doc['frames']] == "
    "[round(w, 8) for w in want], doc['frames']\n"
    "f = doc['frames'][1]\n"
    "assert (f['index'], f['frame'], f['pts'], f['stream_time'], "
    "f['running_time'], f['duration'], f['ref_frame']) == "
    "(1, 1, 33333333, 33333333, 33333333, 33333333, 1), f\n"
    "assert doc['summary']['frames'] == len(want)\n"
    "assert abs(doc['summary']['mean'] - sum(want) / len(want)) < 1e-7\n"
    "assert doc['summary']['ended_first'] is None\n"
    "assert (doc['width'], doc['height'], doc['every']) == (64, 48, 1)\n";

/* libvmaf's JSON log, read the way vmaf's Python tools read theirs. */
static const gchar *vmaf_check =
    "import json, sys\n"
    "want = [float(v) for v in sys.argv[2].split(',')]\n"
    "with open(sys.argv[1]) as f:\n"
    "    log = json.load(f)\n"
    "frames = log['frames']\n"
    "assert [fr['frameNum'] for fr in frames] == list(range(len(want)))\n"
    "scores = [fr['metrics']['ssimulacra2'] for fr in frames]\n"
    "assert scores == [round(w, 8) for w in want], scores\n"
    "pooled = log['pooled_metrics']['ssimulacra2']\n"
    "assert abs(pooled['mean'] - sum(want) / len(want)) < 1e-7, pooled\n"
    "assert pooled['min'] == min(scores) and pooled['max'] == max(scores)\n"
    "assert 'harmonic_mean' in pooled and 'p5' in pooled\n";

static void
run_stats_file (const gchar * name, const gchar * format, guint n,
    const gchar * script)
{
  Fixture f;
  gchar *path = stats_path_new (name);
  GstElement *e = make_element ("stats-file", path, NULL);
  if (format)
    gst_util_set_object_arg (G_OBJECT (e), "stats-format", format);
  GList *msgs = run_noisy (&f, e, n);
  fail_unless_equals_int (g_list_length (msgs), n);
  /* Scoring never stopped for the file. */
  fail_unless (pop_type (f.bus, GST_MESSAGE_WARNING) == NULL);
  check_with_python (script, path, msgs);
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
  stats_path_free (path);
}

GST_START_TEST (test_stats_file_csv)
{
  run_stats_file ("scores.csv", NULL, 5, csv_check);
  /* The format comes from stats-format first, the file name second. */
  run_stats_file ("scores.json", "csv", 3, csv_check);
}

GST_END_TEST;

GST_START_TEST (test_stats_file_json)
{
  run_stats_file ("scores.JSON", NULL, 4, json_check);
  run_stats_file ("scores.log", "json", 2, json_check);
}

GST_END_TEST;

GST_START_TEST (test_stats_file_vmaf_json)
{
  run_stats_file ("vmaf.json", "vmaf-json", 4, vmaf_check);
}

GST_END_TEST;

/* Under a locale whose decimal separator is ',' the files keep '.': the CSV
 * still splits into its 7 columns and the JSON still parses. */
GST_START_TEST (test_stats_file_locale)
{
  fail_unless (ssim2_test_use_de_locale (), "no de_DE.UTF-8 locale");
  run_stats_file ("de.csv", NULL, 3, csv_check);
  run_stats_file ("de.json", NULL, 3, json_check);
  run_stats_file ("de-vmaf.json", "vmaf-json", 3, vmaf_check);
  setlocale (LC_ALL, "C");
}

GST_END_TEST;

/* The file stops taking data in the middle of the run (here: a file size
 * limit; on a real system a full disk): one warning, and scoring goes on,
 * every frame still posted and summarised. */
GST_START_TEST (test_stats_file_write_error)
{
  Fixture f;
  gchar *path = stats_path_new ("scores.csv");
  struct rlimit old_limit, limit;
  fail_unless (getrlimit (RLIMIT_FSIZE, &old_limit) == 0);
  limit = old_limit;
  limit.rlim_cur = 150;         /* the header and about two rows */
  signal (SIGXFSZ, SIG_IGN);    /* the write fails with EFBIG instead */
  fail_unless (setrlimit (RLIMIT_FSIZE, &limit) == 0);
  GList *msgs = run_noisy (&f, make_element ("stats-file", path, NULL), 6);
  fail_unless (setrlimit (RLIMIT_FSIZE, &old_limit) == 0);
  fail_unless_equals_int (g_list_length (msgs), 6);
  GstMessage *w = pop_type (f.bus, GST_MESSAGE_WARNING);
  fail_unless (w != NULL, "no warning for the failed write");
  GError *err = NULL;
  gst_message_parse_warning (w, &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_WRITE), "%s", err->message);
  fail_unless (strstr (err->message, path) != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (w);
  /* One warning only. */
  fail_unless (pop_type (f.bus, GST_MESSAGE_WARNING) == NULL);
  GstMessage *sum = pop_summary (f.bus);
  fail_unless_equals_uint64 (summary_message (sum).frames, 6);
  gst_message_unref (sum);
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
  stats_path_free (path);
}

GST_END_TEST;

GST_START_TEST (test_threshold)
{
  Fixture f;
  GList *msgs = run_noisy (&f, make_element ("threshold", 100.0, NULL), 3);
  fail_unless_equals_int (g_list_length (msgs), 3);
  guint warnings = 0;
  GstMessage *w;
  while ((w = pop_type (f.bus, GST_MESSAGE_WARNING))) {
    const GstStructure *details = NULL;
    gst_message_parse_warning_details (w, &details);
    fail_unless (details != NULL);
    gdouble score;
    guint64 index;
    fail_unless (gst_structure_get_double (details, "score", &score));
    fail_unless (gst_structure_get_uint64 (details, "index", &index));
    fail_unless (score < 100.0);
    fail_unless_equals_uint64 (index, warnings);
    warnings++;
    gst_message_unref (w);
  }
  fail_unless_equals_int (warnings, 3);
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);

  /* Default threshold: no warning. */
  msgs = run_noisy (&f, make_element (NULL), 3);
  fail_unless (pop_type (f.bus, GST_MESSAGE_WARNING) == NULL);
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
}

GST_END_TEST;

static Suite *
ssim2compare_report_suite (void)
{
  Suite *s = suite_create ("ssim2compare-report");
  TCase *tc = tcase_create ("report");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_error_stats_file_unwritable);
  tcase_add_test (tc, test_messages_summary);
  tcase_add_test (tc, test_post_messages_off);
  tcase_add_test (tc, test_stats_file_csv);
  tcase_add_test (tc, test_stats_file_json);
  tcase_add_test (tc, test_stats_file_vmaf_json);
  tcase_add_test (tc, test_stats_file_locale);
  tcase_add_test (tc, test_stats_file_write_error);
  tcase_add_test (tc, test_threshold);
  return s;
}

GST_CHECK_MAIN (ssim2compare_report);
