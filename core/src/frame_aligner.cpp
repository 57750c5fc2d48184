// FrameAligner (ssim2/alignment.h): acquisition by blocks over the window,
// tracking frame by frame around the predicted reference frame, decisions
// only on clear matches. docs/ALIGNMENT.md describes the method.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ssim2/alignment.h"

namespace ssim2 {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Each undecided distorted frame keeps 2 x window + 1 distances: a day at
// 60 fps would be 40 MB per frame. An hour at 30 fps is more than any
// stream's offset.
constexpr int kMaxWindow = 108000;

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
    // Distance to reference frame index + offset, by offset + window; NaN
    // until computed.
    std::vector<float> distances;
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
  // Where distorted frames sit on the reference's frame numbers: frame d
  // from anchor.first on is compared around reference frame d +
  // anchor.second (its position), until the next anchor. A resumption after
  // StopDistorted() starts an anchor; the first is (0, 0). Anchors before
  // the frame of the next decision to take are dropped.
  std::deque<std::pair<std::int64_t, std::int64_t>> anchors{{0, 0}};

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

  // The position of distorted frame d (pushed, or the next to come): its
  // index plus its anchor's shift. While stopped, the next frame's
  // position is the next reference frame's, as it will be when it comes.
  std::int64_t Position(std::int64_t d) const {
    if (dist_stopped && d >= dist_count) return ref_count + (d - dist_count);
    for (auto it = anchors.rbegin(); it != anchors.rend(); ++it) {
      if (it->first <= d) return d + it->second;
    }
    return d;
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
    return r >= ref_base && r < ref_count && r >= at - opt.window && r <= at + opt.window;
  }

  // An offset from their positions whose reference frames for the block
  // first..last (of one anchor) are known.
  bool BlockCandidate(std::int64_t first, std::int64_t last, std::int64_t offset) const {
    return RefCandidate(first, Position(first) + offset) && RefCandidate(last, Position(last) + offset);
  }

  // Distance of distorted frame d to reference frame r (a RefCandidate),
  // computed once.
  double Distance(std::int64_t d, std::int64_t r) {
    Distorted& dist = Dist(d);
    float& memo = dist.distances[static_cast<std::size_t>(r - Position(d) + opt.window)];
    if (std::isnan(memo)) {
      const Reference& ref = Ref(r);
      memo = dist.flat || ref.flat
                 ? 1.0f
                 : static_cast<float>(SignatureDistance(dist.signature, ref.signature));
    }
    return memo;
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
    } else {
      ++counters.unaligned;
    }
    decisions.push_back(decision);
    pending.pop_front();
    ++dist_base;
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
    if (!inside || !Clear(ranking)) {
      Unaligned(d, UnalignedReason::kNotLocked);
      return true;
    }
    locked = true;
    paired_in_lock = false;
    misses = 0;
    last_dist = d - 1;
    last_ref = Position(d) - 1 + ranking.best;
    ++counters.locks;
    Event e;
    e.kind = ever_locked ? EventKind::kRelocked : EventKind::kLocked;
    e.dist_index = d;
    e.offset = last_ref - last_dist;
    e.confidence = ranking.confidence();
    events.push_back(e);
    ever_locked = true;
    return true;
  }

  // Tracking for the oldest undecided frame d: the reference frames within
  // track_radius of the predicted one, never before the last pair's, with
  // one more on each side as competitors only. Returns false to wait.
  bool Track(std::int64_t d) {
    const std::int64_t predicted = last_ref + (d - last_dist);
    const std::int64_t low = std::max(last_ref, predicted - opt.track_radius);
    const std::int64_t high = predicted + opt.track_radius;
    if (Dist(d).flat) {
      Unaligned(d, UnalignedReason::kFlat);
      return true;
    }
    // Frames beyond the window are no candidates: no need to wait for them.
    if (!RefsUpTo(std::min(high + 1, Position(d) + opt.window))) return false;
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
    anchors.emplace_back(dist_count, ref_count - dist_count);
  }

  // Reference signatures no undecided frame can be compared with.
  void ReleaseReferences() {
    const std::int64_t keep_from = std::min(Position(dist_base) - opt.window, ref_count);
    while (!refs.empty() && ref_base < keep_from) {
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
  if (m.dist_stopped && m.pending.empty()) m.ReleaseReferences();
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
  while (m.anchors.size() > 1 && m.anchors[1].first <= m.taken) m.anchors.pop_front();
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
  // Decisions not yet taken name reference frames from (their distorted
  // frame's position - window) on (while stopped, the next frame's position
  // is the next reference frame's); once every distorted frame is taken,
  // none.
  const std::int64_t from_window = std::max<std::int64_t>(0, m.Position(m.taken) - m.opt.window);
  if (m.dist_ended && m.taken == m.dist_count) return std::max(from_window, m.ref_count);
  return from_window;
}

std::size_t FrameAligner::signatures_held() const {
  return impl_->refs.size() + impl_->pending.size();
}

bool FrameAligner::locked() const { return impl_->locked; }
const FrameAligner::Counters& FrameAligner::counters() const { return impl_->counters; }
const AlignerOptions& FrameAligner::options() const { return impl_->opt; }

}  // namespace ssim2
