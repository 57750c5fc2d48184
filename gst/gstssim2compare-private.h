/* gst-ssim2: what the files of the ssim2compare element share: its private
 * state, and the backend (gstssim2backend.cpp) the element calls.
 * SPDX-License-Identifier: BSD-3-Clause */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstaggregator.h>

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/cuda-gst.h>
#endif

#include <atomic>
#include <cmath>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gstssim2alignment.h"
#include "gstssim2compare.h"
#include "gstssim2frame.h"
#include "ssim2/alignment.h"
#include "ssim2/score_log.h"
#include "ssim2/ssim2.h"

GST_DEBUG_CATEGORY_EXTERN (gst_ssim2_compare_debug);

#define DEFAULT_ALIGNMENT ssim2gst::Alignment::kRunningTime
#define DEFAULT_BACKEND GST_SSIM2_COMPARE_BACKEND_AUTO
#define DEFAULT_CUDA_DEVICE_ID -1
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_STATS_FORMAT GST_SSIM2_COMPARE_STATS_FORMAT_AUTO
/* Off: no score is below it. */
#define DEFAULT_THRESHOLD (-INFINITY)
#define DEFAULT_FRAME_STEP 1
#define DEFAULT_THREADS 0
#define MAX_THREADS 1024
#define DEFAULT_INTERVAL 0
#define DEFAULT_MAX_LATENESS (-1)
/* alignment=content: the offsets searched (running time, each way) and the
 * bound on the full ref frames held for it. 1 GiB holds the 2 x window +
 * block frames acquiring may need at 1080p I420 (310 x 3 MiB, about
 * 920 MiB; docs/ALIGNMENT.md, "Memory"). */
#define DEFAULT_SYNC_WINDOW (5 * GST_SECOND)
#define DEFAULT_SYNC_MAX_BYTES (G_GUINT64_CONSTANT (1) << 30)
#define DEFAULT_MEMORY_LIMIT 0
#define DEFAULT_SEQUENTIAL_SUMS FALSE
/* max-lateness=-1 in a live pipeline. */
#define AUTO_LIVE_MAX_LATENESS GST_SECOND

/* *INDENT-OFF* */
namespace ssim2gst {

/* The state of one sink pad. */
struct PadState {
  ssim2gst::FrameFormat fmt;
  bool have_info = false;
  guint64 frames = 0;  /* buffers taken from the pad (scored or not) */
  bool ended = false;  /* EOS seen with no buffer left */
  /* Caps of the buffers now at the head of the pad's queue (set when the
   * caps event is processed in stream order, unlike the pad's current caps,
   * which change as soon as the event arrives). */
  GstCaps *caps = nullptr;
#ifdef HAVE_GST_CUDA
  ssim2gst::CudaFrameReader reader;  /* frames for the CUDA engine */
#endif

  /* Back to the state before any caps. */
  void Reset ()
  {
    gst_clear_caps (&caps);
    fmt = ssim2gst::FrameFormat ();
    have_info = false;
    frames = 0;
    ended = false;
  }
};

/* A reference frame taken from the ref pad, kept until every rendition has
 * passed it, so that each ref frame is read (and prepared for scoring) once
 * however many renditions pair with it. */
struct RefFrame {
  GstBuffer *buf = nullptr;  /* owned */
  bool gap = false;
  guint64 time = GST_CLOCK_TIME_NONE;  /* in the alignment's time domain */
  guint64 duration = GST_CLOCK_TIME_NONE;
  guint64 stream_time = GST_CLOCK_TIME_NONE;
  /* Its running time on the ref pad, whatever the alignment: what the
   * messages name it by (PairedRef). */
  guint64 running_time = GST_CLOCK_TIME_NONE;
  /* alignment=content: its signature, computed once for every rendition's
   * aligner (gstssim2sync.cpp). */
  std::shared_ptr<const ssim2::FrameSignature> signature;
};

/* The ref frame a dist frame was scored against, as its message and stats
 * row name it: its number in the measurement (from 0; -1 none) and its
 * running time on the ref pad (a frame's time needs no counting, so a
 * reader that stamped the frames it sent finds it whatever frames the
 * element or its inputs dropped or restarted on). */
struct PairedRef {
  gint64 frame = -1;
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
};

/* alignment=content: one rendition's content pairing, and the element's
 * frame signatures computing on the device (gstssim2sync.cpp). */
struct ContentSync;
struct ContentSignatures;

/* One distorted input (a rendition): the always `dist` pad or a request pad
 * `dist_%u`, with its own pairing with ref and its own measurement. */
struct Rendition {
  GstAggregatorPad *pad = nullptr;  /* owned reference */
  std::string name;                 /* the pad's name */
  bool to_src = false;  /* its buffers leave on src (the `dist` pad) */
  PadState st;
  /* End of the last buffer that arrived on the pad (set by clip in the pad's
   * streaming thread), in the alignment's time domain. */
  std::atomic<guint64> end { GST_CLOCK_TIME_NONE };
  std::atomic<bool> released { false };  /* its request pad was released */
  /* Its pad was still not linked when the other pads had waited
   * kUnlinkedPadGrace for it: ended, and left out (no summary). */
  std::atomic<bool> unlinked { false };
  /* It cannot be scored (caps, size): its frames are taken unscored. */
  std::atomic<bool> failed { false };
  std::string failure;  /* why (aggregator thread) */
  /* Ref frames held for it after the last pass (held-ref-frames-by-pad). */
  std::atomic<guint64> held_ref_frames { 0 };

