/* gst-ssim2: one rendition's way through the ref frames in ssim2compare:
 * the pairing step the aggregate pass takes for it (the heads of its pad
 * and of the ref frames as DecidePairing sees them, then the action
 * decided), the queue of ref frames the renditions share, the checks of a
 * pair (size, lateness, frame-step), and its frames leaving the element
 * (scored, unscored, or a GAP event).
 * SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstssim2compare-private.h"
#include "gstssim2pairing.h"
#include "gstssim2report.h"
#include "gstssim2sync.h"

#include <gst/video/video.h>

#include <string>
#include <vector>

#define GST_CAT_DEFAULT gst_ssim2_compare_debug

using ssim2gst::PadState;
using ssim2gst::PendingPair;
using ssim2gst::RefFrame;
using ssim2gst::Rendition;
using RenditionPtr = std::shared_ptr < Rendition >;

/* ------------------------------------------------------------------------ */
/* Measurements and the ref queue */

void
gst_ssim2_compare_clear_ref_queue (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  gst_ssim2_compare_content_finish_signatures (self);
  for (RefFrame & f:priv->ref_queue)
    gst_clear_buffer (&f.buf);
  priv->ref_queue.clear ();
  priv->held_ref_frames = 0;
  priv->held_ref_bytes = 0;
  priv->ref_base = priv->ref_next;
  priv->sync_refs_dropped = 0;
  priv->sync_ref_due = GST_CLOCK_TIME_NONE;
  priv->sync_idle_timeouts = 0;
}

void
gst_ssim2_compare_reset_measurement (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  priv->finished = false;
  gst_ssim2_compare_clear_ref_queue (self);
  for (const RenditionPtr & r:gst_ssim2_compare_renditions (self))
    r->ResetMeasurement (priv->ref_base);
}

bool
gst_ssim2_compare_measurement_started (const Rendition & r)
{
  return r.ref_frames > 0 || r.st.frames > 0;
}

gboolean
gst_ssim2_compare_rendition_failed (GstSsim2Compare * self, Rendition & r,
    const gchar * text, const gchar * debug)
{
  bool others = false;
  for (const RenditionPtr & o:gst_ssim2_compare_renditions (self)) {
    if (o.get () != &r && !o->released && !o->failed)
      others = true;
  }
  if (!others) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", text), ("%s", debug));
    return FALSE;
  }
  r.failed = true;
  r.failure = text;
  GST_ELEMENT_WARNING_WITH_DETAILS (self, STREAM, FORMAT, ("%s The other "
          "renditions are still scored.", text), ("%s", debug),
      ("pad", G_TYPE_STRING, r.name.c_str (), NULL));
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Pairing steps */

/* GstAggregator queues a GAP event as an empty buffer flagged GAP: whether
 * @buf is one (a buffer flagged GAP that holds a frame is a frame). */
static bool
is_gap_buffer (GstBuffer * buf)
{
  return GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP) &&
      gst_buffer_get_size (buf) == 0;
}

/* @ts of a buffer of @pad in the time domain of @alignment: running time,
 * or stream time for alignment=stream-time (and for sequence, where it only
 * serves the messages). */
static GstClockTime
pad_time (GstAggregatorPad * pad, ssim2gst::Alignment alignment,
    GstClockTime ts)
{
  if (!GST_CLOCK_TIME_IS_VALID (ts))
    return GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (pad);
  GstClockTime t = alignment == ssim2gst::Alignment::kStreamTime ?
      gst_segment_to_stream_time (&pad->segment, GST_FORMAT_TIME, ts) :
      gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME, ts);
  GST_OBJECT_UNLOCK (pad);
  return t;
}

