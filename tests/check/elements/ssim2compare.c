/* gst-check tests of the ssim2compare element (CPU backend): caps, errors,
 * the backend, pairing, options and parity with the reference scores. Its
 * reports (messages, stats file, threshold) are tested in
 * ssim2compare_report.c.
 * SPDX-License-Identifier: BSD-3-Clause */
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
#include "check_util.h"

#include <signal.h>
#include <sys/resource.h>

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

#include "../../testdata_dir.h"

/* ------------------------------------------------------------------------ */
/* Caps */

static const gchar *all_formats[] = { "RGB", "RGBA", "BGRA", "RGBx", "BGRx",
  "RGBA64_LE", "I420", "NV12", "Y444", "P010_10LE", "I420_10LE", "GRAY8",
  "GRAY16_LE"
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
    gdouble s = score_message (GST_MESSAGE (l->data)).score;
    fail_unless (s < 100.0 && isfinite (s), "score %f", s);
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  fixture_clear (&f);
}

GST_END_TEST;

/* Writes @buf, a frame of @caps_str, as the PNG file @path (pngenc). */
static void
write_png (const gchar * caps_str, GstBuffer * buf, const gchar * path)
{
  gchar *desc = g_strdup_printf ("appsrc name=src caps=\"%s\" format=time ! "
      "pngenc ! filesink location=\"%s\"", caps_str, path);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (pipe != NULL, "pngenc missing?");
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstFlowReturn flow;
  g_signal_emit_by_name (src, "push-buffer", buf, &flow);
  fail_unless_equals_int (flow, GST_FLOW_OK);
  g_signal_emit_by_name (src, "end-of-stream", &flow);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS, "writing %s",
      path);
  gst_message_unref (m);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

/* @buf with its 16-bit samples byte-swapped (GRAY16_LE <-> GRAY16_BE). */
static GstBuffer *
swap16 (GstBuffer * buf)
{
  GstBuffer *out = gst_buffer_copy_deep (buf);
  GstMapInfo map;
  gst_buffer_map (out, &map, GST_MAP_READWRITE);
  for (gsize i = 0; i + 1 < map.size; i += 2) {
    const guint8 t = map.data[i];
    map.data[i] = map.data[i + 1];
    map.data[i + 1] = t;
  }
  gst_buffer_unmap (out, &map);
  return out;
}

/* Grey frames score what the reference gives the same samples as grey
 * PNGs: the element's score of a GRAY8 (GRAY16_LE) pair against the ssim2
 * tool's printed score of the two frames written as 8-bit (16-bit) grey
 * PNGs, digit for digit. */
