/* gst-check tests of the ssim2compare element (CPU backend).
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Two GstHarness share the element: one on the dist sink pad and the src pad,
 * one on the ref sink pad. GstAggregator pads hold one buffer each (non-live,
 * no latency), so each pad is fed from its own thread and the test then waits
 * for EOS (or an error) on the output.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <glib/gstdio.h>
#include <math.h>
#include <sys/resource.h>
#include <stdio.h>
#include <string.h>

#include "gstssim2meta.h"
#include "../../locale/de_locale.h"

#include <signal.h>
#include <sys/resource.h>

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

#ifndef SSIM2_TESTDATA_DIR
#define SSIM2_TESTDATA_DIR "../shared/testdata"
#endif

#define FRAME_DUR (GST_SECOND / 30)

/* ------------------------------------------------------------------------ */
/* Helpers */

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

static GstElement *
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

static void
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

static void
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
static GstBuffer *
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

static gpointer
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

static GThread *
start_feed (GstHarness * h, GPtrArray * items)
{
  Feed *feed = g_new0 (Feed, 1);
  feed->h = h;
  feed->items = items;
  return g_thread_new ("feed", feed_thread, feed);
}

/* Frames k of @indices at time (k + offset) * FRAME_DUR, then EOS. */
static GPtrArray *
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

static GPtrArray *
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
static gboolean
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
static void
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

/* Pops every element message named @name (in order). */
static GList *
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
static GstMessage *
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

static gdouble
msg_double (GstMessage * m, const gchar * field)
{
  gdouble v = NAN;
  fail_unless (gst_structure_get_double (gst_message_get_structure (m), field,
          &v), "field %s missing", field);
  return v;
}

static guint64
msg_uint64 (GstMessage * m, const gchar * field)
{
  guint64 v = 0;
  fail_unless (gst_structure_get_uint64 (gst_message_get_structure (m), field,
          &v), "field %s missing", field);
  return v;
}

/* Pops the one summary message on @bus and checks its counts. */
static void
expect_summary (GstBus * bus, guint64 frames, guint64 unmatched_ref,
    guint64 unmatched_dist)
{
  GList *sum = pop_element_messages (bus, "ssim2-summary");
  fail_unless_equals_int (g_list_length (sum), 1);
  GstMessage *m = GST_MESSAGE (sum->data);
  fail_unless_equals_uint64 (msg_uint64 (m, "frames"), frames);
  fail_unless_equals_uint64 (msg_uint64 (m, "unmatched-ref"), unmatched_ref);
  fail_unless_equals_uint64 (msg_uint64 (m, "unmatched-dist"),
      unmatched_dist);
  g_list_free_full (sum, (GDestroyNotify) gst_message_unref);
}

static GstEvent *
caps_event (const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstEvent *ev = gst_event_new_caps (caps);
  gst_caps_unref (caps);
  return ev;
}

static void
video_info (GstVideoInfo * info, const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  fail_unless (gst_video_info_from_caps (info, caps));
  gst_caps_unref (caps);
}

#define CAPS64(fmt) "video/x-raw,format=" fmt ",width=64,height=48,framerate=30/1"

/* The default element with 64x48 I420 on both pads; @info describes them. */
static void
fixture_init_i420 (Fixture * f, GstVideoInfo * info)
{
  video_info (info, CAPS64 ("I420"));
  fixture_init (f, make_element (NULL), CAPS64 ("I420"), CAPS64 ("I420"));
}

/* ------------------------------------------------------------------------ */
/* Caps */

static const gchar *all_formats[] = { "RGB", "RGBA", "BGRA", "RGBx", "BGRx",
  "I420", "NV12", "Y444", "P010_10LE", "I420_10LE"
};

GST_START_TEST (test_caps_accepted)
{
  for (guint i = 0; i < G_N_ELEMENTS (all_formats); i++) {
    gchar *caps_str = g_strdup_printf (CAPS64 ("%s"), all_formats[i]);
    GstVideoInfo info;
    Fixture f;
    video_info (&info, caps_str);
    fixture_init (&f, make_element (NULL), caps_str, caps_str);

    run_feeds (&f, frames_range (&info, 0, 3, 0, 0),
        frames_range (&info, 0, 3, 0, 0), FALSE);
    fail_unless_equals_int (gst_harness_buffers_in_queue (f.dist), 3);
    for (guint k = 0; k < 3; k++) {
      GstBuffer *out = gst_harness_pull (f.dist);
      GstSsim2Meta *meta = gst_buffer_get_ssim2_meta (out);
      fail_unless (meta != NULL, "%s: no meta", all_formats[i]);
      /* Identical frames score exactly 100. */
      fail_unless_equals_float (meta->score, 100.0);
      fail_unless_equals_uint64 (meta->index, k);
      gst_buffer_unref (out);
    }
    /* The output caps are the dist caps. */
    GstCaps *out_caps = gst_pad_get_current_caps (f.dist->sinkpad);
    GstCaps *want = gst_caps_from_string (caps_str);
    fail_unless (gst_caps_is_equal_fixed (out_caps, want) ||
        gst_caps_is_subset (want, out_caps));
    gst_caps_unref (out_caps);
    gst_caps_unref (want);
    fixture_clear (&f);
    g_free (caps_str);
  }
}

GST_END_TEST;

