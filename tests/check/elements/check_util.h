/* gst-ssim2: the helpers the gst-check tests of the element share: the
 * element's messages read as typed structs (gstssim2message.h), messages
 * taken from a bus, the element between two GstHarness fed from threads,
 * and, for the tests that build whole pipelines from
 * launch lines (seeks, renditions), which elements exist and running a
 * pipeline to its end.
 * SPDX-License-Identifier: BSD-3-Clause */
#pragma once

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <stdarg.h>
#include <string.h>

#include "gstssim2message.h"

/* Defines FN (GstMessage * m): @m read as the message TYPE that PARSE
 * reads (named NAME); fails the test when it is not one. */
#define DEFINE_MESSAGE_READER(fn, type, parse, name) \
  static inline type \
  fn (GstMessage * m) \
  { \
    type s; \
    fail_unless (parse (m, &s), "not an " name " message"); \
    return s; \
  }

DEFINE_MESSAGE_READER (score_message, GstSsim2ScoreMessage,
    gst_ssim2_score_message_parse_message, GST_SSIM2_SCORE_MESSAGE_NAME);
DEFINE_MESSAGE_READER (summary_message, GstSsim2SummaryMessage,
    gst_ssim2_summary_message_parse_message, GST_SSIM2_SUMMARY_MESSAGE_NAME);
DEFINE_MESSAGE_READER (interval_message, GstSsim2IntervalMessage,
    gst_ssim2_interval_message_parse_message,
    GST_SSIM2_INTERVAL_MESSAGE_NAME);

/* Pops the messages on @bus that @match accepts (with @first_only only the
 * first), in order, and posts the others back. */
static inline GList *
pop_matching (GstBus * bus, gboolean (*match) (GstMessage *, gconstpointer),
    gconstpointer data, gboolean first_only)
{
  GList *list = NULL;
  GstMessage *m;
  GList *others = NULL;
  while ((m = gst_bus_pop (bus))) {
    if ((!first_only || !list) && match (m, data))
      list = g_list_append (list, m);
    else
      others = g_list_append (others, m);
  }
  for (GList * l = others; l; l = l->next)
    gst_bus_post (bus, GST_MESSAGE (l->data));
  g_list_free (others);
  return list;
}

static inline gboolean
is_element_message_named (GstMessage * m, gconstpointer name)
{
  return GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT &&
      gst_structure_has_name (gst_message_get_structure (m),
      (const gchar *) name);
}

static inline gboolean
is_message_of_type (GstMessage * m, gconstpointer type)
{
  return (GST_MESSAGE_TYPE (m) & GPOINTER_TO_UINT (type)) != 0;
}

/* Pops every element message named @name (in order), leaving the others on
 * @bus. */
static inline GList *
pop_element_messages (GstBus * bus, const gchar * name)
{
  return pop_matching (bus, is_element_message_named, name, FALSE);
}

/* Pops the first message of @type, leaving the others on the bus. */
static inline GstMessage *
pop_type (GstBus * bus, GstMessageType type)
{
  GList *list = pop_matching (bus, is_message_of_type,
      GUINT_TO_POINTER (type), TRUE);
  GstMessage *found = list ? GST_MESSAGE (list->data) : NULL;
  g_list_free (list);
  return found;
}

/* Sets @e (with a bus of its own) to PAUSED, which must fail, and returns
 * the error it posted (free with g_error_free()); @e is back in NULL. */
static inline GError *
start_error (GstElement * e)
{
  GstBus *bus = gst_bus_new ();
  GError *err = NULL;
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "no error message");
  gst_message_parse_error (m, &err, NULL);
  gst_message_unref (m);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  return err;
}

/* Pops the ssim2-summary message on @bus, failing the test unless there is
 * exactly one; unref it when done (the strings summary_message() reads
 * from it live as long as it does). */
static inline GstMessage *
pop_summary (GstBus * bus)
{
  GList *sum = pop_element_messages (bus, GST_SSIM2_SUMMARY_MESSAGE_NAME);
  fail_unless_equals_int (g_list_length (sum), 1);
  GstMessage *m = GST_MESSAGE (sum->data);
  g_list_free (sum);
  return m;
}

