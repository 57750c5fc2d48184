// Content alignment: which reference frame a distorted frame shows, found
// from the pictures themselves rather than from timestamps.
//
// Two parts:
// - ComputeFrameSignature() reduces a frame to a small luma grid (about
//   64x36 cells), normalised to mean 0 and variance 1, plus the frame's own
//   contrast and mean before normalising;
// - FrameAligner matches the signatures of one distorted stream against
//   those of the reference stream and decides, frame by frame and in
//   distorted order, which reference frame each distorted frame is to be
//   scored against, or that it is unaligned (scored against nothing).
//
// The rule the aligner keeps above all others: it never pairs a frame it is
// not sure of. Black, flat, frozen or still content, and content too slow
// for neighbouring frames to be told apart, gives unaligned frames, not
// guesses. How it works, its parameters and limits: docs/ALIGNMENT.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ssim2/ssim2.h"

namespace ssim2 {

// ---------------------------------------------------------------------------
// Frame signatures

// A frame's luma, box-averaged over a grid of cells.
//
// The grid has about kSignatureCells cells, as square as the image allows
// (1920x1080 and every 16:9 size: 64x36; 4:3: 55x42; square: 48x48). An
// image narrower or lower than the grid gets one cell per pixel in that
// direction (a 17x33 image: 17x33 cells). Every cell averages a box of
// whole pixels; box edges are at floor(i * width / grid_width) (rows
// likewise), so the whole image is covered and no pixel counts twice.
//
// Luma: Y'CbCr formats read their luma plane as it is; packed RGB formats
// use 0.2126 R' + 0.7152 G' + 0.0722 B' of the encoded samples (grey: the
// grey sample; alpha is ignored); planar linear float uses the same weights
// on the linear values. Samples are scaled to 0..1 of their format's full
// range (8 bit /255, 10 bit /1023, 16 bit /65535).
//
// Two signatures can be compared only when their grids are equal, which is
// so for two images of the same size.
struct FrameSignature {
  static constexpr int kSignatureCells = 64 * 36;

  int grid_width = 0;   // 0: no signature (nothing known of the frame)
  int grid_height = 0;
  // Cell means, row by row, minus their mean and divided by `contrast`: mean
  // 0, variance 1. All 0 when contrast is 0.
  std::vector<float> cells;
  // Mean and standard deviation of the cell means before normalising, in
  // units of full-scale luma (0..1); under 1e-9 it is 0. A small contrast is
  // a flat picture (black, a fade, one colour): nothing to align on.
  double mean = 0.0;
  double contrast = 0.0;

  bool empty() const { return cells.empty(); }
};

// The signature of one image (every PixelFormat), in host memory (one pass
// over the luma samples) or in CUDA device memory (computed on the device,
// in the context current on the calling thread, after the work on the legacy
// default stream, with device scratch allocated for this call; per frame,
// use a FrameSignatureMaker). Host and device give the same signature, bit for
// bit. Device images without a CUDA build: kBackendUnavailable. `*out` is
// replaced; on failure it is empty.
Status ComputeFrameSignature(const ImageView& image, FrameSignature* out);

// Signatures of a stream of frames, host or CUDA device memory, keeping the
// device scratch (grown to the largest batch of frames) and pinned memory from
// one frame to the next. One per thread that computes signatures (a
// streaming thread); not thread-safe.
//
// Device frames are computed in batches without waiting: Enqueue() adds a
// frame to the open batch (launched when it holds Options::batch frames, at
// Flush(), or when a ticket of it is collected), and Collect() returns a
// signature, waiting only if its batch has not finished; Ready() says whether
// it would wait. A caller that holds its frames anyway (the element's
// alignment window) collects each a batch or so later, and nothing
// synchronises per frame. Compute() is Enqueue() and Collect() of one frame.
class FrameSignatureMaker {
 public:
  struct Options {
    // A CUcontext (as void*) made current around each device computation;
    // null: the context current on the calling thread (as
    // ScorerOptions::cuda_context).
    void* cuda_context = nullptr;
    // Device frames computed together: one launch of each kernel and one
    // copy of the results for this many frames. 1..64.
    int batch = 8;
  };
  // A signature in flight; 0 is none.
  using Ticket = std::uint64_t;

  ~FrameSignatureMaker();
  FrameSignatureMaker(const FrameSignatureMaker&) = delete;
  FrameSignatureMaker& operator=(const FrameSignatureMaker&) = delete;

  // Allocates nothing on the device (that happens at the first device frame),
  // so it succeeds in builds without CUDA too. kInvalidArgument for a batch
  // out of range.
  static Status Create(const Options& options, std::unique_ptr<FrameSignatureMaker>* out);

  // As ComputeFrameSignature(). A device image is read on the device after
  // the work enqueued on `cuda_stream` before this call (a cudaStream_t or
  // CUstream, as void*; null: the legacy default stream), such as the
  // decoder's copy of the frame; the call synchronises before it returns.
  Status Compute(const ImageView& image, void* cuda_stream, FrameSignature* out);

