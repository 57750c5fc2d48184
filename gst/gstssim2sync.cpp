/* gst-ssim2: alignment=content in ssim2compare: which ref frame each dist
 * frame is scored against, as the core library's FrameAligner decides from
 * the pictures (ssim2/alignment.h, docs/ALIGNMENT.md). Here only what the
 * element does with it: signatures of the frames (CUDA-memory frames on the
 * CUDA backend: on the device, in batches), the ref frames kept
 * while an aligner may still name them (bounded by sync-max-bytes), the
 * dist frames held until decided, the lock messages, and each decision
 * acted on (a pair scored like any other, an unaligned frame sent on
 * unscored).
 * SPDX-License-Identifier: BSD-3-Clause */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstssim2sync.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

#include "gstssim2message.h"
#include "gstssim2report.h"
#include "gstssim2signpath.h"

#define GST_CAT_DEFAULT gst_ssim2_compare_debug

using ssim2gst::PendingPair;
using ssim2gst::RefFrame;
using ssim2gst::Rendition;
using RenditionPtr = std::shared_ptr < Rendition >;
using Aligner = ssim2::FrameAligner;

/* *INDENT-OFF* */
namespace ssim2gst {

/* A frame's signature: known, or computing on the device, the frame mapped
 * and referenced until it is collected. */
struct SignatureJob {
  ssim2::FrameSignatureMaker::Ticket ticket = 0;  /* 0: not on the device */
  BufferPtr buf;
  std::unique_ptr<MappedFrame> frame;
  std::shared_ptr<ssim2::FrameSignature> signature;  /* once done */
  /* Test hook "deferred-signatures": a host signature handed out as a
   * device one would be (done once its batch is launched). */
  std::shared_ptr<ssim2::FrameSignature> deferred;
  bool launched = false;

  bool Done () const { return ticket == 0 && !deferred; }
};
using SignatureJobPtr = std::shared_ptr<SignatureJob>;

/* The element's signatures on the device (CUDA backend, CUDA-memory
 * frames): computed in batches on the element's stream, collected once done,
 * so that no frame waits for its own (docs/ALIGNMENT.md). */
struct ContentSignatures {
  std::unique_ptr<ssim2::FrameSignatureMaker> maker;
  /* The host paths already logged (a bit per SignaturePath): said once. */
  unsigned host_paths_logged = 0;
  std::deque<SignatureJobPtr> computing;       /* in flight, oldest first */
  std::map<guint64, SignatureJobPtr> refs;     /* by ref sequence number */
#ifdef HAVE_GST_CUDA
  CudaFrameReader reader;
#endif
};

struct ContentSync {
  std::unique_ptr<ssim2::FrameAligner> aligner;
  /* Ref frame numbers (ref queue sequence) of the aligner's ref frame 0
   * and of the next ref frame to push to it. */
  guint64 origin = 0;
  guint64 next_ref = 0;
  /* Dist frames pushed to the aligner and not decided yet, oldest first
   * (owned). */
  std::deque<GstBuffer *> held;
  /* The newest of them whose signatures are still computing, oldest first,
   * each with whether it follows a discontinuity; they join the aligner in
   * order once done. */
  struct Signing {
    SignatureJobPtr job;
    bool discont;
  };
  std::deque<Signing> signing;
  bool pushed_dist = false;
  /* next_ref when the last dist frame was pushed (or the aligner made): the
   * ref frames since count how long the pad has had none. */
  guint64 ref_at_last_dist = 0;
  /* The aligner was told that the dist stream stopped (live: no frame for
   * longer than the window): it holds only the window's ref frames. */
  bool stopped = false;
  bool ref_ended = false;
  bool dist_ended = false;
  /* Distinct ref frames paired (for unmatched-ref): pairs of one lock name
   * ref frames in increasing order, a repeat the same one again. */
  gint64 last_paired_ref = -1;
  guint64 refs_paired = 0;
  /* Pairs whose ref frame sync-max-bytes had dropped: unaligned. */
  guint64 ref_dropped = 0;
  /* Frames that left unscored at their deadline before their decision
   * came (live): the next decisions are theirs, and are ignored. */
  guint64 gone = 0;
  /* The running times of the frames pushed and not decided yet (held, or
   * gone at their deadline), oldest first: the first is the aligner's
   * frame decided_to, the next decision's. A lock's messages name its
   * first frame's. */
  std::deque<GstClockTime> undecided_times;
  gint64 decided_to = 0;

  ~ContentSync ()
  {
    for (GstBuffer *buf : held)
      gst_buffer_unref (buf);
  }
};

}  // namespace ssim2gst
/* *INDENT-ON* */

using ssim2gst::ContentSignatures;
using ssim2gst::ContentSync;
using ssim2gst::SignatureJob;
using ssim2gst::SignatureJobPtr;

/* Frames per second of the ref caps, 30/1 while unknown. */
static void
ref_frame_rate (GstSsim2Compare * self, gint * n, gint * d)
{
  const GstVideoInfo & info = self->priv->ref.fmt.info;
  if (self->priv->ref.have_info && GST_VIDEO_INFO_FPS_N (&info) > 0 &&
      GST_VIDEO_INFO_FPS_D (&info) > 0) {
    *n = GST_VIDEO_INFO_FPS_N (&info);
    *d = GST_VIDEO_INFO_FPS_D (&info);
  } else {
    *n = 30;
    *d = 1;
  }
}

/* sync-window in frames of the ref stream (within the aligner's range). */
static int
window_frames (GstSsim2Compare * self)
{
  gint n, d;
  ref_frame_rate (self, &n, &d);
  const guint64 frames = gst_util_uint64_scale_round (self->priv->run.
      sync_window, n, (guint64) d * GST_SECOND);
  return (int) CLAMP (frames, 1, 108000);
}

