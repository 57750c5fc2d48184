// The monitor's metrics registry (docs/MONITOR.md, "Metrics"): what the
// element's messages and the inputs report, kept per input and per
// rendition, and written out as OpenMetrics text (/metrics) or JSON
// (/api/state). No GStreamer; thread-safe (streaming threads count frames,
// the main loop reads). Times are seconds on one monotonic clock, passed in.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ssim2 {
namespace monitor {

// An alarm's change of state, for the caller's log line.
enum class AlarmChange { kNone, kRaised, kCleared };

// One ssim2-interval window of a rendition.
struct WindowStats {
  std::uint64_t frames = 0;   // scored in the window
  std::uint64_t skipped = 0;  // skipped for lateness
  double mean = 0, min = 0, p5 = 0;  // NaN when only skipped pairs
  std::uint64_t start = 0, end = 0;  // [start, end) in the scoring pipeline's running time (ns)
  std::uint64_t unaligned = 0;  // passed on unscored: no sure partner (content alignment)
};

class Metrics {
 public:
  // The renditions in command-line order (the inputs: "ref", then those). History:
  // how many seconds of per-second points the page gets.
  Metrics(std::vector<std::string> renditions, std::optional<double> threshold,
          double history_s = 600);

  void SetInfo(const std::string& backend, const std::string& device, const std::string& version);

  // Inputs ("ref" or a rendition's name).
  void InputOpening(const std::string& input, double t);  // (re)opening: not up yet
  void InputFrame(const std::string& input, double t);    // a decoded frame: up
  void InputDown(const std::string& input, const std::string& reason, double t);
  bool InputUp(const std::string& input) const;
  // Whether its frames are taken as they come (a live source) or at the
  // pace of their timestamps (a file, a download).
  void InputLive(const std::string& input, bool live);

  // Frames at the boundary: sent into the element (the reference's too,
  // by its name), or, for a rendition, dropped there while the reference
  // is down (scoring paused).
  void FrameSent(const std::string& input);
  void FramePaused(const std::string& rendition);
  // A frame of the input that its feed dropped because the element fell
  // more than the feed's queue behind (not sent).
  void FrameDropped(const std::string& input);

  // The element's messages.
  void Score(const std::string& rendition, double score, std::int64_t offset, double t);
  AlarmChange Window(const std::string& rendition, const WindowStats& w, double t);
  void Sync(const std::string& rendition, bool locked, std::int64_t offset);
  // How long after its partner reference frame a frame of the rendition
  // reached the scoring element, from a pair or a lock: its latency behind
  // the reference as delayed (--reference-delay off: the transcoder's and
  // the network's latency). Unknown again once the rendition's input goes
  // down.
  void Lag(const std::string& rendition, double seconds);
  // The element's reference frames held for the renditions, and the bytes of
  // their full frames (its held-ref-frames and held-ref-bytes).
  void ReferenceHeld(std::uint64_t frames, std::uint64_t bytes);
  // The reference's delay line (--reference-delay): the delay in use, the
  // one it moves to, and the compressed bytes it holds. Without one (off),
  // never called: the metrics are absent.
  void ReferenceDelay(double seconds, double target_s, std::uint64_t bytes);
  // The reference frames the element holds for one rendition (its
  // held-ref-frames-by-pad): the total above is the largest of these.
  void RenditionReferenceHeld(const std::string& rendition, std::uint64_t frames);

  // Prometheus/OpenMetrics text exposition (ends with "# EOF\n").
  std::string OpenMetricsText(double now) const;
  // The same state as JSON, with the per-second history for the page.
  std::string StateJson(double now) const;

  static constexpr const char* kOpenMetricsContentType =
      "application/openmetrics-text; version=1.0.0; charset=utf-8";

 private:
  struct Input {
    bool up = false;
    bool ever_opened = false;
    double last_frame_t = -1;  // < 0: no frame yet
    std::uint64_t frames = 0;
    std::uint64_t downs = 0;  // times reported down
    std::string state = "starting";  // starting, connecting, up, down
    bool live = false;
    std::string last_error;
  };
  struct Point {
    double t, value;
  };
  struct Rendition {
    double score = 0;
    bool has_score = false;
    WindowStats window;
    bool has_window = false;
    std::uint64_t scored = 0, skipped = 0, unaligned = 0, sent = 0, paused = 0, dropped = 0;
    std::uint64_t reference_held = 0;  // reference frames held for it
    std::int64_t offset = 0;
    bool has_offset = false;
    std::optional<double> lag_s;
    bool locked = false;
    bool alarm = false;
    std::uint64_t alarms = 0;
    // Per-second means of the scores, and the windows' means.
    std::deque<Point> history, window_history;
    double second_start = -1, second_sum = 0;
    std::uint64_t second_count = 0;
  };

  Input& InputNamed(const std::string& name);
  Rendition& RenditionNamed(const std::string& name);
  void Trim(std::deque<Point>* points, double now) const;

  mutable std::mutex mutex_;
  std::vector<std::string> input_order_;  // "ref", then the renditions
  std::vector<std::string> rendition_order_;
  std::map<std::string, Input> inputs_;
  std::map<std::string, Rendition> renditions_;
  std::optional<double> threshold_;
  double history_s_;
  std::string backend_, device_, version_;
  std::uint64_t reference_sent_ = 0, reference_dropped_ = 0;
  std::uint64_t reference_held_frames_ = 0, reference_held_bytes_ = 0;
  std::optional<double> reference_delay_s_;  // none: no delay line
  double reference_delay_target_s_ = 0;
  std::uint64_t reference_delay_bytes_ = 0;
};

}  // namespace monitor
}  // namespace ssim2