  /* The measurement (aggregator thread). */
  guint64 ref_pos = 0;  /* sequence number of the ref frame at its head */
  guint64 ref_frames = 0;  /* ref frames it went past */
  bool ref_ended = false;
  guint64 pair_index = 0;
  guint64 unmatched_ref = 0;
  guint64 unmatched_dist = 0;
  std::vector<double> scores;
  bool finished = false;
  bool ref_ended_first = false;
  guint64 passed_after_ref_eos = 0;
  bool seek_positions_checked = false;
  std::optional<ssim2::Input> ended_first;  /* of its last summary */
  bool summary_due = false;  /* ended; its summary is still to be posted */
  guint64 skipped = 0;  /* pairs not scored because they were too late */
  /* The current ssim2-interval window: [window_start, window_start +
   * interval) in running time; GST_CLOCK_TIME_NONE: none begun. */
  guint64 window_start = GST_CLOCK_TIME_NONE;
  std::vector<double> window_scores;
  guint64 window_skipped = 0;
  guint64 window_unaligned = 0;
  /* alignment=content: its aligner and held frames; made at its first step
   * of a measurement. */
  std::shared_ptr<ContentSync> sync;

  ~Rendition () { gst_clear_object (&pad); }
  /* Empties the current window (its start stays). */
  void ClearWindow ()
  {
    window_scores.clear ();
    window_skipped = 0;
    window_unaligned = 0;
  }
  void ResetMeasurement (guint64 first_ref)
  {
    ref_pos = first_ref;
    ref_frames = 0;
    ref_ended = false;
    pair_index = 0;
    unmatched_ref = unmatched_dist = 0;
    scores.clear ();
    finished = false;
    ref_ended_first = false;
    passed_after_ref_eos = 0;
    seek_positions_checked = false;
    ended_first.reset ();
    summary_due = false;
    skipped = 0;
    window_start = GST_CLOCK_TIME_NONE;
    ClearWindow ();
    sync.reset ();
    st.frames = 0;
    st.ended = false;
  }
};

/* An owned buffer reference. */
struct BufferUnref {
  void operator() (GstBuffer * buf) const
  {
    gst_buffer_unref (buf);
  }
};
using BufferPtr = std::unique_ptr<GstBuffer, BufferUnref>;

/* A pair taken in an aggregate pass, its score still to be computed: the
 * pairs of one ref frame from several renditions are scored together. Its
 * dist buffer has left the rendition's pad already (so that the next pass
 * can step the rendition while this pair is scored); the element sends it
 * on once scored. */
struct PendingPair {
  std::shared_ptr<Rendition> rendition;  /* alive until the pair is pushed */
  BufferPtr ref;
  guint64 ref_seq = 0;
  BufferPtr dist;  /* popped from the rendition's pad */
  guint64 index = 0;  /* the rendition's pair index */
  /* The ref frame as the reports name it: its number in the rendition's
   * measurement, from 0 (ref-frame), and its running time. */
  ssim2gst::PairedRef partner;
  double score = 0.0;
  bool scored = false;
};

/* The pairs of one aggregate pass in flight: the backend's
 * (gstssim2backend.cpp). */
struct ScoringBatch;

/* The element's properties. */
struct Settings {
  ssim2gst::Alignment alignment = DEFAULT_ALIGNMENT;
  GstSsim2CompareBackend backend = DEFAULT_BACKEND;
  /* The same settings as ScorerOptions::cuda_device and the tool's
   * --device (property cuda-device-id), and as the tool's --every and the
   * stats file's `every` (property frame-step): one name each in the
   * code. */
  gint cuda_device = DEFAULT_CUDA_DEVICE_ID;
  bool post_messages = DEFAULT_POST_MESSAGES;
  std::string stats_file;
  GstSsim2CompareStatsFormat stats_format = DEFAULT_STATS_FORMAT;
  std::string summary_file;
  gdouble threshold = DEFAULT_THRESHOLD;
  guint every = DEFAULT_FRAME_STEP;
  guint threads = DEFAULT_THREADS;
  guint64 interval = DEFAULT_INTERVAL;
  gint64 max_lateness = DEFAULT_MAX_LATENESS;
  guint64 sync_window = DEFAULT_SYNC_WINDOW;
  guint64 sync_max_bytes = DEFAULT_SYNC_MAX_BYTES;
  /* ScorerOptions::memory_limit (property memory-limit, the tool's
   * --memory-limit). */
  guint64 memory_limit = DEFAULT_MEMORY_LIMIT;
  /* ScorerOptions::sequential_sums (property sequential-sums, the tool's
   * --sequential-sums). */
  bool sequential_sums = DEFAULT_SEQUENTIAL_SUMS;
};

}  // namespace ssim2gst