void
gst_ssim2_compare_update_content_latency (GstSsim2Compare * self)
{
  if (self->priv->run.alignment != ssim2gst::Alignment::kContent)
    return;
  gint n, d;
  ref_frame_rate (self, &n, &d);
  const guint64 frames = (guint64) window_frames (self) +
      ssim2::AlignerOptions ().block;
  const GstClockTime latency = gst_util_uint64_scale (frames,
      (guint64) d * GST_SECOND, n);
  gst_aggregator_set_latency (GST_AGGREGATOR (self), latency, latency);
}

void
gst_ssim2_compare_install_content_properties (GObjectClass * object_class,
    guint sync_window_id, guint sync_max_bytes_id, guint held_ref_first_id)
{
  /**
   * GstSsim2Compare:sync-window:
   *
   * alignment=content: the offsets searched, in running time each way,
   * converted to frames with the ref caps' frame rate (30 fps when they
   * give none). While acquiring a lock a dist frame waits for the ref
   * frames up to this far after it: the element adds this (plus 10 frames)
   * to its latency.
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, sync_window_id,
      g_param_spec_uint64 ("sync-window", "Sync window",
          "alignment=content: offsets searched each way, in running time "
          "(ns), at the ref frame rate (30 fps when unknown)",
          GST_MSECOND, 3600 * GST_SECOND, DEFAULT_SYNC_WINDOW,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:sync-max-bytes:
   *
   * alignment=content: the most bytes of full ref frames held for pairs
   * still to be decided. Acquiring holds up to 2 x sync-window + 10 frames
   * (about 920 MiB at 1080p I420 for 5 s at 30 fps), plus what the
   * reference runs ahead of the dist stream. Beyond it the oldest are
   * dropped, with a warning, and pairs naming them are unaligned.
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, sync_max_bytes_id,
      g_param_spec_uint64 ("sync-max-bytes", "Sync max bytes",
          "alignment=content: most bytes of ref frames held for pairing "
          "(beyond: the oldest are dropped and their pairs unscored)",
          0, G_MAXUINT64, DEFAULT_SYNC_MAX_BYTES,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:held-ref-frames:
   *
   * Ref frames the element holds after its last aggregate pass because a
   * rendition has not passed them yet (alignment=content: an aligner may
   * still name them), with or without their full frame (sync-max-bytes
   * drops the oldest full frames, not their places). A watchdog's memory
   * figure: it stays bounded while every rendition is fed, and also while
   * one has stopped (live, content: the window's frames for it).
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, held_ref_first_id,
      g_param_spec_uint64 ("held-ref-frames", "Held ref frames",
          "Ref frames held for the renditions after the last pass "
          "(read-only: memory for watchdogs)", 0, G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:held-ref-bytes:
   *
   * Bytes of the full ref frames among held-ref-frames (the buffers' sizes).
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, held_ref_first_id + 1,
      g_param_spec_uint64 ("held-ref-bytes", "Held ref bytes",
          "Bytes of the full ref frames held for the renditions after the "
          "last pass (read-only: memory for watchdogs)", 0, G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  /**
   * GstSsim2Compare:held-ref-frames-by-pad:
   *
   * Per dist pad, the ref frames held for it after the last pass: those the
   * element took from the ref pad that the pad has not passed yet (with
   * alignment=content, from the oldest its aligner may still name). A
   * structure named `held-ref-frames` with one guint64 field per dist pad
   * the element has (`dist`, `dist_0`, ...; 0 once it ended or failed).
   * After a pass held-ref-frames is the largest of them: the watchdog's
   * answer to which rendition keeps the reference's memory.
   *
   * Since: 0.1
   */
  g_object_class_install_property (object_class, held_ref_first_id + 2,
      g_param_spec_boxed ("held-ref-frames-by-pad", "Held ref frames by pad",
          "Per dist pad, the ref frames held for it after the last pass "
          "(read-only: which rendition keeps the memory)", GST_TYPE_STRUCTURE,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

GstSsim2ContentCounts
gst_ssim2_compare_content_counts (const Rendition & r)
{
  GstSsim2ContentCounts counts;
  if (!r.sync || !r.sync->aligner)
    return counts;
  const Aligner::Counters & c = r.sync->aligner->counters ();
  counts.dropped = c.dropped;
  counts.repeated = c.repeated;
  counts.unaligned = c.unaligned + r.sync->ref_dropped;
  return counts;
}

/* The signature of @buf (a frame of @fmt), read on the host. A frame that
 * cannot be read gets an empty signature: the aligner takes it for a flat
 * frame, never paired. */
static std::shared_ptr < ssim2::FrameSignature >
host_signature (GstSsim2Compare * self, const ssim2gst::FrameFormat & fmt,
    GstBuffer * buf)
{
  auto sig = std::make_shared < ssim2::FrameSignature > ();
  ssim2gst::MappedFrame frame;
  std::string why;
  if (!ssim2gst::MapHostFrame (fmt, buf, &frame, &why)) {
    GST_WARNING_OBJECT (self, "cannot read a frame for its signature (%s): "
        "it is not paired", why.c_str ());
    return sig;
  }
  const ssim2::Status s = ssim2::ComputeFrameSignature (frame.view (),
      sig.get ());
  if (!s.ok ())
    GST_WARNING_OBJECT (self, "no signature for a frame (%s): it is not "
        "paired", s.message ().c_str ());
  return sig;
}

static ContentSignatures &
content_signatures (GstSsim2ComparePrivate * priv)
{
  if (!priv->signatures)
    priv->signatures = std::make_shared < ContentSignatures > ();
  return *priv->signatures;
}

#ifdef HAVE_GST_CUDA
/* Where @buf's signature is computed (gstssim2signpath.h): the facts. */
static ssim2gst::SignaturePath
signature_path (GstSsim2Compare * self, GstBuffer * buf)
{
  GstSsim2ComparePrivate *priv = self->priv;
  ssim2gst::SignatureFrameFacts facts;
  facts.cuda_backend = priv->use_cuda && priv->context;
  GstMemory *mem = gst_buffer_n_memory (buf) ? gst_buffer_peek_memory (buf,
      0) : nullptr;
  facts.cuda_memory = mem && gst_is_cuda_memory (mem);
  if (facts.cuda_backend && facts.cuda_memory) {
    GstCudaContext *theirs = GST_CUDA_MEMORY_CAST (mem)->context;
    facts.same_context = theirs == priv->context;
    guint device = 0;
    g_object_get (theirs, "cuda-device-id", &device, NULL);
    facts.same_device = priv->run.cuda_device < 0 ||
        device == (guint) priv->run.cuda_device;
    facts.context_in_use = priv->context_in_use;
  }
  return ssim2gst::DecideSignaturePath (facts);
}

/* Starts the signature of @buf on the device: CUDA memory of the element's
 * context (or of the context it takes from the frame) read in place on its
 * stream. False when that cannot be (then the host computes it). */
static bool
start_device_signature (GstSsim2Compare * self,
    const ssim2gst::FrameFormat & fmt, GstBuffer * buf, SignatureJob & job)
{
  GstSsim2ComparePrivate *priv = self->priv;
  const ssim2gst::SignaturePath path = signature_path (self, buf);
  if (path == ssim2gst::SignaturePath::kDeviceAdoptContext &&
      !gst_ssim2_compare_adopt_cuda_context (self,
          GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buf, 0))->context))
    return false;
  if (!ssim2gst::OnDevice (path)) {
    ContentSignatures & sigs = content_signatures (priv);
    const unsigned bit = 1u << (unsigned) path;
    if (!(sigs.host_paths_logged & bit)) {
      sigs.host_paths_logged |= bit;
      GST_INFO_OBJECT (self, "alignment=content: frame signatures on the "
          "host: %s", ssim2gst::SignaturePathWhy (path));
    }
    return false;
  }
  ContentSignatures & sigs = content_signatures (priv);
  if (!sigs.maker) {
    ssim2::FrameSignatureMaker::Options options;
    options.cuda_context = gst_cuda_context_get_handle (priv->context);
    priv->context_in_use = true;
    const ssim2::Status s = ssim2::FrameSignatureMaker::Create (options,
        &sigs.maker);
    if (!s.ok ()) {
      GST_WARNING_OBJECT (self, "no device signatures (%s): computing them "
          "on the host", s.message ().c_str ());
      return false;
    }
    GST_INFO_OBJECT (self, "alignment=content: frame signatures on the "
        "device, in batches of %d", options.batch);
  }
  auto frame = std::make_unique < ssim2gst::MappedFrame > ();
  std::string why;
  if (!sigs.reader.Map (priv->context, fmt, buf, frame.get (), &why)) {
    GST_WARNING_OBJECT (self, "cannot read a frame for its signature (%s): "
        "it is not paired", why.c_str ());
    job.signature = std::make_shared < ssim2::FrameSignature > ();
    return true;
  }
  const ssim2::Status s = sigs.maker->Enqueue (frame->view (), priv->stream,
      &job.ticket);
  if (job.ticket == 0) {
    GST_WARNING_OBJECT (self, "no signature for a frame (%s): it is not "
        "paired", s.message ().c_str ());
    job.signature = std::make_shared < ssim2::FrameSignature > ();
    return true;
  }
  /* A failed launch is reported again when the ticket is collected. */
  job.buf.reset (gst_buffer_ref (buf));
  job.frame = std::move (frame);
  return true;
}
#endif

/* The signature of @buf (a frame of @fmt): on the device for CUDA memory on
 * the CUDA backend (done later: finish_signature), else on the host now. */
static SignatureJobPtr
start_signature (GstSsim2Compare * self, const ssim2gst::FrameFormat & fmt,
    GstBuffer * buf)
{
  GstSsim2ComparePrivate *priv = self->priv;
  auto job = std::make_shared < SignatureJob > ();
#ifdef HAVE_GST_CUDA
  if (start_device_signature (self, fmt, buf, *job)) {
    if (job->ticket != 0)
      priv->signatures->computing.push_back (job);
    return job;
  }
#endif
  if (!gst_ssim2_compare_test_fault_is ("deferred-signatures")) {
    job->signature = host_signature (self, fmt, buf);
    return job;
  }
  /* The device's batches, on the host: launched a batch at a time. */
  ContentSignatures & sigs = content_signatures (priv);
  job->deferred = host_signature (self, fmt, buf);
  sigs.computing.push_back (job);
  const auto open = std::count_if (sigs.computing.begin (),
      sigs.computing.end (), [](const SignatureJobPtr & j) {
        return j->deferred && !j->launched;
      });
  if (open >= ssim2::FrameSignatureMaker::Options ().batch) {
    for (const SignatureJobPtr & j:sigs.computing)
      j->launched = true;
  }
  return job;
}

/* Whether @job's signature is known, collecting it if it is done, or
 * whatever it takes with @wait. A signature that failed is empty (the frame
 * is not paired). */
static bool
finish_signature (GstSsim2Compare * self, SignatureJob & job, bool wait)
{
  if (job.deferred) {
    if (!wait && !job.launched)
      return false;
    job.signature = std::move (job.deferred);
    return true;
  }
  if (job.ticket == 0)
    return true;
  ssim2::FrameSignatureMaker & maker = *self->priv->signatures->maker;
  if (!wait && !maker.Ready (job.ticket))
    return false;
  job.signature = std::make_shared < ssim2::FrameSignature > ();
  const ssim2::Status s = maker.Collect (job.ticket, job.signature.get ());
  if (!s.ok ())
    GST_WARNING_OBJECT (self, "no signature for a frame (%s): it is not "
        "paired", s.message ().c_str ());
  job.ticket = 0;
  job.frame.reset ();
  job.buf.reset ();
  return true;
}

/* Launches the signatures not launched yet, and forgets the finished ones. */
static void
flush_signatures (GstSsim2Compare * self)
{
  ContentSignatures *sigs = self->priv->signatures.get ();
  if (!sigs)
    return;
  for (const SignatureJobPtr & job:sigs->computing)
    job->launched = true;
  if (!sigs->maker)
    return;
  const ssim2::Status s = sigs->maker->Flush ();
  if (!s.ok ())
    GST_WARNING_OBJECT (self, "device signatures failed (%s): those frames "
        "are not paired", s.message ().c_str ());
}

static void
forget_finished (ContentSignatures & sigs)
{
  sigs.computing.erase (std::remove_if (sigs.computing.begin (),
          sigs.computing.end (), [](const SignatureJobPtr & job) {
            return job->Done ();
          }), sigs.computing.end ());
}

/* Waits for every signature in flight: their frames are released, their
 * signatures kept for whoever takes them. */
static void
wait_for_signatures (GstSsim2Compare * self, ContentSignatures & sigs)
{
  flush_signatures (self);
  for (const SignatureJobPtr & job:sigs.computing)
    finish_signature (self, *job, true);
  sigs.computing.clear ();
}

/* The content signatures with none in flight any more (see
 * wait_for_signatures); NULL without content alignment. */
static ContentSignatures *
settled_signatures (GstSsim2Compare * self)
{
  ContentSignatures *sigs = self->priv->signatures.get ();
  if (sigs)
    wait_for_signatures (self, *sigs);
  return sigs;
}

void
gst_ssim2_compare_content_finish_signatures (GstSsim2Compare * self)
{
  if (ContentSignatures * sigs = settled_signatures (self))
    sigs->refs.clear ();
}

void
gst_ssim2_compare_content_release_device (GstSsim2Compare * self)
{
  /* Finished, not dropped: a switch to the CPU keeps the signatures of the
   * frames already taken. */
  if (ContentSignatures * sigs = settled_signatures (self))
    sigs->maker.reset ();
}

/* Keeps the full ref frames held within sync-max-bytes: the oldest go
 * first (their signatures stay), and a pair that names one becomes
 * unaligned. The first drop of a measurement posts a warning. */
static void
bound_held_refs (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  guint64 bytes = gst_ssim2_compare_ref_queue_bytes (self);
  const guint64 max_bytes = priv->run.sync_max_bytes;
  for (RefFrame & f:priv->ref_queue) {
    if (bytes <= max_bytes)
      break;
    if (!f.buf)
      continue;
    bytes -= gst_buffer_get_size (f.buf);
    gst_clear_buffer (&f.buf);
    if (priv->sync_refs_dropped++ == 0) {
      GST_ELEMENT_WARNING_WITH_DETAILS (self, RESOURCE, NO_SPACE_LEFT,
          ("alignment=content needs more reference frames than sync-max-bytes "
              "(%" G_GUINT64_FORMAT " bytes) holds: the oldest are dropped, "
              "and distorted frames that show them pass unscored (counted as "
              "unaligned).", max_bytes),
          ("Raise sync-max-bytes, or lower sync-window (the reference frames "
              "held reach about 2 x sync-window plus what the reference runs "
              "ahead of the distorted stream)."),
          ("sync-max-bytes", G_TYPE_UINT64, max_bytes, NULL));
    }
  }
}

/* Running time of @pos in @pad's segment (GST_CLOCK_TIME_NONE: none). */
static GstClockTime
running_time_of (GstAggregatorPad * pad, GstClockTime pos)
{
  if (!GST_CLOCK_TIME_IS_VALID (pos))
    return GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (pad);
  const GstClockTime rt = gst_segment_to_running_time (&pad->segment,
      GST_FORMAT_TIME, pos);
  GST_OBJECT_UNLOCK (pad);
  return rt;
}

/* Takes every ref frame waiting on the ref pad into the ref queue with its
 * signature (computed once for all renditions). Ref gaps hold no frame:
 * content pairing skips them. */
static void
take_refs (GstSsim2Compare * self, bool *progressed)
{
  GstSsim2ComparePrivate *priv = self->priv;
  GstBuffer *head;
  while ((head = gst_aggregator_pad_peek_buffer (self->ref_pad))) {
    const bool gap = gst_ssim2_compare_is_gap (head);
    SignatureJobPtr job;
    if (!gap)
      job = start_signature (self, priv->ref.fmt, head);
    gst_buffer_unref (head);
    GstBuffer *buf = gst_aggregator_pad_pop_buffer (self->ref_pad);
    if (!buf)
      return;                   /* flushed meanwhile */
    *progressed = true;
    if (gap) {
      gst_buffer_unref (buf);
      continue;
    }
    RefFrame f;
    f.buf = buf;
    /* Its running time (the messages name it by), and when the next ref
     * frame is due (live deadlines). */
    const GstClockTime pts = GST_BUFFER_PTS (buf);
    if (GST_CLOCK_TIME_IS_VALID (pts)) {
      GstClockTime end = pts;
      if (GST_BUFFER_DURATION_IS_VALID (buf)) {
        end += GST_BUFFER_DURATION (buf);
      } else {
        gint n, d;
        ref_frame_rate (self, &n, &d);
        end += gst_util_uint64_scale (GST_SECOND, d, n);
      }
      f.running_time = running_time_of (self->ref_pad, pts);
      priv->sync_ref_due = running_time_of (self->ref_pad, end);
    }
    if (job->signature)
      f.signature = std::move (job->signature);
    else
      priv->signatures->refs[priv->ref_next] = std::move (job);
    priv->ref_queue.push_back (std::move (f));
    priv->ref_next++;
    bound_held_refs (self);
  }
}

/* The aligner of @r for this measurement, made at its first step: it
 * starts at the oldest ref frame still queued for it. */
static bool
ensure_sync (GstSsim2Compare * self, Rendition & r)
{
  if (r.sync)
    return true;
  ssim2::AlignerOptions options;
  options.window = window_frames (self);
  std::unique_ptr < Aligner > aligner;
  const ssim2::Status s = Aligner::Create (options, &aligner);
  if (!s.ok ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Cannot align by content: %s.", s.message ().c_str ()),
        ("Check sync-window."));
    return false;
  }
  auto sync = std::make_shared < ContentSync > ();
  sync->aligner = std::move (aligner);
  sync->origin = sync->next_ref = sync->ref_at_last_dist = r.ref_pos;
  r.sync = std::move (sync);
  GST_INFO_OBJECT (self, "%s: aligning by content over +-%d frames",
      r.name.c_str (), options.window);
  return true;
}

