// FrameAligner (ssim2/alignment.h): acquisition by blocks over the window,
// tracking frame by frame around the predicted reference frame, decisions
// only on clear matches; the window follows the prediction. docs/ALIGNMENT.md
// describes the method.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "frame_signature.h"
#include "ssim2/alignment.h"

namespace ssim2 {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Each undecided distorted frame keeps 2 x window + 1 distances: a day at
// 60 fps would be 40 MB per frame. An hour at 30 fps is more than any
// stream's offset.
constexpr int kMaxWindow = 108000;
// The rate of reference frames per distorted frame is measured over the
// pairs of the last kRateSpan distorted frames of a lock, once they span
// kRateMinSpan frames: long enough that random drops average out (at 80 %
// kept, 64 frames give the rate within about 0.1), short enough to follow a
// rendition whose rate changes within seconds.
constexpr std::int64_t kRateSpan = 64;
constexpr std::int64_t kRateMinSpan = 10;

Status BadOption(const std::string& what) {
  return Status(StatusCode::kInvalidArgument, "alignment options: " + what);
}

// The best and second-best distance of a set of candidates.
struct Ranking {
  std::int64_t best = -1;  // the best candidate's key (an offset or a ref index)
  double best_distance = kInfinity;
  double second_distance = kInfinity;

  void Add(std::int64_t key, double distance) {
    if (distance < best_distance) {
      second_distance = best_distance;
      best_distance = distance;
      best = key;
    } else if (distance < second_distance) {
      second_distance = distance;
    }
  }
  // 1 - best / second best: 0 when they tie, 1 when the second is far off
  // (or there is none).
  double confidence() const {
    if (second_distance == kInfinity) return 1.0;
    if (second_distance <= 0.0) return 0.0;
    return std::clamp(1.0 - best_distance / second_distance, 0.0, 1.0);
  }
};

}  // namespace

Status ValidateAlignerOptions(const AlignerOptions& o) {
  if (o.window < 0 || o.window > kMaxWindow) {
    return BadOption("window " + std::to_string(o.window) + " is outside 0.." +
                     std::to_string(kMaxWindow) + " frames");
  }
  if (o.block < 1) return BadOption("block " + std::to_string(o.block) + " is under 1");
  if (o.track_radius < 1) {
    return BadOption("track_radius " + std::to_string(o.track_radius) + " is under 1");
  }
  if (!(o.max_distance > 0.0 && o.max_distance <= 2.0)) {
    return BadOption("max_distance must be in (0, 2]");
  }
  if (!(o.min_margin >= 0.0) || !(o.margin_ratio >= 0.0)) {
    return BadOption("min_margin and margin_ratio must not be negative");
  }
  if (!(o.min_contrast >= 0.0)) return BadOption("min_contrast must not be negative");
  if (o.lost_after < 1) {
    return BadOption("lost_after " + std::to_string(o.lost_after) + " is under 1");
  }
  return Status::Ok();
}

// Hidden: the class is public, its state is not (the shared library exports
// only the public API).
// Hidden for GCC (the class is named in the default-visibility region); clang
// refuses a visibility that differs from the first declaration, so it keeps it.
#ifdef __clang__
struct FrameAligner::Impl {
#else
struct __attribute__((visibility("hidden"))) FrameAligner::Impl {
#endif
  struct Reference {
    FrameSignature signature;
    bool flat = false;
  };
  struct Distorted : Reference {
    // Distance to reference frame centre + offset, by offset + window; NaN
    // until computed. The centre follows the frame's position (Row()).
    std::vector<float> distances;
    std::int64_t centre = 0;
  };

  AlignerOptions opt;
  int grid_width = 0;  // of the first non-empty signature
  int grid_height = 0;

  std::deque<Reference> refs;  // refs.front() is reference frame ref_base
  std::int64_t ref_base = 0;
  std::int64_t ref_count = 0;
  bool ref_ended = false;