struct GstSsim2ComparePrivate {
  ssim2gst::Settings settings;  /* under the object lock */

  /* Streaming state (aggregator thread, start/stop). */
  ssim2gst::Settings run;  /* snapshot taken in start() */
  ssim2gst::PadState ref;
  std::unique_ptr<ssim2::Scorer> scorer;
  /* Scorer::limits() of the last memory-limit warning posted. */
  std::string limits_warned;
  /* Sequence number of the ref frame the scorer holds as its reference
   * (SetReference); GST_CLOCK_TIME_NONE: none. */
  guint64 scorer_ref = GST_CLOCK_TIME_NONE;
  /* Counts the scorers made: a batch handle belongs to one of them. */
  guint64 scorer_serial = 0;
  /* Batches submitted to the scorer and not pushed on yet, oldest first;
   * only the backend reads and changes them (a shared_ptr for its deleter:
   * the type is the backend's). */
  std::deque<std::shared_ptr<ssim2gst::ScoringBatch>> scoring;
  /* Where the aggregator thread's time went (monotonic microseconds), for
   * the INFO line at the end: all of aggregate(), and within it handing
   * batches to the scorer and waiting for their scores. */
  struct {
    gint64 aggregate_us = 0;
    gint64 submit_us = 0;
    gint64 collect_us = 0;
  } timing;
  bool use_cuda = false;
  bool finished = false;  /* every rendition finished: EOS sent */
  /* Passes that handed pairs to the scorer since start (property
   * scoring-passes, read from any thread). */
  std::atomic<guint64> scoring_passes { 0 };
  /* The ref queue after the last pass (properties held-ref-frames and
   * held-ref-bytes, read from any thread): its frames, and the bytes of
   * those that still have their buffer. */
  std::atomic<guint64> held_ref_frames { 0 };
  std::atomic<guint64> held_ref_bytes { 0 };
  guint64 seeks = 0;  /* flushing seeks since start */
  /* Live deadlines (gstssim2deadline.cpp; aggregator thread):
   * the running time since which the element, behind its deadlines, waits
   * for a pad's data (GST_CLOCK_TIME_NONE: not waiting), and whether the
   * last pass came from a deadline that passed with a pad empty. */
  GstClockTime behind_since = GST_CLOCK_TIME_NONE;
  bool deadline_grace_spent = false;
  GstClockTime pass_latency = GST_CLOCK_TIME_NONE;  /* at the last pass */
  /* Ref frames taken from the ref pad that some rendition has not passed
   * yet; the front one has sequence number ref_base, the next one taken
   * from the pad gets ref_next. */
  std::deque<ssim2gst::RefFrame> ref_queue;
  guint64 ref_base = 0;
  guint64 ref_next = 0;
  /* End of the last buffer that arrived on ref (set by clip in its
   * streaming thread), in the alignment's time domain. */
  std::atomic<guint64> ref_end { GST_CLOCK_TIME_NONE };
  /* alignment=content: held ref frames dropped by sync-max-bytes in this
   * measurement (the warning is posted at the first). */
  guint64 sync_refs_dropped = 0;
  /* alignment=content, live: when the next ref frame is due (running time
   * of the end of the last one taken), and the aggregator's timeouts in a
   * row that took nothing (each moves the next deadline a frame on). */
  GstClockTime sync_ref_due = GST_CLOCK_TIME_NONE;
  guint64 sync_idle_timeouts = 0;
  /* alignment=content: signatures of CUDA-memory frames on the device (made
   * at the first such frame; freed with the CUDA context's stream). */
  std::shared_ptr<ssim2gst::ContentSignatures> signatures;

