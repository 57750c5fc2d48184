/* gst-ssim2: which frames enter ssim2compare (GstAggregator's clip):
 * frames shown inside the segment, and where each pad's stream ends.
 * SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstssim2compare-private.h"

#define GST_CAT_DEFAULT gst_ssim2_compare_debug

using ssim2gst::Rendition;
using RenditionPtr = std::shared_ptr < Rendition >;

/* Frame period of the caps on @pad, GST_CLOCK_TIME_NONE when the caps give
 * no frame rate. */
static GstClockTime
caps_frame_period (GstPad * pad)
{
  GstClockTime period = GST_CLOCK_TIME_NONE;
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gint n = 0, d = 0;
  if (caps && gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
          "framerate", &n, &d) && n > 0 && d > 0)
    period = gst_util_uint64_scale_int (GST_SECOND, d, n);
  if (caps)
    gst_caps_unref (caps);
  return period;
}

/* Runs in the pad's streaming thread as each buffer arrives, before it is
 * queued. Only frames shown inside the segment are paired:
 * - a buffer entirely outside the segment is dropped;
 * - a buffer cut by the segment start or stop that keeps less than half a
 *   frame period inside it is dropped too: decoders clip the frame that
 *   began before the segment start of an accurate seek to that start, with
 *   what is left of its duration, and the next frame follows at the same
 *   running time. The clipped one would be paired in its place
 *   (running-time alignment) or shift every later pair by one (sequence
 *   alignment);
 * - a buffer of zero duration is shown for no time and is dropped.
 * Gap buffers (made from GAP events) are kept: aggregate handles them. */
GstBuffer *
gst_ssim2_compare_clip (GstAggregator * agg, GstAggregatorPad * pad,
    GstBuffer * buf)
{
  GstSsim2Compare *self = GST_SSIM2_COMPARE (agg);
  const GstClockTime pts = GST_BUFFER_PTS (buf);
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP) ||
      !GST_CLOCK_TIME_IS_VALID (pts))
    return buf;

  /* The segment of this buffer: the pad's sticky event, stored as it
   * arrived (the pad's own segment follows the queue head instead). */
  GstEvent *ev = gst_pad_get_sticky_event (GST_PAD (pad), GST_EVENT_SEGMENT,
      0);
  if (!ev)
    return buf;
  GstSegment segment;
  gst_event_copy_segment (ev, &segment);
  gst_event_unref (ev);
  if (segment.format != GST_FORMAT_TIME)
    return buf;

  const GstClockTime duration = GST_BUFFER_DURATION (buf);
  const GstClockTime period = caps_frame_period (GST_PAD (pad));
  const char *why = nullptr;
  guint64 start = pts, stop = GST_CLOCK_TIME_NONE;
  const GstClockTime span = GST_CLOCK_TIME_IS_VALID (duration) ? duration :
      period;
  const GstClockTime end = GST_CLOCK_TIME_IS_VALID (span) ? pts + span :
      GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (duration) && duration == 0) {
    why = "it lasts no time";
  } else {
    if (!gst_segment_clip (&segment, GST_FORMAT_TIME, pts, end, &start,
            &stop)) {
      why = "it lies outside the segment";
    } else if (GST_CLOCK_TIME_IS_VALID (period) &&
        GST_CLOCK_TIME_IS_VALID (end) && (start > pts || stop < end ||
            pts == segment.start) && (stop - start) * 2 < period) {
      /* Only a buffer cut by the segment (here or upstream, where it was
       * restamped to the segment start) is judged by its remaining part. */
      why = "less than half a frame of it lies inside the segment";
    }
  }
  if (why) {
    GST_DEBUG_OBJECT (self, "%s: dropping the buffer at %" GST_TIME_FORMAT
        " (duration %" GST_TIME_FORMAT "): %s", GST_PAD_NAME (pad),
        GST_TIME_ARGS (pts), GST_TIME_ARGS (duration), why);
    gst_buffer_unref (buf);
    return nullptr;
  }

  /* Where the pad's stream ends once it is at EOS: the end of its last
   * buffer, in the time domain the pairing uses. */
  const GstClockTime last = GST_CLOCK_TIME_IS_VALID (stop) ? stop : start;
  const GstClockTime end_time =
      self->priv->run.alignment == ssim2gst::Alignment::kStreamTime ?
      gst_segment_to_stream_time (&segment, GST_FORMAT_TIME, last) :
      gst_segment_to_running_time (&segment, GST_FORMAT_TIME, last);
  if (pad == self->ref_pad) {
    self->priv->ref_end = end_time;
  } else {
    RenditionPtr r = gst_ssim2_compare_find_rendition (self, pad);
    if (r)
      r->end = end_time;
  }
  return buf;
}