static GstClockTime
frame_duration (const PadState & st, GstBuffer * buf)
{
  if (GST_BUFFER_DURATION_IS_VALID (buf) && GST_BUFFER_DURATION (buf) > 0)
    return GST_BUFFER_DURATION (buf);
  if (st.have_info && GST_VIDEO_INFO_FPS_N (&st.fmt.info) > 0 &&
      GST_VIDEO_INFO_FPS_D (&st.fmt.info) > 0)
    return gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&st.fmt.info),
        GST_VIDEO_INFO_FPS_N (&st.fmt.info));
  return GST_CLOCK_TIME_NONE;
}

/* Sends on @buf (owned), a frame of @r's pad, scored (score != NULL),
 * skipped for lateness (@skipped) or unscored: pushes it on src for the
 * `dist` pad, drops it for the other renditions. Its times are read from
 * the pad's segment, which has not changed since the frame left the pad
 * (a segment or caps event first completes the batches in flight). */
static GstFlowReturn
push_dist_buffer (GstSsim2Compare * self, Rendition & r, GstBuffer * buf,
    const double *score, guint64 index, const ssim2gst::PairedRef & ref,
    bool skipped,
    bool unaligned = false)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  r.st.frames++;

  GstClockTime pts = GST_BUFFER_PTS (buf);
  GstClockTime rt = pad_time (r.pad,
      ssim2gst::Alignment::kRunningTime, pts);
  GstClockTime st = GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (pts)) {
    GST_OBJECT_LOCK (r.pad);
    st = gst_segment_to_stream_time (&r.pad->segment, GST_FORMAT_TIME, pts);
    GST_OBJECT_UNLOCK (r.pad);
  }
  ssim2gst::FrameTimes times;
  times.pts = pts;
  times.stream_time = st;
  times.running_time = rt;
  times.duration = GST_BUFFER_DURATION (buf);
  gst_ssim2_compare_report_pair (self, r, &buf, score, index, ref, skipped,
      unaligned, times);
  const GstClockTime duration = times.duration;

  if (!r.to_src) {
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }

  /* The output position drives the deadlines of live aggregation
   * (gst_aggregator_simple_get_next_time). */
  if (GST_CLOCK_TIME_IS_VALID (pts)) {
    GstAggregatorPad *srcpad = GST_AGGREGATOR_PAD (agg->srcpad);
    GST_OBJECT_LOCK (agg);
    srcpad->segment.position = GST_CLOCK_TIME_IS_VALID (duration) ?
        pts + duration : pts;
    GST_OBJECT_UNLOCK (agg);
  }
  gst_aggregator_selected_samples (agg, pts, GST_BUFFER_DTS (buf), duration,
      NULL);
  return gst_aggregator_finish_buffer (agg, buf);
}

/* Takes the head of @r's pad and sends it on (push_dist_buffer). */
static GstFlowReturn
push_dist (GstSsim2Compare * self, Rendition & r, const double *score,
    guint64 index, bool skipped)
{
  GstBuffer *buf = gst_aggregator_pad_pop_buffer (r.pad);
  if (!buf)
    return GST_FLOW_OK;
  return push_dist_buffer (self, r, buf, score, index, {}, skipped);
}

/* GstAggregator queues a GAP event as an empty buffer flagged GAP. The one
 * at the head of the `dist` pad goes downstream as the GAP event it was (an
 * empty buffer with video caps is an invalid frame for the elements after
 * us) and counts as unscored dist time. Before the measurement's first
 * frame has set the caps and segment downstream, it is only counted; so is
 * a gap on any other rendition pad. */
