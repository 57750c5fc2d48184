// One input of `ssim2 monitor`: see monitor_input.h.
#include "monitor_input.h"

#include <gst/app/gstappsink.h>
#include <gst/base/gstbasesrc.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "monitor_metrics.h"
#include "video_pipeline.h"

namespace ssim2 {
namespace monitor {

double MonotonicSeconds() { return static_cast<double>(g_get_monotonic_time()) / 1e6; }

namespace {

// A local path becomes a file:// URI; anything with a scheme is left alone.
std::string ToUri(const std::string& text) {
  if (gst_uri_is_valid(text.c_str())) return text;
  gchar* uri = gst_filename_to_uri(text.c_str(), nullptr);
  std::string out = uri ? uri : text;
  g_free(uri);
  return out;
}

std::string SecondsText(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", s);
  return text;
}

// Frames go to the scoring element as I420 in system memory: one format
// for every input, which it takes on either backend.
constexpr const char* kFrameCaps = "video/x-raw,format=I420";

constexpr gint kUdpReceiveBufferBytes = 16 << 20;

// Headroom of the delay line above its delay: what a burst (a segment of
// HLS or DASH arriving at once) may add before it holds its upstream back.
constexpr double kDelayHeadroomS = 10;

}  // namespace

Input::Input(std::string name, std::string uri, Settings settings, Metrics* metrics,
             FrameCallback on_frame, DownCallback on_down, LogCallback log)
    : name_(std::move(name)),
      uri_(ToUri(uri)),
      settings_(settings),
      metrics_(metrics),
      on_frame_(std::move(on_frame)),
      on_down_(std::move(on_down)),
      log_(std::move(log)),
      backoff_s_(settings.min_backoff_s) {}

Input::~Input() { Stop(); }

GstCaps* Input::OutputCaps() const {
  GstCaps* caps = gst_caps_from_string(kFrameCaps);
  if (settings_.scale && target_width_ > 0) {
    gst_caps_set_simple(caps, "width", G_TYPE_INT, target_width_, "height", G_TYPE_INT,
                        target_height_, nullptr);
  }
  return caps;
}

void Input::SetTargetSize(int width, int height) {
  if (width == target_width_ && height == target_height_) return;
  target_width_ = width;
  target_height_ = height;
  if (filter_) {
    GstCaps* caps = OutputCaps();
    g_object_set(filter_, "caps", caps, nullptr);
    gst_caps_unref(caps);
  }
}

void Input::Start() { Open(MonotonicSeconds()); }

namespace {

// The media type of a pad's stream ("" when unknown yet).
std::string StreamType(GstPad* pad) {
  GstCaps* caps = gst_pad_get_current_caps(pad);
  if (!caps) caps = gst_pad_query_caps(pad, nullptr);
  std::string type;
  if (caps && !gst_caps_is_empty(caps)) {
    type = gst_structure_get_name(gst_caps_get_structure(caps, 0));
  }
  if (caps) gst_caps_unref(caps);
  return type;
}

}  // namespace

void Input::LinkFirst(GstPad* pad, bool wanted, std::atomic<bool>* taken, GstElement* into) {
  if (wanted && !taken->exchange(true)) {
    GstPad* sink = gst_element_get_static_pad(into, "sink");
    gst_pad_link(pad, sink);
    gst_object_unref(sink);
    return;
  }
  cli::LinkToFakesink(pipeline_, pad);
}

void Input::OnPadAdded(GstElement*, GstPad* pad, gpointer data) {
  Input* self = static_cast<Input*>(data);
  self->LinkFirst(pad, StreamType(pad) == "video/x-raw", &self->linked_, self->convert_);
}

namespace {

// A UDP source gets a large kernel receive buffer: the default (about
// 200 KB) overflows at a few Mbit/s whenever the process is not scheduled
// for a moment, and every lost packet costs frames. The kernel caps it at
// net.core.rmem_max (docs/MONITOR.md).
}  // namespace

void Input::OnSourceSetup(GstElement*, GstElement* source, gpointer data) {
  GstElementFactory* factory = gst_element_get_factory(source);
  if (factory && g_strcmp0(GST_OBJECT_NAME(factory), "udpsrc") == 0) {
    g_object_set(source, "buffer-size", kUdpReceiveBufferBytes, nullptr);
  }
  // A live source (udp, srt, ...) is known here: its pipeline does not say
  // so by NO_PREROLL (uridecodebin answers ASYNC, urisourcebin SUCCESS).
  if (GST_IS_BASE_SRC(source) && gst_base_src_is_live(GST_BASE_SRC(source))) {
    static_cast<Input*>(data)->SetLive();
  }
}

// Frames as they come: an appsink that syncs plays a live sender's frames at
// the pace of its timestamps, on a clock that is not ours. Measured (the
// soak, MPEG-TS over UDP from x264enc ! mpegtsmux): 9.917 frames a second
// delivered of the 10 sent, the rendition falling a second further behind
// every two minutes and its frames piling up in the input's pipeline.
void Input::SetLive() {
  if (sink_) g_object_set(sink_, "sync", FALSE, nullptr);
  metrics_->InputLive(name_, true);
}

GstFlowReturn Input::OnSample(GstElement* appsink, gpointer data) {
  Input* self = static_cast<Input*>(data);
  GstSample* sample = gst_app_sink_pull_sample(GST_APP_SINK(appsink));
  if (!sample) return GST_FLOW_EOS;
  const double now = MonotonicSeconds();
  self->last_frame_at_.store(now);
  self->metrics_->InputFrame(self->name_, now);
  self->on_frame_(self, sample);
  gst_sample_unref(sample);
  return GST_FLOW_OK;
}

void Input::OnSourcePad(GstElement*, GstPad* pad, gpointer data) {
  // Each stream of the source is parsed (a demuxer and a parser, no
  // decoder): its video leaves compressed, into the delay line.
  Input* self = static_cast<Input*>(data);
  GstElement* parse = gst_element_factory_make("parsebin", nullptr);
  if (!parse) {
    cli::LinkToFakesink(self->pipeline_, pad);
    return;
  }
  g_signal_connect(parse, "pad-added", G_CALLBACK(OnParsedPad), self);
  gst_bin_add(GST_BIN(self->pipeline_), parse);
  gst_element_sync_state_with_parent(parse);
  GstPad* sink = gst_element_get_static_pad(parse, "sink");
  gst_pad_link(pad, sink);
  gst_object_unref(sink);
}

void Input::OnParsedPad(GstElement*, GstPad* pad, gpointer data) {
  Input* self = static_cast<Input*>(data);
  const std::string type = StreamType(pad);
  self->LinkFirst(pad, type.rfind("video/", 0) == 0 || type.rfind("image/", 0) == 0,
                  &self->delay_linked_, self->delay_);
}

void Input::ApplyDelay() {
  if (!delay_) return;
  const auto delay = static_cast<guint64>(settings_.delay_s * GST_SECOND);
  // The queue releases a buffer only while it holds `delay` of stream time
  // after it: a live source's frames leave `delay` late. A source that is
  // not live (a file, a download) fills the queue at once, so the appsink's
  // ts-offset delays its rendering instead (ignored while sync is off: a
  // live source).
  g_object_set(delay_, "min-threshold-time", delay, "max-size-time",
               delay + static_cast<guint64>(kDelayHeadroomS * GST_SECOND), nullptr);
  if (sink_) g_object_set(sink_, "ts-offset", static_cast<gint64>(delay), nullptr);
}

void Input::SetDelay(double seconds, double now) {
  if (!settings_.delay_line) return;
  if (seconds > settings_.delay_s) {
    quiet_until_ = std::max(quiet_until_, now + seconds - settings_.delay_s);
  }
  settings_.delay_s = seconds;
  ApplyDelay();
}

std::uint64_t Input::DelayBytes() const {
  guint bytes = 0;
  if (delay_) g_object_get(delay_, "current-level-bytes", &bytes, nullptr);
  return bytes;
}

void Input::Open(double now) {
  TearDown();
  pipeline_ = gst_pipeline_new((name_ + "-input").c_str());
  const bool split = settings_.delay_line;
  GstElement* source =
      gst_element_factory_make(split ? "urisourcebin" : "uridecodebin", nullptr);
  convert_ = gst_element_factory_make("videoconvert", nullptr);
  GstElement* scale = gst_element_factory_make("videoscale", nullptr);
  filter_ = gst_element_factory_make("capsfilter", nullptr);
  GstElement* sink = gst_element_factory_make("appsink", nullptr);
  if (split) {
    delay_ = gst_element_factory_make("queue", nullptr);
    decoder_ = gst_element_factory_make("decodebin", nullptr);
  }
  if (!source || !convert_ || !scale || !filter_ || !sink ||
      (split && (!delay_ || !decoder_))) {
    // Missing base plugins: nothing will ever open; say so each time.
    for (GstElement* e : {source, convert_, scale, filter_, sink, delay_, decoder_}) {
      if (e) gst_object_unref(e);
    }
    gst_object_unref(pipeline_);
    pipeline_ = nullptr;
    convert_ = filter_ = sink_ = delay_ = decoder_ = nullptr;
    open_ = true;  // so that Down() reports it and backs off
    Down(std::string(split ? "urisourcebin, queue, decodebin" : "uridecodebin") +
             ", videoconvert, videoscale, capsfilter or appsink is missing "
             "(gst-plugins-base)",
         now);
    return;
  }
  g_object_set(source, "uri", uri_.c_str(), nullptr);
  // Renditions of another size are scaled to the reference's (bilinear, no
  // borders: the picture is stretched as a player would show it).
  gst_util_set_object_arg(G_OBJECT(scale), "method", "bilinear");
  g_object_set(scale, "add-borders", FALSE, nullptr);
  GstCaps* caps = OutputCaps();
  g_object_set(filter_, "caps", caps, nullptr);
  gst_caps_unref(caps);
  // A file or a download (HLS, DASH) leaves at the pace of its timestamps
  // (sync, so that it plays in real time as a live feed would); a live
  // source as it comes (sync off: the sender's clock is not ours, and
  // waiting on it only makes frames late). Small queue, so that a stalled
  // consumer does not hold many frames.
  g_object_set(sink, "sync", TRUE, "max-buffers", 4u, "drop", FALSE, "emit-signals", TRUE,
               nullptr);
  sink_ = sink;
  g_signal_connect(sink, "new-sample", G_CALLBACK(OnSample), this);
  gst_bin_add_many(GST_BIN(pipeline_), source, convert_, scale, filter_, sink, nullptr);
  gst_element_link_many(convert_, scale, filter_, sink, nullptr);
  g_signal_connect(source, "source-setup", G_CALLBACK(OnSourceSetup), this);
  if (split) {
    // Only the delay line's own limits: no count of buffers or bytes.
    g_object_set(delay_, "max-size-buffers", 0u, "max-size-bytes", 0u, nullptr);
    ApplyDelay();
    gst_bin_add_many(GST_BIN(pipeline_), delay_, decoder_, nullptr);
    gst_element_link(delay_, decoder_);
    g_signal_connect(source, "pad-added", G_CALLBACK(OnSourcePad), this);
    g_signal_connect(decoder_, "pad-added", G_CALLBACK(OnPadAdded), this);
  } else {
    g_signal_connect(source, "pad-added", G_CALLBACK(OnPadAdded), this);
  }
  GstBus* bus = gst_element_get_bus(pipeline_);
  bus_watch_ = gst_bus_add_watch(bus, OnBus, this);
  gst_object_unref(bus);
  linked_ = false;
  delay_linked_ = false;
  last_frame_at_ = -1;
  opened_at_ = now;
  // Its first frame comes after the delay.
  quiet_until_ = split ? now + settings_.delay_s : 0;
  open_ = true;
  metrics_->InputOpening(name_, now);
  metrics_->InputLive(name_, false);  // until its source says (OnSourceSetup)
  // A failure is on the bus (an error message); if not, the stall timer
  // ends it. A live source that is not a GstBaseSrc (rtspsrc) does not
  // preroll.
  if (gst_element_set_state(pipeline_, GST_STATE_PLAYING) == GST_STATE_CHANGE_NO_PREROLL) {
    SetLive();
  }
}

void Input::TearDown() {
  if (bus_watch_) g_source_remove(bus_watch_);
  bus_watch_ = 0;
  if (pipeline_) {
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    gst_object_unref(pipeline_);
  }
  pipeline_ = nullptr;
  convert_ = filter_ = sink_ = delay_ = decoder_ = nullptr;
}

void Input::Down(const std::string& reason, double now) {
  if (!open_) return;
  open_ = false;
  TearDown();
  // A source that delivered frames since it opened starts its back-off
  // again; one that keeps failing waits twice as long each time.
  if (last_frame_at_.load() >= 0) backoff_s_ = settings_.min_backoff_s;
  reopen_at_ = now + backoff_s_;
  metrics_->InputDown(name_, reason, now);
  log_("input " + name_ + " down: " + reason + "; reopening in " + SecondsText(backoff_s_));
  backoff_s_ = std::min(backoff_s_ * 2, settings_.max_backoff_s);
  on_down_(this);
}

void Input::Tick(double now) {
  if (stopped_) return;
  if (open_) {
    const double last = std::max({opened_at_, last_frame_at_.load(), quiet_until_});
    if (now - last > settings_.stall_timeout_s) {
      Down(last_frame_at_.load() < 0
               ? "no frame within " + SecondsText(settings_.stall_timeout_s) + " of opening"
               : "stalled: no frame for " + SecondsText(settings_.stall_timeout_s),
           now);
    }
  } else if (now >= reopen_at_) {
    Open(now);
  }
}

gboolean Input::OnBus(GstBus*, GstMessage* msg, gpointer data) {
  Input* self = static_cast<Input*>(data);
  switch (GST_MESSAGE_TYPE(msg)) {
    case GST_MESSAGE_ERROR: {
      GError* err = nullptr;
      gchar* debug = nullptr;
      gst_message_parse_error(msg, &err, &debug);
      const std::string reason = std::string("error: ") + (err ? err->message : "unknown");
      g_clear_error(&err);
      g_free(debug);
      self->Down(reason, MonotonicSeconds());
      return G_SOURCE_REMOVE;  // the watch went with its pipeline
    }
    case GST_MESSAGE_EOS:
      self->Down("ended (end of stream)", MonotonicSeconds());
      return G_SOURCE_REMOVE;
    default:
      return G_SOURCE_CONTINUE;
  }
}

void Input::Stop() {
  stopped_ = true;
  open_ = false;
  TearDown();
}

}  // namespace monitor
}  // namespace ssim2
