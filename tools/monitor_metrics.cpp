// The monitor's metrics registry: see monitor_metrics.h, and
// docs/MONITOR.md for every metric's meaning (the one place they are listed).
#include "monitor_metrics.h"

#include <cmath>
#include <limits>
#include <utility>

#include "text_format.h"

namespace ssim2 {
namespace monitor {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A sample value as OpenMetrics spells it.
std::string Number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return FormatShortest(v);
}

std::string JsonNumber(double v) { return std::isfinite(v) ? FormatShortest(v) : "null"; }

// A label value: backslash, double quote and line feed escaped.
std::string LabelValue(const std::string& text) {
  std::string out;
  for (char c : ToValidUtf8(text)) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

// Writes one metric family: its metadata, then its samples.
class Family {
 public:
  Family(std::string* out, const char* name, const char* type, const char* help)
      : out_(out), name_(name), type_(type) {
    *out_ += std::string("# TYPE ") + name + " " + type + "\n# HELP " + name + " " + help + "\n";
  }
  // One sample; `labels` as name/value pairs.
  void Sample(const std::vector<std::pair<const char*, std::string>>& labels, double value) {
    std::string sample = name_;
    if (type_ == "counter") sample += "_total";
    if (type_ == "info") sample += "_info";
    if (!labels.empty()) {
      sample += "{";
      for (std::size_t i = 0; i < labels.size(); ++i) {
        sample += std::string(i ? "," : "") + labels[i].first + "=\"" +
                  LabelValue(labels[i].second) + "\"";
      }
      sample += "}";
    }
    *out_ += sample + " " + Number(value) + "\n";
  }

 private:
  std::string* out_;
  std::string name_, type_;
};


}  // namespace

Metrics::Metrics(std::vector<std::string> renditions, std::optional<double> threshold,
                 double history_s)
    : rendition_order_(std::move(renditions)), threshold_(threshold), history_s_(history_s) {
  input_order_.push_back("ref");
  for (const std::string& r : rendition_order_) {
    input_order_.push_back(r);
    renditions_[r];
  }
  for (const std::string& i : input_order_) inputs_[i];
}

Metrics::Input& Metrics::InputNamed(const std::string& name) { return inputs_[name]; }
Metrics::Rendition& Metrics::RenditionNamed(const std::string& name) { return renditions_[name]; }

void Metrics::Trim(std::deque<Point>* points, double now) const {
  while (!points->empty() && points->front().t < now - history_s_) points->pop_front();
}

void Metrics::SetInfo(const std::string& backend, const std::string& device,
                      const std::string& version) {
  std::lock_guard<std::mutex> lock(mutex_);
  backend_ = backend;
  device_ = device;
  version_ = version;
}

void Metrics::InputOpening(const std::string& input, double) {
  std::lock_guard<std::mutex> lock(mutex_);
  Input& in = InputNamed(input);
  in.up = false;
  in.state = "connecting";
  in.ever_opened = true;
}

void Metrics::InputFrame(const std::string& input, double t) {
  std::lock_guard<std::mutex> lock(mutex_);
  Input& in = InputNamed(input);
  in.up = true;
  in.state = "up";
  in.last_frame_t = t;
  in.frames++;
}

void Metrics::InputDown(const std::string& input, const std::string& reason, double) {
  std::lock_guard<std::mutex> lock(mutex_);
  Input& in = InputNamed(input);
  in.up = false;
  in.state = "down";
  in.downs++;
  in.last_error = reason;
  auto r = renditions_.find(input);
  if (r != renditions_.end()) r->second.lag_s.reset();  // measured again once back
}

void Metrics::InputLive(const std::string& input, bool live) {
  std::lock_guard<std::mutex> lock(mutex_);
  InputNamed(input).live = live;
}

bool Metrics::InputUp(const std::string& input) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = inputs_.find(input);
  return it != inputs_.end() && it->second.up;
}

void Metrics::FrameSent(const std::string& input) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++(input == input_order_.front() ? reference_sent_ : RenditionNamed(input).sent);
}

void Metrics::FramePaused(const std::string& rendition) {
  std::lock_guard<std::mutex> lock(mutex_);
  RenditionNamed(rendition).paused++;
}