static void
pass_gap (GstSsim2Compare * self, Rendition & r)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstPad *srcpad = GST_AGGREGATOR_SRC_PAD (agg);
  GstBuffer *gap = gst_aggregator_pad_pop_buffer (r.pad);
  if (!gap)
    return;
  r.unmatched_dist++;

  const GstClockTime pts = GST_BUFFER_PTS (gap);
  const GstClockTime duration = GST_BUFFER_DURATION (gap);
  bool forward = r.to_src && GST_CLOCK_TIME_IS_VALID (pts);
  GstEvent *seg_event = forward ?
      gst_pad_get_sticky_event (srcpad, GST_EVENT_SEGMENT, 0) : nullptr;
  if (forward && seg_event) {
    /* The same segment apart from the position, which moves. */
    GstSegment out_segment, dist_segment;
    gst_event_copy_segment (seg_event, &out_segment);
    GST_OBJECT_LOCK (r.pad);
    dist_segment = r.pad->segment;
    GST_OBJECT_UNLOCK (r.pad);
    out_segment.position = dist_segment.position = 0;
    forward = gst_segment_is_equal (&out_segment, &dist_segment);
  } else {
    forward = false;
  }
  if (forward) {
    GstCaps *out_caps = gst_pad_get_current_caps (srcpad);
    forward = out_caps && r.st.caps && gst_caps_is_equal (out_caps,
        r.st.caps);
    if (out_caps)
      gst_caps_unref (out_caps);
  }
  if (seg_event)
    gst_event_unref (seg_event);

  if (forward) {
    GST_LOG_OBJECT (self, "gap at %" GST_TIME_FORMAT " on dist: forwarded",
        GST_TIME_ARGS (pts));
    GST_OBJECT_LOCK (agg);
    GST_AGGREGATOR_PAD (agg->srcpad)->segment.position =
        GST_CLOCK_TIME_IS_VALID (duration) ? pts + duration : pts;
    GST_OBJECT_UNLOCK (agg);
    gst_pad_push_event (srcpad, gst_event_new_gap (pts, duration));
  } else {
    GST_DEBUG_OBJECT (self, "gap at %" GST_TIME_FORMAT " on %s: counted, "
        "not forwarded", GST_TIME_ARGS (pts), r.name.c_str ());
  }
  gst_buffer_unref (gap);
}

/* @r's pad has ended: its measurement ends with its summary, which the
 * aggregate pass posts once the pairs in flight have left (summary_due).
 * @ref is the ref head at that moment. */
static void
finish_rendition (GstSsim2Compare * self, Rendition & r,
    const ssim2gst::PadHead & ref)
{
  r.finished = true;

  gst_ssim2_compare_report_ended_first (self, r, ref.has_buffer && !ref.gap);

#ifdef HAVE_GST_CUDA
  GstSsim2ComparePrivate *priv = self->priv;
  if (priv->use_cuda) {
    GST_INFO_OBJECT (self, "CUDA input: ref %" G_GUINT64_FORMAT " frames in "
        "place, %" G_GUINT64_FORMAT " from system memory; %s %" G_GUINT64_FORMAT
        " in place, %" G_GUINT64_FORMAT " from system memory",
        priv->ref.reader.in_place (), priv->ref.reader.host (),
        r.name.c_str (), r.st.reader.in_place (), r.st.reader.host ());
  }
#endif

  r.summary_due = true;
}

/* The ref frame at @r's head as the pairing decision sees it: from the
 * queue of ref frames taken already, else the head of the ref pad. */
static void
describe_ref_head (GstSsim2Compare * self, const Rendition & r,
    ssim2gst::PadHead * head)
{
  GstSsim2ComparePrivate *priv = self->priv;
  head->stream_end = priv->ref_end.load ();
  const guint64 at = r.ref_pos - priv->ref_base;
  if (at < priv->ref_queue.size ()) {
    const RefFrame & f = priv->ref_queue[at];
    head->has_buffer = true;
    head->gap = f.gap;
    head->time = f.time;
    head->duration = f.duration;
    return;
  }
  GstBuffer *buf = gst_aggregator_pad_peek_buffer (self->ref_pad);
  head->has_buffer = buf != nullptr;
  head->eos = !buf && gst_aggregator_pad_is_eos (self->ref_pad);
  if (!buf)
    return;
  head->gap = is_gap_buffer (buf);
  head->time = pad_time (self->ref_pad, priv->run.alignment,
      GST_BUFFER_PTS (buf));
  head->duration = frame_duration (priv->ref, buf);
  gst_buffer_unref (buf);
}