static const char *
sync_state_name (Aligner::EventKind kind)
{
  switch (kind) {
    case Aligner::EventKind::kLocked:
      return "locked";
    case Aligner::EventKind::kLost:
      return "lost";
    case Aligner::EventKind::kRelocked:
    default:
      return "relocked";
  }
}

/* The running times of a lock's first frame (its decision comes after the
 * event: still undecided) and of its partner (unless the ref queue was
 * trimmed past it). */
static void
lock_running_times (GstSsim2Compare * self, const Rendition & r,
    const Aligner::Event & ev, GstSsim2SyncMessage * m)
{
  GstSsim2ComparePrivate *priv = self->priv;
  const ContentSync & s = *r.sync;
  const gint64 at = ev.dist_index - s.decided_to;
  if (at >= 0 && at < (gint64) s.undecided_times.size ())
    m->running_time = s.undecided_times[at];
  const gint64 ref_index = ev.dist_index + ev.offset;
  if (ref_index < 0)
    return;
  const guint64 seq = s.origin + (guint64) ref_index;
  if (seq >= priv->ref_base && seq - priv->ref_base < priv->ref_queue.size ())
    m->ref_running_time = priv->ref_queue[seq - priv->ref_base].running_time;
  GST_DEBUG_OBJECT (self, "%s: lock at frame %" G_GINT64_FORMAT " (%"
      G_GINT64_FORMAT " undecided from %" G_GINT64_FORMAT "), ref frame %"
      G_GUINT64_FORMAT " (ref queue %" G_GUINT64_FORMAT " + %zu): running "
      "times %" GST_TIME_FORMAT ", ref %" GST_TIME_FORMAT, r.name.c_str (),
      ev.dist_index, (gint64) s.undecided_times.size (), s.decided_to, seq,
      priv->ref_base, priv->ref_queue.size (), GST_TIME_ARGS (m->running_time),
      GST_TIME_ARGS (m->ref_running_time));
}