void Metrics::FrameDropped(const std::string& input) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++(input == input_order_.front() ? reference_dropped_ : RenditionNamed(input).dropped);
}

void Metrics::Score(const std::string& rendition, double score, std::int64_t offset, double t) {
  std::lock_guard<std::mutex> lock(mutex_);
  Rendition& r = RenditionNamed(rendition);
  r.score = score;
  r.has_score = true;
  r.scored++;
  r.offset = offset;
  r.has_offset = true;
  // One history point per second: the mean of that second's scores.
  if (r.second_count > 0 && t >= r.second_start + 1.0) {
    r.history.push_back({r.second_start, r.second_sum / static_cast<double>(r.second_count)});
    r.second_count = 0;
    r.second_sum = 0;
  }
  if (r.second_count == 0) r.second_start = std::floor(t);
  r.second_sum += score;
  r.second_count++;
  Trim(&r.history, t);
}

AlarmChange Metrics::Window(const std::string& rendition, const WindowStats& w, double t) {
  std::lock_guard<std::mutex> lock(mutex_);
  Rendition& r = RenditionNamed(rendition);
  r.window = w;
  r.has_window = true;
  r.skipped += w.skipped;
  r.unaligned += w.unaligned;
  if (w.frames > 0) r.window_history.push_back({t, w.mean});
  Trim(&r.window_history, t);
  if (!threshold_ || w.frames == 0) return AlarmChange::kNone;
  const bool below = w.mean < *threshold_;
  if (below == r.alarm) return AlarmChange::kNone;
  r.alarm = below;
  if (below) r.alarms++;
  return below ? AlarmChange::kRaised : AlarmChange::kCleared;
}

void Metrics::Sync(const std::string& rendition, bool locked, std::int64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  Rendition& r = RenditionNamed(rendition);
  r.locked = locked;
  r.offset = offset;
  r.has_offset = true;
}

void Metrics::Lag(const std::string& rendition, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  RenditionNamed(rendition).lag_s = seconds;
}

void Metrics::ReferenceHeld(std::uint64_t frames, std::uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  reference_held_frames_ = frames;
  reference_held_bytes_ = bytes;
}

void Metrics::ReferenceDelay(double seconds, double target_s, std::uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  reference_delay_s_ = seconds;
  reference_delay_target_s_ = target_s;
  reference_delay_bytes_ = bytes;
}

void Metrics::RenditionReferenceHeld(const std::string& rendition, std::uint64_t frames) {
  std::lock_guard<std::mutex> lock(mutex_);
  RenditionNamed(rendition).reference_held = frames;
}