  /* The renditions, the `dist` one first. The list changes under
   * renditions_lock (pads are requested and released from any thread);
   * a rendition's measurement belongs to the aggregator thread. */
  GMutex renditions_lock;
  std::vector<std::shared_ptr<ssim2gst::Rendition>> renditions;
  guint next_serial = 0;  /* of the next dist_%u pad */

  /* The wait for pads that are not linked (gstssim2unlinked.cpp), on the
   * system clock; under the object lock. */
  GstClockID unlinked_wait = nullptr;

  std::unique_ptr<ssim2::ScoreLog> stats;  /* the stats-file; null: none */
  bool stats_with_source = false;  /* its rows carry the pad's name */
  /* The summary-file's content: each pad's latest summary, in the order
   * they were first posted; summary_file_ok: one is set and writable. */
  std::vector<ssim2::SourceSummary> summaries;
  bool summary_file_ok = false;

#ifdef HAVE_GST_CUDA
  GstCudaContext *context = nullptr;
  CUstream stream = nullptr;
  /* The context is in use (a scorer or the signature maker was made in it,
   * or a neighbour took it from a context query, from any thread): it is no
   * longer swapped for the context of the frames
   * (gst_ssim2_compare_adopt_cuda_context). */
  std::atomic<bool> context_in_use { false };
#endif
};
/* *INDENT-ON* */

struct _GstSsim2Compare
{
  GstAggregator parent;

  GstAggregatorPad *ref_pad;
  GstAggregatorPad *dist_pad;
  GstSsim2ComparePrivate *priv;
};

/* Test hook: failures that cannot be provoked safely in CI (no GPU; a huge
 * host allocation may succeed under overcommit), and device behaviour that
 * CI has no device for, are requested through the variable
 * GST_SSIM2_COMPARE_TEST_FAULT, so that the tests can check the paths that
 * handle them. Whether it names @fault. */
bool gst_ssim2_compare_test_fault_is (const char *fault);

/* The renditions now (a copy of the list, taken under its lock). */
std::vector < std::shared_ptr < ssim2gst::Rendition > >
gst_ssim2_compare_renditions (GstSsim2Compare * self);
/* The rendition of @pad; null for ref and for a released pad. */
std::shared_ptr < ssim2gst::Rendition >
gst_ssim2_compare_find_rendition (GstSsim2Compare * self,
    GstAggregatorPad * pad);

/* Which frames enter (gstssim2clip.cpp). */

/* GstAggregator's clip: drops the frames not shown inside the segment, and
 * records where the pad's stream ends (Rendition::end, ref_end). */
GstBuffer *gst_ssim2_compare_clip (GstAggregator * agg,
    GstAggregatorPad * pad, GstBuffer * buf);

/* Live deadlines (gstssim2deadline.cpp). */

/* GstAggregator's get_next_time: when a live pipeline stops waiting for a
 * pad without data. */
GstClockTime gst_ssim2_compare_get_next_time (GstAggregator * agg);
/* At the start of each aggregate pass (@timeout: a deadline passed). */
void gst_ssim2_compare_deadlines_pass (GstSsim2Compare * self,
    gboolean timeout);
/* At start: no deadline passed, not behind. */
void gst_ssim2_compare_reset_deadlines (GstSsim2Compare * self);

/* Sink pads left unlinked (gstssim2unlinked.cpp). */