/* The head of @r's pad as the pairing decision sees it. */
static void
describe_dist_head (GstSsim2Compare * self, const Rendition & r,
    GstBuffer * buf, ssim2gst::PadHead * head)
{
  GstSsim2ComparePrivate *priv = self->priv;
  head->has_buffer = buf != nullptr;
  head->eos = !buf && gst_aggregator_pad_is_eos (r.pad);
  head->stream_end = r.end.load ();
  if (!buf)
    return;
  head->gap = is_gap_buffer (buf);
  head->time = pad_time (r.pad, priv->run.alignment, GST_BUFFER_PTS (buf));
  head->duration = frame_duration (r.st, buf);
}

/* Moves @r past the ref frame at its head and returns it (owned by the
 * queue), taking it from the ref pad into the queue when @r is the first
 * rendition to go past it. */
static const RefFrame *
take_ref (GstSsim2Compare * self, Rendition & r)
{
  GstSsim2ComparePrivate *priv = self->priv;
  const guint64 at = r.ref_pos - priv->ref_base;
  if (at >= priv->ref_queue.size ()) {
    GstBuffer *buf = gst_aggregator_pad_peek_buffer (self->ref_pad);
    if (!buf)
      return nullptr;
    /* The times before the pop, while the pad's segment is this buffer's. */
    RefFrame f;
    f.gap = is_gap_buffer (buf);
    f.time = pad_time (self->ref_pad, priv->run.alignment,
        GST_BUFFER_PTS (buf));
    f.stream_time = pad_time (self->ref_pad,
        ssim2gst::Alignment::kStreamTime, GST_BUFFER_PTS (buf));
    f.running_time = pad_time (self->ref_pad,
        ssim2gst::Alignment::kRunningTime, GST_BUFFER_PTS (buf));
    f.duration = frame_duration (priv->ref, buf);
    gst_buffer_unref (buf);
    f.buf = gst_aggregator_pad_pop_buffer (self->ref_pad);
    if (!f.buf)
      return nullptr;           /* flushed meanwhile */
    priv->ref_queue.push_back (f);
    priv->ref_next++;
  }
  const RefFrame *f = &priv->ref_queue[r.ref_pos - priv->ref_base];
  r.ref_pos++;
  if (!f->gap)
    r.ref_frames++;
  return f;
}

void
gst_ssim2_compare_trim_ref_queue (GstSsim2Compare * self,
    const std::vector < RenditionPtr > &list)
{
  GstSsim2ComparePrivate *priv = self->priv;
  guint64 keep_from = priv->ref_next;
  for (const RenditionPtr & r:list) {
    const bool holds = !r->finished && !r->released && !r->failed &&
        r->ref_pos != GST_CLOCK_TIME_NONE && r->ref_pos <= priv->ref_next;
    r->held_ref_frames = holds ? priv->ref_next - r->ref_pos : 0;
    if (holds)
      keep_from = MIN (keep_from, r->ref_pos);
  }
  while (priv->ref_base < keep_from && !priv->ref_queue.empty ()) {
    gst_clear_buffer (&priv->ref_queue.front ().buf);
    priv->ref_queue.pop_front ();
    priv->ref_base++;
  }
  priv->held_ref_frames = priv->ref_queue.size ();
  priv->held_ref_bytes = gst_ssim2_compare_ref_queue_bytes (self);
}

void
gst_ssim2_compare_get_held_ref (GstSsim2Compare * self, guint which,
    GValue * value)
{
  GstSsim2ComparePrivate *priv = self->priv;
  switch (which) {
    case 0:
      g_value_set_uint64 (value, priv->held_ref_frames.load ());
      return;
    case 1:
      g_value_set_uint64 (value, priv->held_ref_bytes.load ());
      return;
    default:{
      GstStructure *s = gst_structure_new_empty ("held-ref-frames");
      for (const RenditionPtr & r:gst_ssim2_compare_renditions (self)) {
        if (!r->released)
          gst_structure_set (s, r->name.c_str (), G_TYPE_UINT64,
              r->held_ref_frames.load (), NULL);
      }
      g_value_take_boxed (value, s);
      return;
    }
  }
}

