// `ssim2 monitor`'s compressed reference delay: see monitor_delay.h.
#include "monitor_delay.h"

#include <algorithm>
#include <cmath>

namespace ssim2 {
namespace monitor {

std::optional<double> ChooseReferenceDelay(double current_s,
                                           const std::vector<RenditionLag>& renditions,
                                           const DelayPolicy& policy) {
  std::optional<double> least;  // the smallest lag of a locked rendition that is up
  bool all_measured = true;
  bool any_up = false;
  for (const RenditionLag& r : renditions) {
    if (!r.up) continue;
    any_up = true;
    if (!r.locked || !r.lag_s) {
      all_measured = false;
      continue;
    }
    if (!least || *r.lag_s < *least) least = r.lag_s;
  }
  if (!least) return std::nullopt;
  if (*least < policy.margin_s / 2) {
    const double lowered = std::max(0.0, current_s + *least - policy.margin_s);
    if (lowered < current_s) return lowered;
    return std::nullopt;
  }
  if (any_up && all_measured && *least > policy.margin_s + policy.hysteresis_s) {
    const double raised = std::min(current_s + *least - policy.margin_s, policy.max_s);
    if (raised > current_s) return raised;
  }
  return std::nullopt;
}

void ReferenceDelayControl::Measured(const std::string& rendition, double ref_t, double dist_t) {
  if (delay_s_ != target_s_ || ref_t < settled_at_) return;
  lags_[rendition].lag_s = dist_t - ref_t;
}

void ReferenceDelayControl::Forget(const std::string& rendition) {
  lags_[rendition] = Lag{};
}

void ReferenceDelayControl::Locked(const std::string& rendition, bool locked) {
  Lag& lag = lags_[rendition];
  lag.locked = locked;
  if (!locked) lag.lag_s.reset();
}

void ReferenceDelayControl::Restart() {
  lags_.clear();
  last_tick_ = -1;
  settled_at_ = 0;
}

std::optional<double> ReferenceDelayControl::lag_s(const std::string& rendition) const {
  auto it = lags_.find(rendition);
  return it == lags_.end() ? std::nullopt : it->second.lag_s;
}

std::optional<double> ReferenceDelayControl::Tick(const std::map<std::string, bool>& up,
                                                  double now) {
  const double elapsed = last_tick_ < 0 ? 0 : std::max(0.0, now - last_tick_);
  last_tick_ = now;
  if (delay_s_ == target_s_) {
    if (now < settled_at_) return std::nullopt;
    std::vector<RenditionLag> renditions;
    for (const auto& [name, is_up] : up) {
      auto it = lags_.find(name);
      RenditionLag r;
      r.up = is_up;
      if (it != lags_.end()) {
        r.locked = it->second.locked;
        r.lag_s = it->second.lag_s;
      }
      renditions.push_back(r);
    }
    const std::optional<double> chosen = ChooseReferenceDelay(delay_s_, renditions, policy_);
    if (!chosen) return std::nullopt;
    target_s_ = *chosen;
    return std::nullopt;  // the ramp starts at the next tick
  }
  const double most = policy_.ramp_rate * elapsed;
  const double change = std::clamp(target_s_ - delay_s_, -most, most);
  if (change == 0) return std::nullopt;
  // Delaying the reference in time changes no pairing: a lock's frames pair
  // as before, each rendition frame's partner now crossing `change` later.
  for (auto& [name, lag] : lags_) {
    if (lag.lag_s) *lag.lag_s -= change;
  }
  delay_s_ = std::abs(target_s_ - delay_s_ - change) < 1e-9 ? target_s_ : delay_s_ + change;
  if (delay_s_ == target_s_) settled_at_ = now + policy_.settle_s;
  return delay_s_;
}

}  // namespace monitor
}  // namespace ssim2