  // Takes `image` and sets *ticket (0 when the image was refused: a bad image,
  // no device). A host image is computed at once; a device image joins the
  // open batch, read after the work enqueued on `cuda_stream` before this
  // call, and must stay readable (and unchanged) until its ticket is
  // collected. A failed launch of the batch is returned here and again by the
  // Collect() of each of its tickets.
  Status Enqueue(const ImageView& image, void* cuda_stream, Ticket* ticket);
  // Launches the open batch now (nothing when it is empty).
  Status Flush();
  // Whether Collect(ticket) would return without waiting for the device:
  // false while its batch is open or running.
  bool Ready(Ticket ticket);
  // The signature of `ticket`, launching its batch if it is open and waiting
  // for it if it has not finished; then the ticket is spent. Tickets may be
  // collected in any order; one not in flight is kInvalidArgument. `*out` is
  // replaced; on failure it is empty.
  Status Collect(Ticket ticket, FrameSignature* out);
  // Tickets taken and not collected.
  std::size_t in_flight() const;

  // Device scratch held now, in bytes (device memory and pinned host memory).
  std::size_t device_bytes() const;

 private:
  struct Impl;
  __attribute__((visibility("hidden"))) FrameSignatureMaker();  // not exported
  std::unique_ptr<Impl> impl_;
};

// How unlike two signatures are: 1 - their correlation (the mean of the
// products of their normalised cells), in [0, 2]; 0 for equal pictures up to
// a change of brightness and contrast. A flat or empty signature has
// correlation 0 with anything (distance 1). The grids must be equal (else 1).
double SignatureDistance(const FrameSignature& a, const FrameSignature& b);

// ---------------------------------------------------------------------------
// The aligner

struct AlignerOptions {
  // Reference frames searched, each way, around a distorted frame's
  // position (its predicted partner): before the first lock, its index;
  // after, the last pair's reference frame plus the frames since at the rate
  // of reference frames per distorted frame measured over the lock. So the
  // first offset found is within +-window, and the search then follows the
  // lock however far a rendition that drops frames drifts. The element
  // converts its sync-window (running time) with the frame rate; 150 is 5 s
  // at 30 fps. At most 108000 (an hour at 30 fps).
  int window = 150;
  // Consecutive distorted frames matched together to acquire a lock.
  int block = 10;
  // Once locked, a distorted frame is matched against the reference frames
  // within this many of the predicted one (not before the frame paired
  // last): the dropped frames in a row beyond the rate's prediction, or
  // repeats while unaligned, that tracking follows without re-acquiring.
  int track_radius = 3;
  // Largest signature distance accepted for a pair or a lock (the distance of
  // a frame to its own reference frame after encoding is usually well under
  // 0.05; different pictures are usually over 0.3).
  double max_distance = 0.15;
  // A match is clear when the second-best candidate's distance exceeds the
  // best's by at least min_margin and by at least margin_ratio times the
  // best's distance. Below that the candidates are ambiguous: unaligned.
  double min_margin = 0.001;
  double margin_ratio = 1.0;
  // Frames whose contrast (FrameSignature::contrast) is under this are flat:
  // unaligned, and never a candidate.
  double min_contrast = 0.01;
  // Consecutive distorted frames that match no candidate (too far, or the
  // best at the edge of the candidates) before the lock is given up and
  // acquired again. Ambiguous and flat frames do not count.
  int lost_after = 5;
};

// The options' check: every field in range, with a message naming the one
// that is not.
Status ValidateAlignerOptions(const AlignerOptions& options);

// Pairs one distorted stream with the reference stream by content.
//
// Contract:
// - Frames are numbered from 0 in the order they are pushed, on each side
//   (reference and distorted separately). An offset is ref_index -
//   dist_index of a pair.
// - NextDecision() hands out exactly one Decision per distorted frame, in
//   distorted order: kPair (score dist_index against ref_index) or
//   kUnaligned (score it against nothing). A decision is final, and the
//   pairs of one lock are in increasing ref order (a repeat may name the
//   same ref frame again). A decision comes once the frames it may depend
//   on have been pushed: while acquiring, the `block - 1` distorted frames
//   after it and the reference frames up to `window` after the block's
//   last frame's position; while locked, the reference frames up to `track_radius + 1`
//   after the predicted one. EndReference()/EndDistorted() say
//   that no more will come, and after both every distorted frame has its
//   decision.
// - Never a guess: a frame is paired only with a reference frame whose
//   signature is clearly closer than that of every other candidate.
// - Deterministic: the same pushes and calls give the same decisions and
//   events, whatever the interleaving of pushes and NextDecision() calls.
// - Memory: reference signatures before the window of the oldest
//   undecided frame's position (while locked, before the last pair) are
//   released, and no decision names them; distorted signatures are kept
//   until decided. The window follows the prediction, so what is kept does
//   not grow with a rendition's drift. The reference may run ahead of the distorted stream (or
//   the reverse): the aligner keeps what comes, so how far ahead is the
//   caller's to bound.
//   A distorted stream that stops (StopDistorted()) holds the
//   last `window` reference signatures only.
class FrameAligner {
 public:
  enum class DecisionKind { kPair, kUnaligned };
  // Why a distorted frame is unaligned.
  enum class UnalignedReason {
    kNone,          // a pair
    kNotLocked,     // no clear lock for the block starting here
    kFlat,          // the frame has no contrast (or no signature)
    kAmbiguous,     // locked, but two candidates match about equally well
    kNoMatch,       // locked, but no candidate matches (this counts to lost_after)
  };
  struct Decision {
    DecisionKind kind = DecisionKind::kUnaligned;
    UnalignedReason reason = UnalignedReason::kNotLocked;
    std::int64_t dist_index = 0;
    std::int64_t ref_index = -1;  // kPair only
    double distance = 0.0;        // kPair: SignatureDistance of the pair
  };