static void
post_sync_message (GstSsim2Compare * self, const Rendition & r,
    const Aligner::Event & ev)
{
  GstSsim2SyncMessage m;
  gst_ssim2_sync_message_init (&m);
  m.pad = r.name.c_str ();
  m.state = sync_state_name (ev.kind);
  m.frame = (guint64) ev.dist_index;
  m.offset = ev.offset;
  m.confidence = ev.confidence;
  if (ev.kind != Aligner::EventKind::kLost)
    lock_running_times (self, r, ev, &m);
  gst_ssim2_compare_post_sync (self, m);
}

/* Sends on @buf (owned) unscored (skipped for lateness, unaligned, or
 * neither: frame-step), after every pair taken before it: those
 * of this pass (@pending) are submitted now and completed with those in
 * flight, so that the pad's frames, messages and rows keep their order. */
static GstFlowReturn
send_unscored (GstSsim2Compare * self, Rendition & r, GstBuffer * buf,
    guint64 index, bool skipped, bool unaligned,
    std::vector < PendingPair > &pending)
{
  if (!pending.empty ()) {
    gst_ssim2_compare_submit_pairs (self, std::move (pending));
    pending.clear ();
  }
  GstFlowReturn ret = gst_ssim2_compare_complete_scoring (self);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (buf);
    return ret;
  }
  return gst_ssim2_compare_push_dist_buffer (self, r, buf, nullptr, index, {},
      skipped, unaligned);
}

