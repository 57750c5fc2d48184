/* gst-ssim2: alignment=content in ssim2compare, on clips made from the
 * shared test data's photographs (tests/footage.h: pans and zooms with two
 * scene cuts, a still, black) whose distorted copy has a known frame map
 * (offsets, dropped and repeated frames, a trimmed reference, timestamps
 * re-based to 0, a ladder of two renditions with different offsets) and an
 * encoder-like distortion. For each: every scored pair's ref-frame is the
 * map's partner (no wrong pair), at least 95 % of the frames that have a
 * partner are scored, every score is bit for bit that of the same two
 * frames in a hand-aligned run (alignment=sequence on the pre-aligned
 * frames), and the summary's counts are the map's.
 * SPDX-License-Identifier: BSD-3-Clause */
#include "check_util.h"
#include "sync_footage.h"

#include <string.h>

#define SYNC_CAPS "video/x-raw,format=RGB,width=256,height=144,framerate=30/1"
#define ALIGN_SEQUENCE 1
#define ALIGN_CONTENT 3

/* Reference frame i shows footage frame ref_first + i, at ref_base + i
 * frames; distorted frame d shows footage frame shown[d], at d frames. */
typedef struct
{
  SyncFootage footage;
  gint64 ref_first;
  gint ref_frames;
  GArray *shown;                /* gint64 */
  GstClockTime ref_base;
} Clip;

static gint64
shown_at (const Clip * c, guint d)
{
  return g_array_index (c->shown, gint64, d);
}

/* The reference frame showing what distorted frame @d shows; -1: none. */
static gint64
partner (const Clip * c, guint d)
{
  const gint64 r = shown_at (c, d) - c->ref_first;
  return r >= 0 && r < c->ref_frames ? r : -1;
}

static gboolean
in_list (gint v, const gint * list, guint n)
{
  for (guint i = 0; i < n; i++)
    if (list[i] == v)
      return TRUE;
  return FALSE;
}

/* Distorted frames showing footage frames first, first + 1, ... except that
 * after each index in @drop_after a footage frame is skipped, and each index
 * in @repeat shows the frame before it again (as the core tests' Shown). */
static GArray *
shown_frames (gint64 first, gint count, const gint * drop_after, guint n_drop,
    const gint * repeat, guint n_repeat)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 t = first;
  for (gint d = 0; d < count; d++) {
    if (d > 0) {
      if (!in_list (d, repeat, n_repeat))
        t++;
      if (in_list (d - 1, drop_after, n_drop))
        t++;
    }
    g_array_append_val (a, t);
  }
  return a;
}

static Clip
moving_clip (GArray * shown)
{
  Clip c = { SYNC_FOOTAGE_MOVING, 0, sync_footage_frames (SYNC_FOOTAGE_MOVING),
    shown, 0
  };
  return c;
}

/* Each distorted frame is encoded with noise of its own (a repeat too). */
static guint32
encode_seed (const Clip * c, guint d)
{
  guint32 repeats = 0;
  for (guint i = d; i > 0 && shown_at (c, i - 1) == shown_at (c, d); i--)
    repeats++;
  return (guint32) (shown_at (c, d) * 16 + 100000 + repeats);
}

static GstBuffer *
footage_buffer (SyncFootage footage, gint64 t, guint32 seed, GstClockTime pts)
{
  GstVideoInfo info;
  video_info (&info, SYNC_CAPS);
  fail_unless_equals_int (GST_VIDEO_INFO_PLANE_STRIDE (&info, 0),
      SYNC_FOOTAGE_WIDTH * 3);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info),
      NULL);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  sync_footage_rgb (footage, t, seed, map.data);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = FRAME_DUR;
  return buf;
}

static GPtrArray *
ref_items (const Clip * c)
{
  GPtrArray *a = g_ptr_array_new ();
  for (gint i = 0; i < c->ref_frames; i++)
    g_ptr_array_add (a, footage_buffer (c->footage, c->ref_first + i, 0,
            c->ref_base + i * FRAME_DUR));
  g_ptr_array_add (a, gst_event_new_eos ());
  return a;
}

static GPtrArray *
dist_items (const Clip * c)
{
  GPtrArray *a = g_ptr_array_new ();
  for (guint d = 0; d < c->shown->len; d++)
    g_ptr_array_add (a, footage_buffer (c->footage, shown_at (c, d),
            encode_seed (c, d), d * FRAME_DUR));
  g_ptr_array_add (a, gst_event_new_eos ());
  return a;
}