  std::deque<Distorted> pending;  // undecided; pending.front() is distorted frame dist_base
  std::int64_t dist_base = 0;
  std::int64_t dist_count = 0;
  bool dist_ended = false;
  std::deque<std::int64_t> marks;  // distorted frames that start a new segment
  std::int64_t taken = 0;          // decisions handed out by NextDecision
  // StopDistorted() was called and no distorted frame came since.
  bool dist_stopped = false;
  // Where distorted frames sit on the reference's frame numbers (their
  // position, the centre of their window): frame d at course_ref +
  // round((d - course_dist) * rate). The course is the last pair (or the
  // place a lock found, or where a stopped stream came back), (0, 0) before
  // any; the rate is measured over the lock's recent pairs (rate_pairs), 1
  // before any.
  std::int64_t course_dist = 0;
  std::int64_t course_ref = 0;
  double rate = 1.0;
  std::deque<std::pair<std::int64_t, std::int64_t>> rate_pairs;  // (dist, ref) of this lock
  // No decision to come names a reference frame before this: the window
  // before the position of each frame when it was the next to decide, the
  // most of them (or of the newest reference frame's while stopped).
  std::int64_t ref_floor = 0;

  bool locked = false;
  bool ever_locked = false;
  // The last pair of the lock (at the lock: one frame before its start).
  std::int64_t last_dist = -1;
  std::int64_t last_ref = -1;
  bool paired_in_lock = false;
  int misses = 0;

  std::deque<Decision> decisions;
  std::deque<Event> events;
  Counters counters;

  bool Flat(const FrameSignature& s) const {
    return s.empty() || !(s.contrast >= opt.min_contrast);
  }

  Status CheckGrid(const FrameSignature& s) {
    if (s.empty()) return Status::Ok();
    if (s.grid_width <= 0 || s.grid_height <= 0 ||
        s.cells.size() != static_cast<std::size_t>(s.grid_width) * s.grid_height) {
      return Status(StatusCode::kInvalidArgument,
                    "frame signature: its cells do not fill its grid");
    }
    if (grid_width == 0) {
      grid_width = s.grid_width;
      grid_height = s.grid_height;
    } else if (s.grid_width != grid_width || s.grid_height != grid_height) {
      return Status(StatusCode::kSizeMismatch,
                    "frame signature grid " + std::to_string(s.grid_width) + "x" +
                        std::to_string(s.grid_height) + " differs from the first one, " +
                        std::to_string(grid_width) + "x" + std::to_string(grid_height) +
                        ": the frames of both streams must have one size");
    }
    return Status::Ok();
  }

  // A pushed frame: checked (a stream that ended takes no more; grids
  // equal), then kept in *frame.
  Status Admit(bool ended, const char* push, FrameSignature signature, Reference* frame) {
    if (ended) {
      return Status(StatusCode::kInvalidArgument,
                    std::string(push) + " after the end of its stream");
    }
    if (Status s = CheckGrid(signature); !s.ok()) return s;
    frame->flat = Flat(signature);
    frame->signature = std::move(signature);
    return Status::Ok();
  }

  // Reference frames that `frames` distorted frames span at the rate.
  std::int64_t Steps(std::int64_t frames) const {
    return rate == 1.0 ? frames : static_cast<std::int64_t>(std::llround(frames * rate));
  }

  // The position of distorted frame d (pushed, or the next to come): the
  // reference frame predicted for it from the course. While stopped, the
  // next frame's position is the next reference frame's, as it will be when
  // it comes.
  std::int64_t Position(std::int64_t d) const {
    if (dist_stopped && d >= dist_count) return ref_count + Steps(d - dist_count);
    return course_ref + Steps(d - course_dist);
  }

  const Reference& Ref(std::int64_t index) const {
    return refs[static_cast<std::size_t>(index - ref_base)];
  }
  Distorted& Dist(std::int64_t index) {
    return pending[static_cast<std::size_t>(index - dist_base)];
  }

  // A reference frame the aligner may compare distorted frame d with.
  bool RefCandidate(std::int64_t d, std::int64_t r) const {
    const std::int64_t at = Position(d);
    return r >= ref_floor && r < ref_count && r >= at - opt.window && r <= at + opt.window;
  }

  // An offset from their positions whose reference frames for the block
  // first..last (of one anchor) are known.
  bool BlockCandidate(std::int64_t first, std::int64_t last, std::int64_t offset) const {
    return RefCandidate(first, Position(first) + offset) && RefCandidate(last, Position(last) + offset);
  }

