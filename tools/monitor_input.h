// One input of `ssim2 monitor`: its own pipeline, opened, watched and
// reopened (docs/MONITOR.md, "Faults"):
//
//   uridecodebin uri=URI ! videoconvert ! [videoscale] ! capsfilter ! appsink
//
// or, with a delay line (the reference; docs/MONITOR.md, "Long latencies"),
// split before its decoder so that the delay holds compressed data:
//
//   urisourcebin ! parsebin ! queue (the delay) ! decodebin ! videoconvert ! ...
//
// Each input lives in a pipeline of its own, apart from the scoring
// pipeline, so that an input's error, end or stall is that pipeline's
// business only: it is torn down and built again after a back-off, while
// the scoring pipeline and the other inputs go on. Frames leave through the
// appsink to the owner's callback (a streaming thread), which hands them to
// the scoring pipeline's appsrc. Main-loop thread only, except that
// callback.
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace ssim2 {
namespace monitor {

class Metrics;

// Seconds on the monotonic clock all of the monitor's times use.
double MonotonicSeconds();

class Input {
 public:
  struct Settings {
    double stall_timeout_s = 5;  // no frame for this long after opening or the last frame: down
    double min_backoff_s = 0.5;  // first wait before reopening; doubles up to max_backoff_s
    double max_backoff_s = 30;
    bool scale = false;  // a rendition: scaled to the size SetTargetSize() gives
    bool delay_line = false;  // split before the decoder, with SetDelay()'s delay
    double delay_s = 0;       // the delay it opens with
  };
  // Called on a streaming thread with each decoded frame (I420, system memory).
  using FrameCallback = std::function<void(Input*, GstSample*)>;
  // Called on the main loop when the input is reported down.
  using DownCallback = std::function<void(Input*)>;
  using LogCallback = std::function<void(const std::string&)>;

  Input(std::string name, std::string uri, Settings settings, Metrics* metrics,
        FrameCallback on_frame, DownCallback on_down, LogCallback log);
  ~Input();
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  const std::string& name() const { return name_; }
  // Opens the input now (the first time), or when its back-off has passed.
  void Start();
  // The main loop's periodic check: a stall makes the input down; a down
  // input whose back-off has passed is reopened.
  void Tick(double now);
  // Renditions: the frame size to scale to (the reference's); 0 leaves the
  // decoded size. Takes effect on the running pipeline.
  void SetTargetSize(int width, int height);
  // With a delay line: the time the compressed stream waits before its
  // decoder, from now on and at each reopening. Raised, the input delivers
  // no frame for the difference (not a stall); lowered, it delivers the
  // difference at once.
  void SetDelay(double seconds, double now);
  // The compressed bytes in the delay line now (0 without one).
  std::uint64_t DelayBytes() const;
  // Tears the pipeline down for good (at exit).
  void Stop();

 private:
  void Open(double now);
  void Down(const std::string& reason, double now);
  void TearDown();
  GstCaps* OutputCaps() const;
  static gboolean OnBus(GstBus*, GstMessage*, gpointer);
  static void OnPadAdded(GstElement*, GstPad*, gpointer);
  static void OnSourcePad(GstElement*, GstPad*, gpointer);
  static void OnParsedPad(GstElement*, GstPad*, gpointer);
  static void OnSourceSetup(GstElement*, GstElement* source, gpointer);
  // Its source is live: frames are taken as they come (the appsink does
  // not sync).
  void SetLive();
  // Links `pad` into `into` when `wanted` and the first so (`taken`); to a
  // fakesink otherwise.
  void LinkFirst(GstPad* pad, bool wanted, std::atomic<bool>* taken, GstElement* into);
  void ApplyDelay();
  static GstFlowReturn OnSample(GstElement*, gpointer);

  std::string name_, uri_;
  Settings settings_;
  Metrics* metrics_;
  FrameCallback on_frame_;
  DownCallback on_down_;
  LogCallback log_;

  GstElement* pipeline_ = nullptr;
  GstElement* convert_ = nullptr;  // the chain's first element, linked at pad-added
  GstElement* filter_ = nullptr;
  GstElement* sink_ = nullptr;  // the appsink
  GstElement* delay_ = nullptr;  // the delay line's queue
  GstElement* decoder_ = nullptr;  // decodebin after it
  guint bus_watch_ = 0;
  bool open_ = false;       // a pipeline runs (up or connecting)
  bool stopped_ = false;
  double opened_at_ = 0;
  double reopen_at_ = 0;
  double backoff_s_;
  // No frame is expected before this (a delay line filling): no stall.
  double quiet_until_ = 0;
  int target_width_ = 0, target_height_ = 0;
  // Set by the streaming thread: the last frame's time (< 0: none since
  // opening), read by Tick().
  std::atomic<double> last_frame_at_{-1};
  std::atomic<bool> linked_{false};
  std::atomic<bool> delay_linked_{false};  // the delay line has its stream
};

}  // namespace monitor
}  // namespace ssim2