GST_START_TEST (test_grey_scores_as_grey_png)
{
  const gchar *tool = g_getenv ("SSIM2_TOOL");
  fail_unless (tool != NULL, "SSIM2_TOOL (the built ssim2 tool) is not set");
  const gchar *formats[][2] = { {"GRAY8", "GRAY8"}, {"GRAY16_LE", "GRAY16_BE"} };
  gchar *dir = g_dir_make_tmp ("ssim2-grey-XXXXXX", NULL);
  fail_unless (dir != NULL);
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    gchar *caps_str = g_strdup_printf (CAPS64 ("%s"), formats[i][0]);
    gchar *png_caps = g_strdup_printf (CAPS64 ("%s"), formats[i][1]);
    const gboolean wide = i == 1;
    GstVideoInfo info;
    Fixture f;
    video_info (&info, caps_str);
    fixture_init (&f, make_element (NULL), caps_str, caps_str);
    run_feeds (&f, frames_range (&info, 0, 1, 0, 0), frames_range (&info, 0,
            1, 0, 6), FALSE);
    GList *msgs = pop_element_messages (f.bus, "ssim2");
    fail_unless_equals_int (g_list_length (msgs), 1);
    gchar *element_score = g_strdup_printf ("%.8f",
        score_message (GST_MESSAGE (msgs->data)).score);
    g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
    fixture_clear (&f);

    /* The same two frames (frames_range: frame 0, the dist one with noise
     * 6) as PNG files. */
    gchar *paths[2];
    for (guint k = 0; k < 2; k++) {
      GstBuffer *frame = make_frame (&info, 0, k ? 6 : 0, 0);
      GstBuffer *png_frame = wide ? swap16 (frame) : gst_buffer_ref (frame);
      gst_buffer_unref (frame);
      paths[k] = g_build_filename (dir, k ? "dist.png" : "ref.png", NULL);
      write_png (png_caps, png_frame, paths[k]);
    }
    gchar *argv[] = { (gchar *) tool, paths[0], paths[1], NULL };
    gchar *out = NULL, *err = NULL;
    gint status = 0;
    fail_unless (g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
            &out, &err, &status, NULL));
    fail_unless (g_spawn_check_wait_status (status, NULL), "%s: %s", tool,
        err);
    g_strchomp (out);
    fail_unless_equals_string (element_score, out);
    fail_unless (strcmp (out, "100.00000000") != 0, "%s: the frames are "
        "equal", formats[i][0]);
    for (guint k = 0; k < 2; k++) {
      g_unlink (paths[k]);
      g_free (paths[k]);
    }
    g_free (out);
    g_free (err);
    g_free (element_score);
    g_free (png_caps);
    g_free (caps_str);
  }
  g_rmdir (dir);
  g_free (dir);
}

GST_END_TEST;