/* A stream has started on a pad: when a sink pad is not linked, waits
 * kUnlinkedPadGrace (on the system clock) for it to be linked, then leaves
 * a rendition pad still unlinked out (Rendition::unlinked) while another
 * rendition is linked, else posts an error naming the pads. */
void gst_ssim2_compare_watch_unlinked_pads (GstSsim2Compare * self);
/* Cancels that wait (the element stops). */
void gst_ssim2_compare_stop_unlinked_wait (GstSsim2Compare * self);

/* Rendition @r cannot be scored (@text says why, @debug what to do). While
 * another rendition still measures, a STREAM/FORMAT warning naming its pad
 * (details: `pad`), and @r's frames are taken unscored from then on; when
 * every rendition has failed, an error. Returns TRUE for the warning. */
gboolean gst_ssim2_compare_rendition_failed (GstSsim2Compare * self,
    ssim2gst::Rendition & r, const gchar * text, const gchar * debug);

/* One rendition's way through the ref frames (gstssim2rendition.cpp). */

/* A measurement runs from the start, or from a flushing seek, to EOS or to
 * the next flushing seek; its summary covers its own pairs only. These
 * start a new one: the ref queue emptied, every rendition's counts reset. */
void gst_ssim2_compare_clear_ref_queue (GstSsim2Compare * self);
void gst_ssim2_compare_reset_measurement (GstSsim2Compare * self);
/* Whether @r has taken a frame in its current measurement. */
bool gst_ssim2_compare_measurement_started (const ssim2gst::Rendition & r);

/* One pairing step of @rendition in an aggregate pass; *@progressed tells
 * whether it took anything. A pair to score joins @pending (submitted with
 * the other renditions' pairs of the pass); anything else leaves at once,
 * after the pairs in flight. */
GstFlowReturn gst_ssim2_compare_step_rendition (GstSsim2Compare * self,
    const std::shared_ptr < ssim2gst::Rendition > &rendition,
    gboolean timeout, bool *progressed,
    std::vector < ssim2gst::PendingPair > &pending);

/* Sends on a pair the backend has scored (meta, reports, push on src for
 * the `dist` pad), in the order the pairs were taken. */
GstFlowReturn gst_ssim2_compare_push_scored_pair (GstSsim2Compare * self,
    ssim2gst::PendingPair & pair);

/* Completes every pair in flight: pushing or ending waits for them, so that
 * every pad's frames, messages and stats rows keep their order. */
GstFlowReturn gst_ssim2_compare_complete_scoring (GstSsim2Compare * self);

/* What gstssim2sync.cpp (alignment=content) shares of the pairing steps:
 * whether @buf is a GAP event queued as a buffer; sending on a frame of @r
 * (scored: @score, against ref frame @ref; skipped for lateness;
 * unscored: @unaligned when for want of a sure partner), owning @buf; whether a pair is too late to be scored
 * (max-lateness); whether @r has the reference's size (else it fails);
 * the src caps following the `dist` pad's; @r's pad has ended. */
bool gst_ssim2_compare_is_gap (GstBuffer * buf);
GstFlowReturn gst_ssim2_compare_push_dist_buffer (GstSsim2Compare * self,
    ssim2gst::Rendition & r, GstBuffer * buf, const double *score,
    guint64 index, const ssim2gst::PairedRef & ref, bool skipped,
    bool unaligned = false);
bool gst_ssim2_compare_too_late (GstSsim2Compare * self,
    ssim2gst::Rendition & r, GstBuffer * dist);
bool gst_ssim2_compare_same_size (GstSsim2Compare * self,
    ssim2gst::Rendition & r);
bool gst_ssim2_compare_ensure_src_caps (GstSsim2Compare * self,
    const ssim2gst::Rendition & r);
void gst_ssim2_compare_finish_rendition (GstSsim2Compare * self,
    ssim2gst::Rendition & r);

/* The watchdog property @which (0 held-ref-frames, 1 held-ref-bytes,
 * 2 held-ref-frames-by-pad) into @value; any thread. */
void gst_ssim2_compare_get_held_ref (GstSsim2Compare * self, guint which,
    GValue * value);

/* Bytes of the full ref frames queued (those sync-max-bytes has not
 * dropped). */
guint64 gst_ssim2_compare_ref_queue_bytes (GstSsim2Compare * self);

/* Drops the ref frames every rendition of @list still measuring has gone
 * past, and updates held-ref-frames, held-ref-bytes and the renditions'
 * held_ref_frames. */