GST_START_TEST (test_caps_mixed_formats)
{
  /* Different formats on the two pads are compared (RGB vs RGBA). */
  GstVideoInfo ri, di;
  Fixture f;
  video_info (&ri, CAPS64 ("I420"));
  video_info (&di, CAPS64 ("NV12"));
  fixture_init (&f, make_element (NULL), CAPS64 ("I420"), CAPS64 ("NV12"));
  run_feeds (&f, frames_range (&ri, 0, 2, 0, 0), frames_range (&di, 0, 2, 0,
          3), FALSE);
  GList *msgs = pop_element_messages (f.bus, "ssim2");
  fail_unless_equals_int (g_list_length (msgs), 2);
  for (GList * l = msgs; l; l = l->next) {
    gdouble s = msg_double (GST_MESSAGE (l->data), "score");
    fail_unless (s < 100.0 && isfinite (s), "score %f", s);
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_caps_refused)
{
  GstElement *e = make_element (NULL);
  GstPad *ref = gst_element_get_static_pad (e, "ref");
  GstPad *dist = gst_element_get_static_pad (e, "dist");
  const gchar *refused[] = {
    CAPS64 ("GRAY8"),
    CAPS64 ("YUY2"),
    CAPS64 ("ARGB64"),
    CAPS64 ("I420") ",interlace-mode=interleaved",
    CAPS64 ("NV12") ",interlace-mode=mixed",
    "video/x-bayer,format=rggb,width=64,height=48",
    "image/jpeg,width=64,height=48",
  };
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++) {
    GstCaps *c = gst_caps_from_string (refused[i]);
    fail_if (gst_pad_query_accept_caps (ref, c), "ref accepts %s", refused[i]);
    fail_if (gst_pad_query_accept_caps (dist, c), "dist accepts %s",
        refused[i]);
    gst_caps_unref (c);
  }
  for (guint i = 0; i < G_N_ELEMENTS (all_formats); i++) {
    gchar *s = g_strdup_printf (CAPS64 ("%s"), all_formats[i]);
    GstCaps *c = gst_caps_from_string (s);
    fail_unless (gst_pad_query_accept_caps (ref, c), "refuses %s", s);
    gst_caps_unref (c);
    g_free (s);
    s = g_strdup_printf ("video/x-raw(memory:CUDAMemory),format=%s,width=64,"
        "height=48,framerate=30/1", all_formats[i]);
    c = gst_caps_from_string (s);
    fail_unless (gst_pad_query_accept_caps (dist, c), "refuses %s", s);
    gst_caps_unref (c);
    g_free (s);
  }
  gst_object_unref (ref);
  gst_object_unref (dist);
  gst_object_unref (e);
}

GST_END_TEST;

/* Pushes a caps event straight to the element's @pad and expects an error
 * message whose text contains @needle. */
static void
expect_caps_error (const gchar * caps_str, const gchar * needle)
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
  GstMessage *m = gst_bus_timed_pop_filtered (f.bus, 20 * GST_SECOND,
      GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "no error for %s", caps_str);
  gst_message_parse_error (m, &err, &dbg);
  GST_INFO ("error: %s (%s)", err->message, dbg);
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

GST_START_TEST (test_error_too_small)
{
  expect_caps_error ("video/x-raw,format=I420,width=6,height=48,"
      "framerate=30/1", "at least 8x8");
  expect_caps_error ("video/x-raw,format=RGB,width=64,height=7,"
      "framerate=30/1", "at least 8x8");
}

GST_END_TEST;

GST_START_TEST (test_error_unsupported_matrix)
{
  /* Y'CbCr with a matrix that cannot be compared. */
  expect_caps_error ("video/x-raw,format=I420,width=64,height=48,"
      "framerate=30/1,colorimetry=smpte240m", "cannot be compared");
}

GST_END_TEST;