GST_START_TEST (test_caps_refused)
{
  GstElement *e = make_element (NULL);
  GstPad *ref = gst_element_get_static_pad (e, "ref");
  GstPad *dist = gst_element_get_static_pad (e, "dist");
  const gchar *refused[] = {
    CAPS64 ("GRAY16_BE"),
    CAPS64 ("YUY2"),
    CAPS64 ("ARGB64"),
    CAPS64 ("I420") ",interlace-mode=interleaved",
    CAPS64 ("NV12") ",interlace-mode=mixed",
    /* Under the metric's minimum, 8x8, which the pad templates state. */
    "video/x-raw,format=I420,width=6,height=48,framerate=30/1",
    "video/x-raw,format=RGB,width=64,height=7,framerate=30/1",
    "video/x-raw(memory:CUDAMemory),format=NV12,width=7,height=7,"
        "framerate=30/1",
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

/* Grey in limited range is not what the reference reads as grey. */
GST_START_TEST (test_grey_limited_range_refused)
{
  expect_caps_error (CAPS64 ("GRAY8") ",colorimetry=(string)2:4:0:0",
      "limited range");
}

GST_END_TEST;

/* Width and height in @caps are [ 8, max ] in every structure. */
static void
check_minimum_size (GstCaps * caps, const gchar * what)
{
  fail_unless (gst_caps_get_size (caps) > 0, "%s: no caps", what);
  for (guint k = 0; k < gst_caps_get_size (caps); k++) {
    const GstStructure *s = gst_caps_get_structure (caps, k);
    const gchar *fields[] = { "width", "height" };
    for (guint j = 0; j < 2; j++) {
      const GValue *v = gst_structure_get_value (s, fields[j]);
      fail_unless (v != NULL && GST_VALUE_HOLDS_INT_RANGE (v), "%s: %s",
          what, fields[j]);
      fail_unless_equals_int (gst_value_get_int_range_min (v), 8);
      fail_unless_equals_int (gst_value_get_int_range_max (v), G_MAXINT);
    }
  }
}

/* The pad templates state the metric's minimum size, 8x8: upstream sees it
 * in the caps query (so a scaler can pick a size that fits), and 8x8 is
 * accepted (test_caps_refused: smaller is not). */
GST_START_TEST (test_caps_minimum_size)
{
  GstElement *e = make_element (NULL);
  const gchar *templates[] = { "ref", "dist", "dist_%u", "src" };
  for (guint i = 0; i < G_N_ELEMENTS (templates); i++) {
    GstPadTemplate *t =
        gst_element_get_pad_template (e, templates[i]);
    fail_unless (t != NULL, "no template %s", templates[i]);
    GstCaps *caps = gst_pad_template_get_caps (t);
    check_minimum_size (caps, templates[i]);
    gst_caps_unref (caps);
  }
  GstPad *ref = gst_element_get_static_pad (e, "ref");
  GstCaps *queried = gst_pad_query_caps (ref, NULL);
  check_minimum_size (queried, "ref caps query");
  gst_caps_unref (queried);
  gst_object_unref (ref);
  GstPad *dist = gst_element_get_static_pad (e, "dist");
  GstCaps *c = gst_caps_from_string ("video/x-raw,format=I420,width=8,"
      "height=8,framerate=30/1");
  fail_unless (gst_pad_query_accept_caps (dist, c));
  gst_caps_unref (c);
  gst_object_unref (dist);
  gst_object_unref (e);
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

/* Pulls @n frames from @f's dist pad and checks that each was scored 100
 * (the same frames on both pads). */
static void
pull_perfect_scores (Fixture * f, guint n, const gchar * what)
{
  fail_unless_equals_int (gst_harness_buffers_in_queue (f->dist), n);
  for (guint k = 0; k < n; k++) {
    GstBuffer *out = gst_harness_pull (f->dist);
    GstSsim2Meta *meta = gst_buffer_get_ssim2_meta (out);
    fail_unless (meta != NULL, "%s: frame %u not scored", what, k);
    fail_unless_equals_float (meta->score, 100.0);
    gst_buffer_unref (out);
  }
}

/* backend=auto with the CUDA path failing (@fault, through the element's
 * test hook): the frames are scored on the CPU, with one warning that says
 * why. */
static void
check_auto_falls_back_to_cpu (const gchar * fault, const gchar * why)
{
  Fixture f;
  GError *err = NULL;
  g_setenv ("GST_SSIM2_COMPARE_TEST_FAULT", fault, TRUE);
  run_frames (&f, make_element ("backend", 0 /* auto */ , NULL),
      CAPS64 ("I420"), 0, 3, 3, 0);
  g_unsetenv ("GST_SSIM2_COMPARE_TEST_FAULT");
  pull_perfect_scores (&f, 3, fault);
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
  g_setenv ("GST_SSIM2_COMPARE_TEST_FAULT", "no-cuda-device", TRUE);
  g_object_set (e, "backend", 1 /* cuda */ , NULL);
  GError *err = start_error (e);
  g_unsetenv ("GST_SSIM2_COMPARE_TEST_FAULT");
  fail_unless (strstr (err->message, "no usable CUDA device") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_object_unref (e);
}

GST_END_TEST;

/* Pops the error on @f's bus: RESOURCE/NO_SPACE_LEFT, its text holding
 * each of the NULL-ended @parts and its debug text @debug_part; nothing was
 * pushed after it. */
static void
expect_out_of_memory (Fixture * f, const gchar * const *parts,
    const gchar * debug_part)
{
  GError *err = NULL;
  gchar *dbg = NULL;
  GstMessage *m = pop_type (f->bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "no error");
  gst_message_parse_error (m, &err, &dbg);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT), "%s", err->message);
  for (const gchar * const *p = parts; *p; p++)
    fail_unless (strstr (err->message, *p) != NULL, "%s", err->message);
  fail_unless (dbg && strstr (dbg, debug_part), "%s", dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (m);
  fail_unless_equals_int (gst_harness_buffers_in_queue (f->dist), 0);
}

GST_START_TEST (test_error_out_of_memory)
{
  /* Out of (GPU or host) memory when the scorer allocates its buffers:
   * simulated through the element's test hook. */
  Fixture f;
  GstVideoInfo info;
  g_setenv ("GST_SSIM2_COMPARE_TEST_FAULT", "oom", TRUE);
  fixture_init_i420 (&f, &info);
  run_feeds (&f, frames_range (&info, 0, 2, 0, 0), frames_range (&info, 0, 2,
          0, 0), TRUE);
  g_unsetenv ("GST_SSIM2_COMPARE_TEST_FAULT");
  const gchar *parts[] = { "Out of host memory for 64x48 frames", NULL };
  expect_out_of_memory (&f, parts, "backend=cpu");
  fixture_clear (&f);
}

GST_END_TEST;

/* @e (backend=cpu, a CUDA-only property set) scores three identical I420
 * frames as 100 each, with no warning and no error: the CPU path ignores
 * what only the CUDA scorer reads. */
static void
check_cpu_path_unaffected (GstElement * e, const gchar * what)
{
  Fixture f;
  GstVideoInfo info;
  video_info (&info, CAPS64 ("I420"));
  fixture_init (&f, e, CAPS64 ("I420"), CAPS64 ("I420"));
  run_feeds (&f, frames_range (&info, 0, 3, 0, 0), frames_range (&info, 0, 3,
          0, 0), FALSE);
  pull_perfect_scores (&f, 3, what);
  fail_if (pop_type (f.bus, GST_MESSAGE_ERROR) != NULL);
  fail_if (pop_type (f.bus, GST_MESSAGE_WARNING) != NULL);
  fixture_clear (&f);
}

GST_START_TEST (test_memory_limit_cpu_ignores_it)
{
  /* memory-limit bounds the CUDA scorer's device memory; the CPU path has
   * none to bound: a limit of one byte scores as without one. */
  guint64 limit = 0;
  GstElement *e = make_element ("backend", 2 /* cpu */ , NULL);
  g_object_get (e, "memory-limit", &limit, NULL);
  fail_unless_equals_uint64 (limit, 0);
  g_object_set (e, "memory-limit", (guint64) 1, NULL);
  g_object_get (e, "memory-limit", &limit, NULL);
  fail_unless_equals_uint64 (limit, 1);
  check_cpu_path_unaffected (e, "memory-limit=1 on the CPU");
}

GST_END_TEST;

GST_START_TEST (test_sequential_sums_property)
{
  /* sequential-sums (off by default) asks the CUDA scorer for the CPU's
   * order of additions; the CPU path always sums so. */
  gboolean on = TRUE;
  GstElement *e = make_element ("backend", 2 /* cpu */ , NULL);
  g_object_get (e, "sequential-sums", &on, NULL);
  fail_if (on);
  g_object_set (e, "sequential-sums", TRUE, NULL);
  g_object_get (e, "sequential-sums", &on, NULL);
  fail_unless (on);
  check_cpu_path_unaffected (e, "sequential-sums=true on the CPU");
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
  const gchar *parts[] = { "4096x2048", "needs about", "RLIMIT_AS", NULL };
  expect_out_of_memory (&f, parts, "bytes per pixel");
  fixture_clear (&f);
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
  /* Each message names the ref frame of its pair: dist frame i (from 0)
   * against ref frame dist_idx[i]. */
  GList *msgs = pop_element_messages (f.bus, "ssim2");
  fail_unless_equals_int (g_list_length (msgs), 8);
  guint i = 0;
  for (GList * l = msgs; l; l = l->next, i++) {
    const GstSsim2ScoreMessage m = score_message (GST_MESSAGE (l->data));
    fail_unless_equals_uint64 (m.frame, i);
    fail_unless_equals_int64 (m.ref_frame, dist_idx[i]);
    fail_unless_equals_int64 (m.offset, dist_idx[i] - (gint) i);
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
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
  run_frames (&f, make_element (NULL), CAPS64 ("RGBx"), 2, 4, 6, 0);
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
  expect_summary (f.bus, 4, 0, 2);
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
    fail_unless_equals_float (score_message (m).score, 100.0);
    fail_unless_equals_uint64 (score_message (m).timestamp,
        10 * GST_SECOND + k * FRAME_DUR);
    fail_unless_equals_uint64 (score_message (m).running_time, k * FRAME_DUR);
    fail_unless_equals_uint64 (score_message (m).stream_time,
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
  run_frames (&f, make_element ("alignment", 1, NULL), CAPS64 ("NV12"), 0, 5,
      5, 1000);
  for (guint i = 0; i < 5; i++) {
    GstBuffer *out = gst_harness_pull (f.dist);
    GstSsim2Meta *meta = gst_buffer_get_ssim2_meta (out);
    fail_unless (meta != NULL);
    fail_unless_equals_float (meta->score, 100.0);
    gst_buffer_unref (out);
  }
  fixture_clear (&f);

  /* The same input with running-time alignment pairs nothing. */
  run_frames (&f, make_element (NULL), CAPS64 ("NV12"), 0, 5, 5, 1000);
  GstMessage *sum = pop_summary (f.bus);
  fail_unless_equals_uint64 (summary_message (sum).frames, 0);
  fail_unless (isnan (summary_message (sum).mean));
  gst_message_unref (sum);
  fixture_clear (&f);
}

GST_END_TEST;

/* Pops the warning that @input ("ref" or "dist") ended first and checks
 * its text and details: the frames each input had. */
static void
expect_ended_first (GstBus * bus, const gchar * input, guint64 ref_frames,
    guint64 dist_frames)
{
  GError *err = NULL;
  GstMessage *w = pop_type (bus, GST_MESSAGE_WARNING);
  fail_unless (w != NULL, "no warning");
  gst_message_parse_warning (w, &err, NULL);
  gchar *first = g_strdup_printf ("%s input ended first", input);
  gchar *refs = g_strdup_printf ("ref %" G_GUINT64_FORMAT " frames",
      ref_frames);
  gchar *dists = g_strdup_printf ("dist %" G_GUINT64_FORMAT " frames",
      dist_frames);
  fail_unless (strstr (err->message, first) && strstr (err->message, refs) &&
      strstr (err->message, dists), "%s", err->message);
  g_free (first);
  g_free (refs);
  g_free (dists);
  const GstStructure *details = NULL;
  gst_message_parse_warning_details (w, &details);
  fail_unless (details != NULL);
  fail_unless_equals_string (gst_structure_get_string (details,
          "ended-first"), input);
  guint64 nr = 0, nd = 0;
  fail_unless (gst_structure_get_uint64 (details, "ref-frames", &nr));
  fail_unless (gst_structure_get_uint64 (details, "dist-frames", &nd));
  fail_unless_equals_uint64 (nr, ref_frames);
  fail_unless_equals_uint64 (nd, dist_frames);
  g_clear_error (&err);
  gst_message_unref (w);
}

GST_START_TEST (test_ref_ends_first)
{
  Fixture f;
  /* All 5 dist frames leave (run_frames checks it), the last 2 unscored. */
  run_frames (&f, make_element (NULL), CAPS64 ("I420"), 0, 3, 5, 0);
  expect_ended_first (f.bus, "ref", 3, 5);
  GstMessage *sum = pop_summary (f.bus);
  fail_unless_equals_uint64 (summary_message (sum).frames, 3);
  fail_unless_equals_string (summary_message (sum).ended_first, "ref");
  gst_message_unref (sum);
  fixture_clear (&f);
}

GST_END_TEST;

GST_START_TEST (test_dist_ends_first)
{
  Fixture f;
  run_frames (&f, make_element ("alignment", 1, NULL), CAPS64 ("I420"), 0, 6,
      2, 0);
  /* The ref count includes the frame that was waiting after dist's end:
   * "ref 2 frames, dist 2 frames" would contradict "dist ended first"
   * (issue 24). */
  expect_ended_first (f.bus, "dist", 3, 2);
  gst_message_unref (pop_summary (f.bus));
  fixture_clear (&f);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Frame rates, stream time, gaps, frame-step, threads */

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
  GstMessage *m = pop_summary (f.bus);
  fail_unless_equals_uint64 (summary_message (m).frames, 10);
  fail_unless_equals_float (summary_message (m).min, 100.0);
  fail_unless_equals_uint64 (dist_fps > ref_fps ?
      summary_message (m).unmatched_dist : summary_message (m).unmatched_ref, 10);
  gst_message_unref (m);
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
    GstMessage *m = pop_summary (f.bus);
    if (mode == 0) {
      fail_unless_equals_uint64 (summary_message (m).frames, 0);
    } else {
      fail_unless_equals_uint64 (summary_message (m).frames, 5);
      fail_unless_equals_float (summary_message (m).min, 100.0);
    }
    gst_message_unref (m);
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

GST_START_TEST (test_frame_step)
{
  Fixture f;
  GList *msgs = run_noisy (&f, make_element ("frame-step", 3, NULL), 8);
  /* Pairs 0, 3, 6 are scored; all 8 buffers pass. */
  fail_unless_equals_int (g_list_length (msgs), 3);
  guint64 want[] = { 0, 3, 6 };
  guint i = 0;
  for (GList * l = msgs; l; l = l->next, i++)
    fail_unless_equals_uint64 (score_message (GST_MESSAGE (l->data)).index,
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
      scores[t][i] = score_message (GST_MESSAGE (l->data)).score;
    g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
    GstMessage *sum = pop_summary (f.bus);
    const gchar *backend = summary_message (sum).backend;
    gchar *want = g_strdup_printf (", %u thread", threads[t]);
    fail_unless (backend && g_str_has_prefix (backend, "CPU")
        && strstr (backend, want), "%s", backend);
    g_free (want);
    gst_message_unref (sum);
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
    gdouble s = score_message (GST_MESSAGE (l->data)).score;
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
  const gchar *dir = ssim2_testdata_dir ();
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
    GstSsim2ScoreMessage sm;
    GstSsim2SummaryMessage summary_msg;
    if (gst_ssim2_score_message_parse_message (m, &sm)) {
      guint64 index = sm.index;
      double score = sm.score;
      fail_unless (index < n_expected);
      double d = fabs (score - expected[index]);
      if (d > max_diff) {
        max_diff = d;
        worst = (guint) index;
      }
      scored++;
    } else if (gst_ssim2_summary_message_parse_message (m, &summary_msg)) {
      summary = TRUE;
      fail_unless_equals_uint64 (summary_msg.frames, 30);
      fail_unless (fabs (summary_msg.mean - 35.32) < 0.01);
      fail_unless (fabs (summary_msg.min - 20.31) < 0.01);
      fail_unless (fabs (summary_msg.max - 55.69) < 0.01);
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
  TCase *tc = timed_tcase (s, "general", 300);
  GstElementFactory *f = gst_element_factory_find ("ssim2compare");

  if (!f) {
    GST_ERROR ("ssim2compare not found: set GST_PLUGIN_PATH_1_0");
  } else {
    gst_object_unref (f);
  }
  tcase_add_test (tc, test_caps_accepted);
  tcase_add_test (tc, test_caps_mixed_formats);
  tcase_add_test (tc, test_grey_scores_as_grey_png);
  tcase_add_test (tc, test_grey_limited_range_refused);
  tcase_add_test (tc, test_caps_refused);
  tcase_add_test (tc, test_caps_minimum_size);
  tcase_add_test (tc, test_error_unsupported_matrix);
  tcase_add_test (tc, test_error_size_mismatch);
  tcase_add_test (tc, test_error_no_cuda);
  tcase_add_test (tc, test_backend_auto_falls_back_to_cpu);
  tcase_add_test (tc, test_backend_cuda_error_without_device);
  tcase_add_test (tc, test_error_out_of_memory);
  tcase_add_test (tc, test_memory_limit_cpu_ignores_it);
  tcase_add_test (tc, test_sequential_sums_property);
  tcase_add_test (tc, test_error_not_enough_host_memory);
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
  tcase_add_test (tc, test_frame_step);
  tcase_add_test (tc, test_threads);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_parity_clip);
  return s;
}

GST_CHECK_MAIN (ssim2compare);
