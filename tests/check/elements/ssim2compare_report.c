/* gst-check tests of what ssim2compare reports (gst/gstssim2report.cpp):
 * the ssim2 and ssim2-summary messages against an independent computation
 * and the meta, post-messages, the stats file in each format (checked by
 * Python's csv and json), its write errors, the summary file, and the
 * threshold warnings.
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

/* A stats file or summary file that cannot be created (a missing folder)
 * or whose first line cannot be written (a full disk): an error naming the
 * file, and the element does not start. */
GST_START_TEST (test_error_stats_file_unwritable)
{
  const gchar *paths[] = { "/nonexistent-dir/x/s.csv", "/dev/full" };
  const gchar *properties[] = { "stats-file", "summary-file" };
  for (guint i = 0; i < 2 * G_N_ELEMENTS (paths); i++) {
    const gchar *property = properties[i / G_N_ELEMENTS (paths)];
    GstElement *e = make_element (property, paths[i % G_N_ELEMENTS (paths)],
        NULL);
    GError *err = start_error (e);
    fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_OPEN_WRITE), "%s", err->message);
    fail_unless (strstr (err->message, property) != NULL, "%s", err->message);
    fail_unless (strstr (err->message, paths[i % G_N_ELEMENTS (paths)]) !=
        NULL, "%s", err->message);
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

/* Runs a Python snippet with @path as sys.argv[1] and @arg as sys.argv[2];
 * fails the test unless it exits 0. */
static void
run_python (const gchar * script, const gchar * path, const gchar * arg)
{
  gchar *python = g_find_program_in_path ("python3");
  fail_unless (python != NULL, "python3 not found");
  const gchar *argv[] = { python, "-c", script, path, arg, NULL };
  gchar *out = NULL, *err = NULL;
  gint status = 0;
  fail_unless (g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_DEFAULT,
          NULL, NULL, &out, &err, &status, NULL));
  fail_unless (g_spawn_check_wait_status (status, NULL),
      "python check of %s failed:\n%s%s\nsys.argv[2]: %s", path, out, err, arg);
  g_free (out);
  g_free (err);
  g_free (python);
}

/* Runs a Python snippet with the stats file as sys.argv[1] and the scores
 * of @msgs ("%.8f", comma-separated) as sys.argv[2]. */
static void
check_with_python (const gchar * script, const gchar * path, GList * msgs)
{
  GString *scores = g_string_new (NULL);
  for (GList * l = msgs; l; l = l->next) {
    gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_formatd (buf, sizeof buf, "%.8f", score_message (GST_MESSAGE (l->data)).score);
    g_string_append_printf (scores, "%s%s", l == msgs ? "" : ",", buf);
  }
  run_python (script, path, scores->str);
  g_string_free (scores, TRUE);
}

/* The documented CSV schema (docs/LOGS.md), read with Python's csv module:
 * rows only (RFC 4180), so that csv.DictReader gives exactly one row per
 * ssim2 message, with its timestamps. Numbers must parse with float(),
 * which takes only '.'. */
static const gchar *csv_check =
    "import csv, sys\n"
    "want = [float(v) for v in sys.argv[2].split(',')]\n"
    "with open(sys.argv[1], encoding='utf-8', newline='') as f:\n"
    "    reader = csv.DictReader(f)\n"
    "    rows = list(reader)\n"
    "assert reader.fieldnames == ['index', 'frame', 'pts', 'stream_time', "
    "'running_time', 'duration', 'score', 'ref_frame'], reader.fieldnames\n"
    "assert len(rows) == len(want), rows\n"
    "for i, r in enumerate(rows):\n"
    "    assert None not in r and None not in r.values(), r\n"
    "    assert [int(r[k]) for k in ('index', 'frame', 'pts', 'stream_time', "
    "'running_time', 'duration')] == "
    "[i, i, i * 33333333, i * 33333333, i * 33333333, 33333333], r\n"
    "    assert abs(float(r['score']) - want[i]) < 1e-8, (r, want[i])\n"
    "    assert int(r['ref_frame']) == i, r\n";

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

/* libvmaf's JSON log: its keys, numbers and pooled values, recomputed from
 * the frames as libvmaf pools them (tests/helpers/vmaf_log.py), then read
 * the way vmaf's Python tools read theirs. */
static const gchar *vmaf_check =
    "import json, os, sys\n"
    "sys.path.insert(0, os.environ['SSIM2_TEST_HELPERS'])\n"
    "from vmaf_log import check_vmaf_log\n"
    "want = [float(v) for v in sys.argv[2].split(',')]\n"
    "check_vmaf_log(sys.argv[1], want, os.environ['SSIM2_VERSION'])\n"
    "with open(sys.argv[1]) as f:\n"
    "    log = json.load(f)\n"
    "frames = log['frames']\n"
    "assert [fr['frameNum'] for fr in frames] == list(range(len(want)))\n"
    "assert log['fps'] is None, log['fps']\n"
    "summary = log['gst_ssim2']['summary']\n"
    "assert abs(summary['mean'] - sum(want) / len(want)) < 1e-7, summary\n"
    "assert summary['unmatched_ref'] == 0 and summary['ended_first'] is None\n";

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