guint64
gst_ssim2_compare_ref_queue_bytes (GstSsim2Compare * self)
{
  guint64 bytes = 0;
  for (const RefFrame & f:self->priv->ref_queue) {
    if (f.buf)
      bytes += gst_buffer_get_size (f.buf);
  }
  return bytes;
}

/* Output caps follow the `dist` caps (also after renegotiation). */
static bool
ensure_src_caps (GstSsim2Compare * self, const Rendition & dist)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstCaps *scaps = gst_pad_get_current_caps (GST_AGGREGATOR_SRC_PAD (agg));
  bool need = dist.st.caps && (!scaps ||
      !gst_caps_is_equal (dist.st.caps, scaps));
  if (scaps)
    gst_caps_unref (scaps);
  return !need || gst_aggregator_negotiate (agg);
}

/* Running-time pairing after a flushing seek pairs the frames that follow
 * the seek in each stream. When the two streams restarted at different
 * positions (a KEY_UNIT seek on streams with different keyframes) those
 * are different moments: say so once per measurement. */
static void
check_positions_after_seek (GstSsim2Compare * self, Rendition & r,
    const RefFrame & ref, GstBuffer * dist)
{
  GstSsim2ComparePrivate *priv = self->priv;
  if (priv->seeks == 0 || r.seek_positions_checked ||
      priv->run.alignment != ssim2gst::Alignment::kRunningTime)
    return;
  r.seek_positions_checked = true;
  const GstClockTime st_r = ref.stream_time;
  const GstClockTime st_d = pad_time (r.pad,
      ssim2gst::Alignment::kStreamTime, GST_BUFFER_PTS (dist));
  if (!GST_CLOCK_TIME_IS_VALID (st_r) || !GST_CLOCK_TIME_IS_VALID (st_d))
    return;
  const GstClockTime tol = ssim2gst::PairingTolerance (ref.duration,
      frame_duration (r.st, dist));
  const GstClockTime diff = st_r > st_d ? st_r - st_d : st_d - st_r;
  if (diff <= tol)
    return;
  GST_ELEMENT_WARNING_WITH_DETAILS (self, STREAM, FAILED,
      ("%sAfter the seek the two streams restarted at different positions "
          "(ref at %" GST_TIME_FORMAT ", %s at %" GST_TIME_FORMAT "): pairing "
          "by running time compares different moments.",
          gst_ssim2_compare_pad_prefix (self, r).c_str (), GST_TIME_ARGS (st_r),
          r.name.c_str (), GST_TIME_ARGS (st_d)),
      ("Use alignment=stream-time to pair frames by their position in the "
          "media, or seek with GST_SEEK_FLAG_ACCURATE."),
      ("ref-position", G_TYPE_UINT64, (guint64) st_r, "dist-position",
          G_TYPE_UINT64, (guint64) st_d, "pad", G_TYPE_STRING,
          r.name.c_str (), NULL));
}

/* Whether the pair of @dist, the head of @r's pad, is later than
 * max-lateness behind the clock: the time it should have left the element
 * (its running time plus the latency in a live pipeline) is that far in
 * the past. */
