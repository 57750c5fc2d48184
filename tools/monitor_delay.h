// `ssim2 monitor`'s compressed reference delay (docs/MONITOR.md, "Long
// latencies"): how long the reference waits, still compressed, before its
// decoder, so that the element holds only about a margin of decoded
// reference frames for renditions that come seconds after it.
//
// The lag of a rendition is measured from the element's own pairs: the time
// a rendition frame crossed into the scoring pipeline minus the time its
// partner reference frame did (the running times the element's score and
// lock messages give both frames, as each is stamped when it crosses). The delay the reference should have follows from
// the lags (ChooseReferenceDelay); ReferenceDelayControl keeps the lags and
// the delay in use over time. No GStreamer, so that tests can call it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ssim2 {
namespace monitor {

struct DelayPolicy {
  // The lag left to the least-late rendition: decoded reference frames the
  // element holds on top of its window's, so that the aligner still sees
  // frames on both sides of each rendition frame's partner.
  double margin_s = 1.0;
  // Changes smaller than this are not made (measurements jitter by frames).
  double hysteresis_s = 0.5;
  // How fast the delay in use follows a new choice, in seconds of delay per
  // second: while it grows the reference plays at 1 - rate of its speed
  // (never a pause, which the element would meet with every rendition frame
  // waiting and its feed overflowing), while it shrinks at 1 + rate.
  double ramp_rate = 0.75;
  // Once the delay reached its choice, lags are measured afresh for this
  // long before the next choice.
  double settle_s = 2.0;
  // The most the delay is raised to: --sync-window less the margin. A
  // rendition is found only within the window, so a lag beyond it is not a
  // transcoder's latency but the monitor running behind (its frames queued
  // on a starved machine); followed, it would feed on itself.
  double max_s = 1e9;
};

// What one rendition says, for the choice of the delay.
struct RenditionLag {
  bool up = false;      // its input delivers frames
  bool locked = false;  // content alignment holds a lock
  std::optional<double> lag_s;  // behind the reference as delayed now; none: not measured
};

// The delay the reference should have (seconds, >= 0), given the delay in
// use and the renditions; none: keep it.
//  - Lower it as soon as one locked rendition's lag is under half the margin
//    (a rendition got faster, came back with less latency, or started
//    ahead): to that rendition's lag minus the margin, at most down to 0.
//  - Raise it only when every rendition that is up is locked with a
//    measured lag, and the smallest lag exceeds the margin by the
//    hysteresis: by that lag minus the margin, at most to the policy's
//    max_s. Renditions later than the
//    least-late one keep their difference as decoded frames (one delay line
//    serves every rendition).
std::optional<double> ChooseReferenceDelay(double current_s,
                                           const std::vector<RenditionLag>& renditions,
                                           const DelayPolicy& policy);

// The delay in use and the renditions' lags over time, for --reference-delay
// auto. Times are seconds of the scoring pipeline's running time.
class ReferenceDelayControl {
 public:
  explicit ReferenceDelayControl(DelayPolicy policy = {}) : policy_(policy) {}

  // The delay in use, and the one it moves to.
  double delay_s() const { return delay_s_; }
  double target_s() const { return target_s_; }
  // A pair (or a lock) of a rendition frame that crossed at `dist_t` with a
  // reference frame that crossed at `ref_t`. Ignored until the last change
  // settled (the reference frame crossed before).
  void Measured(const std::string& rendition, double ref_t, double dist_t);
  // Its input went down: its lag is measured again once it is locked.
  void Forget(const std::string& rendition);
  // Its lock was found or lost (then its lag is forgotten).
  void Locked(const std::string& rendition, bool locked);
  // The scoring pipeline started again (its running time from 0, every
  // lock to be found again); the delay stays.
  void Restart();
  // The last lag of a rendition, as delayed now (none: not measured).
  std::optional<double> lag_s(const std::string& rendition) const;
  // Called now and then: the delay to apply now, when it changed. `up` is
  // each rendition's input state. A new choice (target_s()) is made only
  // once the last one was reached and settled; the delay then moves to it
  // at the policy's rate.
  std::optional<double> Tick(const std::map<std::string, bool>& up, double now);

 private:
  struct Lag {
    bool locked = false;
    std::optional<double> lag_s;
  };
  DelayPolicy policy_;
  double delay_s_ = 0, target_s_ = 0;
  double last_tick_ = -1;
  double settled_at_ = 0;  // running time from which lags are measured afresh
  std::map<std::string, Lag> lags_;
};

}  // namespace monitor
}  // namespace ssim2