  // Centres distorted frame d's distances on its position now, which it
  // returns: reference frame r's is at r - position + window. When the
  // course moved since they were computed, those still within the window are
  // moved along (a distance is the same wherever the window is).
  std::int64_t Recentre(std::int64_t d) {
    Distorted& dist = Dist(d);
    const std::int64_t at = Position(d);
    if (at != dist.centre) {
      std::vector<float>& row = dist.distances;
      const std::int64_t n = static_cast<std::int64_t>(row.size());
      const std::int64_t shift = at - dist.centre;  // new slot i holds old slot i + shift
      constexpr float kUnknown = std::numeric_limits<float>::quiet_NaN();
      if (shift >= n || -shift >= n) {
        std::fill(row.begin(), row.end(), kUnknown);
      } else if (shift > 0) {
        std::move(row.begin() + shift, row.end(), row.begin());
        std::fill(row.end() - shift, row.end(), kUnknown);
      } else {
        std::move_backward(row.begin(), row.end() + shift, row.end());
        std::fill(row.begin(), row.begin() - shift, kUnknown);
      }
      dist.centre = at;
    }
    return at;
  }
  float& Memo(std::int64_t d, std::int64_t at, std::int64_t r) {
    return Dist(d).distances[static_cast<std::size_t>(r - at + opt.window)];
  }

  // Distance of distorted frame d to reference frame r (a RefCandidate),
  // computed once.
  double Distance(std::int64_t d, std::int64_t r) {
    Distorted& dist = Dist(d);
    float& memo = Memo(d, Recentre(d), r);
    if (std::isnan(memo)) {
      const Reference& ref = Ref(r);
      memo = dist.flat || ref.flat
                 ? 1.0f
                 : static_cast<float>(SignatureDistance(dist.signature, ref.signature));
    }
    return memo;
  }

  // Computes together (signature::SignatureDistances) the distances of
  // distorted frame d to the candidate reference frames first..last that
  // Distance() has not computed yet: the same values, several at a time.
  void PrepareDistances(std::int64_t d, std::int64_t first, std::int64_t last) {
    Distorted& dist = Dist(d);
    if (dist.flat) return;  // Distance() needs no arithmetic
    const FrameSignature* refs_together[signature::kDistancesTogether];
    float* memos[signature::kDistancesTogether];
    std::size_t m = 0;
    auto run = [&] {
      double distances[signature::kDistancesTogether];
      signature::SignatureDistances(dist.signature, refs_together, m, distances);
      for (std::size_t k = 0; k < m; ++k) *memos[k] = static_cast<float>(distances[k]);
      m = 0;
    };
    const std::int64_t at = Recentre(d);
    for (std::int64_t r = first; r <= last; ++r) {
      if (!RefCandidate(d, r)) continue;
      float& memo = Memo(d, at, r);
      const Reference& ref = Ref(r);
      if (!std::isnan(memo) || ref.flat) continue;
      refs_together[m] = &ref.signature;
      memos[m++] = &memo;
      if (m == signature::kDistancesTogether) run();
    }
    if (m > 0) run();
  }

  // A clear winner: close enough, and ahead of the runner-up by the margins.
  bool Clear(const Ranking& ranking) const {
    if (!(ranking.best_distance <= opt.max_distance)) return false;
    const double needed = std::max(opt.min_margin, opt.margin_ratio * ranking.best_distance);
    return ranking.second_distance - ranking.best_distance >= needed;
  }

  // Whether the reference frames up to `last` are known (or never will be).
  bool RefsUpTo(std::int64_t last) const { return ref_ended || last < ref_count; }

  // First distorted frame after d that starts a segment (or none).
  std::int64_t SegmentEnd(std::int64_t d) const {
    for (std::int64_t m : marks) {
      if (m > d) return m;
    }
    return std::numeric_limits<std::int64_t>::max();
  }

  void Decide(Decision decision) {
    if (decision.kind == DecisionKind::kPair) {
      ++counters.paired;
      if (paired_in_lock) {
        const std::int64_t ref_step = decision.ref_index - last_ref;
        const std::int64_t dist_step = decision.dist_index - last_dist;
        if (ref_step > dist_step) counters.dropped += static_cast<std::uint64_t>(ref_step - dist_step);
        if (ref_step == 0 && dist_step == 1) ++counters.repeated;
      }
      paired_in_lock = true;
      last_ref = decision.ref_index;
      last_dist = decision.dist_index;
      FollowPair(decision.dist_index, decision.ref_index);
    } else {
      ++counters.unaligned;
    }
    decisions.push_back(decision);
    pending.pop_front();
    ++dist_base;
    RaiseFloor();
  }

  // A pair of the lock: the course goes through it, and the rate is that of
  // the lock's pairs of the last kRateSpan frames.
  void FollowPair(std::int64_t d, std::int64_t r) {
    course_dist = d;
    course_ref = r;
    rate_pairs.emplace_back(d, r);
    while (rate_pairs.front().first < d - kRateSpan) rate_pairs.pop_front();
    const auto& [first_dist, first_ref] = rate_pairs.front();
    if (d - first_dist >= kRateMinSpan) {
      rate = static_cast<double>(r - first_ref) / static_cast<double>(d - first_dist);
    }
  }