/* ------------------------------------------------------------------------ */
/* The element between two GstHarness: one on the dist sink pad and the src
 * pad, one on the ref sink pad. GstAggregator pads hold one buffer each
 * (non-live, no latency), so each pad is fed from its own thread and the
 * test then waits for EOS (or an error) on the output. */

#define FRAME_DUR (GST_SECOND / 30)

typedef struct
{
  GstElement *element;
  GstHarness *dist;             /* dist sink pad + src pad */
  GstHarness *ref;              /* ref sink pad */
  GstBus *bus;
  GstSegment out_segment;       /* last segment seen on the output */
  gboolean have_out_segment;
  GArray *out_gaps;             /* GstClockTime of each GAP event output */
} Fixture;

static inline GstElement *
make_element (const gchar * first_prop, ...)
{
  GstElement *e = gst_element_factory_make ("ssim2compare", NULL);
  fail_unless (e != NULL, "ssim2compare not found (GST_PLUGIN_PATH?)");
  g_object_set (e, "backend", 2 /* cpu */ , NULL);
  if (first_prop) {
    va_list args;
    va_start (args, first_prop);
    g_object_set_valist (G_OBJECT (e), first_prop, args);
    va_end (args);
  }
  return e;
}

static inline void
fixture_init (Fixture * f, GstElement * element, const gchar * ref_caps,
    const gchar * dist_caps)
{
  f->element = element;
  f->have_out_segment = FALSE;
  f->out_gaps = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  f->bus = gst_bus_new ();
  gst_element_set_bus (element, f->bus);
  f->dist = gst_harness_new_with_element (element, "dist", "src");
  f->ref = gst_harness_new_with_element (element, "ref", NULL);
  if (ref_caps)
    gst_harness_set_src_caps_str (f->ref, ref_caps);
  if (dist_caps)
    gst_harness_set_src_caps_str (f->dist, dist_caps);
}

static inline void
fixture_clear (Fixture * f)
{
  gst_element_set_state (f->element, GST_STATE_NULL);
  gst_harness_teardown (f->ref);
  gst_harness_teardown (f->dist);
  gst_element_set_bus (f->element, NULL);
  gst_object_unref (f->bus);
  gst_object_unref (f->element);
  g_array_unref (f->out_gaps);
}

/* Bytes of frame k: a pattern that depends on k, so that mispaired frames do
 * not score 100. noise > 0 adds a deterministic disturbance. */
static inline GstBuffer *
make_frame (const GstVideoInfo * info, guint k, guint noise, GstClockTime pts)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info),
      NULL);
  GstMapInfo map;
  guint32 seed = 0x9e3779b9u * (k + 1);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gsize i = 0; i < map.size; i++) {
    guint v = (guint) ((i * 7 + (i / 64) * 13 + k * 29) & 0xff);
    v = (v + 64) / 2 + 32;      /* keep clear of the clamping ends */
    if (noise) {
      seed = seed * 1664525u + 1013904223u;
      v += (seed >> 24) % (2 * noise + 1) - noise;
    }
    map.data[i] = (guint8) v;
  }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = FRAME_DUR;
  return buf;
}

typedef struct
{
  GstHarness *h;
  GPtrArray *items;             /* GstBuffer or GstEvent (owned) */
} Feed;

static inline gpointer
feed_thread (gpointer data)
{
  Feed *feed = (Feed *) data;
  for (guint i = 0; i < feed->items->len; i++) {
    GstMiniObject *obj = (GstMiniObject *) g_ptr_array_index (feed->items, i);
    if (GST_IS_BUFFER (obj))
      gst_harness_push (feed->h, GST_BUFFER (obj));
    else
      gst_harness_push_event (feed->h, GST_EVENT (obj));
  }
  g_ptr_array_unref (feed->items);
  g_free (feed);
  return NULL;
}

static inline GThread *
start_feed (GstHarness * h, GPtrArray * items)
{
  Feed *feed = g_new0 (Feed, 1);
  feed->h = h;
  feed->items = items;
  return g_thread_new ("feed", feed_thread, feed);
}