  enum class EventKind {
    kLocked,    // first lock
    kLost,      // the lock was given up (no match for lost_after frames, or Discontinuity())
    kRelocked,  // a lock after a loss
  };
  struct Event {
    EventKind kind = EventKind::kLocked;
    // The first distorted frame decided under the new state.
    std::int64_t dist_index = 0;
    // ref_index - dist_index: the lock's offset; for kLost the offset of the
    // last pair.
    std::int64_t offset = 0;
    // How clearly the lock's offset won: 1 - best / second-best block
    // distance, in [0, 1] (0 for kLost).
    double confidence = 0.0;
  };

  struct Counters {
    std::uint64_t paired = 0;
    std::uint64_t unaligned = 0;
    // Reference frames passed over between two consecutive pairs of one lock:
    // (ref step - dist step) where positive.
    std::uint64_t dropped = 0;
    // Distorted frames paired with the same reference frame as the frame
    // before them.
    std::uint64_t repeated = 0;
    std::uint64_t locks = 0;   // kLocked and kRelocked events
    std::uint64_t losses = 0;  // kLost events
  };

  ~FrameAligner();
  FrameAligner(const FrameAligner&) = delete;
  FrameAligner& operator=(const FrameAligner&) = delete;

  static Status Create(const AlignerOptions& options, std::unique_ptr<FrameAligner>* out);

  // Every non-empty signature must have the grid of the first non-empty one
  // pushed (kSizeMismatch); an empty one is a frame without information
  // (flat). Pushing after the side's End...() is kInvalidArgument. A failed
  // push changes nothing.
  Status PushReference(FrameSignature signature);
  Status PushDistorted(FrameSignature signature);
  void EndReference();
  void EndDistorted();
  // The next distorted frame pushed does not follow the previous one (a gap,
  // lost data): the frames before are decided by what came before, and the
  // lock is given up there (kLost) and acquired again from the next frame
  // on, with blocks that never cross the mark. Indices go on counting. After
  // a flushing seek make a new aligner instead.
  void Discontinuity();

  // The distorted stream has stopped for now (a source that went down, with
  // no telling when it comes back): the frames pushed so far are decided as
  // at its end, and from then on only the last `window` reference
  // signatures are kept for it, however long it stays away. The next
  // PushDistorted() resumes it: a discontinuity (the frames still undecided
  // are unaligned, the lock is given up), and since its index says nothing
  // of the time it missed, its frames are compared around the newest
  // reference frames instead: the first frame back is placed at the
  // reference frame that was next when it came, and the window searched
  // around that place (offsets reported stay ref_index - dist_index), so
  // that a stream back with a delay under `window` is found again. A no-op
  // after EndDistorted(); a second call before a frame, too.
  void StopDistorted();

  // The next decision, in distorted order; false when the next one cannot be
  // made yet (or every distorted frame is decided).
  bool NextDecision(Decision* decision);
  // The next lock event, in the order they happened, once it applies to the
  // next decision to be taken (its dist_index is at most that decision's):
  // call it before each NextDecision() to hear of a change of lock before
  // the frame it concerns.
  bool NextEvent(Event* event);

  // No decision to come will name a reference frame before this index: the
  // caller may release them. It only advances. While locked, it is the
  // reference frame before the last pair (or a pair decided and not yet
  // taken); while acquiring, the window before the predicted partner of the
  // oldest undecided frame.
  std::int64_t OldestReferenceNeeded() const;
  // Signatures held (reference and distorted): bounded by the window plus
  // what one side has run ahead of the other.
  std::size_t signatures_held() const;
  bool locked() const;
  const Counters& counters() const;
  const AlignerOptions& options() const;

 private:
  struct Impl;
  __attribute__((visibility("hidden"))) FrameAligner();  // not exported
  std::unique_ptr<Impl> impl_;
};

}  // namespace ssim2