GST_START_TEST (test_error_size_mismatch)
{
  Fixture f;
  GError *err = NULL;
  gchar *dbg = NULL;
  GstVideoInfo ri, di;
  const gchar *rc = CAPS64 ("I420");
  const gchar *dc = "video/x-raw,format=I420,width=32,height=48,framerate=30/1";
  video_info (&ri, rc);
  video_info (&di, dc);
  fixture_init (&f, make_element (NULL), rc, dc);
  run_feeds (&f, frames_range (&ri, 0, 2, 0, 0), frames_range (&di, 0, 2, 0,
          0), TRUE);
  GstMessage *m = pop_type (f.bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &err, &dbg);
  fail_unless (strstr (err->message, "64x48") && strstr (err->message,
          "32x48") && strstr (err->message, "pad dist ") &&
      strstr (err->message, "reference's size"), "%s", err->message);
  fail_unless (dbg && strstr (dbg, "videoscale method=bilinear") &&
      strstr (dbg, "width=64,height=48 ! c.dist") && strstr (dbg,
          "cudascale"), "%s", dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (m);
  fixture_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_error_no_cuda)
{
  /* backend=cuda without a usable device: a clear error, no crash. (On a
   * machine with a working CUDA engine and GPU this test checks nothing.) */
  GstElement *e = gst_element_factory_make ("ssim2compare", NULL);
  GstBus *bus = gst_bus_new ();
  g_object_set (e, "backend", 1 /* cuda */ , NULL);
  gst_element_set_bus (e, bus);
  GstStateChangeReturn r = gst_element_set_state (e, GST_STATE_PAUSED);
  if (r == GST_STATE_CHANGE_FAILURE) {
    GError *err = NULL;
    gchar *dbg = NULL;
    GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (m != NULL);
    gst_message_parse_error (m, &err, &dbg);
    fail_unless (strstr (err->message, "no usable CUDA device") != NULL, "%s",
        err->message);
    fail_unless (dbg && strstr (dbg, "backend=cpu"), "%s", dbg);
    g_clear_error (&err);
    g_free (dbg);
    gst_message_unref (m);
  } else {
    GST_INFO ("a CUDA device works here; nothing to check");
  }
  gst_element_set_state (e, GST_STATE_NULL);

  /* backend=auto falls back to the CPU with a warning. */
  g_object_set (e, "backend", 0 /* auto */ , NULL);
  r = gst_element_set_state (e, GST_STATE_PAUSED);
  fail_unless (r != GST_STATE_CHANGE_FAILURE);
  GstMessage *w = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  if (w) {
    GError *err = NULL;
    gst_message_parse_warning (w, &err, NULL);
    fail_unless (strstr (err->message, "scoring on the CPU") != NULL, "%s",
        err->message);
    g_clear_error (&err);
    gst_message_unref (w);
  }
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* backend=auto with the CUDA path failing (@fault, through the element's
 * test hook): the frames are scored on the CPU, with one warning that says
 * why. */
static void
check_auto_falls_back_to_cpu (const gchar * fault, const gchar * why)
{
  Fixture f;
  GstVideoInfo info;
  GError *err = NULL;
  g_setenv ("GST_SSIM2_COMPARE_TEST_FAULT", fault, TRUE);
  video_info (&info, CAPS64 ("I420"));
  fixture_init (&f, make_element ("backend", 0 /* auto */ , NULL),
      CAPS64 ("I420"), CAPS64 ("I420"));
  run_feeds (&f, frames_range (&info, 0, 3, 0, 0), frames_range (&info, 0, 3,
          0, 0), FALSE);
  g_unsetenv ("GST_SSIM2_COMPARE_TEST_FAULT");
  fail_unless_equals_int (gst_harness_buffers_in_queue (f.dist), 3);
  for (guint k = 0; k < 3; k++) {
    GstBuffer *out = gst_harness_pull (f.dist);
    GstSsim2Meta *meta = gst_buffer_get_ssim2_meta (out);
    fail_unless (meta != NULL, "%s: frame %u not scored", fault, k);
    fail_unless_equals_float (meta->score, 100.0);
    gst_buffer_unref (out);
  }
  fail_if (pop_type (f.bus, GST_MESSAGE_ERROR) != NULL, "%s: error", fault);
  GstMessage *w = pop_type (f.bus, GST_MESSAGE_WARNING);
  fail_unless (w != NULL, "%s: no warning", fault);
  gst_message_parse_warning (w, &err, NULL);
  fail_unless (strstr (err->message, "scoring on the CPU") != NULL, "%s",
      err->message);
  fail_unless (strstr (err->message, why) != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (w);
  fail_if (pop_type (f.bus, GST_MESSAGE_WARNING) != NULL,
      "%s: more than one warning", fault);
  fixture_clear (&f);
}

GST_START_TEST (test_backend_auto_falls_back_to_cpu)
{
  /* No device at start. */
  check_auto_falls_back_to_cpu ("no-cuda-device", "CUDA");
  /* The engine cannot be created for this stream (on a machine without a
   * device the start already falls back, with the device's reason). */
  check_auto_falls_back_to_cpu ("cuda-engine", "CUDA");
}

GST_END_TEST;

GST_START_TEST (test_backend_cuda_error_without_device)
{
  /* backend=cuda keeps its promise: an error, never a silent CPU run. */
  GstElement *e = gst_element_factory_make ("ssim2compare", NULL);
  GstBus *bus = gst_bus_new ();
  GError *err = NULL;
  g_setenv ("GST_SSIM2_COMPARE_TEST_FAULT", "no-cuda-device", TRUE);
  g_object_set (e, "backend", 1 /* cuda */ , NULL);
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  g_unsetenv ("GST_SSIM2_COMPARE_TEST_FAULT");
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &err, NULL);
  fail_unless (strstr (err->message, "no usable CUDA device") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (m);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_error_out_of_memory)
{
  /* Out of (GPU or host) memory when the scorer allocates its buffers:
   * simulated through the element's test hook. */
  Fixture f;
  GError *err = NULL;
  gchar *dbg = NULL;
  GstVideoInfo info;
  g_setenv ("GST_SSIM2_COMPARE_TEST_FAULT", "oom", TRUE);
  fixture_init_i420 (&f, &info);
  run_feeds (&f, frames_range (&info, 0, 2, 0, 0), frames_range (&info, 0, 2,
          0, 0), TRUE);
  g_unsetenv ("GST_SSIM2_COMPARE_TEST_FAULT");
  GstMessage *m = pop_type (f.bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &err, &dbg);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT));
  fail_unless (strstr (err->message, "Out of host memory for 64x48 frames"),
      "%s", err->message);
  fail_unless (dbg && strstr (dbg, "backend=cpu"), "%s", dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (m);
  /* Nothing was pushed after the error. */
  fail_unless_equals_int (gst_harness_buffers_in_queue (f.dist), 0);
  fixture_clear (&f);
}

GST_END_TEST;

static guint64
vm_size_bytes (void)
{
  gchar *status = NULL;
  guint64 kb = 0;
  fail_unless (g_file_get_contents ("/proc/self/status", &status, NULL,
          NULL));
  const gchar *p = strstr (status, "VmSize:");
  fail_unless (p != NULL);
  kb = g_ascii_strtoull (p + strlen ("VmSize:"), NULL, 10);
  g_free (status);
  return kb * 1024;
}

GST_START_TEST (test_error_not_enough_host_memory)
{
  /* 4096x2048 frames need about 600 MiB on the CPU path; the process may
   * grow by 200 MiB only (RLIMIT_AS). The element says so up front, with
   * NO_SPACE_LEFT, instead of failing (or being killed) while it scores. */
  Fixture f;
  GError *err = NULL;
  gchar *dbg = NULL;
  GstVideoInfo info;
  const gchar *caps = "video/x-raw,format=I420,width=4096,height=2048,"
      "framerate=30/1";
  video_info (&info, caps);
  fixture_init (&f, make_element (NULL), caps, caps);
  GPtrArray *r = frames_range (&info, 0, 1, 0, 0);
  GPtrArray *d = frames_range (&info, 0, 1, 0, 0);
  struct rlimit old_limit, limit;
  fail_unless (getrlimit (RLIMIT_AS, &old_limit) == 0);
  limit = old_limit;
  limit.rlim_cur = vm_size_bytes () + 200 * 1024 * 1024;
  fail_unless (setrlimit (RLIMIT_AS, &limit) == 0);
  run_feeds (&f, r, d, TRUE);
  fail_unless (setrlimit (RLIMIT_AS, &old_limit) == 0);
  GstMessage *m = pop_type (f.bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_parse_error (m, &err, &dbg);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT), "%s", err->message);
  fail_unless (strstr (err->message, "4096x2048") &&
      strstr (err->message, "needs about") &&
      strstr (err->message, "RLIMIT_AS"), "%s", err->message);
  fail_unless (dbg && strstr (dbg, "bytes per pixel"), "%s", dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (m);
  fail_unless_equals_int (gst_harness_buffers_in_queue (f.dist), 0);
  fixture_clear (&f);
}

GST_END_TEST;

/* A stats file that cannot be created (a missing folder) or whose first
 * line cannot be written (a full disk): an error naming the file, and the
 * element does not start. */
GST_START_TEST (test_error_stats_file_unwritable)
{
  const gchar *paths[] = { "/nonexistent-dir/x/s.csv", "/dev/full" };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++) {
    GstElement *e = make_element ("stats-file", paths[i], NULL);
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (e, bus);
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (m != NULL, "no error for stats-file=%s", paths[i]);
    GError *err = NULL;
    gst_message_parse_error (m, &err, NULL);
    fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_OPEN_WRITE), "%s", err->message);
    fail_unless (strstr (err->message, paths[i]) != NULL, "%s", err->message);
    g_clear_error (&err);
    gst_message_unref (m);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_element_set_bus (e, NULL);
    gst_object_unref (bus);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Pairing */

GST_START_TEST (test_pairing_running_time)
{
  /* ref: frames 0..11 from t=0. dist: frames 3..11 (starts 3 frames later),
   * frame 7 dropped. Frame k of each pad has the same pixels, so only the
   * right pairs score 100. */
  Fixture f;
  GstVideoInfo info;
  fixture_init_i420 (&f, &info);
  const gint dist_idx[] = { 3, 4, 5, 6, 8, 9, 10, 11 };
  run_feeds (&f, frames_range (&info, 0, 12, 0, 0), frames_at (&info, dist_idx,
          G_N_ELEMENTS (dist_idx), 0, 0), FALSE);

  fail_unless_equals_int (gst_harness_buffers_in_queue (f.dist), 8);
  for (guint i = 0; i < 8; i++) {
    GstBuffer *out = gst_harness_pull (f.dist);
    GstSsim2Meta *meta = gst_buffer_get_ssim2_meta (out);
    fail_unless (meta != NULL);
    fail_unless_equals_float (meta->score, 100.0);
    fail_unless_equals_uint64 (meta->index, i);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), dist_idx[i] * FRAME_DUR);
    gst_buffer_unref (out);
  }
  /* Unmatched ref: 0, 1, 2 (before dist starts) and 7 (dropped on dist). */
  expect_summary (f.bus, 8, 4, 0);
  fixture_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_pairing_dist_without_ref)
{
  /* dist starts before ref: the first dist frames have no reference and are
   * pushed unscored (no meta, no message). */
  Fixture f;
  GstVideoInfo info;
  video_info (&info, CAPS64 ("RGBx"));
  fixture_init (&f, make_element (NULL), CAPS64 ("RGBx"), CAPS64 ("RGBx"));
  run_feeds (&f, frames_range (&info, 2, 4, 0, 0), frames_range (&info, 0, 6,
          0, 0), FALSE);
  fail_unless_equals_int (gst_harness_buffers_in_queue (f.dist), 6);
  for (guint i = 0; i < 6; i++) {
    GstBuffer *out = gst_harness_pull (f.dist);
    GstSsim2Meta *meta = gst_buffer_get_ssim2_meta (out);
    if (i < 2) {
      fail_unless (meta == NULL);
    } else {
      fail_unless (meta != NULL);
      fail_unless_equals_float (meta->score, 100.0);
    }
    gst_buffer_unref (out);
  }
  GList *sum = pop_element_messages (f.bus, "ssim2-summary");
  fail_unless_equals_uint64 (msg_uint64 (GST_MESSAGE (sum->data),
          "unmatched-dist"), 2);
  fail_unless_equals_uint64 (msg_uint64 (GST_MESSAGE (sum->data), "frames"),
      4);
  g_list_free_full (sum, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_pairing_segment_offset)
{
  /* The dist pad's segment starts at 10 s with PTS 10 s + k: same running
   * times as ref, so the frames pair. */
  Fixture f;
  GstVideoInfo info;
  fixture_init_i420 (&f, &info);
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = 10 * GST_SECOND;
  seg.time = 10 * GST_SECOND;
  fail_unless (gst_pad_push_event (f.dist->srcpad,
          gst_event_new_segment (&seg)));
  GPtrArray *d = g_ptr_array_new ();
  for (guint k = 0; k < 4; k++)
    g_ptr_array_add (d, make_frame (&info, k, 0, 10 * GST_SECOND +
            k * FRAME_DUR));
  g_ptr_array_add (d, gst_event_new_eos ());
  run_feeds (&f, frames_range (&info, 0, 4, 0, 0), d, FALSE);
  GList *msgs = pop_element_messages (f.bus, "ssim2");
  fail_unless_equals_int (g_list_length (msgs), 4);
  guint k = 0;
  for (GList * l = msgs; l; l = l->next, k++) {
    GstMessage *m = GST_MESSAGE (l->data);
    fail_unless_equals_float (msg_double (m, "score"), 100.0);
    fail_unless_equals_uint64 (msg_uint64 (m, "timestamp"),
        10 * GST_SECOND + k * FRAME_DUR);
    fail_unless_equals_uint64 (msg_uint64 (m, "running-time"), k * FRAME_DUR);
    fail_unless_equals_uint64 (msg_uint64 (m, "stream-time"),
        10 * GST_SECOND + k * FRAME_DUR);
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  /* The output carries the dist segment. */
  fail_unless (f.have_out_segment);
  fail_unless_equals_uint64 (f.out_segment.start, 10 * GST_SECOND);
  fail_unless_equals_uint64 (f.out_segment.time, 10 * GST_SECOND);
  fixture_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_latency_reported)
{
  /* Live upstream on both pads: the element reports the larger latency. */
  Fixture f;
  GstQuery *q;
  gboolean live;
  GstClockTime min, max;
  fixture_init (&f, make_element (NULL), CAPS64 ("I420"), CAPS64 ("I420"));
  gst_harness_set_upstream_latency (f.ref, 40 * GST_MSECOND);
  gst_harness_set_upstream_latency (f.dist, 100 * GST_MSECOND);
  q = gst_query_new_latency ();
  fail_unless (gst_pad_peer_query (f.dist->sinkpad, q));
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless (live);
  fail_unless (min >= 100 * GST_MSECOND, "min %" GST_TIME_FORMAT,
      GST_TIME_ARGS (min));
  gst_query_unref (q);
  fixture_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_alignment_sequence)
{
  /* Timestamps that do not match at all: sequence pairs the Nth buffers. */
  Fixture f;
  GstVideoInfo info;
  video_info (&info, CAPS64 ("NV12"));
  fixture_init (&f, make_element ("alignment", 1, NULL), CAPS64 ("NV12"),
      CAPS64 ("NV12"));
  run_feeds (&f, frames_range (&info, 0, 5, 0, 0), frames_range (&info, 0, 5,
          1000, 0), FALSE);
  fail_unless_equals_int (gst_harness_buffers_in_queue (f.dist), 5);
  for (guint i = 0; i < 5; i++) {
    GstBuffer *out = gst_harness_pull (f.dist);
    GstSsim2Meta *meta = gst_buffer_get_ssim2_meta (out);
    fail_unless (meta != NULL);
    fail_unless_equals_float (meta->score, 100.0);
    gst_buffer_unref (out);
  }
  fixture_clear (&f);

  /* The same input with running-time alignment pairs nothing. */
  fixture_init (&f, make_element (NULL), CAPS64 ("NV12"), CAPS64 ("NV12"));
  run_feeds (&f, frames_range (&info, 0, 5, 0, 0), frames_range (&info, 0, 5,
          1000, 0), FALSE);
  GList *sum = pop_element_messages (f.bus, "ssim2-summary");
  fail_unless_equals_uint64 (msg_uint64 (GST_MESSAGE (sum->data), "frames"),
      0);
  fail_unless (isnan (msg_double (GST_MESSAGE (sum->data), "mean")));
  g_list_free_full (sum, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_ref_ends_first)
{
  Fixture f;
  GError *err = NULL;
  GstVideoInfo info;
  fixture_init_i420 (&f, &info);
  run_feeds (&f, frames_range (&info, 0, 3, 0, 0), frames_range (&info, 0, 5,
          0, 0), FALSE);
  /* All 5 dist frames leave, the last 2 unscored. */
  fail_unless_equals_int (gst_harness_buffers_in_queue (f.dist), 5);
  GstMessage *w = pop_type (f.bus, GST_MESSAGE_WARNING);
  fail_unless (w != NULL, "no warning");
  gst_message_parse_warning (w, &err, NULL);
  fail_unless (strstr (err->message, "ref input ended first") &&
      strstr (err->message, "ref 3 frames") &&
      strstr (err->message, "dist 5 frames"), "%s", err->message);
  const GstStructure *details = NULL;
  gst_message_parse_warning_details (w, &details);
  fail_unless (details != NULL);
  fail_unless_equals_string (gst_structure_get_string (details,
          "ended-first"), "ref");
  guint64 nr = 0, nd = 0;
  fail_unless (gst_structure_get_uint64 (details, "ref-frames", &nr));
  fail_unless (gst_structure_get_uint64 (details, "dist-frames", &nd));
  fail_unless_equals_uint64 (nr, 3);
  fail_unless_equals_uint64 (nd, 5);
  g_clear_error (&err);
  gst_message_unref (w);
  GList *sum = pop_element_messages (f.bus, "ssim2-summary");
  fail_unless_equals_uint64 (msg_uint64 (GST_MESSAGE (sum->data), "frames"),
      3);
  fail_unless_equals_string (gst_structure_get_string (gst_message_get_structure
          (GST_MESSAGE (sum->data)), "ended-first"), "ref");
  g_list_free_full (sum, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_dist_ends_first)
{
  Fixture f;
  GError *err = NULL;
  GstVideoInfo info;
  video_info (&info, CAPS64 ("I420"));
  fixture_init (&f, make_element ("alignment", 1, NULL), CAPS64 ("I420"),
      CAPS64 ("I420"));
  run_feeds (&f, frames_range (&info, 0, 6, 0, 0), frames_range (&info, 0, 2,
          0, 0), FALSE);
  fail_unless_equals_int (gst_harness_buffers_in_queue (f.dist), 2);
  GstMessage *w = pop_type (f.bus, GST_MESSAGE_WARNING);
  fail_unless (w != NULL, "no warning");
  gst_message_parse_warning (w, &err, NULL);
  /* The ref count includes the frame that was waiting after dist's end:
   * "ref 2 frames, dist 2 frames" would contradict "dist ended first"
   * (issue 24). */
  fail_unless (strstr (err->message, "dist input ended first") &&
      strstr (err->message, "ref 3 frames") &&
      strstr (err->message, "dist 2 frames"), "%s", err->message);
  const GstStructure *details = NULL;
  gst_message_parse_warning_details (w, &details);
  guint64 nr = 0;
  fail_unless (details && gst_structure_get_uint64 (details, "ref-frames",
          &nr));
  fail_unless_equals_uint64 (nr, 3);
  g_clear_error (&err);
  gst_message_unref (w);
  GList *sum = pop_element_messages (f.bus, "ssim2-summary");
  fail_unless_equals_int (g_list_length (sum), 1);
  g_list_free_full (sum, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Output: messages, summary, stats file, threshold, frame-step */

/* @n frames at @fps (30 or 60) from 0; frame j carries the pixels of 30 fps
 * frame j * 30 / fps when that is a whole number, else its own. */
static GPtrArray *
frames_at_rate (const GstVideoInfo * info, guint n, guint fps)
{
  GPtrArray *a = g_ptr_array_new ();
  const GstClockTime dur = gst_util_uint64_scale_int (GST_SECOND, 1, fps);
  for (guint j = 0; j < n; j++) {
    guint k = (j * 30) % fps == 0 ? j * 30 / fps : 1000 + j;
    GstBuffer *b = make_frame (info, k, 0, j * dur);
    GST_BUFFER_DURATION (b) = dur;
    g_ptr_array_add (a, b);
  }
  g_ptr_array_add (a, gst_event_new_eos ());
  return a;
}

/* Two streams of the same length at different frame rates: every frame of
 * the slower one pairs, the others are unmatched, and no "ended first"
 * warning, since neither stream ends early. */
static void
check_rates_same_length (guint ref_fps, guint dist_fps)
{
  Fixture f;
  GstVideoInfo info;
  gchar *rc = g_strdup_printf ("video/x-raw,format=I420,width=64,height=48,"
      "framerate=%u/1", ref_fps);
  gchar *dc = g_strdup_printf ("video/x-raw,format=I420,width=64,height=48,"
      "framerate=%u/1", dist_fps);
  video_info (&info, rc);
  fixture_init (&f, make_element (NULL), rc, dc);
  run_feeds (&f, frames_at_rate (&info, ref_fps / 3, ref_fps),
      frames_at_rate (&info, dist_fps / 3, dist_fps), FALSE);
  GstMessage *w = pop_type (f.bus, GST_MESSAGE_WARNING);
  if (w) {
    GError *err = NULL;
    gst_message_parse_warning (w, &err, NULL);
    fail ("ref %u fps, dist %u fps: unexpected warning: %s", ref_fps,
        dist_fps, err->message);
  }
  GList *sum = pop_element_messages (f.bus, "ssim2-summary");
  fail_unless_equals_int (g_list_length (sum), 1);
  GstMessage *m = GST_MESSAGE (sum->data);
  fail_unless_equals_uint64 (msg_uint64 (m, "frames"), 10);
  fail_unless_equals_float (msg_double (m, "min"), 100.0);
  fail_unless_equals_uint64 (msg_uint64 (m, dist_fps > ref_fps ?
          "unmatched-dist" : "unmatched-ref"), 10);
  g_list_free_full (sum, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
  g_free (rc);
  g_free (dc);
}

GST_START_TEST (test_different_rates_no_ended_first)
{
  check_rates_same_length (30, 60);
  check_rates_same_length (60, 30);
}

GST_END_TEST;

GST_START_TEST (test_alignment_stream_time)
{
  /* dist's segment puts its frames 5 frames later in running time (base)
   * at the same stream positions: running-time pairs nothing, stream-time
   * pairs every frame with its own. */
  GstVideoInfo info;
  video_info (&info, CAPS64 ("I420"));
  for (guint mode = 0; mode < 2; mode++) {
    Fixture f;
    fixture_init (&f, make_element ("alignment", mode == 0 ? 0 : 2, NULL),
        CAPS64 ("I420"), CAPS64 ("I420"));
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    seg.base = 5 * FRAME_DUR;
    fail_unless (gst_pad_push_event (f.dist->srcpad,
            gst_event_new_segment (&seg)));
    run_feeds (&f, frames_range (&info, 0, 5, 0, 0), frames_range (&info, 0,
            5, 0, 0), FALSE);
    GList *sum = pop_element_messages (f.bus, "ssim2-summary");
    GstMessage *m = GST_MESSAGE (sum->data);
    if (mode == 0) {
      fail_unless_equals_uint64 (msg_uint64 (m, "frames"), 0);
    } else {
      fail_unless_equals_uint64 (msg_uint64 (m, "frames"), 5);
      fail_unless_equals_float (msg_double (m, "min"), 100.0);
    }
    g_list_free_full (sum, (GDestroyNotify) gst_message_unref);
    fixture_clear (&f);
  }
}

GST_END_TEST;

GST_START_TEST (test_gap_on_dist_forwarded)
{
  /* A GAP event on dist where frame 2 would be: it leaves as a GAP event,
   * never as an empty buffer, and counts as unscored dist time. */
  Fixture f;
  GstVideoInfo info;
  fixture_init_i420 (&f, &info);
  GPtrArray *d = g_ptr_array_new ();
  for (guint k = 0; k < 5; k++) {
    if (k == 2)
      g_ptr_array_add (d, gst_event_new_gap (k * FRAME_DUR, FRAME_DUR));
    else
      g_ptr_array_add (d, make_frame (&info, k, 0, k * FRAME_DUR));
  }
  g_ptr_array_add (d, gst_event_new_eos ());
  run_feeds (&f, frames_range (&info, 0, 5, 0, 0), d, FALSE);

  fail_unless_equals_int (gst_harness_buffers_in_queue (f.dist), 4);
  for (guint i = 0; i < 4; i++) {
    GstBuffer *out = gst_harness_pull (f.dist);
    fail_unless (gst_buffer_get_size (out) == GST_VIDEO_INFO_SIZE (&info),
        "buffer %u has %" G_GSIZE_FORMAT " bytes", i,
        gst_buffer_get_size (out));
    fail_unless (gst_buffer_get_ssim2_meta (out) != NULL);
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (f.out_gaps->len, 1);
  fail_unless_equals_uint64 (g_array_index (f.out_gaps, GstClockTime, 0),
      2 * FRAME_DUR);
  expect_summary (f.bus, 4, 1, 1);
  fixture_clear (&f);
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

/* Runs 10 noisy frames; returns the ssim2 messages (and the output buffers
 * in *outs if not NULL). */
static GList *
run_noisy (Fixture * f, GstElement * e, guint n)
{
  GstVideoInfo info;
  video_info (&info, CAPS64 ("RGB"));
  fixture_init (f, e, CAPS64 ("RGB"), CAPS64 ("RGB"));
  run_feeds (f, frames_range (&info, 0, n, 0, 0), frames_range (&info, 0, n,
          0, 6), FALSE);
  return pop_element_messages (f->bus, "ssim2");
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
    scores[i] = msg_double (m, "score");
    fail_unless (scores[i] < 100.0);
    fail_unless_equals_uint64 (msg_uint64 (m, "index"), i);
    fail_unless_equals_uint64 (msg_uint64 (m, "timestamp"), i * FRAME_DUR);
    fail_unless_equals_uint64 (msg_uint64 (m, "stream-time"), i * FRAME_DUR);
    fail_unless_equals_uint64 (msg_uint64 (m, "running-time"), i * FRAME_DUR);
    fail_unless_equals_uint64 (msg_uint64 (m, "duration"), FRAME_DUR);
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
  GList *sum = pop_element_messages (f.bus, "ssim2-summary");
  fail_unless_equals_int (g_list_length (sum), 1);
  GstMessage *s = GST_MESSAGE (sum->data);
  double mean = 0, var = 0, inv = 0, sorted[10];
  for (i = 0; i < n; i++) {
    mean += scores[i] / n;
    inv += 1.0 / MAX (scores[i], 0.0);
    sorted[i] = scores[i];
  }
  for (i = 0; i < n; i++)
    var += (scores[i] - mean) * (scores[i] - mean) / n;
  qsort (sorted, n, sizeof (double), cmp_double);
  fail_unless_equals_uint64 (msg_uint64 (s, "frames"), n);
  fail_unless (fabs (msg_double (s, "mean") - mean) < 1e-9);
  fail_unless (fabs (msg_double (s, "stddev") - sqrt (var)) < 1e-9);
  fail_unless_equals_float (msg_double (s, "min"), sorted[0]);
  fail_unless_equals_float (msg_double (s, "max"), sorted[n - 1]);
  const double qs[] = { 1, 5, 50, 95, 99 };
  const char *names[] = { "p1", "p5", "p50", "p95", "p99" };
  for (i = 0; i < 5; i++)
    fail_unless (fabs (msg_double (s, names[i]) - percentile (sorted, n,
                qs[i])) < 1e-9, "%s", names[i]);
  double hm = sorted[0] > 0 ? n / inv : 0.0;
  fail_unless (fabs (msg_double (s, "harmonic-mean") - hm) < 1e-9);
  g_list_free_full (sum, (GDestroyNotify) gst_message_unref);
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
  GList *sum = pop_element_messages (f.bus, "ssim2-summary");
  fail_unless_equals_int (g_list_length (sum), 1);
  g_list_free_full (sum, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
}

GST_END_TEST;

static gchar *
read_file (const gchar * path)
{
  gchar *text = NULL;
  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "cannot read %s",
      path);
  return text;
}

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
    g_ascii_formatd (buf, sizeof buf, "%.8f", msg_double (GST_MESSAGE (l->data),
            "score"));
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
    "'running_time', 'duration', 'score'], rows[0]\n"
    "assert len(rows) == 1 + len(want), rows\n"
    "for i, r in enumerate(rows[1:]):\n"
    "    assert len(r) == 7, r\n"
    "    assert [int(v) for v in r[:6]] == "
    "[i, i, i * 33333333, i * 33333333, i * 33333333, 33333333], r\n"
    "    assert abs(float(r[6]) - want[i]) < 1e-8, (r, want[i])\n"
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
    "f['running_time'], f['duration']) == "
    "(1, 1, 33333333, 33333333, 33333333, 33333333), f\n"
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
  GList *sum = pop_element_messages (f.bus, "ssim2-summary");
  fail_unless_equals_int (g_list_length (sum), 1);
  fail_unless_equals_uint64 (msg_uint64 (GST_MESSAGE (sum->data), "frames"),
      6);
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

  /* Default threshold: no warning. */
  msgs = run_noisy (&f, make_element (NULL), 3);
  fail_unless (pop_type (f.bus, GST_MESSAGE_WARNING) == NULL);
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_frame_step)
{
  Fixture f;
  GList *msgs = run_noisy (&f, make_element ("frame-step", 3, NULL), 8);
  /* Pairs 0, 3, 6 are scored; all 8 buffers pass. */
  fail_unless_equals_int (g_list_length (msgs), 3);
  guint64 want[] = { 0, 3, 6 };
  guint i = 0;
  for (GList * l = msgs; l; l = l->next, i++)
    fail_unless_equals_uint64 (msg_uint64 (GST_MESSAGE (l->data), "index"),
        want[i]);
  fail_unless_equals_int (gst_harness_buffers_in_queue (f.dist), 8);
  for (i = 0; i < 8; i++) {
    GstBuffer *out = gst_harness_pull (f.dist);
    fail_unless_equals_int (gst_buffer_get_ssim2_meta (out) != NULL,
        i % 3 == 0);
    gst_buffer_unref (out);
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
}

GST_END_TEST;

/* threads: the CPU path runs with the number asked for (the summary names
 * the scorer that ran) and the scores do not depend on it. */
GST_START_TEST (test_threads)
{
  const guint n = 3;
  double scores[2][3];
  const guint threads[2] = { 1, 3 };
  for (guint t = 0; t < 2; t++) {
    Fixture f;
    GstElement *e = make_element ("threads", threads[t], NULL);
    guint got = 0;
    g_object_get (e, "threads", &got, NULL);
    fail_unless_equals_int (got, threads[t]);
    GList *msgs = run_noisy (&f, e, n);
    fail_unless_equals_int (g_list_length (msgs), n);
    guint i = 0;
    for (GList * l = msgs; l; l = l->next, i++)
      scores[t][i] = msg_double (GST_MESSAGE (l->data), "score");
    g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
    GList *sum = pop_element_messages (f.bus, "ssim2-summary");
    fail_unless_equals_int (g_list_length (sum), 1);
    const gchar *backend = gst_structure_get_string (gst_message_get_structure
        (GST_MESSAGE (sum->data)), "backend");
    gchar *want = g_strdup_printf (", %u thread", threads[t]);
    fail_unless (backend && g_str_has_prefix (backend, "CPU")
        && strstr (backend, want), "%s", backend);
    g_free (want);
    g_list_free_full (sum, (GDestroyNotify) gst_message_unref);
    fixture_clear (&f);
  }
  for (guint i = 0; i < n; i++)
    fail_unless (scores[0][i] == scores[1][i], "frame %u: %.17g vs %.17g", i,
        scores[0][i], scores[1][i]);
  GstElement *e = gst_element_factory_make ("ssim2compare", NULL);
  guint dflt = 99;
  g_object_get (e, "threads", &dflt, NULL);
  fail_unless_equals_int (dflt, 0);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_renegotiation)
{
  /* 64x48 I420, then both pads switch to 40x32 RGBA (and back the dist pad
   * to another format): the element reallocates and goes on. */
  Fixture f;
  GstVideoInfo a, b, c;
  const gchar *ca = CAPS64 ("I420");
  const gchar *cb = "video/x-raw,format=RGBA,width=40,height=32,framerate=30/1";
  const gchar *cc = "video/x-raw,format=BGRx,width=40,height=32,framerate=30/1";
  video_info (&a, ca);
  video_info (&b, cb);
  video_info (&c, cc);
  fixture_init (&f, make_element (NULL), ca, ca);
  GPtrArray *r = g_ptr_array_new (), *d = g_ptr_array_new ();
  for (guint k = 0; k < 3; k++) {
    g_ptr_array_add (r, make_frame (&a, k, 0, k * FRAME_DUR));
    g_ptr_array_add (d, make_frame (&a, k, 0, k * FRAME_DUR));
  }
  g_ptr_array_add (r, caps_event (cb));
  g_ptr_array_add (d, caps_event (cb));
  for (guint k = 3; k < 6; k++) {
    g_ptr_array_add (r, make_frame (&b, k, 0, k * FRAME_DUR));
    g_ptr_array_add (d, make_frame (&b, k, 0, k * FRAME_DUR));
  }
  g_ptr_array_add (d, caps_event (cc));
  for (guint k = 6; k < 8; k++) {
    g_ptr_array_add (r, make_frame (&b, k, 0, k * FRAME_DUR));
    g_ptr_array_add (d, make_frame (&c, k, 0, k * FRAME_DUR));
  }
  g_ptr_array_add (r, gst_event_new_eos ());
  g_ptr_array_add (d, gst_event_new_eos ());
  run_feeds (&f, r, d, FALSE);
  fail_unless (pop_type (f.bus, GST_MESSAGE_ERROR) == NULL);
  GList *msgs = pop_element_messages (f.bus, "ssim2");
  fail_unless_equals_int (g_list_length (msgs), 8);
  guint i = 0;
  for (GList * l = msgs; l; l = l->next, i++) {
    gdouble s = msg_double (GST_MESSAGE (l->data), "score");
    if (i < 6) {
      fail_unless_equals_float (s, 100.0);
    } else {
      fail_unless (s < 100.0);  /* RGBA vs BGRx: channels swapped */
    }
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  /* The output caps followed the dist pad. */
  GstCaps *out = gst_pad_get_current_caps (f.dist->sinkpad);
  GstCaps *want = gst_caps_from_string (cc);
  fail_unless (gst_caps_is_subset (out, want), "%" GST_PTR_FORMAT, out);
  gst_caps_unref (out);
  gst_caps_unref (want);
  fixture_clear (&f);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Parity on the test clip */

static GstPadProbeReturn
count_meta (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  guint *count = (guint *) data;
  (void) pad;
  if (gst_buffer_get_ssim2_meta (GST_PAD_PROBE_INFO_BUFFER (info)))
    (*count)++;
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_parity_clip)
{
  const gchar *dir = g_getenv ("SSIM2_TESTDATA");
  if (!dir)
    dir = SSIM2_TESTDATA_DIR;
  GstElementFactory *dec = gst_element_factory_find ("avdec_h264");
  GstElementFactory *demux = gst_element_factory_find ("matroskademux");
  if (!dec || !demux) {
    g_print ("SKIP parity: avdec_h264 (gstreamer1.0-libav) or matroskademux "
        "(gstreamer1.0-plugins-good) missing\n");
    fail ("decoders for the test clip are missing");
  }
  gst_object_unref (dec);
  gst_object_unref (demux);

  gchar *desc = g_strdup_printf ("ssim2compare name=c backend=cpu ! "
      "fakesink name=sink sync=false "
      "filesrc location=\"%s/video/reference.mkv\" ! matroskademux ! "
      "avdec_h264 ! c.ref "
      "filesrc location=\"%s/video/distorted.mkv\" ! matroskademux ! "
      "avdec_h264 ! c.dist", dir, dir);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  fail_unless (pipe != NULL, "%s", err ? err->message : "?");
  g_free (desc);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstPad *sinkpad = gst_element_get_static_pad (sink, "sink");
  guint metas = 0;
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_BUFFER, count_meta, &metas,
      NULL);

  /* Expected scores. */
  gchar *csv_path = g_build_filename (dir, "video_scores.csv", NULL);
  gchar *csv = read_file (csv_path);
  gchar **lines = g_strsplit (csv, "\n", -1);
  double expected[64];
  guint n_expected = 0;
  for (guint i = 1; lines[i] && *lines[i] && n_expected < 64; i++) {
    gchar **cols = g_strsplit (lines[i], ",", 2);
    expected[n_expected++] = g_ascii_strtod (cols[1], NULL);
    g_strfreev (cols);
  }
  g_strfreev (lines);
  g_free (csv);
  g_free (csv_path);
  fail_unless_equals_int (n_expected, 30);

  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  guint scored = 0;
  double max_diff = 0.0;
  guint worst = 0;
  gboolean summary = FALSE;
  while (TRUE) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
            GST_MESSAGE_ELEMENT));
    fail_unless (m != NULL, "timeout");
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &err, NULL);
      fail ("error: %s", err->message);
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
      gst_message_unref (m);
      break;
    }
    const GstStructure *s = gst_message_get_structure (m);
    if (gst_structure_has_name (s, "ssim2")) {
      guint64 index = msg_uint64 (m, "index");
      double score = msg_double (m, "score");
      fail_unless (index < n_expected);
      double d = fabs (score - expected[index]);
      if (d > max_diff) {
        max_diff = d;
        worst = (guint) index;
      }
      scored++;
    } else if (gst_structure_has_name (s, "ssim2-summary")) {
      summary = TRUE;
      fail_unless_equals_uint64 (msg_uint64 (m, "frames"), 30);
      fail_unless (fabs (msg_double (m, "mean") - 35.32) < 0.01);
      fail_unless (fabs (msg_double (m, "min") - 20.31) < 0.01);
      fail_unless (fabs (msg_double (m, "max") - 55.69) < 0.01);
    }
    gst_message_unref (m);
  }
  g_print ("parity: %u frames scored, max |score - video_scores.csv| = %.3g "
      "(frame %u)\n", scored, max_diff, worst);
  fail_unless_equals_int (scored, 30);
  fail_unless (summary);
  fail_unless_equals_int (metas, 30);
  fail_unless (max_diff < 1e-3, "max difference %g", max_diff);

  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sinkpad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}

GST_END_TEST;

static Suite *
ssim2compare_suite (void)
{
  Suite *s = suite_create ("ssim2compare");
  TCase *tc = tcase_create ("general");
  GstElementFactory *f = gst_element_factory_find ("ssim2compare");

  suite_add_tcase (s, tc);
  if (!f) {
    GST_ERROR ("ssim2compare not found: set GST_PLUGIN_PATH_1_0");
  } else {
    gst_object_unref (f);
  }
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_caps_accepted);
  tcase_add_test (tc, test_caps_mixed_formats);
  tcase_add_test (tc, test_caps_refused);
  tcase_add_test (tc, test_error_too_small);
  tcase_add_test (tc, test_error_unsupported_matrix);
  tcase_add_test (tc, test_error_size_mismatch);
  tcase_add_test (tc, test_error_no_cuda);
  tcase_add_test (tc, test_backend_auto_falls_back_to_cpu);
  tcase_add_test (tc, test_backend_cuda_error_without_device);
  tcase_add_test (tc, test_error_out_of_memory);
  tcase_add_test (tc, test_error_not_enough_host_memory);
  tcase_add_test (tc, test_error_stats_file_unwritable);
  tcase_add_test (tc, test_pairing_running_time);
  tcase_add_test (tc, test_pairing_dist_without_ref);
  tcase_add_test (tc, test_pairing_segment_offset);
  tcase_add_test (tc, test_latency_reported);
  tcase_add_test (tc, test_alignment_sequence);
  tcase_add_test (tc, test_ref_ends_first);
  tcase_add_test (tc, test_dist_ends_first);
  tcase_add_test (tc, test_gap_on_dist_forwarded);
  tcase_add_test (tc, test_different_rates_no_ended_first);
  tcase_add_test (tc, test_alignment_stream_time);
  tcase_add_test (tc, test_messages_summary);
  tcase_add_test (tc, test_post_messages_off);
  tcase_add_test (tc, test_stats_file_csv);
  tcase_add_test (tc, test_stats_file_json);
  tcase_add_test (tc, test_stats_file_vmaf_json);
  tcase_add_test (tc, test_stats_file_locale);
  tcase_add_test (tc, test_stats_file_write_error);
  tcase_add_test (tc, test_threshold);
  tcase_add_test (tc, test_frame_step);
  tcase_add_test (tc, test_threads);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_parity_clip);
  return s;
}

GST_CHECK_MAIN (ssim2compare);