/* Frames k of @indices at time (k + offset) * FRAME_DUR, then EOS. */
static inline GPtrArray *
frames_at (const GstVideoInfo * info, const gint * indices, guint n,
    gint offset, guint noise)
{
  GPtrArray *a = g_ptr_array_new ();
  for (guint i = 0; i < n; i++) {
    gint k = indices[i];
    g_ptr_array_add (a, make_frame (info, k, noise ? noise + k % 5 : 0,
            (k + offset) * FRAME_DUR));
  }
  g_ptr_array_add (a, gst_event_new_eos ());
  return a;
}

static inline GPtrArray *
frames_range (const GstVideoInfo * info, guint first, guint n, gint offset,
    guint noise)
{
  gint *idx = g_new (gint, n);
  for (guint i = 0; i < n; i++)
    idx[i] = first + i;
  GPtrArray *a = frames_at (info, idx, n, offset, noise);
  g_free (idx);
  return a;
}

/* Waits for EOS on the output; returns FALSE on timeout. */
static inline gboolean
wait_eos (Fixture * f)
{
  while (TRUE) {
    GstEvent *ev = gst_harness_pull_event (f->dist);
    if (!ev)
      return FALSE;
    if (GST_EVENT_TYPE (ev) == GST_EVENT_SEGMENT) {
      gst_event_copy_segment (ev, &f->out_segment);
      f->have_out_segment = TRUE;
    }
    if (GST_EVENT_TYPE (ev) == GST_EVENT_GAP) {
      GstClockTime ts;
      gst_event_parse_gap (ev, &ts, NULL);
      g_array_append_val (f->out_gaps, ts);
    }
    gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
    if (eos)
      return TRUE;
  }
}

/* Runs both feeds to the end: waits for EOS (or @expect_error on the bus),
 * then stops the element so no feed can stay blocked, and joins. */
static inline void
run_feeds (Fixture * f, GPtrArray * ref_items, GPtrArray * dist_items,
    gboolean expect_error)
{
  GThread *tr = start_feed (f->ref, ref_items);
  GThread *td = start_feed (f->dist, dist_items);
  if (expect_error) {
    GstMessage *m = gst_bus_timed_pop_filtered (f->bus, 20 * GST_SECOND,
        GST_MESSAGE_ERROR);
    fail_unless (m != NULL, "expected an error message");
    /* put it back for the caller */
    gst_bus_post (f->bus, m);
  } else {
    fail_unless (wait_eos (f), "no EOS on the output");
  }
  gst_element_set_state (f->element, GST_STATE_NULL);
  g_thread_join (tr);
  g_thread_join (td);
}

/* Pops the one summary message on @bus and checks its counts. */
static inline void
expect_summary (GstBus * bus, guint64 frames, guint64 unmatched_ref,
    guint64 unmatched_dist)
{
  GstMessage *m = pop_summary (bus);
  fail_unless_equals_uint64 (summary_message (m).frames, frames);
  fail_unless_equals_uint64 (summary_message (m).unmatched_ref, unmatched_ref);
  fail_unless_equals_uint64 (summary_message (m).unmatched_dist,
      unmatched_dist);
  gst_message_unref (m);
}

static inline GstEvent *
caps_event (const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstEvent *ev = gst_event_new_caps (caps);
  gst_caps_unref (caps);
  return ev;
}

static inline void
video_info (GstVideoInfo * info, const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  fail_unless (gst_video_info_from_caps (info, caps));
  gst_caps_unref (caps);
}

#define CAPS64(fmt) "video/x-raw,format=" fmt ",width=64,height=48,framerate=30/1"

/* Pushes a caps event straight to the element's dist pad (I420 on ref) and
 * one frame on each, and expects a message of @type (an error or a warning)
 * whose text contains @needle. */