static bool
too_late (GstSsim2Compare * self, Rendition & r, GstBuffer * dist)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  gint64 max_lateness;
  GST_OBJECT_LOCK (self);
  max_lateness = self->priv->settings.max_lateness;
  GST_OBJECT_UNLOCK (self);
  /* GST_CLOCK_TIME_NONE when no live source feeds the element. */
  const GstClockTime latency = gst_aggregator_get_latency (agg);
  const bool live = GST_CLOCK_TIME_IS_VALID (latency);
  if (max_lateness < 0) {
    if (!live)
      return false;
    max_lateness = AUTO_LIVE_MAX_LATENESS;
  }
  const GstClockTime rt = pad_time (r.pad,
      ssim2gst::Alignment::kRunningTime, GST_BUFFER_PTS (dist));
  GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));
  if (!clock || !GST_CLOCK_TIME_IS_VALID (rt)) {
    if (clock)
      gst_object_unref (clock);
    return false;
  }
  const GstClockTime now = gst_clock_get_time (clock);
  const GstClockTime base = gst_element_get_base_time (GST_ELEMENT (self));
  gst_object_unref (clock);
  const GstClockTime due = rt + (live ? latency : 0);
  if (now < base || now - base <= due)
    return false;
  const guint64 lateness = now - base - due;
  if (lateness <= (guint64) max_lateness)
    return false;
  GST_LOG_OBJECT (self, "%s: pair at %" GST_TIME_FORMAT " is %"
      GST_TIME_FORMAT " late: not scored", r.name.c_str (), GST_TIME_ARGS (rt),
      GST_TIME_ARGS (lateness));
  return true;
}

/* A rendition must have the reference's size (the reference implementation
 * compares images of one size): else it fails (rendition_failed). */
static bool
same_size (GstSsim2Compare * self, Rendition & r)
{
  const GstVideoInfo & ri = self->priv->ref.fmt.info;
  const GstVideoInfo & di = r.st.fmt.info;
  const int w = GST_VIDEO_INFO_WIDTH (&ri), h = GST_VIDEO_INFO_HEIGHT (&ri);
  if (w == GST_VIDEO_INFO_WIDTH (&di) && h == GST_VIDEO_INFO_HEIGHT (&di))
    return true;
  const gchar *pad = r.name.c_str ();
  g_autofree gchar *text = g_strdup_printf ("The ref frames are %dx%d but "
      "the frames of pad %s are %dx%d: a rendition must have the "
      "reference's size.", w, h, pad, GST_VIDEO_INFO_WIDTH (&di),
      GST_VIDEO_INFO_HEIGHT (&di));
  g_autofree gchar *debug = g_strdup_printf ("Scale it to the reference's "
      "size before the pad (the scaler is part of what is measured): ... ! "
      "videoscale method=bilinear ! video/x-raw,width=%d,height=%d ! c.%s, "
      "or on the GPU ... ! cudascale ! "
      "video/x-raw(memory:CUDAMemory),width=%d,height=%d ! c.%s", w, h, pad,
      w, h, pad);
  gst_ssim2_compare_rendition_failed (self, r, text, debug);
  return false;
}

/* Takes the ref frame at @r's head and the head of its pad as a pair: into
 * @pending, to be scored with the other renditions' pairs of this pass
 * (gst_ssim2_compare_submit_pairs), or unscored at once under frame-step
 * or when too late.
 * Owns @dist, the peeked buffer of @r's pad. */
static GstFlowReturn
take_pair (GstSsim2Compare * self, const RenditionPtr & rendition,
    GstBuffer * dist, std::vector < PendingPair > &pending)
{
  Rendition & r = *rendition;
  GstSsim2ComparePrivate *priv = self->priv;
  const guint64 ref_seq = r.ref_pos;
  const RefFrame *ref = take_ref (self, r);
  if (!ref) {
    gst_buffer_unref (dist);
    return GST_FLOW_OK;
  }
  check_positions_after_seek (self, r, *ref, dist);
  if (!same_size (self, r)) {
    gst_buffer_unref (dist);
    return r.failed ? GST_FLOW_OK : GST_FLOW_NOT_NEGOTIATED;
  }
  const guint64 index = r.pair_index++;
  const guint step = MAX (priv->run.every, 1u);
  const bool unscored = index % step != 0;
  const bool late = !unscored && too_late (self, r, dist);
  if (unscored || late) {
    gst_buffer_unref (dist);
    /* The pairs in flight leave first. */
    GstFlowReturn ret = gst_ssim2_compare_complete_scoring (self);
    if (ret != GST_FLOW_OK)
      return ret;
    if (late)
      r.skipped++;
    return push_dist (self, r, nullptr, index, late);
  }
  /* The frame leaves the pad now: the next pass steps @r while this pair
   * is scored. */
  gst_buffer_unref (dist);
  dist = gst_aggregator_pad_pop_buffer (r.pad);
  if (!dist)
    return GST_FLOW_OK;
  PendingPair p;
  p.rendition = rendition;
  p.ref.reset (gst_buffer_ref (ref->buf));
  p.ref_seq = ref_seq;
  p.partner.frame = (gint64) r.ref_frames - 1;  /* take_ref counted it */
  p.partner.running_time = ref->running_time;
  p.dist.reset (dist);
  p.index = index;
  pending.push_back (std::move (p));
  return GST_FLOW_OK;
}