GstFlowReturn
gst_ssim2_compare_content_release_held (GstSsim2Compare * self, Rendition & r)
{
  if (!r.sync)
    return GST_FLOW_OK;
  std::deque < GstBuffer * >held;
  held.swap (r.sync->held);
  r.sync->signing.clear ();     /* finished with the others */
  GstFlowReturn ret = GST_FLOW_OK;
  for (GstBuffer *buf : held) {
    if (ret == GST_FLOW_OK)
      ret = gst_ssim2_compare_push_dist_buffer (self, r, buf, nullptr, 0, {},
          false);
    else
      gst_buffer_unref (buf);
  }
  return ret;
}

/* Acts on one decision about @buf (owned), the oldest held frame. */
static GstFlowReturn
act_on (GstSsim2Compare * self, const RenditionPtr & rendition,
    const Aligner::Decision & d, GstBuffer * buf,
    std::vector < PendingPair > &pending)
{
  Rendition & r = *rendition;
  GstSsim2ComparePrivate *priv = self->priv;
  ContentSync & s = *r.sync;
  const RefFrame *ref = nullptr;
  const guint64 seq = s.origin + (guint64) d.ref_index;
  if (d.kind == Aligner::DecisionKind::kPair) {
    if (d.ref_index != s.last_paired_ref) {
      s.last_paired_ref = d.ref_index;
      s.refs_paired++;
    }
    if (seq >= priv->ref_base && seq - priv->ref_base < priv->ref_queue.size ())
      ref = &priv->ref_queue[seq - priv->ref_base];
    if (!ref || !ref->buf) {
      GST_DEBUG_OBJECT (self, "%s: ref frame %" G_GINT64_FORMAT " was dropped "
          "(sync-max-bytes): frame %" G_GINT64_FORMAT " unaligned",
          r.name.c_str (), d.ref_index, d.dist_index);
      s.ref_dropped++;
      ref = nullptr;
    }
  }
  if (!ref) {
    r.unmatched_dist++;
    return send_unscored (self, r, buf, 0, false, true, pending);
  }
  const guint64 index = r.pair_index++;
  const bool unscored = index % MAX (priv->run.every, 1u) != 0;
  const bool late = !unscored && gst_ssim2_compare_too_late (self, r, buf);
  if (unscored || late) {
    if (late)
      r.skipped++;
    return send_unscored (self, r, buf, index, late, false, pending);
  }
  PendingPair p;
  p.rendition = rendition;
  p.ref.reset (gst_buffer_ref (ref->buf));
  p.ref_seq = seq;
  p.partner.frame = d.ref_index;
  p.partner.running_time = ref->running_time;
  p.dist.reset (buf);
  p.index = index;
  pending.push_back (std::move (p));
  return GST_FLOW_OK;
}