  // The window of the next frame to decide starts at its position - window;
  // while locked, tracking looks no further back than the frame before the
  // last pair (its lowest competitor), so the floor is there: a rendition
  // whose partners come late (a reference delayed before its decoder) keeps
  // only what tracking needs, and a lost lock is searched for from the last
  // pair on. No later decision goes before the floor of an earlier next
  // frame. Raised at each decision (and, while stopped, as the reference
  // comes), so that it depends on the decisions and not on when they were
  // asked for.
  void RaiseFloor() {
    std::int64_t from = Position(dist_base) - opt.window;
    if (locked) from = std::max(from, last_ref - 1);
    ref_floor = std::max(ref_floor, from);
  }

  void Unaligned(std::int64_t d, UnalignedReason reason) {
    Decision decision;
    decision.kind = DecisionKind::kUnaligned;
    decision.reason = reason;
    decision.dist_index = d;
    Decide(decision);
  }

  void Lose(std::int64_t first_dist) {
    locked = false;
    rate_pairs.clear();
    ++counters.losses;
    Event e;
    e.kind = EventKind::kLost;
    e.dist_index = first_dist;
    e.offset = last_ref - last_dist;
    events.push_back(e);
  }

  // Acquisition for the oldest undecided frame d: the block d .. d+block-1
  // against every offset of the window. Returns false to wait for input.
  bool Acquire(std::int64_t d) {
    if (Dist(d).flat) {
      Unaligned(d, UnalignedReason::kFlat);
      return true;
    }
    const std::int64_t last = d + opt.block - 1;
    if (last >= SegmentEnd(d) || ((dist_ended || dist_stopped) && last >= dist_count)) {
      Unaligned(d, UnalignedReason::kNotLocked);  // too short a segment left for a block
      return true;
    }
    if (last >= dist_count || !RefsUpTo(Position(last) + opt.window)) return false;

    int content_frames = 0;
    for (std::int64_t i = d; i <= last; ++i) content_frames += Dist(i).flat ? 0 : 1;
    if (2 * content_frames < opt.block) {
      Unaligned(d, UnalignedReason::kNotLocked);
      return true;
    }
    // The offsets BlockCandidate() admits: those whose reference frames for
    // the whole block are known and within the window.
    const std::int64_t first_offset = std::max<std::int64_t>(-opt.window, ref_floor - Position(d));
    const std::int64_t last_offset =
        std::min<std::int64_t>(opt.window, ref_count - 1 - Position(last));
    for (std::int64_t i = d; i <= last; ++i) {
      const std::int64_t at = Position(i);
      if (!Dist(i).flat) PrepareDistances(i, at + first_offset, at + last_offset);
    }
    Ranking ranking;
    for (std::int64_t offset = -opt.window; offset <= opt.window; ++offset) {
      if (!BlockCandidate(d, last, offset)) continue;
      double sum = 0.0;
      for (std::int64_t i = d; i <= last; ++i) {
        if (!Dist(i).flat) sum += Distance(i, Position(i) + offset);
      }
      ranking.Add(offset, sum / content_frames);
    }
    // The best offset must have been compared with both of its neighbours:
    // at the edge of what is known (the reference's first or last frame, the
    // window's end) the true offset may lie beyond.
    const bool inside = ranking.best_distance < kInfinity &&
                        BlockCandidate(d, last, ranking.best - 1) &&
                        BlockCandidate(d, last, ranking.best + 1);
    if (inside && Clear(ranking)) {
      Lock(d, Position(d) + ranking.best, ranking.confidence());
      return true;
    }
    std::int64_t path_ref = 0;
    double path_confidence = 0.0;
    if (FollowsAPath(d, last, first_offset, last_offset, &path_ref, &path_confidence)) {
      Lock(d, path_ref, path_confidence);
      return true;
    }
    Unaligned(d, UnalignedReason::kNotLocked);
    return true;
  }

