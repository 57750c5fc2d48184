// `ssim2 monitor`'s command line: GLib's GOptionContext for the syntax (both
// --opt VALUE and --opt=VALUE, the help layout), then one check per option.
#include "monitor_options.h"

#include "option_parsing.h"

#include <glib.h>

#include <cmath>
#include <cstdlib>
#include <set>

namespace ssim2 {
namespace monitor {
namespace {

constexpr const char* kUsage = "--ref URI --dist NAME=URI [--dist NAME=URI ...]";
constexpr const char* kSummary =
    "Scores live renditions against their source without end (docs/MONITOR.md):\n"
    "one ssim2compare holds the reference and every rendition, inputs that fail are\n"
    "reopened, and the scores are served over HTTP: /metrics (OpenMetrics), /api/state\n"
    "(JSON) and / (a live page). Runs until SIGINT or SIGTERM, then exits 0.\n"
    "URI: anything GStreamer opens (udp://, srt://, rtsp://, http(s) HLS/DASH, file://,\n"
    "or a local path).";

bool ValidName(const std::string& name) {
  if (name.empty() || name == kReferenceInput) return false;
  for (char c : name) {
    if (!(g_ascii_isalnum(c) || c == '_' || c == '-' || c == '.')) return false;
  }
  return true;
}

// HOST:PORT, [IPV6]:PORT; the port 0..65535.
bool ParseListen(const std::string& text, std::string* host, int* port) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return false;
  std::string h = text.substr(0, colon);
  if (h.front() == '[') {
    if (h.size() < 3 || h.back() != ']') return false;
    h = h.substr(1, h.size() - 2);
  }
  const std::string p = text.substr(colon + 1);
  char* end = nullptr;
  const long n = std::strtol(p.c_str(), &end, 10);
  if (*end != '\0' || n < 0 || n > 65535 || !g_ascii_isdigit(p[0])) return false;
  *host = h;
  *port = static_cast<int>(n);
  return true;
}

// A duration or score option: a finite number within [lo, hi].
bool CheckNumber(const char* name, double value, double lo, double hi, std::string* error) {
  if (std::isfinite(value) && value >= lo && value <= hi) return true;
  *error = std::string("--") + name + " must be between " + std::to_string(lo) + " and " +
           std::to_string(hi);
  return false;
}

struct Raw {
  gchar* ref = nullptr;
  gchar** dists = nullptr;
  gchar* listen = nullptr;
  gchar* alignment = nullptr;
  gchar* backend = nullptr;
  gchar* threshold = nullptr;
  gchar* log_dir = nullptr;
  gchar* reference_delay = nullptr;
  gint device = -1;
  gint64 log_max_bytes = 64ll << 20;
  gint64 max_reference_bytes = -1;  // unset
  gint log_keep = 10;
  gdouble log_max_age = 0;
  gdouble stall = 5.0, backoff = 30.0, interval = 10.0, sync_window = 5.0;
  gboolean help = FALSE;
  ~Raw() {
    g_free(ref);
    g_strfreev(dists);
    g_free(listen);
    g_free(alignment);
    g_free(backend);
    g_free(threshold);
    g_free(log_dir);
    g_free(reference_delay);
  }
};

GOptionContext* NewContext(Raw* raw) {
  const GOptionEntry entries[] = {
      {"ref", 0, 0, G_OPTION_ARG_FILENAME, &raw->ref,
       "the source feed (the reference)", "URI"},
      {"dist", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &raw->dists,
       "a rendition and its name in the metrics ([A-Za-z0-9_.-], not 'ref'); repeat it",
       "NAME=URI"},
      {"listen", 0, 0, G_OPTION_ARG_STRING, &raw->listen,
       "where the HTTP server listens (default 127.0.0.1:9464; port 0: any free one)",
       "HOST:PORT"},
      {"stall-timeout", 0, 0, G_OPTION_ARG_DOUBLE, &raw->stall,
       "an input without a frame for this long is down and reopened (default 5)", "SECONDS"},
      {"max-backoff", 0, 0, G_OPTION_ARG_DOUBLE, &raw->backoff,
       "longest wait before reopening an input that keeps failing (default 30)", "SECONDS"},
      {"interval", 0, 0, G_OPTION_ARG_DOUBLE, &raw->interval,
       "window of ssim2_window_mean/min/p5, in running time (default 10)", "SECONDS"},
      {"threshold", 0, 0, G_OPTION_ARG_STRING, &raw->threshold,
       "alarm while a rendition's window mean is below SCORE", "SCORE"},
      {"sync-window", 0, 0, G_OPTION_ARG_DOUBLE, &raw->sync_window,
       "content alignment: largest offset searched each way (default 5)", "SECONDS"},
      {"max-reference-bytes", 0, 0, G_OPTION_ARG_INT64, &raw->max_reference_bytes,
       "content alignment: most bytes of decoded reference frames held (default 1 GiB; "
       "beyond, the oldest are dropped with a warning)", "BYTES"},
      {"reference-delay", 0, 0, G_OPTION_ARG_STRING, &raw->reference_delay,
       "hold the reference compressed before its decoder for this long (default auto: from "
       "the renditions' lags once locked; off: no delay line)", "auto|off|SECONDS"},
      {"log-dir", 0, 0, G_OPTION_ARG_FILENAME, &raw->log_dir,
       "per-rendition score logs DIR/NAME.csv (docs/LOGS.md), rotated", "DIR"},
      {"log-max-bytes", 0, 0, G_OPTION_ARG_INT64, &raw->log_max_bytes,
       "rotate a log once it is this large (default 64 MiB; 0: never)", "BYTES"},
      {"log-max-age", 0, 0, G_OPTION_ARG_DOUBLE, &raw->log_max_age,
       "rotate a log after this long (default 0: never)", "SECONDS"},
      {"log-keep", 0, 0, G_OPTION_ARG_INT, &raw->log_keep,
       "rotated logs kept per rendition: NAME.csv.1 .. .N (default 10)", "N"},
      {"alignment", 0, 0, G_OPTION_ARG_STRING, &raw->alignment,
       "how frames are paired (default content; see ssim2 --help)", "MODE"},
      {"backend", 0, 0, G_OPTION_ARG_STRING, &raw->backend,
       "where to score (default auto: CUDA when usable)", "auto|cpu|cuda"},
      {"device", 0, 0, G_OPTION_ARG_INT, &raw->device, "CUDA device number", "N"},
      {"help", 'h', 0, G_OPTION_ARG_NONE, &raw->help, "this text", nullptr},
      {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
  GOptionContext* context = g_option_context_new(kUsage);
  g_option_context_set_help_enabled(context, FALSE);
  g_option_context_set_summary(context, kSummary);
  g_option_context_add_main_entries(context, entries, nullptr);
  return context;
}

}  // namespace

std::string MonitorHelpText() {
  Raw raw;
  GOptionContext* context = NewContext(&raw);
  gchar* text = g_option_context_get_help(context, TRUE, nullptr);
  std::string out = text;
  g_free(text);
  g_option_context_free(context);
  return out;
}

bool ParseMonitorArgs(const std::vector<std::string>& args, MonitorOptions* options, bool* help,
                      std::string* error) {
  Raw raw;
  GOptionContext* context = NewContext(&raw);
  std::vector<gchar*> words{const_cast<gchar*>("ssim2 monitor")};
  for (const std::string& a : args) words.push_back(const_cast<gchar*>(a.c_str()));
  if (!options::ParseWords(context, &words, error)) return false;
  *help = raw.help;
  if (raw.help) return true;
  if (words.size() > 1) {
    *error = std::string("unexpected argument '") + words[1] + "'";
    return false;
  }
  MonitorOptions o;
  if (raw.ref == nullptr || raw.ref[0] == '\0') {
    *error = "--ref URI is required (the source feed)";
    return false;
  }
  o.ref_uri = raw.ref;
  std::set<std::string> names;
  for (gchar** d = raw.dists; d && *d; ++d) {
    const std::string text = *d;
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq + 1 == text.size()) {
      *error = "--dist " + text + ": expected NAME=URI";
      return false;
    }
    Rendition r{text.substr(0, eq), text.substr(eq + 1)};
    if (!ValidName(r.name)) {
      *error = "--dist " + text + ": the name must be letters, digits, '_', '-' or '.', "
               "and not 'ref'";
      return false;
    }
    if (!names.insert(r.name).second) {
      *error = "--dist " + text + ": the name " + r.name + " is given twice";
      return false;
    }
    o.renditions.push_back(r);
  }
  if (o.renditions.empty()) {
    *error = "at least one --dist NAME=URI is required (a rendition to score)";
    return false;
  }
  if (raw.listen && !ParseListen(raw.listen, &o.listen_host, &o.listen_port)) {
    *error = std::string("--listen ") + raw.listen + ": expected HOST:PORT (port 0-65535)";
    return false;
  }
  if (!CheckNumber("stall-timeout", raw.stall, 0.1, 3600, error) ||
      !CheckNumber("max-backoff", raw.backoff, 0.1, 3600, error) ||
      !CheckNumber("interval", raw.interval, 0.01, 3600, error) ||
      !CheckNumber("sync-window", raw.sync_window, 0.1, 3600, error)) {
    return false;
  }
  o.stall_timeout_s = raw.stall;
  o.max_backoff_s = raw.backoff;
  o.interval_s = raw.interval;
  o.sync_window_s = raw.sync_window;
  if (raw.max_reference_bytes == 0 || raw.max_reference_bytes < -1) {
    *error = "--max-reference-bytes must be above 0";
    return false;
  }
  if (raw.max_reference_bytes > 0) {
    o.max_reference_bytes = static_cast<std::uint64_t>(raw.max_reference_bytes);
  }
  if (raw.threshold) {
    char* end = nullptr;
    const double t = g_ascii_strtod(raw.threshold, &end);
    if (end == raw.threshold || *end != '\0' || !CheckNumber("threshold", t, -1000, 100, error)) {
      if (error->empty()) *error = "--threshold must be a number";
      return false;
    }
    o.threshold = t;
  }
  if (raw.reference_delay) {
    const std::string text = raw.reference_delay;
    char* end = nullptr;
    const double s = g_ascii_strtod(raw.reference_delay, &end);
    if (text == "auto") {
      o.reference_delay = MonitorOptions::ReferenceDelay::kAuto;
    } else if (text == "off") {
      o.reference_delay = MonitorOptions::ReferenceDelay::kOff;
    } else if (end != raw.reference_delay && *end == '\0' &&
               CheckNumber("reference-delay", s, 0, 600, error)) {
      o.reference_delay = MonitorOptions::ReferenceDelay::kFixed;
      o.reference_delay_s = s;
    } else {
      if (error->empty()) *error = "--reference-delay " + text + ": expected auto, off or SECONDS";
      return false;
    }
  }
  if (raw.log_dir) o.log_dir = raw.log_dir;
  if (raw.log_max_bytes < 0 || raw.log_keep < 0 || raw.log_keep > 1000 ||
      !CheckNumber("log-max-age", raw.log_max_age, 0, 1e9, error)) {
    if (error->empty()) *error = "--log-max-bytes must be >= 0 and --log-keep 0..1000";
    return false;
  }
  o.log_max_bytes = static_cast<std::uint64_t>(raw.log_max_bytes);
  o.log_max_age_s = raw.log_max_age;
  o.log_keep = raw.log_keep;
  if (raw.alignment && !ssim2gst::AlignmentFromName(raw.alignment, &o.alignment)) {
    *error = std::string("--alignment ") + raw.alignment +
             ": expected running-time, sequence, stream-time or content";
    return false;
  }
  if (raw.backend && !options::BackendFromName(raw.backend, &o.backend)) {
    *error = std::string("--backend ") + raw.backend + ": expected " + options::kBackendChoices;
    return false;
  }
  if (raw.device < -1 || raw.device > options::kMaxDevice) {
    *error = "--device must be between 0 and " + std::to_string(options::kMaxDevice);
    return false;
  }
  o.cuda_device = raw.device;
  *options = o;
  return true;
}

}  // namespace monitor
}  // namespace ssim2