typedef struct
{
  guint64 frame;
  gint64 ref_frame;
  gdouble score;
  GstClockTime running_time, ref_running_time;
} Pair;

/* A locked or relocked message. */
typedef struct
{
  guint64 frame;
  gint64 offset;
  GstClockTime running_time, ref_running_time;
} Lock;

/* What one rendition reported. */
typedef struct
{
  GArray *pairs;                /* Pair, in order */
  GArray *lock_offsets;         /* gint64: offset of each locked/relocked */
  GArray *locks;                /* Lock: each locked/relocked */
  guint losses;
  gboolean have_summary;
  guint64 frames, unmatched_dist, dropped, repeated, unaligned;
} Report;

static void
report_init (Report * r)
{
  memset (r, 0, sizeof *r);
  r->pairs = g_array_new (FALSE, FALSE, sizeof (Pair));
  r->lock_offsets = g_array_new (FALSE, FALSE, sizeof (gint64));
  r->locks = g_array_new (FALSE, FALSE, sizeof (Lock));
}

static void
report_clear (Report * r)
{
  g_array_unref (r->pairs);
  g_array_unref (r->lock_offsets);
  g_array_unref (r->locks);
}

/* Reads the messages of pad @pad from @bus into @r (the others stay). */
static void
collect (GstBus * bus, const gchar * pad, Report * r)
{
  GList *all = NULL;
  GstMessage *m;
  while ((m = gst_bus_pop (bus)))
    all = g_list_append (all, m);
  for (GList * l = all; l; l = l->next) {
    m = GST_MESSAGE (l->data);
    GstSsim2ScoreMessage score;
    GstSsim2SummaryMessage sum;
    GstSsim2SyncMessage sync;
    gboolean mine = FALSE;
    if (gst_ssim2_score_message_parse_message (m, &score)) {
      if ((mine = g_strcmp0 (score.pad, pad) == 0)) {
        Pair p = { score.frame, score.ref_frame, score.score,
          score.running_time, score.ref_running_time
        };
        fail_unless_equals_int64 (score.offset,
            score.ref_frame - (gint64) score.frame);
        g_array_append_val (r->pairs, p);
      }
    } else if (gst_ssim2_summary_message_parse_message (m, &sum)) {
      if ((mine = g_strcmp0 (sum.pad, pad) == 0)) {
        r->have_summary = TRUE;
        r->frames = sum.frames;
        r->unmatched_dist = sum.unmatched_dist;
        r->dropped = sum.dropped;
        r->repeated = sum.repeated;
        r->unaligned = sum.unaligned;
      }
    } else if (gst_ssim2_sync_message_parse_message (m, &sync)) {
      if ((mine = g_strcmp0 (sync.pad, pad) == 0)) {
        if (g_strcmp0 (sync.state, "lost") == 0) {
          r->losses++;
        } else {
          fail_unless (g_strcmp0 (sync.state, r->lock_offsets->len ?
                  "relocked" : "locked") == 0, "state %s", sync.state);
          fail_unless (sync.confidence > 0 && sync.confidence <= 1);
          g_array_append_val (r->lock_offsets, sync.offset);
          Lock lock = { sync.frame, sync.offset, sync.running_time,
            sync.ref_running_time
          };
          g_array_append_val (r->locks, lock);
        }
      }
    }
    if (!mine)
      gst_bus_post (bus, gst_message_ref (m));
  }
  g_list_free_full (all, (GDestroyNotify) gst_message_unref);
}

/* Runs @ref and @dist (buffers, then EOS) through the element with
 * alignment=sequence, the pairing by hand: @r gets the `dist` pad's
 * report. */
static void
run_in_sequence (GPtrArray * ref, GPtrArray * dist, const gchar * ref_caps,
    const gchar * dist_caps, Report * r)
{
  Fixture f;
  fixture_init (&f, make_element ("alignment", ALIGN_SEQUENCE, NULL),
      ref_caps, dist_caps);
  run_feeds (&f, ref, dist, FALSE);
  report_init (r);
  collect (f.bus, "dist", r);
  fixture_clear (&f);
}

/* Every score of @r is bit for bit that of the same pair in @hand (@how
 * says how @r was aligned). */