static inline void
expect_caps_message (const gchar * caps_str, GstMessageType type,
    const gchar * needle)
{
  Fixture f;
  GError *err = NULL;
  gchar *dbg = NULL;
  GstVideoInfo info;
  fixture_init (&f, make_element (NULL), CAPS64 ("I420"), NULL);
  /* A caps event the template accepts but the element refuses. */
  gst_pad_push_event (f.dist->srcpad,
      caps_event (caps_str));
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_pad_push_event (f.dist->srcpad, gst_event_new_segment (&seg));
  video_info (&info, caps_str);
  GstVideoInfo ri;
  video_info (&ri, CAPS64 ("I420"));
  GThread *tr = start_feed (f.ref, frames_range (&ri, 0, 1, 0, 0));
  GThread *td = start_feed (f.dist, frames_range (&info, 0, 1, 0, 0));
  GstMessage *m = gst_bus_timed_pop_filtered (f.bus, 20 * GST_SECOND, type);
  fail_unless (m != NULL, "no %s for %s", gst_message_type_get_name (type),
      caps_str);
  if (type == GST_MESSAGE_ERROR)
    gst_message_parse_error (m, &err, &dbg);
  else
    gst_message_parse_warning (m, &err, &dbg);
  GST_INFO ("%s: %s (%s)", gst_message_type_get_name (type), err->message,
      dbg);
  fail_unless (strstr (err->message, needle) != NULL, "'%s' lacks '%s'",
      err->message, needle);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (m);
  gst_element_set_state (f.element, GST_STATE_NULL);
  g_thread_join (tr);
  g_thread_join (td);
  fixture_clear (&f);
}

static inline void
expect_caps_error (const gchar * caps_str, const gchar * needle)
{
  expect_caps_message (caps_str, GST_MESSAGE_ERROR, needle);
}

/* The default element with 64x48 I420 on both pads; @info describes them. */
static inline void
fixture_init_i420 (Fixture * f, GstVideoInfo * info)
{
  video_info (info, CAPS64 ("I420"));
  fixture_init (f, make_element (NULL), CAPS64 ("I420"), CAPS64 ("I420"));
}

/* @e between the harnesses with @caps on both pads, fed @ref_n ref frames
 * from frame @ref_first and @dist_n dist frames from frame 0, @dist_offset
 * ns later; checks that every dist frame left on src, scored or not (the
 * output stays in f->dist). */
static inline void
run_frames (Fixture * f, GstElement * e, const gchar * caps, guint ref_first,
    guint ref_n, guint dist_n, gint dist_offset)
{
  GstVideoInfo info;
  video_info (&info, caps);
  fixture_init (f, e, caps, caps);
  run_feeds (f, frames_range (&info, ref_first, ref_n, 0, 0),
      frames_range (&info, 0, dist_n, dist_offset, 0), FALSE);
  fail_unless_equals_int (gst_harness_buffers_in_queue (f->dist), dist_n);
}

/* Runs @n RGB frames through @e, the dist ones noisy; returns the ssim2
 * messages (the output buffers stay in f->dist). */
static inline GList *
run_noisy (Fixture * f, GstElement * e, guint n)
{
  GstVideoInfo info;
  video_info (&info, CAPS64 ("RGB"));
  fixture_init (f, e, CAPS64 ("RGB"), CAPS64 ("RGB"));
  run_feeds (f, frames_range (&info, 0, n, 0, 0), frames_range (&info, 0, n,
          0, 6), FALSE);
  return pop_element_messages (f->bus, "ssim2");
}

static inline gchar *
read_file (const gchar * path)
{
  gchar *text = NULL;
  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "cannot read %s",
      path);
  return text;
}

/* ------------------------------------------------------------------------ */
/* Whole pipelines */

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

/* A test case @name of @suite whose tests may each take @timeout_s
 * seconds: decoding and scoring clips takes far longer than check's default
 * of 4 s. */
static inline TCase *
timed_tcase (Suite * suite, const gchar * name, gint timeout_s)
{
  TCase *tc = tcase_create (name);
  suite_add_tcase (suite, tc);
  tcase_set_timeout (tc, timeout_s);
  return tc;
}

/* A test case of @suite for tests that each make their clips in
 * @setup: a checked fixture, since GStreamer's thread pools do not survive
 * the fork of an unchecked fixture's process; 300 s for decoding. */
static inline TCase *
clip_tcase (Suite * suite, const gchar * name, SFun setup, SFun teardown)
{
  TCase *tc = timed_tcase (suite, name, 300);
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