/* Pushes the ref frames @r's aligner has not seen, in order and as far as
 * their signatures are known (collecting those that are done, or waiting
 * for them with @wait), and the end of the ref stream once it came. */
static void
feed_refs (GstSsim2Compare * self, Rendition & r, bool wait, bool *progressed)
{
  GstSsim2ComparePrivate *priv = self->priv;
  ContentSync & s = *r.sync;
  while (s.next_ref < priv->ref_next) {
    RefFrame & f = priv->ref_queue[s.next_ref - priv->ref_base];
    if (!f.signature && priv->signatures) {
      auto job = priv->signatures->refs.find (s.next_ref);
      if (job != priv->signatures->refs.end ()) {
        if (!finish_signature (self, *job->second, wait))
          break;
        f.signature = std::move (job->second->signature);
        priv->signatures->refs.erase (job);
      }
    }
    const ssim2::Status st = s.aligner->PushReference (f.signature ?
        *f.signature : ssim2::FrameSignature ());
    if (!st.ok ()) {
      /* A ref frame of another size than the first: never paired. */
      GST_WARNING_OBJECT (self, "%s: %s", r.name.c_str (),
          st.message ().c_str ());
      s.aligner->PushReference (ssim2::FrameSignature ());
    }
    s.next_ref++;
    r.ref_frames++;
  }
  if (!s.ref_ended && s.next_ref == priv->ref_next &&
      gst_aggregator_pad_is_eos (self->ref_pad)) {
    GstBuffer *head = gst_aggregator_pad_peek_buffer (self->ref_pad);
    if (head) {
      gst_buffer_unref (head);
      return;
    }
    s.aligner->EndReference ();
    s.ref_ended = r.ref_ended = true;
    r.ref_ended_first = !s.dist_ended;
    *progressed = true;
  }
}

/* Pushes @r's held frames whose signatures are known into its aligner, in
 * order (collecting those that are done, or waiting for them with @wait),
 * and ends the dist stream at EOS once all are in. */
static void
push_signed (GstSsim2Compare * self, Rendition & r, bool wait,
    bool *progressed)
{
  ContentSync & s = *r.sync;
  while (!s.signing.empty ()) {
    ContentSync::Signing & next = s.signing.front ();
    if (!finish_signature (self, *next.job, wait))
      break;
    /* A frame after lost data does not follow the one before it. */
    if (next.discont && s.pushed_dist)
      s.aligner->Discontinuity ();
    if (!s.aligner->PushDistorted (std::move (*next.job->signature)).ok ())
      s.aligner->PushDistorted (ssim2::FrameSignature ());
    if (s.stopped)
      GST_INFO_OBJECT (self, "%s: frames again after %" G_GUINT64_FORMAT
          " ref frames without one: aligning again around the newest ref "
          "frames", r.name.c_str (), s.next_ref - s.ref_at_last_dist);
    s.pushed_dist = true;
    s.stopped = false;
    s.ref_at_last_dist = s.next_ref;
    s.signing.pop_front ();
  }
  if (!s.dist_ended && s.signing.empty () && gst_aggregator_pad_is_eos (r.pad)) {
    GstBuffer *head = gst_aggregator_pad_peek_buffer (r.pad);
    if (head) {
      gst_buffer_unref (head);
      return;
    }
    s.aligner->EndDistorted ();
    s.dist_ended = true;
    r.st.ended = true;
    *progressed = true;
  }
}