std::string Metrics::OpenMetricsText(double now) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  using Labels = std::vector<std::pair<const char*, std::string>>;
  {
    Family f(&out, "ssim2", "info", "The monitor: its scoring backend, device and version.");
    f.Sample({{"backend", backend_}, {"device", device_}, {"version", version_}}, 1);
  }
  auto per_rendition = [&](const char* name, const char* type, const char* help, auto value) {
    Family f(&out, name, type, help);
    for (const std::string& n : rendition_order_) {
      f.Sample({{"rendition", n}}, value(renditions_.at(n)));
    }
  };
  per_rendition("ssim2_score", "gauge", "The last SSIMULACRA 2.1 score of the rendition.",
                [](const Rendition& r) { return r.has_score ? r.score : kNaN; });
  per_rendition("ssim2_window_mean", "gauge",
                "Mean score of the rendition's last complete --interval window.",
                [](const Rendition& r) { return r.has_window ? r.window.mean : kNaN; });
  per_rendition("ssim2_window_min", "gauge", "Lowest score of the last window.",
                [](const Rendition& r) { return r.has_window ? r.window.min : kNaN; });
  per_rendition("ssim2_window_p5", "gauge", "5th percentile of the last window's scores.",
                [](const Rendition& r) { return r.has_window ? r.window.p5 : kNaN; });
  {
    Family f(&out, "ssim2_frames", "counter",
             "Rendition frames by result: scored; skipped (late); unaligned (no sure partner); "
             "paused (reference down); dropped (the scoring element fell behind).");
    for (const std::string& n : rendition_order_) {
      const Rendition& r = renditions_.at(n);
      f.Sample(Labels{{"rendition", n}, {"result", "scored"}}, static_cast<double>(r.scored));
      f.Sample(Labels{{"rendition", n}, {"result", "skipped"}}, static_cast<double>(r.skipped));
      f.Sample(Labels{{"rendition", n}, {"result", "unaligned"}},
               static_cast<double>(r.unaligned));
      f.Sample(Labels{{"rendition", n}, {"result", "paused"}}, static_cast<double>(r.paused));
      f.Sample(Labels{{"rendition", n}, {"result", "dropped"}}, static_cast<double>(r.dropped));
    }
  }
  per_rendition("ssim2_frames_sent", "counter",
                "Rendition frames handed to the scoring element.",
                [](const Rendition& r) { return static_cast<double>(r.sent); });
  // A family of one unlabelled sample.
  auto single = [&](const char* name, const char* type, const char* help, double value) {
    Family f(&out, name, type, help);
    f.Sample({}, value);
  };
  single("ssim2_reference_frames_sent", "counter",
         "Reference frames handed to the scoring element (held back while no rendition is up).",
         reference_sent_);
  single("ssim2_reference_frames_dropped", "counter",
         "Reference frames dropped before the scoring element (it fell behind).",
         reference_dropped_);
  single("ssim2_reference_frames_held", "gauge",
         "Reference frames the scoring element holds for the renditions.", reference_held_frames_);
  single("ssim2_reference_bytes_held", "gauge",
         "Bytes of the full reference frames the scoring element holds.", reference_held_bytes_);
  if (reference_delay_s_) {
    single("ssim2_reference_delay_seconds", "gauge",
           "How long the reference waits, compressed, before its decoder.", *reference_delay_s_);
    single("ssim2_reference_delay_bytes", "gauge",
           "Compressed bytes of the reference in its delay line.", reference_delay_bytes_);
  }
  per_rendition("ssim2_rendition_reference_frames_held", "gauge",
                "Reference frames the scoring element holds for this rendition "
                "(ssim2_reference_frames_held is the largest).",
                [](const Rendition& r) { return static_cast<double>(r.reference_held); });
  per_rendition("ssim2_alignment_offset_frames", "gauge",
                "Reference frame minus rendition frame of the last pair or lock.",
                [](const Rendition& r) { return r.has_offset ? static_cast<double>(r.offset) : kNaN; });
  per_rendition("ssim2_rendition_lag_seconds", "gauge",
                "How long after its partner reference frame the rendition's last paired "
                "frame reached the scoring element (NaN: not measured).",
                [](const Rendition& r) { return r.lag_s.value_or(kNaN); });
  per_rendition("ssim2_alignment_locked", "gauge",
                "1 while content alignment holds a lock on the rendition.",
                [](const Rendition& r) { return r.locked ? 1.0 : 0.0; });
  per_rendition("ssim2_alarm", "gauge", "1 while the window mean is below --threshold.",
                [](const Rendition& r) { return r.alarm ? 1.0 : 0.0; });
  per_rendition("ssim2_alarms", "counter", "Times the window mean fell below --threshold.",
                [](const Rendition& r) { return static_cast<double>(r.alarms); });
  if (threshold_) {
    Family f(&out, "ssim2_threshold", "gauge", "The --threshold score.");
    f.Sample({}, *threshold_);
  }
  auto per_input = [&](const char* name, const char* type, const char* help, auto value) {
    Family f(&out, name, type, help);
    for (const std::string& n : input_order_) f.Sample({{"input", n}}, value(inputs_.at(n)));
  };
  per_input("ssim2_input_up", "gauge", "1 while the input delivers frames.",
            [](const Input& in) { return in.up ? 1.0 : 0.0; });
  per_input("ssim2_last_frame_age_seconds", "gauge",
            "Seconds since the input's last decoded frame (NaN before the first).",
            [now](const Input& in) { return in.last_frame_t < 0 ? kNaN : now - in.last_frame_t; });
  per_input("ssim2_input_frames", "counter", "Frames decoded from the input.",
            [](const Input& in) { return static_cast<double>(in.frames); });
  per_input("ssim2_input_down", "counter",
            "Times the input was reported down (error, stall or end) and reopened.",
            [](const Input& in) { return static_cast<double>(in.downs); });
  out += "# EOF\n";
  return out;
}

