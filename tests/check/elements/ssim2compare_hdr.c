/* gst-check tests of ssim2compare on PQ and HLG streams (CPU backend).
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The HDR clips of tests/data/hdr/video (HEVC Main10, decoded by avdec_h265
 * with caps colorimetry bt2100-pq and content-light-level, or bt2100-hlg)
 * must score every frame with the digits libjxl's ssimulacra2 printed for
 * the same decoded frames (video_scores.csv), and the score and summary
 * messages name each input's transfer; caps the element cannot honour
 * are refused by name, and BT.2020 primaries with an SDR transfer get a
 * warning.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include "check_util.h"

#include <stdio.h>
#include <string.h>

static const gchar *const clip_factories[] = { "matroskademux", "h265parse",
  "avdec_h265", NULL
};

/* video_scores.csv's printed scores of @clip, in frame order. */
static GPtrArray *
reference_scores (const gchar * clip)
{
  gchar *path = g_build_filename (SSIM2_HDR_TESTDATA_DIR, "video_scores.csv",
      NULL);
  gchar *csv = read_file (path);
  gchar **lines = g_strsplit (csv, "\n", -1);
  GPtrArray *scores = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 1; lines[i] && *lines[i]; i++) {
    gchar **cols = g_strsplit (lines[i], ",", 4);
    if (g_strcmp0 (cols[0], clip) == 0)
      g_ptr_array_add (scores, g_strdup (cols[2]));
    g_strfreev (cols);
  }
  g_strfreev (lines);
  g_free (csv);
  g_free (path);
  return scores;
}

/* @transfer: what the messages must say both inputs were ("PQ", "HLG"). */
static void
check_clip (const gchar * clip, const gchar * transfer)
{
  fail_unless (have_factories (clip_factories),
      "the HDR clips need gstreamer1.0-libav and gstreamer1.0-plugins-bad");
  GPtrArray *expected = reference_scores (clip);
  fail_unless_equals_int (expected->len, 10);
  gchar *desc = g_strdup_printf ("ssim2compare name=c backend=cpu ! "
      "fakesink sync=false "
      "filesrc location=\"%s/video/%s-reference.mkv\" ! matroskademux ! "
      "h265parse ! avdec_h265 ! c.ref "
      "filesrc location=\"%s/video/%s-distorted.mkv\" ! matroskademux ! "
      "h265parse ! avdec_h265 ! c.dist", SSIM2_HDR_TESTDATA_DIR, clip,
      SSIM2_HDR_TESTDATA_DIR, clip);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  fail_unless (pipe != NULL, "%s", err ? err->message : "?");
  g_free (desc);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  guint scored = 0, same = 0, summaries = 0;
  while (TRUE) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
            GST_MESSAGE_WARNING | GST_MESSAGE_ELEMENT));
    fail_unless (m != NULL, "timeout");
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR
        || GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING) {
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
        gst_message_parse_error (m, &err, NULL);
      else
        gst_message_parse_warning (m, &err, NULL);
      fail ("%s: %s", GST_MESSAGE_TYPE_NAME (m), err->message);
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
      gst_message_unref (m);
      break;
    }
    GstSsim2ScoreMessage sm;
    if (gst_ssim2_score_message_parse_message (m, &sm)) {
      fail_unless (sm.index < expected->len);
      gchar printed[64];
      g_snprintf (printed, sizeof printed, "%.8f", sm.score);
      const gchar *want = g_ptr_array_index (expected, sm.index);
      if (strcmp (printed, want) == 0)
        same++;
      else
        g_printerr ("%s frame %" G_GUINT64_FORMAT ": %s, reference %s\n", clip,
            sm.index, printed, want);
      scored++;
      fail_unless_equals_string (sm.ref_transfer, transfer);
      fail_unless_equals_string (sm.dist_transfer, transfer);
    }
    GstSsim2SummaryMessage summary;
    if (gst_ssim2_summary_message_parse_message (m, &summary)) {
      fail_unless_equals_string (summary.ref_transfer, transfer);
      fail_unless_equals_string (summary.dist_transfer, transfer);
      summaries++;
    }
    gst_message_unref (m);
  }
  g_print ("%s: %u of %u frames print the reference's score\n", clip, same,
      scored);
  fail_unless_equals_int (scored, 10);
  fail_unless_equals_int (same, 10);
  fail_unless_equals_int (summaries, 1);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_ptr_array_unref (expected);
}

/* HDR10: PQ, BT.2020, content-light-level 1569:29 (the intensity target of
 * both inputs is 1569 cd/m2, as the cLLi chunk of the exported frames). */
GST_START_TEST (test_hdr10_clip_scores_as_the_reference)
{
  check_clip ("hdr10", "PQ");
}

GST_END_TEST;

GST_START_TEST (test_hlg_clip_scores_as_the_reference)
{
  check_clip ("hlg", "HLG");
}

GST_END_TEST;

/* Explicit colorimetry strings are range:matrix:transfer:primaries in
 * GStreamer's numbering: transfer 14 is smpte2084, 15 arib-std-b67, 1
 * gamma10; primaries 1 bt709, 7 bt2020. */
GST_START_TEST (test_hdr_caps_refused_by_name)
{
  expect_caps_error (CAPS64 ("I420") ",colorimetry=bt2100-pq",
      "PQ frames in I420 cannot be scored");
  expect_caps_error (CAPS64 ("I420_10LE") ",colorimetry=(string)2:3:14:1",
      "PQ with bt709 primaries cannot be scored");
  expect_caps_error (CAPS64 ("P010_10LE") ",colorimetry=(string)2:3:15:1",
      "HLG with bt709 primaries cannot be scored");
  expect_caps_error (CAPS64 ("GRAY16_LE") ",colorimetry=(string)1:0:14:7",
      "PQ frames in GRAY16_LE cannot be scored");
  expect_caps_error (CAPS64 ("I420_10LE") ",colorimetry=(string)2:3:1:1",
      "linear (gamma10) frames in I420_10LE");
}

GST_END_TEST;

/* SDR with BT.2020 primaries is scored as before, with a warning that says
 * so. */
GST_START_TEST (test_bt2020_sdr_warns)
{
  expect_caps_message (CAPS64 ("I420_10LE") ",colorimetry=bt2020",
      GST_MESSAGE_WARNING, "BT.2020 primaries with the bt2020-12 transfer");
}

GST_END_TEST;

static Suite *
ssim2compare_hdr_suite (void)
{
  Suite *s = suite_create ("ssim2compare_hdr");
  TCase *tc = timed_tcase (s, "hdr", 300);
  tcase_add_test (tc, test_hdr10_clip_scores_as_the_reference);
  tcase_add_test (tc, test_hlg_clip_scores_as_the_reference);
  tcase_add_test (tc, test_hdr_caps_refused_by_name);
  tcase_add_test (tc, test_bt2020_sdr_warns);
  return s;
}

GST_CHECK_MAIN (ssim2compare_hdr);