static void
expect_hand_scores (const Report * hand, const Report * r, const gchar * how)
{
  fail_unless_equals_int (hand->pairs->len, r->pairs->len);
  for (guint i = 0; i < hand->pairs->len; i++) {
    const gdouble want = g_array_index (hand->pairs, Pair, i).score;
    const gdouble got = g_array_index (r->pairs, Pair, i).score;
    fail_unless (memcmp (&want, &got, sizeof want) == 0, "pair %u: %.17g "
        "%s, %.17g by hand", i, got, how, want);
  }
}

/* The same pairs, hand-aligned: alignment=sequence on the ref frames and
 * dist frames of @pairs, in order, into @hand. */
static void
hand_aligned_report (const Clip * c, const GArray * pairs, Report * hand)
{
  GPtrArray *ref = g_ptr_array_new ();
  GPtrArray *dist = g_ptr_array_new ();
  for (guint i = 0; i < pairs->len; i++) {
    const Pair *p = &g_array_index (pairs, Pair, i);
    g_ptr_array_add (ref, footage_buffer (c->footage, c->ref_first +
            p->ref_frame, 0, i * FRAME_DUR));
    g_ptr_array_add (dist, footage_buffer (c->footage, shown_at (c,
                (guint) p->frame), encode_seed (c, (guint) p->frame),
            i * FRAME_DUR));
  }
  g_ptr_array_add (ref, gst_event_new_eos ());
  g_ptr_array_add (dist, gst_event_new_eos ());
  run_in_sequence (ref, dist, SYNC_CAPS, SYNC_CAPS, hand);
}

/* No wrong pair; at least 95 % of the frames that have a partner scored
 * (unless @still: still content is unaligned by rule); the summary counts
 * every frame; every score that of the hand-aligned run; every pair and
 * lock names its two frames' running times (the harness's segments start
 * at 0: a frame's running time is its PTS). */
static void
check_pairs (const Clip * c, const Report * r, gboolean still)
{
  guint with_partner = 0;
  for (guint d = 0; d < c->shown->len; d++)
    with_partner += partner (c, d) >= 0;
  for (guint i = 0; i < r->pairs->len; i++) {
    const Pair *p = &g_array_index (r->pairs, Pair, i);
    fail_unless (p->frame < c->shown->len);
    fail_unless_equals_int64 (p->ref_frame, partner (c, (guint) p->frame));
    fail_unless_equals_uint64 (p->running_time, p->frame * FRAME_DUR);
    fail_unless_equals_uint64 (p->ref_running_time,
        c->ref_base + (guint64) p->ref_frame * FRAME_DUR);
  }
  for (guint i = 0; i < r->locks->len; i++) {
    const Lock *l = &g_array_index (r->locks, Lock, i);
    fail_unless_equals_uint64 (l->running_time, l->frame * FRAME_DUR);
    fail_unless_equals_uint64 (l->ref_running_time,
        c->ref_base + (guint64) ((gint64) l->frame + l->offset) * FRAME_DUR);
  }
  fail_unless (still || r->pairs->len * 100 >= with_partner * 95,
      "%u of %u frames with a partner scored", r->pairs->len, with_partner);
  fail_unless (r->have_summary);
  fail_unless_equals_uint64 (r->frames, r->pairs->len);
  fail_unless_equals_uint64 (r->unaligned, c->shown->len - r->pairs->len);
  fail_unless_equals_uint64 (r->unmatched_dist, r->unaligned);

  Report hand;
  hand_aligned_report (c, r->pairs, &hand);
  expect_hand_scores (&hand, r, "aligned by content");
  report_clear (&hand);
}

static void
check_report (const Clip * c, const Report * r)
{
  check_pairs (c, r, FALSE);
}

/* Runs @c through @element (alignment=content) into @r; returns the
 * warnings it posted. */
static GList *
run_element (const Clip * c, GstElement * element, Report * r)
{
  Fixture f;
  report_init (r);
  fixture_init (&f, element, SYNC_CAPS, SYNC_CAPS);
  run_feeds (&f, ref_items (c), dist_items (c), FALSE);
  collect (f.bus, "dist", r);
  GList *warnings = NULL;
  GstMessage *m;
  while ((m = pop_type (f.bus, GST_MESSAGE_WARNING)))
    warnings = g_list_append (warnings, m);
  /* Every dist frame leaves on src, scored or not, with its timestamps. */
  fail_unless_equals_int (gst_harness_buffers_in_queue (f.dist),
      c->shown->len);
  for (guint d = 0; d < c->shown->len; d++) {
    GstBuffer *out = gst_harness_pull (f.dist);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), d * FRAME_DUR);
    gst_buffer_unref (out);
  }
  fixture_clear (&f);
  return warnings;
}