std::string Metrics::StateJson(double now) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto points = [&](const std::deque<Point>& ps) {
    std::string s = "[";
    for (std::size_t i = 0; i < ps.size(); ++i) {
      s += std::string(i ? "," : "") + "[" + JsonNumber(ps[i].t - now) + "," +
           JsonNumber(ps[i].value) + "]";
    }
    return s + "]";
  };
  std::string out = "{\"info\":{\"backend\":" + JsonString(backend_) +
                    ",\"device\":" + JsonString(device_) + ",\"version\":" +
                    JsonString(version_) + "},\"threshold\":" +
                    (threshold_ ? JsonNumber(*threshold_) : "null") +
                    ",\"reference_held\":{\"frames\":" + std::to_string(reference_held_frames_) +
                    ",\"bytes\":" + std::to_string(reference_held_bytes_) +
                    "},\"reference_delay\":" +
                    (reference_delay_s_ ? "{\"seconds\":" + JsonNumber(*reference_delay_s_) +
                                              ",\"target_seconds\":" +
                                              JsonNumber(reference_delay_target_s_) +
                                              ",\"bytes\":" +
                                              std::to_string(reference_delay_bytes_) + "}"
                                        : std::string("null")) +
                    ",\"inputs\":[";
  for (std::size_t i = 0; i < input_order_.size(); ++i) {
    const Input& in = inputs_.at(input_order_[i]);
    out += std::string(i ? "," : "") + "{\"name\":" + JsonString(input_order_[i]) +
           ",\"up\":" + (in.up ? "true" : "false") + ",\"live\":" +
           (in.live ? "true" : "false") + ",\"state\":" + JsonString(in.state) +
           ",\"last_frame_age_seconds\":" +
           (in.last_frame_t < 0 ? "null" : JsonNumber(now - in.last_frame_t)) +
           ",\"frames\":" + std::to_string(in.frames) + ",\"down\":" +
           std::to_string(in.downs) + ",\"last_error\":" + JsonString(in.last_error) + "}";
  }
  out += "],\"renditions\":[";
  for (std::size_t i = 0; i < rendition_order_.size(); ++i) {
    const Rendition& r = renditions_.at(rendition_order_[i]);
    out += std::string(i ? "," : "") + "{\"name\":" + JsonString(rendition_order_[i]) +
           ",\"score\":" + (r.has_score ? JsonNumber(r.score) : "null") + ",\"window\":" +
           (r.has_window ? "{\"mean\":" + JsonNumber(r.window.mean) + ",\"min\":" +
                               JsonNumber(r.window.min) + ",\"p5\":" + JsonNumber(r.window.p5) +
                               ",\"frames\":" + std::to_string(r.window.frames) +
                               ",\"skipped\":" + std::to_string(r.window.skipped) +
                               ",\"unaligned\":" + std::to_string(r.window.unaligned) +
                               ",\"start_ns\":" + std::to_string(r.window.start) +
                               ",\"end_ns\":" + std::to_string(r.window.end) + "}"
                         : std::string("null")) +
           ",\"frames\":{\"scored\":" + std::to_string(r.scored) + ",\"skipped\":" +
           std::to_string(r.skipped) + ",\"unaligned\":" + std::to_string(r.unaligned) +
           ",\"paused\":" + std::to_string(r.paused) +
           ",\"dropped\":" + std::to_string(r.dropped) +
           ",\"sent\":" + std::to_string(r.sent) + "},\"reference_held\":" +
           std::to_string(r.reference_held) + ",\"offset\":" +
           (r.has_offset ? std::to_string(r.offset) : "null") + ",\"lag_seconds\":" +
           (r.lag_s ? JsonNumber(*r.lag_s) : "null") + ",\"locked\":" +
           (r.locked ? "true" : "false") + ",\"alarm\":" + (r.alarm ? "true" : "false") +
           ",\"alarms\":" + std::to_string(r.alarms) + ",\"history\":" + points(r.history) +
           ",\"window_history\":" + points(r.window_history) + "}";
  }
  return out + "]}";
}

}  // namespace monitor
}  // namespace ssim2