/* Takes the head of @r's pad into its held frames, its signature started
 * (a frame), or drops it (a gap: no frame to pair); *@took says whether
 * there was one. */
static GstFlowReturn
feed_dist_head (GstSsim2Compare * self, Rendition & r, bool *took)
{
  GstSsim2ComparePrivate *priv = self->priv;
  ContentSync & s = *r.sync;
  *took = false;
  GstBuffer *head = gst_aggregator_pad_peek_buffer (r.pad);
  if (!head)
    return GST_FLOW_OK;
  *took = true;
  if (gst_ssim2_compare_is_gap (head)) {
    gst_buffer_unref (head);
    GstBuffer *gap = gst_aggregator_pad_pop_buffer (r.pad);
    if (gap)
      gst_buffer_unref (gap);
    r.unmatched_dist++;
    return GST_FLOW_OK;
  }
  if (r.to_src && !gst_ssim2_compare_ensure_src_caps (self, r)) {
    gst_buffer_unref (head);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (priv->ref.have_info && !gst_ssim2_compare_same_size (self, r)) {
    gst_buffer_unref (head);
    return r.failed ? GST_FLOW_OK : GST_FLOW_NOT_NEGOTIATED;
  }
  ContentSync::Signing signing;
  signing.job = start_signature (self, r.st.fmt, head);
  signing.discont = GST_BUFFER_FLAG_IS_SET (head, GST_BUFFER_FLAG_DISCONT);
  gst_buffer_unref (head);
  GstBuffer *buf = gst_aggregator_pad_pop_buffer (r.pad);
  if (!buf)
    return GST_FLOW_OK;         /* flushed meanwhile */
  s.held.push_back (buf);
  s.undecided_times.push_back (running_time_of (r.pad, GST_BUFFER_PTS (buf)));
  s.signing.push_back (std::move (signing));
  return GST_FLOW_OK;
}

/* Takes every frame waiting on @r's pad (feed_dist_head), not one per
 * pass: in a live pipeline whose other dist pad is empty (a rendition
 * down) passes come only at the deadlines, a few a second, and one frame a
 * pass fell behind the pad's frame rate until every frame was late. The
 * aligner's decisions do not depend on how its input is split into passes. */
static GstFlowReturn
feed_dist (GstSsim2Compare * self, Rendition & r, bool *progressed)
{
  GstFlowReturn ret = GST_FLOW_OK;
  bool took = true;
  while (ret == GST_FLOW_OK && took && !r.failed) {
    ret = feed_dist_head (self, r, &took);
    *progressed = *progressed || took;
  }
  return ret;
}

/* Signature batches in flight beyond which a step waits for them: the lag
 * between a frame's arrival and its aligner is a few batches at most. */
#define MAX_SIGNATURE_BATCHES_IN_FLIGHT 4

/* Whether this step waits for the signatures computing on the device (ref
 * frames, @r's frames): at a deadline (live), at the end of that stream, and
 * when too many are in flight. Otherwise it takes those that are done, and
 * the rest join later passes: no frame waits for its own signature, and
 * the frames are held here anyway while the aligner decides. The open batch
 * is launched when it is full (FrameSignatureMaker), before a wait, and in a
 * live pipeline whenever both pads have run dry (low latency rather than
 * full batches). */
struct SignatureWaits
{
  bool ref = false;
  bool dist = false;
};

static SignatureWaits
settle_signatures (GstSsim2Compare * self, Rendition & r, gboolean timeout)
{
  SignatureWaits waits;
  ContentSignatures *sigs = self->priv->signatures.get ();
  if (!sigs)
    return waits;
  forget_finished (*sigs);
  const bool overfull = sigs->computing.size () >
      MAX_SIGNATURE_BATCHES_IN_FLIGHT *
      (size_t) ssim2::FrameSignatureMaker::Options ().batch;
  waits.ref = timeout || overfull || gst_aggregator_pad_is_eos (self->ref_pad);
  waits.dist = timeout || overfull || gst_aggregator_pad_is_eos (r.pad);
  const bool dry = !gst_aggregator_pad_has_buffer (self->ref_pad) &&
      !gst_aggregator_pad_has_buffer (r.pad);
  const bool live = GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency
      (GST_AGGREGATOR (self)));
  if (waits.ref || waits.dist || (live && dry))
    flush_signatures (self);
  return waits;
}

/* max-lateness as a live pipeline uses it. */
static gint64
live_max_lateness (GstSsim2Compare * self)
{
  GST_OBJECT_LOCK (self);
  const gint64 max_lateness = self->priv->settings.max_lateness;
  GST_OBJECT_UNLOCK (self);
  return max_lateness < 0 ? (gint64) AUTO_LIVE_MAX_LATENESS : max_lateness;
}