static void
run_content (const Clip * c, Report * r)
{
  GList *warnings = run_element (c, make_element ("alignment", ALIGN_CONTENT,
          NULL), r);
  fail_unless_equals_int (g_list_length (warnings), 0);
}

static void
check_offset_clip (gint64 offset, GstClockTime ref_base)
{
  const gint frames = sync_footage_frames (SYNC_FOOTAGE_MOVING);
  Clip c = moving_clip (shown_frames (offset, frames - MAX (offset, 0), NULL,
          0, NULL, 0));
  c.ref_base = ref_base;
  Report r;
  run_content (&c, &r);
  check_report (&c, &r);
  /* One lock at the clip's offset, never lost (over two scene cuts). */
  fail_unless_equals_int (r.lock_offsets->len, 1);
  fail_unless_equals_int64 (g_array_index (r.lock_offsets, gint64, 0), offset);
  fail_unless_equals_int (r.losses, 0);
  fail_unless_equals_uint64 (r.dropped, 0);
  fail_unless_equals_uint64 (r.repeated, 0);
  report_clear (&r);
  g_array_unref (c.shown);
}

GST_START_TEST (test_content_offset_positive)
{
  check_offset_clip (7, 0);
}

GST_END_TEST;

/* The reference's timestamps start at 10 s, the distorted ones at 0
 * (re-based): content pairing ignores them. */
GST_START_TEST (test_content_offset_negative_rebased)
{
  check_offset_clip (-9, 10 * GST_SECOND);
}

GST_END_TEST;

/* The moving footage from @first with @drops and @repeats: each counted,
 * and the lock held throughout. */
static void
check_drops_and_repeats (gint64 first, gint count, const gint * drops,
    guint n_drops, const gint * repeats, guint n_repeats)
{
  Clip c = moving_clip (shown_frames (first, count, drops, n_drops, repeats,
          n_repeats));
  Report r;
  run_content (&c, &r);
  check_report (&c, &r);
  fail_unless_equals_uint64 (r.dropped, n_drops);
  fail_unless_equals_uint64 (r.repeated, n_repeats);
  fail_unless_equals_int (r.losses, 0);
  report_clear (&r);
  g_array_unref (c.shown);
}

GST_START_TEST (test_content_dropped_frames)
{
  /* Single drops, two and three in a row, one across the second cut. */
  const gint drops[] = { 40, 75, 76, 140, 141, 142, 180, 181, 198 };
  check_drops_and_repeats (3, 270, drops, G_N_ELEMENTS (drops), NULL, 0);
}

GST_END_TEST;

/* Every other frame dropped (a transcode to half the frame rate) with a
 * 1 s window: the offset grows by a frame per frame, to 150, five windows,
 * and the search follows it (FrameAligner: the window is centred on the
 * partner predicted from the last pair at the measured rate, not on the
 * frame's index). One lock, never lost, every drop counted. */
GST_START_TEST (test_content_half_frame_rate)
{
  gint drops[146];
  for (guint i = 0; i < G_N_ELEMENTS (drops); i++)
    drops[i] = (gint) i;
  Clip c = moving_clip (shown_frames (4, G_N_ELEMENTS (drops) + 1, drops,
          G_N_ELEMENTS (drops), NULL, 0));
  Report r;
  GList *warnings = run_element (&c, make_element ("alignment", ALIGN_CONTENT,
          "sync-window", (guint64) GST_SECOND, NULL), &r);
  fail_unless_equals_int (g_list_length (warnings), 0);
  check_report (&c, &r);
  fail_unless_equals_int (r.lock_offsets->len, 1);
  fail_unless_equals_int (r.losses, 0);
  /* A drop after each frame from the first pair to the last. */
  fail_unless_equals_uint64 (r.dropped,
      g_array_index (r.pairs, Pair, r.pairs->len - 1).frame -
      g_array_index (r.pairs, Pair, 0).frame);
  report_clear (&r);
  g_array_unref (c.shown);
}

