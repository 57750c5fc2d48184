/* gst-ssim2: the helpers the gst-check tests of the element share: the
 * element's messages read as typed structs (gstssim2message.h), messages
 * taken from a bus, and, for the tests that build whole pipelines from
 * launch lines (seeks, renditions), which elements exist and running a
 * pipeline to its end.
 * SPDX-License-Identifier: BSD-3-Clause */
#pragma once

#include <gst/check/gstcheck.h>

#include "gstssim2message.h"

/* @m read as an `ssim2` message; fails the test when it is not one. */
static inline GstSsim2ScoreMessage
score_message (GstMessage * m)
{
  GstSsim2ScoreMessage s;
  fail_unless (gst_ssim2_score_message_parse_message (m, &s),
      "not an ssim2 message");
  return s;
}

/* @m read as an `ssim2-summary` message; fails the test when it is not
 * one. */
static inline GstSsim2SummaryMessage
summary_message (GstMessage * m)
{
  GstSsim2SummaryMessage s;
  fail_unless (gst_ssim2_summary_message_parse_message (m, &s),
      "not an ssim2-summary message");
  return s;
}

/* @m read as an `ssim2-interval` message; fails the test when it is not
 * one. */
static inline GstSsim2IntervalMessage
interval_message (GstMessage * m)
{
  GstSsim2IntervalMessage s;
  fail_unless (gst_ssim2_interval_message_parse_message (m, &s),
      "not an ssim2-interval message");
  return s;
}

/* Pops every element message named @name (in order), leaving the others on
 * @bus. */
static inline GList *
pop_element_messages (GstBus * bus, const gchar * name)
{
  GList *list = NULL;
  GstMessage *m;
  GList *others = NULL;
  while ((m = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT &&
        gst_structure_has_name (gst_message_get_structure (m), name))
      list = g_list_append (list, m);
    else
      others = g_list_append (others, m);
  }
  for (GList * l = others; l; l = l->next)
    gst_bus_post (bus, GST_MESSAGE (l->data));
  g_list_free (others);
  return list;
}

/* Pops the first message of @type, leaving the others on the bus. */
static inline GstMessage *
pop_type (GstBus * bus, GstMessageType type)
{
  GstMessage *m, *found = NULL;
  GList *others = NULL;
  while ((m = gst_bus_pop (bus))) {
    if (!found && (GST_MESSAGE_TYPE (m) & type))
      found = m;
    else
      others = g_list_append (others, m);
  }
  for (GList * l = others; l; l = l->next)
    gst_bus_post (bus, GST_MESSAGE (l->data));
  g_list_free (others);
  return found;
}

/* TRUE when every factory of @names (NULL-terminated) exists; else says
 * which one is missing. */
static inline gboolean
have_factories (const gchar * const *names)
{
  for (; *names; names++) {
    GstElementFactory *f = gst_element_factory_find (*names);
    if (!f) {
      g_printerr ("%s is missing (install-deps.sh installs it)\n", *names);
      return FALSE;
    }
    gst_object_unref (f);
  }
  return TRUE;
}

/* Runs the launch line @desc to EOS (at most 120 s); an error fails the
 * test. */
static inline void
run_to_eos (const gchar * desc)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  fail_unless (pipe != NULL, "%s", err ? err->message : "?");
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (m != NULL, "timeout: %s", desc);
  fail_unless (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS, "error in %s", desc);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

/* A test case of @suite for tests that each make their clips in
 * @setup: a checked fixture, since GStreamer's thread pools do not survive
 * the fork of an unchecked fixture's process; 300 s for decoding. */
static inline TCase *
clip_tcase (Suite * suite, const gchar * name, SFun setup, SFun teardown)
{
  TCase *tc = tcase_create (name);
  suite_add_tcase (suite, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_checked_fixture (tc, setup, teardown);
  return tc;
}

/* Writes @frames frames of a 160x120 moving ball, encoded by x264enc with
 * @x264_settings (its rate and GOP properties), as Matroska to @path. */
static inline void
make_x264_clip (const gchar * path, guint frames, const gchar * x264_settings)
{
  gchar *desc = g_strdup_printf ("videotestsrc pattern=ball num-buffers=%u ! "
      "video/x-raw,format=I420,width=160,height=120,framerate=30/1 ! "
      "x264enc %s speed-preset=ultrafast ! matroskamux ! "
      "filesink location=\"%s\"", frames, x264_settings, path);
  run_to_eos (desc);
  g_free (desc);
}