/* An ssim2-summary message's fields as a JSON object: its keys with '_' for
 * '-', doubles with 8 decimals (as the files write them), "" as null. */
static gchar *
summary_message_as_json (GstMessage * m)
{
  const GstStructure *s = gst_message_get_structure (m);
  GString *json = g_string_new ("{");
  for (gint i = 0; i < gst_structure_n_fields (s); i++) {
    const gchar *name = gst_structure_nth_field_name (s, i);
    const GValue *v = gst_structure_get_value (s, name);
    gchar *key = g_strdup (name);
    g_strdelimit (key, "-", '_');
    g_string_append_printf (json, "%s\"%s\": ", i ? ", " : "", key);
    g_free (key);
    if (G_VALUE_HOLDS_DOUBLE (v)) {
      gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append (json, isfinite (g_value_get_double (v)) ?
          g_ascii_formatd (buf, sizeof buf, "%.8f", g_value_get_double (v)) :
          "null");
    } else if (G_VALUE_HOLDS_UINT64 (v)) {
      g_string_append_printf (json, "%" G_GUINT64_FORMAT,
          g_value_get_uint64 (v));
    } else {
      fail_unless (G_VALUE_HOLDS_STRING (v), "field %s", name);
      const gchar *text = g_value_get_string (v);
      gchar *escaped = g_strescape (text ? text : "", NULL);
      g_string_append_printf (json, *escaped ? "\"%s\"" : "null", escaped);
      g_free (escaped);
    }
  }
  g_string_append (json, "}");
  return g_string_free (json, FALSE);
}

/* The summary file (sys.argv[1]) holds what the ssim2-summary message
 * (sys.argv[2], from summary_message_as_json) holds: every field, its pad as
 * `source`, in the file's JSON schema. */
static const gchar *summary_file_check =
    "import json, sys\n"
    "doc = json.load(open(sys.argv[1], encoding='utf-8'))\n"
    "message = json.loads(sys.argv[2])\n"
    "assert list(doc) == ['metric', 'summaries'], doc\n"
    "assert doc['metric'] == 'SSIMULACRA 2.1', doc\n"
    "assert len(doc['summaries']) == 1, doc\n"
    "entry = doc['summaries'][0]\n"
    "assert entry['source'] == message.pop('pad') == 'dist', entry\n"
    "summary = entry['summary']\n"
    "assert message['frames'] == 4 and message['backend'], message\n"
    "for key, value in message.items():\n"
    "    assert key in summary and summary[key] == value, (key, value, summary)\n";

GST_START_TEST (test_summary_file)
{
  Fixture f;
  gchar *path = stats_path_new ("summary.json");
  GList *msgs = run_noisy (&f, make_element ("summary-file", path, NULL), 4);
  fail_unless_equals_int (g_list_length (msgs), 4);
  fail_unless (pop_type (f.bus, GST_MESSAGE_WARNING) == NULL);
  GList *sum = pop_element_messages (f.bus, "ssim2-summary");
  fail_unless_equals_int (g_list_length (sum), 1);
  gchar *message = summary_message_as_json (GST_MESSAGE (sum->data));
  run_python (summary_file_check, path, message);
  g_free (message);
  g_list_free_full (sum, (GDestroyNotify) gst_message_unref);
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

  /* Default threshold: off, which gst-inspect shows as -inf (no score is
   * below it), not as a huge negative number. */
  msgs = run_noisy (&f, make_element (NULL), 3);
  fail_unless (pop_type (f.bus, GST_MESSAGE_WARNING) == NULL);
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS
      (f.element), "threshold");
  fail_unless (spec != NULL);
  const GValue *def = g_param_spec_get_default_value (spec);
  fail_unless (isinf (g_value_get_double (def))
      && g_value_get_double (def) < 0);
  fail_unless (isinf (G_PARAM_SPEC_DOUBLE (spec)->minimum));
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
}

GST_END_TEST;

static Suite *
ssim2compare_report_suite (void)
{
  Suite *s = suite_create ("ssim2compare-report");
  TCase *tc = timed_tcase (s, "report", 300);

  tcase_add_test (tc, test_error_stats_file_unwritable);
  tcase_add_test (tc, test_messages_summary);
  tcase_add_test (tc, test_post_messages_off);
  tcase_add_test (tc, test_stats_file_csv);
  tcase_add_test (tc, test_stats_file_json);
  tcase_add_test (tc, test_stats_file_vmaf_json);
  tcase_add_test (tc, test_stats_file_locale);
  tcase_add_test (tc, test_stats_file_write_error);
  tcase_add_test (tc, test_summary_file);
  tcase_add_test (tc, test_threshold);
  return s;
}

GST_CHECK_MAIN (ssim2compare_report);