GST_END_TEST;

GST_START_TEST (test_content_repeated_frames)
{
  const gint repeats[] = { 30, 90, 91, 150, 200, 201, 202, 260 };
  check_drops_and_repeats (-4, 290, NULL, 0, repeats, G_N_ELEMENTS (repeats));
}

GST_END_TEST;

/* The reference starts 12 frames into the distorted clip, and the
 * distorted stream drops and repeats frames. */
GST_START_TEST (test_content_trimmed_reference)
{
  const gint drops[] = { 60, 61, 170 };
  const gint repeats[] = { 100, 220, 221 };
  Clip c = moving_clip (shown_frames (0, 280, drops, G_N_ELEMENTS (drops),
          repeats, G_N_ELEMENTS (repeats)));
  c.ref_first = 12;
  c.ref_frames = sync_footage_frames (SYNC_FOOTAGE_MOVING) - 20;
  Report r;
  run_content (&c, &r);
  check_report (&c, &r);
  fail_unless (r.lock_offsets->len >= 1);
  fail_unless_equals_int64 (g_array_index (r.lock_offsets, gint64, 0), -12);
  report_clear (&r);
  g_array_unref (c.shown);
}

GST_END_TEST;

/* A pan, a still, black, a pan: the still and black frames are never
 * scored (unaligned, never a guess), no frame is paired with the wrong
 * reference frame, and the pan after them pairs again (as the core test
 * StillAndBlackContentIsUnaligned). */
GST_START_TEST (test_content_static_is_unaligned)
{
  const gint frames = sync_footage_frames (SYNC_FOOTAGE_STATIC);
  Clip c = { SYNC_FOOTAGE_STATIC, 0, frames,
    shown_frames (4, frames - 4, NULL, 0, NULL, 0), 0
  };
  Report r;
  run_content (&c, &r);
  check_pairs (&c, &r, TRUE);
  /* Footage frames 59..109 are the still, 110..149 black, 150.. a pan. */
  guint moving = 0, moving_paired = 0;
  for (guint d = 0; d < c.shown->len; d++)
    moving += shown_at (&c, d) >= 150;
  for (guint i = 0; i < r.pairs->len; i++) {
    const gint64 t = shown_at (&c,
        (guint) g_array_index (r.pairs, Pair, i).frame);
    fail_if (t >= 59 && t < 150, "still or black frame %" G_GINT64_FORMAT
        " scored", t);
    moving_paired += t >= 150;
  }
  fail_unless (moving_paired * 10 >= moving * 9, "%u of %u frames of the "
      "last pan scored", moving_paired, moving);
  fail_unless (r.unaligned >= 90, "%" G_GUINT64_FORMAT " unaligned",
      r.unaligned);
  report_clear (&r);
  g_array_unref (c.shown);
}

GST_END_TEST;

/* sync-max-bytes smaller than acquiring needs: the oldest held ref frames
 * are dropped with one warning, the pairs that name them are unaligned,
 * and still no pair is wrong and every score is the hand-aligned one. */
GST_START_TEST (test_content_memory_bound)
{
  Clip c = moving_clip (shown_frames (5, 120, NULL, 0, NULL, 0));
  c.ref_frames = 130;
  GstVideoInfo info;
  video_info (&info, SYNC_CAPS);
  Report r;
  GList *warnings = run_element (&c, make_element ("alignment", ALIGN_CONTENT,
          "sync-window", (guint64) GST_SECOND, "sync-max-bytes",
          (guint64) (20 * GST_VIDEO_INFO_SIZE (&info)), NULL), &r);
  fail_unless_equals_int (g_list_length (warnings), 1);
  GError *err = NULL;
  gst_message_parse_warning (GST_MESSAGE (warnings->data), &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT), "%s", err->message);
  fail_unless (strstr (err->message, "sync-max-bytes") != NULL);
  g_clear_error (&err);
  g_list_free_full (warnings, (GDestroyNotify) gst_message_unref);
  for (guint i = 0; i < r.pairs->len; i++) {
    const Pair *p = &g_array_index (r.pairs, Pair, i);
    fail_unless_equals_int64 (p->ref_frame, partner (&c, (guint) p->frame));
  }
  fail_unless (r.pairs->len > 0);
  fail_unless (r.pairs->len < c.shown->len - 2, "no pair was lost to the "
      "bound");
  fail_unless_equals_uint64 (r.unaligned, c.shown->len - r.pairs->len);
  Report hand;
  hand_aligned_report (&c, r.pairs, &hand);
  expect_hand_scores (&hand, &r, "aligned by content");
  report_clear (&hand);
  report_clear (&r);
  g_array_unref (c.shown);
}

