// `ssim2 monitor`: the scoring pipeline and the main loop (docs/MONITOR.md).
//
//   appsrc name=ref   ! ssim2compare.ref        (alignment=content, interval)
//   appsrc name=NAME1 ! ssim2compare.dist       ssim2compare ! fakesink
//   appsrc name=NAME2 ! ssim2compare.dist_1 ...
//
// Each appsrc is live and fed by its input (monitor_input.h), a pipeline of
// its own that can fail, stall, end and be reopened without touching this
// one. A frame is stamped with this pipeline's running time when it crosses
// over, so every input, whatever its own clock and timestamps, arrives on
// one time line; the content alignment pairs them by their pictures. While
// the reference is down, rendition frames are not handed over (counted as
// paused); the first frame after a gap in a rendition, or after the
// reference came back, is marked DISCONT so that its aligner looks for the
// offset again. The element's messages feed the metrics (monitor_metrics.h)
// that the HTTP server (monitor_http.h) serves. The reference may wait,
// compressed, in a delay line before its decoder, set from the renditions'
// lags that the element's pairs show (monitor_delay.h).
#include "monitor.h"

#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <glib-unix.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

#include "gstssim2message.h"
#include "monitor_delay.h"
#include "monitor_http.h"
#include "monitor_input.h"
#include "monitor_logs.h"
#include "monitor_metrics.h"
#include "monitor_options.h"
#include "ssim2/devices.h"
#include "video_pipeline.h"

namespace ssim2 {
namespace monitor {
namespace {

// What an appsrc holds before the feed drops new frames (OnFrame): the
// element takes reference frames as they come and holds what alignment needs
// itself, so this fills only while its scoring thread is busy. Bounded by
// time, with a frame count as a hard cap (not by bytes: one 4K frame is
// 12 MB).
constexpr guint64 kAppsrcMaxTime = 4 * GST_SECOND;
constexpr guint64 kAppsrcMaxBuffers = 256;
// How often inputs are checked for stalls and back-offs.
constexpr guint kTickMs = 100;

// One line on stderr, with the UTC time: the monitor's log.
void Log(const std::string& line) {
  GDateTime* now = g_date_time_new_now_utc();
  gchar* stamp = g_date_time_format(now, "%Y-%m-%dT%H:%M:%S");
  std::fprintf(stderr, "%s.%03dZ ssim2 monitor: %s\n", stamp,
               g_date_time_get_microsecond(now) / 1000, line.c_str());
  std::fflush(stderr);
  g_free(stamp);
  g_date_time_unref(now);
}

// Where one input's frames go in the scoring pipeline.
struct Feed {
  std::string name;
  GstElement* appsrc = nullptr;  // owned by the pipeline
  std::string pad;               // the element's pad: ref, dist, dist_N
  std::unique_ptr<Input> input;
  std::mutex mutex;              // caps and discont, streaming thread vs main loop
  GstCaps* caps = nullptr;       // the caps last set on the appsrc
  bool discont = true;           // mark the next frame DISCONT
};

class Monitor {
 public:
  explicit Monitor(const MonitorOptions& o) : options_(o) {}
  ~Monitor();
  int Run(const char* version);

 private:
  bool BuildPipeline(std::string* error);
  void OnFrame(Feed* feed, GstSample* sample);
  void OnInputDown(Feed* feed);
  void FillRenditionGaps(GstClockTime running_time);
  void OnElementMessage(GstMessage* msg);
  GstClockTime RunningTime() const;
  void MeasureLag(const std::string& rendition, GstClockTime running_time,
                  GstClockTime ref_running_time);
  void ControlDelay();
  static gboolean OnBus(GstBus*, GstMessage*, gpointer);
  static gboolean OnTick(gpointer);
  static gboolean OnSignal(gpointer);
  const std::string& RenditionOfPad(const std::string& pad) const;
  void SetInfo(const char* version);
  bool OpenLogs(std::string* error);