  // No offset fits the whole block (a rendition that drops frames, or
  // delivers fewer than the reference at a rate not yet measured), but the
  // block may still be one the tracking would follow: every content frame of
  // d..last has a clear match of its own among the block's offsets (rules 1
  // to 3), and from one content frame to the next the match moves on by 0
  // to track_radius + 1 reference frames per distorted frame. Then *ref is
  // frame d's match and *confidence the least of the frames'.
  bool FollowsAPath(std::int64_t d, std::int64_t last, std::int64_t first_offset,
                    std::int64_t last_offset, std::int64_t* ref, double* confidence) {
    std::int64_t previous_dist = -1, previous_ref = 0;
    double least = 1.0;
    for (std::int64_t i = d; i <= last; ++i) {
      if (Dist(i).flat) continue;
      const std::int64_t low = Position(i) + first_offset;
      const std::int64_t high = Position(i) + last_offset;
      Ranking ranking;
      for (std::int64_t r = low; r <= high; ++r) ranking.Add(r, Distance(i, r));
      if (!(ranking.best > low && ranking.best < high) || !Clear(ranking)) return false;
      if (previous_dist >= 0) {
        const std::int64_t step = ranking.best - previous_ref;
        if (step < 0 || step > (i - previous_dist) * (opt.track_radius + 1)) return false;
      } else {
        *ref = ranking.best;  // i == d: Acquire() left flat frames unaligned
      }
      least = std::min(least, ranking.confidence());
      previous_dist = i;
      previous_ref = ranking.best;
    }
    *confidence = least;
    return previous_dist >= 0;
  }

  // A lock at distorted frame d on reference frame ref: tracking starts
  // there, as if the frame before had been paired with the frame before.
  void Lock(std::int64_t d, std::int64_t ref, double confidence) {
    locked = true;
    paired_in_lock = false;
    misses = 0;
    last_dist = d - 1;
    last_ref = ref - 1;
    course_dist = d;
    course_ref = ref;
    ++counters.locks;
    Event e;
    e.kind = ever_locked ? EventKind::kRelocked : EventKind::kLocked;
    e.dist_index = d;
    e.offset = last_ref - last_dist;
    e.confidence = confidence;
    events.push_back(e);
    ever_locked = true;
  }

  // Tracking for the oldest undecided frame d: the reference frames within
  // track_radius of the predicted one (its position: from the last pair at
  // the rate), never before the last pair's, with
  // one more on each side as competitors only. Returns false to wait.
  bool Track(std::int64_t d) {
    const std::int64_t predicted = Position(d);
    const std::int64_t low = std::max(last_ref, predicted - opt.track_radius);
    const std::int64_t high = predicted + opt.track_radius;
    if (Dist(d).flat) {
      Unaligned(d, UnalignedReason::kFlat);
      return true;
    }
    // Frames beyond the window are no candidates: no need to wait for them.
    if (!RefsUpTo(std::min(high + 1, Position(d) + opt.window))) return false;
    PrepareDistances(d, low - 1, high + 1);
    Ranking ranking;
    for (std::int64_t r = low - 1; r <= high + 1; ++r) {
      if (RefCandidate(d, r)) ranking.Add(r, Distance(d, r));
    }
    if (ranking.best_distance <= opt.max_distance && !Clear(ranking)) {
      Unaligned(d, UnalignedReason::kAmbiguous);  // a still: every candidate alike
      return true;
    }
    // A clear best, but at the edge of the candidates (or of what is known):
    // the true frame may lie beyond, so this is no match.
    const bool inside = ranking.best > low - 1 && ranking.best < high + 1 &&
                        RefCandidate(d, ranking.best - 1) && RefCandidate(d, ranking.best + 1);
    if (!inside || !(ranking.best_distance <= opt.max_distance)) {
      Unaligned(d, UnalignedReason::kNoMatch);
      if (++misses >= opt.lost_after) Lose(d + 1);
      return true;
    }
    misses = 0;
    Decision decision;
    decision.kind = DecisionKind::kPair;
    decision.reason = UnalignedReason::kNone;
    decision.dist_index = d;
    decision.ref_index = ranking.best;
    decision.distance = ranking.best_distance;
    Decide(decision);
    return true;
  }

  // Decides as many distorted frames as the input allows, oldest first.
  void Advance() {
    while (!pending.empty()) {
      const std::int64_t d = dist_base;
      if (!marks.empty() && marks.front() == d) {
        marks.pop_front();
        if (locked) Lose(d);
      }
      const bool progressed = locked ? Track(d) : Acquire(d);
      if (!progressed) break;
    }
    ReleaseReferences();
  }