GST_END_TEST;

/* Two renditions with different offsets (+4 and -6) on one element: each
 * is paired on its own, and each ref frame is read once for both. */
static void
check_ladder (void)
{
  Clip c[2] = {
    moving_clip (shown_frames (4, 250, NULL, 0, NULL, 0)),
    moving_clip (shown_frames (-6, 250, NULL, 0, NULL, 0)),
  };
  const gchar *pads[2] = { "dist", "dist_1" };
  Fixture f;
  fixture_init (&f, make_element ("alignment", ALIGN_CONTENT, NULL),
      SYNC_CAPS, SYNC_CAPS);
  GstHarness *second = gst_harness_new_with_element (f.element, "dist_1",
      NULL);
  gst_harness_set_src_caps_str (second, SYNC_CAPS);
  GThread *t1 = start_feed (second, dist_items (&c[1]));
  run_feeds (&f, ref_items (&c[0]), dist_items (&c[0]), FALSE);
  g_thread_join (t1);
  Report r[2];
  for (int i = 0; i < 2; i++) {
    report_init (&r[i]);
    collect (f.bus, pads[i], &r[i]);
  }
  /* Both ended: neither holds ref frames, and each pad has its field. */
  GstStructure *held = NULL;
  g_object_get (f.element, "held-ref-frames-by-pad", &held, NULL);
  fail_unless_equals_int (gst_structure_n_fields (held), 2);
  for (int i = 0; i < 2; i++) {
    guint64 frames = G_MAXUINT64;
    fail_unless (gst_structure_get_uint64 (held, pads[i], &frames), "%s",
        pads[i]);
    fail_unless_equals_uint64 (frames, 0);
  }
  gst_structure_free (held);
  gst_harness_teardown (second);
  fixture_clear (&f);
  const gint64 offsets[2] = { 4, -6 };
  for (int i = 0; i < 2; i++) {
    check_report (&c[i], &r[i]);
    fail_unless_equals_int (r[i].lock_offsets->len, 1);
    fail_unless_equals_int64 (g_array_index (r[i].lock_offsets, gint64, 0),
        offsets[i]);
    report_clear (&r[i]);
    g_array_unref (c[i].shown);
  }
}

GST_START_TEST (test_content_ladder)
{
  check_ladder ();
}

GST_END_TEST;

/* A live source (appsrc is-live, the moving footage) tee'd into ref and
 * into a transcode: x264enc ! avdec_h264, a queue that holds a second of
 * frames and timestamps shifted by that second (a pad offset). The element
 * locks at offset 0, scores every frame it pairs against the frame it came
 * from, and each score is that of the same two frames paired by hand. No
 * clock reading is asserted: the sinks do not sync and nothing is skipped
 * for lateness, however slow the machine. */
static GPtrArray *
pull_all (GstElement * sink, GstCaps ** caps)
{
  GPtrArray *bufs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstSample *sample;
  while (TRUE) {
    sample = NULL;
    g_signal_emit_by_name (sink, "try-pull-sample", (GstClockTime) 0,
        &sample);
    if (!sample)
      break;
    if (!*caps)
      *caps = gst_caps_ref (gst_sample_get_caps (sample));
    g_ptr_array_add (bufs, gst_buffer_ref (gst_sample_get_buffer (sample)));
    gst_sample_unref (sample);
  }
  return bufs;
}

#define LIVE_CAPS "video/x-raw,format=I420,width=256,height=144,framerate=30/1"

/* Footage frame @t as the live test's source converts it (videoconvert to
 * LIVE_CAPS), at @pts. */
static GstBuffer *
live_ref_frame (gint64 t, GstClockTime pts)
{
  GstHarness *h = gst_harness_new ("videoconvert");
  gst_harness_set_src_caps_str (h, SYNC_CAPS);
  gst_harness_set_sink_caps_str (h, LIVE_CAPS);
  GstBuffer *out = gst_harness_push_and_pull (h,
      footage_buffer (SYNC_FOOTAGE_MOVING, t, 0, pts));
  gst_harness_teardown (h);
  return out;
}