void gst_ssim2_compare_trim_ref_queue (GstSsim2Compare * self,
    const std::vector < std::shared_ptr < ssim2gst::Rendition > > &list);

/* Backend: where and how a pair is scored (gstssim2backend.cpp). */
void gst_ssim2_compare_install_backend_properties (GObjectClass *
    object_class, guint memory_limit_id, guint sequential_sums_id);

/* Chooses the backend at start: CUDA (context, stream) when the backend
 * property allows and a device works, else the CPU (with a warning under
 * backend=auto; an error, and FALSE, under backend=cuda). */
gboolean gst_ssim2_compare_open_backend (GstSsim2Compare * self);

/* CUDA context sharing (as the nvcodec elements do): takes the context a
 * neighbour sets, and answers context queries with the element's. No-ops
 * without CUDA or with backend=cpu. */
void gst_ssim2_compare_backend_set_context (GstSsim2Compare * self,
    GstContext * context);
gboolean gst_ssim2_compare_handle_context_query (GstSsim2Compare * self,
    GstQuery * query);

#ifdef HAVE_GST_CUDA
/* Makes @context (the context of a frame's CUDA memory) the element's, with
 * a new stream, as GStreamer's CUDA transforms do with frames of another
 * context: only while nothing was made in the element's own context. FALSE
 * (the element keeps its context) when the stream cannot be made. */
gboolean gst_ssim2_compare_adopt_cuda_context (GstSsim2Compare * self,
    GstCudaContext * context);
#endif

/* Releases the scorer and the CUDA resources. */
void gst_ssim2_compare_close_backend (GstSsim2Compare * self);

/* Scores @ref (ref frame number @ref_seq) against @dist (the head of the
 * rendition's queue) on the current backend. The reference is prepared once
 * per ref frame (Scorer::SetReference) and every rendition's frame paired
 * with it is scored against that preparation; under backend=auto a CUDA
 * failure switches to the CPU for good. The caller has checked that both
 * frames have one size.
 * Posts an error and returns a flow error when the pair cannot be scored;
 * returns FLOW_PAIR_UNSCORED when @rendition failed instead (a frame of its
 * pad could not be read while other renditions measure: a warning naming
 * the pad, gst_ssim2_compare_rendition_failed), and the frame leaves
 * unscored. */
#define FLOW_PAIR_UNSCORED GST_FLOW_CUSTOM_SUCCESS_1
GstFlowReturn gst_ssim2_compare_score_pair (GstSsim2Compare * self,
    GstBuffer * ref, guint64 ref_seq, ssim2gst::Rendition & rendition,
    GstBuffer * dist, double *score);

/* Scheduling of the pairs in flight (gstssim2backend.cpp owns them). */

/* Hands the pairs taken in one pass (in the order they were taken) to the
 * scorer without waiting for their scores: the pairs of one ref frame in
 * one call (Scorer::SubmitWithReference: one preparation of the reference;
 * the CUDA engine scores the renditions concurrently). Pairs that cannot be
 * submitted are scored one by one when they are completed. */
void gst_ssim2_compare_submit_pairs (GstSsim2Compare * self,
    std::vector < ssim2gst::PendingPair > &&pairs);

/* What sends on a scored pair (the element's push). */
using GstSsim2ComparePushPair = GstFlowReturn (*) (GstSsim2Compare * self,
    ssim2gst::PendingPair & pair);

/* Completes the batches in flight, oldest first: waits for their scores,
 * scores one by one (gst_ssim2_compare_score_pair, which reports what
 * failed) the pairs that did not get one, and hands every pair to @push in
 * the order they were taken. With @leave_in_flight the newest batches stay
 * in flight (pipelining, non-live only), unless a pair had to be scored
 * one by one (which may switch the backend). After a flow error the rest
 * is dropped, not pushed. */
GstFlowReturn gst_ssim2_compare_complete_pairs (GstSsim2Compare * self,
    bool leave_in_flight, GstSsim2ComparePushPair push);

/* Waits for the batches in flight and drops them with their frames, not
 * pushed: flushing, stopping. */
void gst_ssim2_compare_drop_pairs (GstSsim2Compare * self);

/* Batches in flight now. */
size_t gst_ssim2_compare_batches_in_flight (GstSsim2Compare * self);