  // A distorted frame after StopDistorted(): the frames still undecided
  // are unaligned (the stream left them), the lock is given up, and the
  // frames from here on are placed at the next reference frame.
  void Resume() {
    dist_stopped = false;
    while (!pending.empty()) {
      if (!marks.empty() && marks.front() <= dist_base) marks.pop_front();
      Unaligned(dist_base, UnalignedReason::kNotLocked);
    }
    if (locked) Lose(dist_count);
    if (marks.empty() || marks.back() != dist_count) marks.push_back(dist_count);
    course_dist = dist_count;
    course_ref = ref_count;
  }

  // Reference signatures no undecided frame can be compared with.
  void ReleaseReferences() {
    while (!refs.empty() && ref_base < ref_floor) {
      refs.pop_front();
      ++ref_base;
    }
  }
};

FrameAligner::FrameAligner() = default;
FrameAligner::~FrameAligner() = default;

Status FrameAligner::Create(const AlignerOptions& options, std::unique_ptr<FrameAligner>* out) {
  if (out == nullptr) return Status(StatusCode::kInvalidArgument, "FrameAligner::Create: null output");
  if (Status s = ValidateAlignerOptions(options); !s.ok()) return s;
  auto impl = std::make_unique<Impl>();
  impl->opt = options;
  out->reset(new FrameAligner());
  (*out)->impl_ = std::move(impl);
  return Status::Ok();
}

Status FrameAligner::PushReference(FrameSignature signature) {
  Impl& m = *impl_;
  Impl::Reference ref;
  if (Status s = m.Admit(m.ref_ended, "PushReference", std::move(signature), &ref); !s.ok()) {
    return s;
  }
  m.refs.push_back(std::move(ref));
  ++m.ref_count;
  if (m.dist_stopped && m.pending.empty()) {
    m.RaiseFloor();
    m.ReleaseReferences();
  }
  return Status::Ok();
}

Status FrameAligner::PushDistorted(FrameSignature signature) {
  Impl& m = *impl_;
  Impl::Distorted dist;
  if (Status s = m.Admit(m.dist_ended, "PushDistorted", std::move(signature), &dist); !s.ok()) {
    return s;
  }
  if (m.dist_stopped) m.Resume();
  dist.distances.assign(2 * static_cast<std::size_t>(m.opt.window) + 1,
                        std::numeric_limits<float>::quiet_NaN());
  dist.centre = m.Position(m.dist_count);
  m.pending.push_back(std::move(dist));
  ++m.dist_count;
  return Status::Ok();
}

void FrameAligner::EndReference() { impl_->ref_ended = true; }
void FrameAligner::EndDistorted() { impl_->dist_ended = true; }

void FrameAligner::StopDistorted() {
  Impl& m = *impl_;
  if (m.dist_ended) return;
  m.dist_stopped = true;
  m.RaiseFloor();
  m.ReleaseReferences();
}

void FrameAligner::Discontinuity() {
  Impl& m = *impl_;
  if (m.marks.empty() || m.marks.back() != m.dist_count) m.marks.push_back(m.dist_count);
}

bool FrameAligner::NextDecision(Decision* decision) {
  Impl& m = *impl_;
  if (m.decisions.empty()) m.Advance();
  if (m.decisions.empty()) return false;
  *decision = m.decisions.front();
  m.decisions.pop_front();
  ++m.taken;
  return true;
}

bool FrameAligner::NextEvent(Event* event) {
  Impl& m = *impl_;
  m.Advance();
  if (m.events.empty() || m.events.front().dist_index > m.taken) return false;
  *event = m.events.front();
  m.events.pop_front();
  return true;
}

std::int64_t FrameAligner::OldestReferenceNeeded() const {
  const Impl& m = *impl_;
  // Decisions to come name reference frames from the floor on; those taken
  // already but not handed out, their own. Once every distorted frame is
  // taken, none.
  if (m.dist_ended && m.taken == m.dist_count) return std::max(m.ref_floor, m.ref_count);
  std::int64_t oldest = m.ref_floor;
  for (const Decision& d : m.decisions) {
    if (d.kind == DecisionKind::kPair) oldest = std::min(oldest, d.ref_index);
  }
  return oldest;
}

std::size_t FrameAligner::signatures_held() const {
  return impl_->refs.size() + impl_->pending.size();
}

bool FrameAligner::locked() const { return impl_->locked; }
const FrameAligner::Counters& FrameAligner::counters() const { return impl_->counters; }
const AlignerOptions& FrameAligner::options() const { return impl_->opt; }

}  // namespace ssim2