static GstBuffer *
restamped (GstBuffer * buf, guint i)
{
  GstBuffer *copy = gst_buffer_copy (buf);
  GST_BUFFER_PTS (copy) = i * FRAME_DUR;
  GST_BUFFER_DTS (copy) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (copy) = FRAME_DUR;
  GST_BUFFER_FLAG_UNSET (copy, GST_BUFFER_FLAG_DISCONT);
  return copy;
}

static void
check_live_transcode (void)
{
  const gchar *needed[] = { "appsrc", "appsink", "x264enc", "avdec_h264",
    "videoconvert", "tee", "queue", NULL
  };
  if (!have_factories (needed))
    return;
  const guint n = (guint) sync_footage_frames (SYNC_FOOTAGE_MOVING);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch ("appsrc name=src is-live=true "
      "format=time block=true caps=" SYNC_CAPS " ! videoconvert ! "
      LIVE_CAPS " ! tee name=t "
      "t. ! queue ! c.ref "
      "t. ! queue ! x264enc tune=zerolatency speed-preset=ultrafast "
      "key-int-max=30 ! avdec_h264 ! queue name=delay "
      "min-threshold-time=1000000000 max-size-time=0 max-size-buffers=0 "
      "max-size-bytes=0 ! c.dist "
      "ssim2compare name=c alignment=content backend=cpu "
      "sync-window=2000000000 max-lateness=9223372036854775807 ! "
      "appsink name=out sync=false wait-on-eos=false", &err);
  fail_unless (pipe != NULL, "%s", err ? err->message : "?");
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *out = gst_bin_get_by_name (GST_BIN (pipe), "out");
  GstElement *delay = gst_bin_get_by_name (GST_BIN (pipe), "delay");
  GstPad *delayed = gst_element_get_static_pad (delay, "src");
  /* The transcode's frames come a second late, stamped a second later. */
  gst_pad_set_offset (delayed, GST_SECOND);
  GstBus *bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (guint i = 0; i < n; i++) {
    GstFlowReturn ret;
    GstBuffer *buf = footage_buffer (SYNC_FOOTAGE_MOVING, i, 0,
        i * FRAME_DUR);
    /* push-buffer takes a reference of its own. */
    g_signal_emit_by_name (src, "push-buffer", buf, &ret);
    gst_buffer_unref (buf);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  GstFlowReturn ret;
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  /* Up to EOS, keeping the element's messages (a filtered pop would drop
   * them). */
  GList *seen = NULL;
  GstMessage *m;
  while ((m = gst_bus_timed_pop (bus, 300 * GST_SECOND)) &&
      GST_MESSAGE_TYPE (m) != GST_MESSAGE_EOS &&
      GST_MESSAGE_TYPE (m) != GST_MESSAGE_ERROR)
    seen = g_list_append (seen, m);
  fail_unless (m != NULL && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS,
      "no EOS");
  gst_message_unref (m);
  for (GList * l = seen; l; l = l->next)
    gst_bus_post (bus, GST_MESSAGE (l->data));
  g_list_free (seen);

  GstCaps *dist_caps = NULL;
  GPtrArray *dist_bufs = pull_all (out, &dist_caps);
  fail_unless_equals_int (dist_bufs->len, n);
  Report r;
  report_init (&r);
  collect (bus, "dist", &r);
  gst_element_set_state (pipe, GST_STATE_NULL);

  /* Every dist frame shows the footage frame of its number. */
  for (guint i = 0; i < r.pairs->len; i++) {
    const Pair *p = &g_array_index (r.pairs, Pair, i);
    fail_unless_equals_int64 (p->ref_frame, (gint64) p->frame);
  }
  fail_unless (r.pairs->len * 100 >= n * 95, "%u of %u scored", r.pairs->len,
      n);
  fail_unless (r.lock_offsets->len >= 1);
  fail_unless_equals_int64 (g_array_index (r.lock_offsets, gint64, 0), 0);

  /* The same pairs by hand: the ref frames (converted as the source did)
   * and the transcoded frames the element passed on, paired in order. */
  GPtrArray *ref_items = g_ptr_array_new ();
  GPtrArray *dist_items = g_ptr_array_new ();
  for (guint i = 0; i < r.pairs->len; i++) {
    const Pair *p = &g_array_index (r.pairs, Pair, i);
    g_ptr_array_add (ref_items, live_ref_frame (p->ref_frame, i * FRAME_DUR));
    g_ptr_array_add (dist_items, restamped (g_ptr_array_index (dist_bufs,
                (guint) p->frame), i));
  }
  g_ptr_array_add (ref_items, gst_event_new_eos ());
  g_ptr_array_add (dist_items, gst_event_new_eos ());
  gchar *dist_caps_str = gst_caps_to_string (dist_caps);
  Report hand;
  run_in_sequence (ref_items, dist_items, LIVE_CAPS, dist_caps_str, &hand);
  expect_hand_scores (&hand, &r, "live");

  g_free (dist_caps_str);
  gst_caps_unref (dist_caps);
  g_ptr_array_unref (dist_bufs);
  report_clear (&r);
  report_clear (&hand);
  gst_object_unref (delayed);
  gst_object_unref (delay);
  gst_object_unref (out);
  gst_object_unref (src);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_START_TEST (test_content_live_transcode)
{
  check_live_transcode ();
}

GST_END_TEST;

/* CUDA-memory frames get their signatures from the device in batches, a
 * few passes after the frames came (docs/ALIGNMENT.md): the element's test
 * hook hands host signatures out the same way (each once its batch is full,
 * or launched at a deadline, at the end of a stream, or in a live pipeline
 * when the pads have run dry). Every decision, count and score must be those
 * without the lag: the hand-aligned run's. */
GST_START_TEST (test_content_deferred_signatures)
{
  g_setenv ("GST_SSIM2_COMPARE_TEST_FAULT", "deferred-signatures", TRUE);
  check_offset_clip (7, 0);
  const gint drops[] = { 60, 61, 170 };
  const gint repeats[] = { 100, 220, 221 };
  check_drops_and_repeats (3, 260, drops, G_N_ELEMENTS (drops), repeats,
      G_N_ELEMENTS (repeats));
  check_ladder ();
  g_unsetenv ("GST_SSIM2_COMPARE_TEST_FAULT");
}

GST_END_TEST;

GST_START_TEST (test_content_deferred_signatures_live)
{
  g_setenv ("GST_SSIM2_COMPARE_TEST_FAULT", "deferred-signatures", TRUE);
  check_live_transcode ();
  g_unsetenv ("GST_SSIM2_COMPARE_TEST_FAULT");
}

GST_END_TEST;

/* Other alignments count nothing of content pairing, and their messages
 * name the ref frame too. */
GST_START_TEST (test_other_modes_count_nothing)
{
  Clip c = moving_clip (shown_frames (0, 20, NULL, 0, NULL, 0));
  c.ref_frames = 20;
  Report r;
  run_in_sequence (ref_items (&c), dist_items (&c), SYNC_CAPS, SYNC_CAPS, &r);
  fail_unless_equals_int (r.pairs->len, 20);
  for (guint i = 0; i < r.pairs->len; i++)
    fail_unless_equals_int64 (g_array_index (r.pairs, Pair, i).ref_frame, i);
  fail_unless_equals_uint64 (r.dropped + r.repeated + r.unaligned, 0);
  fail_unless_equals_int (r.lock_offsets->len, 0);
  report_clear (&r);
  g_array_unref (c.shown);
}

GST_END_TEST;

static Suite *
ssim2compare_sync_suite (void)
{
  Suite *s = suite_create ("ssim2compare-sync");
  TCase *tc = timed_tcase (s, "content", 600);
  tcase_add_test (tc, test_other_modes_count_nothing);
  tcase_add_test (tc, test_content_offset_positive);
  tcase_add_test (tc, test_content_offset_negative_rebased);
  tcase_add_test (tc, test_content_dropped_frames);
  tcase_add_test (tc, test_content_half_frame_rate);
  tcase_add_test (tc, test_content_repeated_frames);
  tcase_add_test (tc, test_content_trimmed_reference);
  tcase_add_test (tc, test_content_static_is_unaligned);
  tcase_add_test (tc, test_content_ladder);
  tcase_add_test (tc, test_content_memory_bound);
  tcase_add_test (tc, test_content_live_transcode);
  tcase_add_test (tc, test_content_deferred_signatures);
  tcase_add_test (tc, test_content_deferred_signatures_live);
  return s;
}

GST_CHECK_MAIN (ssim2compare_sync);