  MonitorOptions options_;
  std::unique_ptr<Metrics> metrics_;
  GstElement* pipeline_ = nullptr;
  GstElement* compare_ = nullptr;
  Feed ref_;
  std::vector<std::unique_ptr<Feed>> renditions_;
  std::map<std::string, std::string> rendition_of_pad_;
  std::map<std::string, std::unique_ptr<RenditionLog>> logs_;  // by rendition (--log-dir)
  GMainLoop* loop_ = nullptr;
  // The reference's frame size (renditions are scaled to it), main loop.
  int ref_width_ = 0, ref_height_ = 0;
  std::atomic<bool> ref_up_{false};
  std::atomic<int> pending_width_{0}, pending_height_{0};
  // --reference-delay auto: the delay chosen from the renditions' lags.
  std::unique_ptr<ReferenceDelayControl> delay_control_;
};

Monitor::~Monitor() {
  for (auto& r : renditions_) {
    if (r->input) r->input->Stop();
  }
  if (ref_.input) ref_.input->Stop();
  if (pipeline_) {
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    gst_object_unref(pipeline_);
  }
  for (Feed* f : {&ref_}) {
    if (f->caps) gst_caps_unref(f->caps);
  }
  for (auto& r : renditions_) {
    if (r->caps) gst_caps_unref(r->caps);
  }
  if (loop_) g_main_loop_unref(loop_);
}

const std::string& Monitor::RenditionOfPad(const std::string& pad) const {
  static const std::string none;
  auto it = rendition_of_pad_.find(pad);
  return it == rendition_of_pad_.end() ? none : it->second;
}

bool Monitor::BuildPipeline(std::string* error) {
  cli::LoadOwnPluginIfMissing();
  if (options_.backend != Backend::kCpu) cli::PreferHardwareDecoders(options_.cuda_device);
  pipeline_ = gst_pipeline_new("ssim2-monitor");
  compare_ = gst_element_factory_make("ssim2compare", "compare");
  if (!compare_) {
    *error = "the GStreamer element ssim2compare is not available (is the ssim2 plugin "
             "installed, or GST_PLUGIN_PATH set to its folder?)";
    return false;
  }
  gst_util_set_object_arg(G_OBJECT(compare_), "alignment",
                          ssim2gst::AlignmentName(options_.alignment));
  gst_util_set_object_arg(G_OBJECT(compare_), "backend",
                          options_.backend == Backend::kCpu    ? "cpu"
                          : options_.backend == Backend::kCuda ? "cuda"
                                                               : "auto");
  g_object_set(compare_, "cuda-device-id", options_.cuda_device, "post-messages", TRUE,
               "interval", static_cast<guint64>(options_.interval_s * GST_SECOND),
               "sync-window", static_cast<guint64>(options_.sync_window_s * GST_SECOND),
               nullptr);
  if (options_.max_reference_bytes) {
    g_object_set(compare_, "sync-max-bytes", static_cast<guint64>(*options_.max_reference_bytes),
                 nullptr);
  }
  GstElement* sink = gst_element_factory_make("fakesink", "sink");
  g_object_set(sink, "sync", FALSE, "async", FALSE, nullptr);
  gst_bin_add_many(GST_BIN(pipeline_), compare_, sink, nullptr);
  gst_element_link(compare_, sink);

  auto make_src = [&](Feed* feed, GstPad* pad) {
    feed->appsrc = gst_element_factory_make("appsrc", (feed->name + "-feed").c_str());
    g_object_set(feed->appsrc, "is-live", TRUE, "format", GST_FORMAT_TIME, "max-buffers",
                 kAppsrcMaxBuffers, "max-time", kAppsrcMaxTime, "max-bytes",
                 static_cast<guint64>(0), nullptr);
    gst_bin_add(GST_BIN(pipeline_), feed->appsrc);
    GstPad* src = gst_element_get_static_pad(feed->appsrc, "src");
    const bool linked = gst_pad_link(src, pad) == GST_PAD_LINK_OK;
    gst_object_unref(src);
    feed->pad = GST_PAD_NAME(pad);
    gst_object_unref(pad);
    return linked;
  };
  ref_.name = kReferenceInput;
  if (!make_src(&ref_, gst_element_get_static_pad(compare_, "ref"))) {
    *error = "cannot link the reference's feed to ssim2compare";
    return false;
  }
  for (std::size_t i = 0; i < options_.renditions.size(); ++i) {
    auto feed = std::make_unique<Feed>();
    feed->name = options_.renditions[i].name;
    GstPad* pad = i == 0 ? gst_element_get_static_pad(compare_, "dist")
                         : gst_element_request_pad_simple(compare_, "dist_%u");
    if (!pad || !make_src(feed.get(), pad)) {
      *error = "cannot link rendition " + feed->name + " to ssim2compare";
      return false;
    }
    rendition_of_pad_[feed->pad] = feed->name;
    renditions_.push_back(std::move(feed));
  }
  return true;
}

void Monitor::OnFrame(Feed* feed, GstSample* sample) {
  GstBuffer* in = gst_sample_get_buffer(sample);
  GstCaps* caps = gst_sample_get_caps(sample);
  if (!in || !caps) return;
  const bool is_ref = feed == &ref_;
  if (is_ref) {
    GstVideoInfo info;
    if (gst_video_info_from_caps(&info, caps)) {
      pending_width_ = GST_VIDEO_INFO_WIDTH(&info);
      pending_height_ = GST_VIDEO_INFO_HEIGHT(&info);
    }
    ref_up_ = true;
    // With no rendition up there is nothing to score, and the element would
    // keep every reference frame for renditions without frames (their
    // aligners may still need them): the reference waits here instead.
    bool any_up = false;
    for (const auto& r : renditions_) any_up = any_up || metrics_->InputUp(r->name);
    if (!any_up) return;
  } else {
    // Scoring pauses while the reference is down, and until renditions
    // come at its size.
    GstVideoInfo info;
    const bool sized = gst_video_info_from_caps(&info, caps) &&
                       GST_VIDEO_INFO_WIDTH(&info) == pending_width_ &&
                       GST_VIDEO_INFO_HEIGHT(&info) == pending_height_;
    if (!ref_up_ || !sized) {
      metrics_->FramePaused(feed->name);
      std::lock_guard<std::mutex> lock(feed->mutex);
      feed->discont = true;
      return;
    }
  }
  // The element more than the feed's queue behind (the machine cannot keep
  // up): the new frame is dropped here, and counted. Not the oldest inside a
  // leaky appsrc: GStreamer 1.22's does not count its drops. Alignment
  // takes the gap as dropped frames.
  GstAppSrc* src = GST_APP_SRC(feed->appsrc);
  if (gst_app_src_get_current_level_buffers(src) >= kAppsrcMaxBuffers ||
      gst_app_src_get_current_level_time(src) >= kAppsrcMaxTime) {
    metrics_->FrameDropped(feed->name);
    return;
  }
  GstBuffer* out = gst_buffer_copy(in);  // shares the memory
  const GstClockTime running_time = RunningTime();
  GST_BUFFER_PTS(out) = running_time;
  GST_BUFFER_DTS(out) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_FLAG_UNSET(out, GST_BUFFER_FLAG_DISCONT);
  {
    std::lock_guard<std::mutex> lock(feed->mutex);
    if (!feed->caps || !gst_caps_is_equal(feed->caps, caps)) {
      gst_caps_replace(&feed->caps, caps);
      gst_app_src_set_caps(GST_APP_SRC(feed->appsrc), caps);
    }
    if (feed->discont) GST_BUFFER_FLAG_SET(out, GST_BUFFER_FLAG_DISCONT);
    feed->discont = false;
  }
  metrics_->FrameSent(feed->name);
  gst_app_src_push_buffer(src, out);
  if (is_ref) FillRenditionGaps(running_time);
}

// A rendition that is not sending (down, reopening, or paused until it comes
// at the reference's size: its feed marked DISCONT) gets a GAP at each
// reference frame. The element is live, and a live aggregator waits its
// latency (--sync-window and a block of frames) on a pad without data before
// each pass: meanwhile the other renditions' frames wait in their feeds,
// and beyond a feed's 4 s they are dropped. Measured before (the soak,
// --sync-window 6): while one rendition was down for 20 s, the other had 89
// frames dropped, 19 skipped and 25 unaligned of 200, its scoring stalled for
// seconds at a time.
// A rendition that never sent a frame gets the reference's caps first (its
// frames will be scaled to them), so that no GAP comes before caps.
void Monitor::FillRenditionGaps(GstClockTime running_time) {
  for (auto& r : renditions_) {
    {
      std::lock_guard<std::mutex> lock(r->mutex);
      if (!r->discont) continue;  // sending
      if (!r->caps) {
        std::lock_guard<std::mutex> ref_lock(ref_.mutex);
        if (!ref_.caps) continue;
        gst_caps_replace(&r->caps, ref_.caps);
        gst_app_src_set_caps(GST_APP_SRC(r->appsrc), r->caps);
      }
    }
    gst_element_send_event(r->appsrc, gst_event_new_gap(running_time, GST_CLOCK_TIME_NONE));
  }
}

GstClockTime Monitor::RunningTime() const {
  GstClock* clock = gst_element_get_clock(pipeline_);
  GstClockTime running_time = 0;
  if (clock) {
    const GstClockTime now = gst_clock_get_time(clock);
    const GstClockTime base = gst_element_get_base_time(pipeline_);
    running_time = now > base ? now - base : 0;
    gst_object_unref(clock);
  }
  return running_time;
}

// A pair (or a lock) of the element: the running times of its two frames,
// which are the times they crossed over (each frame is stamped with the
// running time it crossed at, OnFrame), so their difference is how long the
// element held the reference frame for the rendition's: its lag behind the
// reference as delayed now. Times, not frame numbers: no frame a feed or
// the element dropped, no restart of an input and no aligner's origin
// shifts them.
void Monitor::MeasureLag(const std::string& rendition, GstClockTime running_time,
                         GstClockTime ref_running_time) {
  if (!GST_CLOCK_TIME_IS_VALID(running_time) || !GST_CLOCK_TIME_IS_VALID(ref_running_time)) {
    return;
  }
  const double ref_t = static_cast<double>(ref_running_time) / GST_SECOND;
  const double dist_t = static_cast<double>(running_time) / GST_SECOND;
  metrics_->Lag(rendition, dist_t - ref_t);
  if (delay_control_) delay_control_->Measured(rendition, ref_t, dist_t);
}

// --reference-delay auto, on each tick: the delay the renditions' lags call
// for, applied to the reference's delay line.
void Monitor::ControlDelay() {
  if (!delay_control_) return;
  std::map<std::string, bool> up;
  for (const auto& r : renditions_) up[r->name] = metrics_->InputUp(r->name);
  const double target = delay_control_->target_s();
  const std::optional<double> delay =
      delay_control_->Tick(up, static_cast<double>(RunningTime()) / GST_SECOND);
  if (delay) ref_.input->SetDelay(*delay, MonotonicSeconds());
  if (delay_control_->target_s() == target) return;
  auto seconds = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f s", v);
    return std::string(text);
  };
  std::string text = "reference delay to " + seconds(delay_control_->target_s()) + " (from " +
                     seconds(delay_control_->delay_s()) + "); renditions behind it now:";
  for (const auto& r : renditions_) {
    const std::optional<double> lag = delay_control_->lag_s(r->name);
    text += " " + r->name + " " + (lag ? seconds(*lag) : "not measured");
  }
  Log(text);
}

void Monitor::OnInputDown(Feed* feed) {
  if (feed == &ref_) {
    ref_up_ = false;
    Log("scoring paused until the reference is back");
    for (auto& r : renditions_) {
      std::lock_guard<std::mutex> lock(r->mutex);
      r->discont = true;
    }
    return;
  }
  if (delay_control_) delay_control_->Forget(feed->name);
  std::lock_guard<std::mutex> lock(feed->mutex);
  feed->discont = true;
}

void Monitor::OnElementMessage(GstMessage* msg) {
  const double now = MonotonicSeconds();
  GstSsim2ScoreMessage score;
  GstSsim2IntervalMessage window;
  GstSsim2SyncMessage sync;
  if (gst_ssim2_score_message_parse_message(msg, &score)) {
    const std::string& name = RenditionOfPad(score.pad);
    if (name.empty()) return;
    metrics_->Score(name, score.score, score.offset, now);
    MeasureLag(name, score.running_time, score.ref_running_time);
    auto log = logs_.find(name);
    if (log == logs_.end()) return;
    std::string error;
    if (!log->second->Append(ssim2gst::ScoreRowOf(score), now, &error)) {
      Log("rendition " + name + ": its log stops (" + error + "); scoring goes on");
      logs_.erase(log);
    }
  } else if (gst_ssim2_interval_message_parse_message(msg, &window)) {
    const std::string& name = RenditionOfPad(window.pad);
    if (name.empty()) return;
    WindowStats w{window.frames, window.skipped, window.mean, window.min,
                  window.p5,     window.start,   window.end, window.unaligned};
    const AlarmChange change = metrics_->Window(name, w, now);
    if (change == AlarmChange::kRaised) {
      Log("ALARM rendition " + name + ": window mean " + std::to_string(window.mean) +
          " below the threshold " + std::to_string(*options_.threshold));
    } else if (change == AlarmChange::kCleared) {
      Log("alarm cleared, rendition " + name + ": window mean " + std::to_string(window.mean));
    }
  } else if (gst_ssim2_sync_message_parse_message(msg, &sync)) {
    const std::string& name = RenditionOfPad(sync.pad);
    if (name.empty()) return;
    const bool locked = g_strcmp0(sync.state, "lost") != 0;
    metrics_->Sync(name, locked, sync.offset);
    if (delay_control_) delay_control_->Locked(name, locked);
    if (locked) MeasureLag(name, sync.running_time, sync.ref_running_time);
    Log("rendition " + name + ": alignment " + sync.state + " at offset " +
        std::to_string(sync.offset) + " frames");
  }
}

gboolean Monitor::OnBus(GstBus*, GstMessage* msg, gpointer data) {
  Monitor* self = static_cast<Monitor*>(data);
  switch (GST_MESSAGE_TYPE(msg)) {
    case GST_MESSAGE_ELEMENT:
      self->OnElementMessage(msg);
      break;
    case GST_MESSAGE_WARNING:
    case GST_MESSAGE_ERROR: {
      GError* err = nullptr;
      gchar* debug = nullptr;
      const bool error = GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR;
      if (error) gst_message_parse_error(msg, &err, &debug);
      else gst_message_parse_warning(msg, &err, &debug);
      Log(std::string(error ? "scoring error: " : "warning: ") + (err ? err->message : "?"));
      if (!error && g_error_matches(err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT)) {
        // The element's sync-max-bytes, in the monitor's terms.
        Log("the reference frames held for alignment reached --max-reference-bytes: renditions "
            "later than that holds are not scored (docs/MONITOR.md, \"Long latencies\"); "
            "raise it, or lower --sync-window");
      }
      g_clear_error(&err);
      g_free(debug);
      if (error) {
        // The scoring pipeline starts again; the inputs are not touched.
        gst_element_set_state(self->pipeline_, GST_STATE_NULL);
        for (Feed* f : {&self->ref_}) {
          std::lock_guard<std::mutex> lock(f->mutex);
          gst_caps_replace(&f->caps, nullptr);
        }
        for (auto& r : self->renditions_) {
          std::lock_guard<std::mutex> lock(r->mutex);
          gst_caps_replace(&r->caps, nullptr);
          r->discont = true;
        }
        if (self->delay_control_) self->delay_control_->Restart();
        gst_element_set_state(self->pipeline_, GST_STATE_PLAYING);
        Log("scoring pipeline restarted");
      }
      break;
    }
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

gboolean Monitor::OnTick(gpointer data) {
  Monitor* self = static_cast<Monitor*>(data);
  const double now = MonotonicSeconds();
  // Renditions follow the reference's size.
  const int w = self->pending_width_, h = self->pending_height_;
  if (w != self->ref_width_ || h != self->ref_height_) {
    self->ref_width_ = w;
    self->ref_height_ = h;
    for (auto& r : self->renditions_) r->input->SetTargetSize(w, h);
  }
  self->ref_.input->Tick(now);
  for (auto& r : self->renditions_) r->input->Tick(now);
  guint64 held_frames = 0, held_bytes = 0;
  g_object_get(self->compare_, "held-ref-frames", &held_frames, "held-ref-bytes", &held_bytes,
               nullptr);
  self->metrics_->ReferenceHeld(held_frames, held_bytes);
  self->ControlDelay();
  if (self->options_.reference_delay != MonitorOptions::ReferenceDelay::kOff) {
    const ReferenceDelayControl* control = self->delay_control_.get();
    const double fixed = self->options_.reference_delay_s;
    self->metrics_->ReferenceDelay(control ? control->delay_s() : fixed,
                                   control ? control->target_s() : fixed,
                                   self->ref_.input->DelayBytes());
  }
  GstStructure* by_pad = nullptr;
  g_object_get(self->compare_, "held-ref-frames-by-pad", &by_pad, nullptr);
  for (const auto& [pad, rendition] : self->rendition_of_pad_) {
    guint64 frames = 0;
    if (by_pad && gst_structure_get_uint64(by_pad, pad.c_str(), &frames))
      self->metrics_->RenditionReferenceHeld(rendition, frames);
  }
  if (by_pad) gst_structure_free(by_pad);
  return G_SOURCE_CONTINUE;
}

gboolean Monitor::OnSignal(gpointer data) {
  Monitor* self = static_cast<Monitor*>(data);
  g_main_loop_quit(self->loop_);
  return G_SOURCE_CONTINUE;
}

bool Monitor::OpenLogs(std::string* error) {
  if (options_.log_dir.empty()) return true;
  if (g_mkdir_with_parents(options_.log_dir.c_str(), 0755) != 0) {
    *error = "cannot create --log-dir " + options_.log_dir + ": " + g_strerror(errno);
    return false;
  }
  LogRotation rotation;
  rotation.max_bytes = options_.log_max_bytes;
  rotation.max_age_s = options_.log_max_age_s;
  rotation.keep = options_.log_keep;
  for (const Rendition& r : options_.renditions) {
    LogRunInfo info;
    info.reference = options_.ref_uri;
    info.distorted = r.uri;
    info.alignment = ssim2gst::AlignmentName(options_.alignment);
    auto log = RenditionLog::Open(options_.log_dir, r.name, rotation, info, MonotonicSeconds(),
                                  error);
    if (!log) return false;
    logs_[r.name] = std::move(log);
  }
  return true;
}

void Monitor::SetInfo(const char* version) {
  std::string backend = "cpu", device;
  if (options_.backend != Backend::kCpu) {
    const CudaDeviceList list = ListCudaDevices();
    const int wanted = options_.cuda_device < 0 ? 0 : options_.cuda_device;
    for (const CudaDevice& d : list.devices) {
      if (d.index == wanted && d.engine_runs) {
        backend = "cuda";
        device = d.name;
      }
    }
  }
  metrics_->SetInfo(backend, device, version);
}

int Monitor::Run(const char* version) {
  std::vector<std::string> names;
  for (const Rendition& r : options_.renditions) names.push_back(r.name);
  metrics_ = std::make_unique<Metrics>(names, options_.threshold);
  SetInfo(version);
  std::string error;
  if (!BuildPipeline(&error)) {
    std::fprintf(stderr, "ssim2 monitor: %s\n", error.c_str());
    return 1;
  }
  if (!OpenLogs(&error)) {
    std::fprintf(stderr, "ssim2 monitor: %s\n", error.c_str());
    return 1;
  }
  HttpServer::Content content{
      [this] { return metrics_->OpenMetricsText(MonotonicSeconds()); },
      [this] { return metrics_->StateJson(MonotonicSeconds()); }};
  std::unique_ptr<HttpServer> http =
      HttpServer::Start(options_.listen_host, options_.listen_port, content, &error);
  if (!http) {
    std::fprintf(stderr, "ssim2 monitor: %s\n", error.c_str());
    return 1;
  }
  loop_ = g_main_loop_new(nullptr, FALSE);
  GstBus* bus = gst_element_get_bus(pipeline_);
  const guint bus_watch = gst_bus_add_watch(bus, OnBus, this);
  gst_object_unref(bus);
  if (gst_element_set_state(pipeline_, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    std::fprintf(stderr, "ssim2 monitor: the scoring pipeline does not start\n");
    return 1;
  }
  Input::Settings settings;
  settings.stall_timeout_s = options_.stall_timeout_s;
  settings.max_backoff_s = options_.max_backoff_s;
  // The reference is split before its decoder, its delay line fixed or
  // set from the renditions' lags (auto, from 0).
  if (options_.reference_delay == MonitorOptions::ReferenceDelay::kAuto) {
    DelayPolicy policy;
    policy.max_s = std::max(0.0, options_.sync_window_s - policy.margin_s);
    delay_control_ = std::make_unique<ReferenceDelayControl>(policy);
  }
  auto make_input = [&](Feed* feed, const std::string& uri, bool scale) {
    Input::Settings s = settings;
    s.scale = scale;
    if (feed == &ref_ && options_.reference_delay != MonitorOptions::ReferenceDelay::kOff) {
      s.delay_line = true;
      s.delay_s = options_.reference_delay_s;
    }
    feed->input = std::make_unique<Input>(
        feed->name, uri, s, metrics_.get(),
        [this, feed](Input*, GstSample* sample) { OnFrame(feed, sample); },
        [this, feed](Input*) { OnInputDown(feed); }, Log);
  };
  make_input(&ref_, options_.ref_uri, false);
  for (std::size_t i = 0; i < renditions_.size(); ++i) {
    make_input(renditions_[i].get(), options_.renditions[i].uri, true);
  }
  Log("serving " + http->url() + " (/metrics, /api/state); " +
      std::to_string(renditions_.size()) + " rendition(s)");
  ref_.input->Start();
  for (auto& r : renditions_) r->input->Start();
  const guint tick = g_timeout_add(kTickMs, OnTick, this);
  const guint sigint = g_unix_signal_add(SIGINT, OnSignal, this);
  const guint sigterm = g_unix_signal_add(SIGTERM, OnSignal, this);
  g_main_loop_run(loop_);
  Log("stopping");
  g_source_remove(tick);
  g_source_remove(sigint);
  g_source_remove(sigterm);
  g_source_remove(bus_watch);
  ref_.input->Stop();
  for (auto& r : renditions_) r->input->Stop();
  gst_element_set_state(pipeline_, GST_STATE_NULL);
  http.reset();
  for (auto& [name, log] : logs_) {
    if (!log->Close(&error)) Log("rendition " + name + ": its log is incomplete: " + error);
  }
  logs_.clear();
  Log("stopped");
  return 0;
}

}  // namespace

int RunMonitor(const std::vector<std::string>& args, const char* version) {
  MonitorOptions options;
  bool help = false;
  std::string error;
  if (!ParseMonitorArgs(args, &options, &help, &error)) {
    std::fprintf(stderr, "ssim2 monitor: %s (see ssim2 monitor --help)\n", error.c_str());
    return 1;
  }
  if (help) {
    std::fputs(MonitorHelpText().c_str(), stdout);
    return 0;
  }
  gst_init(nullptr, nullptr);
  Monitor monitor(options);
  return monitor.Run(version);
}

}  // namespace monitor
}  // namespace ssim2