GstClockTime
gst_ssim2_compare_content_next_time (GstSsim2Compare * self)
{
  GstSsim2ComparePrivate *priv = self->priv;
  /* The next ref frame: decisions wait for ref frames, so they are taken
   * as they come, also while a dist pad has nothing (a transcode's delay):
   * a full ref pad would stall a tee feeding both. A timeout that took
   * nothing moves the deadline a frame on, so that a stalled ref does not
   * make the aggregator spin. */
  GstClockTime next = priv->sync_ref_due;
  if (GST_CLOCK_TIME_IS_VALID (next)) {
    gint n, d;
    ref_frame_rate (self, &n, &d);
    next += gst_util_uint64_scale (priv->sync_idle_timeouts,
        (guint64) d * GST_SECOND, n);
  }
  const guint64 max_lateness = (guint64) live_max_lateness (self);
  for (const RenditionPtr & r:gst_ssim2_compare_renditions (self)) {
    if (!r->sync || r->sync->held.empty () || r->finished)
      continue;
    const GstClockTime rt = running_time_of (r->pad,
        GST_BUFFER_PTS (r->sync->held.front ()));
    if (!GST_CLOCK_TIME_IS_VALID (rt) || G_MAXUINT64 - rt <= max_lateness)
      continue;
    /* Past this the frame is too late (the aggregator adds the latency,
     * as gst_ssim2_compare_too_late does); one nanosecond after it. */
    next = MIN (next, rt + max_lateness + 1);
  }
  /* Nothing known yet: the output's position, as in the other modes. */
  return GST_CLOCK_TIME_IS_VALID (next) ? next :
      gst_aggregator_simple_get_next_time (GST_AGGREGATOR (self));
}

/* Live, after the deadline: held frames later than max-lateness leave
 * unscored (skipped); their decisions, when they come, are ignored. */
static GstFlowReturn
pass_late_frames (GstSsim2Compare * self, Rendition & r, bool *progressed,
    std::vector < PendingPair > &pending)
{
  ContentSync & s = *r.sync;
  while (!s.held.empty () &&
      gst_ssim2_compare_too_late (self, r, s.held.front ())) {
    GstBuffer *buf = s.held.front ();
    s.held.pop_front ();
    s.gone++;
    r.skipped++;
    *progressed = true;
    GST_DEBUG_OBJECT (self, "%s: a held frame is later than max-lateness: "
        "passed unscored before its decision", r.name.c_str ());
    GstFlowReturn ret = send_unscored (self, r, buf, 0, true, false, pending);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  return GST_FLOW_OK;
}

/* Live: a dist pad that has had no frame while more ref frames than the
 * window (and a block) came, with nothing held, is stopped (a source that
 * went down): its aligner keeps only the window's ref frames for it, so
 * that the ref queue does not grow for it while the other renditions go
 * on, and it places the pad's next frame at the newest ref frames
 * (FrameAligner::StopDistorted). */
static void
stop_if_idle (GstSsim2Compare * self, Rendition & r)
{
  ContentSync & s = *r.sync;
  if (s.stopped || s.dist_ended || !s.held.empty () || !s.signing.empty () ||
      gst_aggregator_pad_has_buffer (r.pad) ||
      !GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (GST_AGGREGATOR
              (self))))
    return;
  const guint64 idle = s.next_ref - s.ref_at_last_dist;
  if (idle <= (guint64) s.aligner->options ().window +
      s.aligner->options ().block)
    return;
  s.aligner->StopDistorted ();
  s.stopped = true;
  GST_INFO_OBJECT (self, "%s: no frame for %" G_GUINT64_FORMAT " ref frames: "
      "holding only the window's ref frames for it", r.name.c_str (), idle);
}

GstFlowReturn
gst_ssim2_compare_step_content (GstSsim2Compare * self,
    const RenditionPtr & rendition, gboolean timeout, bool *progressed,
    std::vector < PendingPair > &pending)
{
  Rendition & r = *rendition;
  bool took = false;
  take_refs (self, &took);
  if (!ensure_sync (self, r))
    return GST_FLOW_ERROR;
  ContentSync & s = *r.sync;
  GstFlowReturn ret = feed_dist (self, r, &took);
  if (ret != GST_FLOW_OK || r.failed) {
    *progressed = took;
    return ret;
  }
  const SignatureWaits waits = settle_signatures (self, r, timeout);
  feed_refs (self, r, waits.ref, &took);
  push_signed (self, r, waits.dist, &took);

  /* Every decision the aligner can take now, each after the lock events
   * that concern it. */
  Aligner::Event ev;
  Aligner::Decision d;
  while (ret == GST_FLOW_OK) {
    while (s.aligner->NextEvent (&ev))
      post_sync_message (self, r, ev);
    if ((s.held.empty () && s.gone == 0) || !s.aligner->NextDecision (&d))
      break;
    took = true;
    s.decided_to = d.dist_index + 1;
    if (!s.undecided_times.empty ())
      s.undecided_times.pop_front ();
    if (s.gone > 0) {
      s.gone--;                 /* the frame left at its deadline */
      continue;
    }
    GstBuffer *buf = s.held.front ();
    s.held.pop_front ();
    ret = act_on (self, rendition, d, buf, pending);
  }
  if (ret == GST_FLOW_OK && timeout)
    ret = pass_late_frames (self, r, &took, pending);
  if (ret != GST_FLOW_OK) {
    *progressed = took;
    return ret;
  }

  if (s.dist_ended && s.held.empty () && !r.finished) {
    /* Its last pairs leave before its summary. */
    if (!pending.empty ()) {
      gst_ssim2_compare_submit_pairs (self, std::move (pending));
      pending.clear ();
    }
    ret = gst_ssim2_compare_complete_scoring (self);
    if (ret != GST_FLOW_OK)
      return ret;
    r.unmatched_ref = (s.next_ref - s.origin) - s.refs_paired;
    gst_ssim2_compare_finish_rendition (self, r);
    took = true;
  }

  stop_if_idle (self, r);

  /* The ref frames it may still name stay queued (trim_ref_queue). */
  const gint64 oldest = std::max < gint64 > (0,
      s.aligner->OldestReferenceNeeded ());
  r.ref_pos = MIN (s.next_ref, s.origin + (guint64) oldest);
  *progressed = took;
  return GST_FLOW_OK;
}