GstFlowReturn
gst_ssim2_compare_push_scored_pair (GstSsim2Compare * self, PendingPair & p)
{
  if (!p.scored || p.rendition->failed) {
    /* Its rendition failed (this frame could not be read, or an earlier
     * one): from the failure on, its frames leave unscored, however many
     * were in flight. */
    return push_dist_buffer (self, *p.rendition, p.dist.release (), nullptr,
        p.index, {}, false);
  }
  GST_DEBUG_OBJECT (self, "%s pair %" G_GUINT64_FORMAT ": %.8f",
      p.rendition->name.c_str (), p.index, p.score);
  return push_dist_buffer (self, *p.rendition, p.dist.release (), &p.score,
      p.index, p.partner, false);
}

GstFlowReturn
gst_ssim2_compare_complete_scoring (GstSsim2Compare * self)
{
  return gst_ssim2_compare_complete_pairs (self, false,
      gst_ssim2_compare_push_scored_pair);
}

/* A failed rendition's frames are taken unscored (the `dist` pad's still
 * leave on src) until its pad ends; its summary then says why. */
static GstFlowReturn
take_unscored (GstSsim2Compare * self, Rendition & r, bool *progressed)
{
  GstBuffer *dist = gst_aggregator_pad_peek_buffer (r.pad);
  *progressed = dist || gst_aggregator_pad_is_eos (r.pad);
  if (dist) {
    const bool gap = is_gap_buffer (dist);
    gst_buffer_unref (dist);
    if (r.to_src && !ensure_src_caps (self, r))
      return GST_FLOW_NOT_NEGOTIATED;
    if (gap) {
      pass_gap (self, r);
      return GST_FLOW_OK;
    }
    return push_dist (self, r, nullptr, 0, false);
  }
  if (*progressed) {
    r.finished = true;
    r.summary_due = true;
  }
  return GST_FLOW_OK;
}

GstFlowReturn
gst_ssim2_compare_step_rendition (GstSsim2Compare * self, const RenditionPtr & rendition,
    gboolean timeout, bool *progressed, std::vector < PendingPair > &pending)
{
  Rendition & r = *rendition;
  GstSsim2ComparePrivate *priv = self->priv;
  if (r.ref_pos == GST_CLOCK_TIME_NONE)
    r.ref_pos = priv->ref_base;         /* requested since the last pass */
  if (r.failed) {
    /* Its pairs in flight, then the frames content pairing holds, leave
     * before its unscored frames. */
    GstFlowReturn ret = gst_ssim2_compare_complete_scoring (self);
    if (ret == GST_FLOW_OK)
      ret = gst_ssim2_compare_content_release_held (self, r);
    if (ret != GST_FLOW_OK)
      return ret;
    return take_unscored (self, r, progressed);
  }
  if (priv->run.alignment == ssim2gst::Alignment::kContent)
    return gst_ssim2_compare_step_content (self, rendition, timeout,
        progressed, pending);

  g_autoptr (GstBuffer) dist = gst_aggregator_pad_peek_buffer (r.pad);
  ssim2gst::PairingInput in;
  in.alignment = priv->run.alignment;
  in.timeout = timeout;
  describe_ref_head (self, r, &in.ref);
  describe_dist_head (self, r, dist, &in.dist);

  if (in.ref.eos && !r.ref_ended) {
    r.ref_ended = true;
    r.ref_ended_first = !in.dist.eos;
  }
  if (in.dist.eos)
    r.st.ended = true;
  if (dist && r.to_src && !ensure_src_caps (self, r))
    return GST_FLOW_NOT_NEGOTIATED;

  const ssim2gst::PairingDecision decision = ssim2gst::DecidePairing (in);
  *progressed = decision.action != ssim2gst::PairingAction::kNeedData;
  /* Pushing or ending: the pairs in flight leave first, so that every
   * pad's frames, messages and stats rows keep their order. */
  if (decision.action == ssim2gst::PairingAction::kPassDist ||
      decision.action == ssim2gst::PairingAction::kPassGap ||
      decision.action == ssim2gst::PairingAction::kFinish) {
    GstFlowReturn ret = gst_ssim2_compare_complete_scoring (self);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  switch (decision.action) {
    case ssim2gst::PairingAction::kPair:
      return take_pair (self, rendition, (GstBuffer *) g_steal_pointer (&dist),
          pending);
    case ssim2gst::PairingAction::kDropRef:
      GST_LOG_OBJECT (self, "ref %" GST_TIME_FORMAT " has no %s frame, "
          "dropping it", GST_TIME_ARGS (in.ref.time), r.name.c_str ());
      r.unmatched_ref++;
      take_ref (self, r);
      return GST_FLOW_OK;
    case ssim2gst::PairingAction::kDropRefGap:
      take_ref (self, r);
      return GST_FLOW_OK;
    case ssim2gst::PairingAction::kPassDist:
      GST_LOG_OBJECT (self, "%s %" GST_TIME_FORMAT " has no ref frame, "
          "passing it unscored", r.name.c_str (),
          GST_TIME_ARGS (in.dist.time));
      r.unmatched_dist++;
      if (decision.after_ref_end)
        r.passed_after_ref_eos++;
      gst_clear_buffer (&dist);
      return push_dist (self, r, nullptr, 0, false);
    case ssim2gst::PairingAction::kPassGap:
      pass_gap (self, r);
      return GST_FLOW_OK;
    case ssim2gst::PairingAction::kFinish:
      finish_rendition (self, r, in.ref);
      return GST_FLOW_OK;
    case ssim2gst::PairingAction::kNeedData:
    default:
      return GST_FLOW_OK;
  }
}


/* ------------------------------------------------------------------------ */
/* The steps content pairing (gstssim2sync.cpp) shares */

bool
gst_ssim2_compare_is_gap (GstBuffer * buf)
{
  return is_gap_buffer (buf);
}

GstFlowReturn
gst_ssim2_compare_push_dist_buffer (GstSsim2Compare * self, Rendition & r,
    GstBuffer * buf, const double *score, guint64 index,
    const ssim2gst::PairedRef & ref, bool skipped, bool unaligned)
{
  return push_dist_buffer (self, r, buf, score, index, ref, skipped,
      unaligned);
}

bool
gst_ssim2_compare_too_late (GstSsim2Compare * self, Rendition & r,
    GstBuffer * dist)
{
  return too_late (self, r, dist);
}

bool
gst_ssim2_compare_same_size (GstSsim2Compare * self, Rendition & r)
{
  return same_size (self, r);
}

bool
gst_ssim2_compare_ensure_src_caps (GstSsim2Compare * self,
    const Rendition & r)
{
  return ensure_src_caps (self, r);
}

/* Content pairing ends a rendition here: it pairs by picture, not by time,
 * so no ref frame is "waiting" at the moment its pad ended, and whether ref
 * had more frames is told by the aligner's counts (unmatched ref frames),
 * not by an ended-first warning. */
void
gst_ssim2_compare_finish_rendition (GstSsim2Compare * self, Rendition & r)
{
  finish_rendition (self, r, ssim2gst::PadHead ());
}
