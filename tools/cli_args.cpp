#include "cli_args.h"

#include <glib.h>
#ifdef SSIM2_WITH_GST_OPTIONS
#include <gst/gst.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>

#include "option_parsing.h"
#include "ssim2/score_log.h"

namespace ssim2 {
namespace cli {
namespace {

// Ranges of the numeric options: the one place they are stated; the help
// text and the error messages are made from them.
struct Range {
  std::uint64_t min, max;
};
// --every is the element's frame-step, a 32-bit property; the other frame
// counts share its range.
constexpr Range kEveryRange{1, G_MAXUINT32};
constexpr Range kFrameCountRange{0, G_MAXUINT32};
constexpr Range kDeviceRange{0, options::kMaxDevice};
// More threads than cores only adds overhead; the cap keeps a typo from
// starting millions of threads.
constexpr Range kThreadsRange{0, 1024};
constexpr Range kJobsRange{1, 1024};
constexpr Range kMemoryLimitRange{0, G_MAXUINT64};

// The extensions -o FILE recognises (the format names themselves are the
// score log's: ssim2::LogFormatName); vmaf-json is only chosen with --format.
struct FormatExtension {
  LogFormat format;
  const char* extension;
};
constexpr FormatExtension kExtensions[] = {
    {LogFormat::kCsv, ".csv"},
    {LogFormat::kJson, ".json"},
};

// The score log's format names, with `separator` between them.
std::string FormatList(const char* separator) {
  std::string names = LogFormatNames(), out;
  for (std::size_t start = 0;;) {
    const std::size_t comma = names.find(", ", start);
    out += names.substr(start, comma - start);
    if (comma == std::string::npos) return out;
    out += separator;
    start = comma + 2;
  }
}

bool EndsWithNoCase(const std::string& text, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  if (text.size() <= n) return false;  // a bare ".csv" is no name
  return g_ascii_strcasecmp(text.c_str() + text.size() - n, suffix) == 0;
}

// The one place that maps a score-file format to its writer: each format
// fills the Options field that the image and video modes hand to the writer
// of that format. A new format's writer is plugged in here.
bool AssignOutput(LogFormat format, const std::string& path, Options* o, std::string* error) {
  std::string* field = nullptr;
  switch (format) {
    case LogFormat::kCsv:
      field = &o->csv_path;
      break;
    case LogFormat::kJson:
      if (path == "-") {  // as --json=-
        o->json = true;
        return true;
      }
      field = &o->json_path;
      break;
    case LogFormat::kVmafJson:
      field = &o->vmaf_json_path;
      break;
  }
  if (path.empty()) {
    *error = std::string(LogFormatName(format)) + " output: expected a file name";
    return false;
  }
  if (!field->empty() && *field != path) {
    *error = std::string("two ") + LogFormatName(format) + " files given ('" + *field + "' and '" +
             path + "'); name one";
    return false;
  }
  *field = path;
  return true;
}

// What the option callbacks fill in, besides Options.
struct ParseState {
  Options* options = nullptr;
  bool bare_json = false;  // --json without a value
  bool output_given = false;
  std::string output_path;  // -o FILE
  bool format_given = false;
  LogFormat format = LogFormat::kCsv;
  gboolean quiet = FALSE;
  gboolean scale = FALSE;
  bool frame_option_given = false;  // --alignment, --offset, --every, --frames
  gboolean decode_only = FALSE;
  gboolean sequential_sums = FALSE;
  gboolean help = FALSE;
  gboolean help_all = FALSE;
  gboolean help_gst = FALSE;
  gboolean version = FALSE;
  gboolean list_devices = FALSE;
};

ParseState* StateOf(gpointer data) { return static_cast<ParseState*>(data); }

gboolean Reject(GError** error, const std::string& message) {
  g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, message.c_str());
  return FALSE;
}

std::string RangeText(Range r) {
  return std::to_string(r.min) + " to " + std::to_string(r.max);
}

// Decimal digits only (no sign, no space, no hex), inside `range`.
gboolean TakeNumber(const gchar* name, const gchar* value, Range range, std::uint64_t* out,
                    GError** error) {
  bool ok = value[0] >= '0' && value[0] <= '9';
  unsigned long long v = 0;
  if (ok) {
    errno = 0;
    char* end = nullptr;
    v = std::strtoull(value, &end, 10);
    ok = errno == 0 && *end == '\0' && v >= range.min && v <= range.max;
  }
  if (!ok) {
    return Reject(error, std::string(name) + ": expected a whole number from " +
                             RangeText(range) + ", got '" + value + "'");
  }
  *out = v;
  return TRUE;
}

gboolean OnBackend(const gchar* name, const gchar* value, gpointer data, GError** error) {
  if (options::BackendFromName(value, &StateOf(data)->options->backend)) return TRUE;
  return Reject(error, std::string(name) + ": expected " + options::kBackendChoices + ", got '" +
                           value + "'");
}

gboolean OnDevice(const gchar* name, const gchar* value, gpointer data, GError** error) {
  if (std::strcmp(value, "all") == 0) {  // pairs mode: every visible GPU
    StateOf(data)->options->all_devices = true;
    return TRUE;
  }
  std::uint64_t n = 0;
  if (!TakeNumber(name, value, kDeviceRange, &n, error)) return FALSE;
  StateOf(data)->options->cuda_device = static_cast<int>(n);
  return TRUE;
}

gboolean OnThreads(const gchar* name, const gchar* value, gpointer data, GError** error) {
  std::uint64_t n = 0;
  if (!TakeNumber(name, value, kThreadsRange, &n, error)) return FALSE;
  StateOf(data)->options->cpu_threads = static_cast<int>(n);
  return TRUE;
}

// Bytes, with an optional K, M or G suffix (powers of 1024).
gboolean OnMemoryLimit(const gchar* name, const gchar* value, gpointer data, GError** error) {
  std::string digits = value;
  std::uint64_t unit = 1;
  if (!digits.empty()) {
    switch (g_ascii_toupper(digits.back())) {
      case 'K': unit = 1ull << 10; break;
      case 'M': unit = 1ull << 20; break;
      case 'G': unit = 1ull << 30; break;
      default: break;
    }
    if (unit > 1) digits.pop_back();
  }
  std::uint64_t n = 0;
  if (!TakeNumber(name, digits.c_str(), kMemoryLimitRange, &n, error)) return FALSE;
  if (n > kMemoryLimitRange.max / unit) {
    return Reject(error, std::string(name) + ": " + value + " is too large");
  }
  StateOf(data)->options->memory_limit = n * unit;
  return TRUE;
}

gboolean OnPairs(const gchar* name, const gchar* value, gpointer data, GError** error) {
  if (value[0] == '\0') return Reject(error, std::string(name) + ": expected a list file or -");
  StateOf(data)->options->pairs_path = value;
  return TRUE;
}

// Checked by the pairs mode (ParseShard in pairs_list.h). An empty value (an
// unset $SLURM_ARRAY_TASK_ID) would otherwise mean "no shard": every task
// would score the whole list.
gboolean OnShard(const gchar* name, const gchar* value, gpointer data, GError** error) {
  if (value[0] == '\0')
    return Reject(error, std::string(name) + ": expected I/N (e.g. 0/4), got an empty value");
  StateOf(data)->options->shard = value;
  return TRUE;
}

gboolean OnJobs(const gchar* name, const gchar* value, gpointer data, GError** error) {
  return TakeNumber(name, value, kJobsRange, &StateOf(data)->options->jobs, error);
}

gboolean OnAlignment(const gchar* name, const gchar* value, gpointer data, GError** error) {
  StateOf(data)->frame_option_given = true;
  if (ssim2gst::AlignmentFromName(value, &StateOf(data)->options->alignment)) return TRUE;
  std::string expected;
  for (const ssim2gst::AlignmentInfo& a : ssim2gst::kAlignments) {
    if (!expected.empty()) expected += &a == std::end(ssim2gst::kAlignments) - 1 ? " or " : ", ";
    expected += a.name;
  }
  return Reject(error, std::string(name) + ": expected " + expected + ", got '" + value + "'");
}

gboolean OnOffset(const gchar* name, const gchar* value, gpointer data, GError** error) {
  StateOf(data)->frame_option_given = true;
  return TakeNumber(name, value, kFrameCountRange, &StateOf(data)->options->offset, error);
}

gboolean OnEvery(const gchar* name, const gchar* value, gpointer data, GError** error) {
  StateOf(data)->frame_option_given = true;
  return TakeNumber(name, value, kEveryRange, &StateOf(data)->options->every, error);
}

gboolean OnFrames(const gchar* name, const gchar* value, gpointer data, GError** error) {
  StateOf(data)->frame_option_given = true;
  return TakeNumber(name, value, kFrameCountRange, &StateOf(data)->options->frames, error);
}

gboolean OnFailBelow(const gchar*, const gchar* value, gpointer data, GError** error) {
  std::string message;
  if (!ParseQualityGate(value, &StateOf(data)->options->fail_below, &message))
    return Reject(error, message);
  return TRUE;
}

gboolean OnOutputOfFormat(LogFormat format, const gchar* name, const gchar* value,
                          gpointer data, GError** error) {
  std::string message;
  if (!AssignOutput(format, value, StateOf(data)->options, &message))
    return Reject(error, std::string(name) + ": " + message);
  return TRUE;
}

// A bare --json arrives as "--json=" (see ParseArgs); whether it names a
// file is decided once all words are known.
gboolean OnJson(const gchar* name, const gchar* value, gpointer data, GError** error) {
  if (value == nullptr || value[0] == '\0') {
    StateOf(data)->bare_json = true;
    return TRUE;
  }
  return OnOutputOfFormat(LogFormat::kJson, name, value, data, error);
}

gboolean OnCsv(const gchar* name, const gchar* value, gpointer data, GError** error) {
  return OnOutputOfFormat(LogFormat::kCsv, name, value, data, error);
}

// An output file of its own (--plot, --summary): an empty name is refused.
template <std::string Options::*kPath>
gboolean OnFileName(const gchar* name, const gchar* value, gpointer data, GError** error) {
  if (value[0] == '\0') return Reject(error, std::string(name) + ": expected a file name");
  StateOf(data)->options->*kPath = value;
  return TRUE;
}

gboolean OnOutput(const gchar* name, const gchar* value, gpointer data, GError** error) {
  ParseState* state = StateOf(data);
  if (state->output_given) {
    return Reject(error, std::string(name) +
                             ": given twice; for two files use --csv FILE and --json=FILE");
  }
  if (value[0] == '\0') return Reject(error, std::string(name) + ": expected a file name");
  state->output_given = true;
  state->output_path = value;
  return TRUE;
}

gboolean OnFormat(const gchar* name, const gchar* value, gpointer data, GError** error) {
  if (std::optional<LogFormat> format = ParseLogFormat(value)) {
    StateOf(data)->format_given = true;
    StateOf(data)->format = *format;
    return TRUE;
  }
  return Reject(error, std::string(name) + ": expected " + FormatList(", ") + ", got '" + value +
                           "'");
}

// -o FILE: the format named by --format, else the one of FILE's extension.
bool ResolveOutput(const ParseState& state, Options* options, std::string* error) {
  if (!state.output_given) {
    if (state.format_given) *error = "--format: names the format of -o FILE, and no -o was given";
    return !state.format_given;
  }
  const std::string& path = state.output_path;
  std::optional<LogFormat> chosen;
  if (state.format_given) chosen = state.format;
  for (const FormatExtension& f : kExtensions)
    if (!chosen && EndsWithNoCase(path, f.extension)) chosen = f.format;
  if (!chosen) {
    *error = "-o " + path + ": cannot tell the format from the name; end it in .csv or .json, "
             "or add --format " + FormatList("|");
    return false;
  }
  if (AssignOutput(*chosen, path, options, error)) return true;
  *error = "-o " + path + ": " + *error;
  return false;
}

// Texts of the help output that are made at run time (ranges, format list).
// GLib keeps pointers to them while a context lives, hence one static copy.
struct HelpStrings {
  std::string device = "CUDA device number (" + RangeText(kDeviceRange) + ")";
  std::string threads = "threads of the CPU path (" + RangeText(kThreadsRange) +
                        "; default 0: all cores)";
  std::string memory_limit =
      "most device memory of a CUDA scorer, in bytes or with K, M, G (default 0: no limit); "
      "below what it needs for full speed it scores more slowly, and says so";
  std::string offset = "skip the first N distorted frames (" + RangeText(kFrameCountRange) + ")";
  std::string every = "score every Nth frame pair (" + RangeText(kEveryRange) + ", default 1)";
  std::string frames =
      "stop after N scored pairs (" + RangeText(kFrameCountRange) + "; default 0: all)";
  std::string fail_below = "exit with status " + std::to_string(kExitBelowGate) +
                           " when the score (videos and lists: the mean, or STAT of " +
                           QualityGateStatistics() + ") is below SCORE";
  std::string format_values = FormatList("|");
  std::string format = "format of -o FILE (default: from its extension, .csv or .json)";
  std::string description =
      "'--json FILE' (with a space) names a file only when both inputs follow it and\n"
      "FILE ends in .json or is not an existing regular file.\n"
      "-o FILE.csv is --csv FILE.csv, -o FILE.json is --json=FILE.json; --format wins over\n"
      "the extension.\n"
      "\n"
      "Exit status: 0 on success, 1 on any error (one line on stderr), " +
      std::to_string(kExitBelowGate) +
      " when a score is\nbelow --fail-below (after the results are printed and written).\n";
};

const HelpStrings& Strings() {
  static const HelpStrings strings;
  return strings;
}

// Values reach the callbacks as the bytes given: without this flag GLib
// converts them from the locale's charset, which fails on non-ASCII file
// names in the C locale the tool runs in.
constexpr int kRawValue = G_OPTION_FLAG_FILENAME;

// An option with a value, handed to `callback` as the bytes given.
GOptionEntry ValueOption(const char* name, GOptionArgFunc callback, const char* description,
                         const char* arg, char short_name = 0, int flags = 0) {
  return {name, short_name, kRawValue | flags, G_OPTION_ARG_CALLBACK,
          reinterpret_cast<gpointer>(callback), description, arg};
}

// An option without a value: it sets `flag`.
GOptionEntry FlagOption(const char* name, gboolean* flag, const char* description,
                        char short_name = 0) {
  return {name, short_name, 0, G_OPTION_ARG_NONE, flag, description, nullptr};
}

// The end of a table of entries.
constexpr GOptionEntry kEndOfEntries = {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr,
                                        nullptr};

GOptionGroup* NewGroup(const char* name, const char* title, const char* help_line,
                       const GOptionEntry* entries, ParseState* state) {
  GOptionGroup* group = g_option_group_new(name, title, help_line, state, nullptr);
  g_option_group_add_entries(group, entries);
  return group;
}

// Our option groups, and GStreamer's when `with_gst` (returned in `gst_group`
// when asked).
GOptionContext* NewContext(ParseState* state, bool with_gst, GOptionGroup** gst_group) {
  const HelpStrings& s = Strings();
  const GOptionEntry scoring[] = {
      ValueOption("backend", OnBackend, "where to compute (default auto: CUDA when usable)",
                  "auto|cpu|cuda"),
      ValueOption("device", OnDevice, s.device.c_str(), "N"),
      ValueOption("threads", OnThreads, s.threads.c_str(), "N"),
      ValueOption("memory-limit", OnMemoryLimit, s.memory_limit.c_str(), "BYTES"),
      FlagOption("sequential-sums", &state->sequential_sums,
                 "videos on the GPU: sub-scores bit for bit the CPU's (slower; images and "
                 "lists always)"),
      ValueOption("fail-below", OnFailBelow, s.fail_below.c_str(), "[STAT:]SCORE"),
      kEndOfEntries};
  const GOptionEntry pairs[] = {
      ValueOption("pairs", OnPairs,
                  "score every REFERENCE,DISTORTED line of LIST (-: stdin); rows as CSV, or "
                  "--json",
                  "LIST"),
      ValueOption("shard", OnShard, "only the entries k with k mod N = I (I from 0)", "I/N"),
      ValueOption("jobs", OnJobs, "decoder threads (default: all cores)", "N"),
      FlagOption("decode-only", &state->decode_only,
                 "decode every pair, score none (to compare rates)"),
      kEndOfEntries};
  const GOptionEntry video[] = {
      ValueOption("alignment", OnAlignment,
                  "running-time (default): pair frames by timestamp; sequence: by order; "
                  "stream-time: by position in each file; content: by the pictures (finds "
                  "the offset, dropped and repeated frames)",
                  "MODE"),
      ValueOption("offset", OnOffset, s.offset.c_str(), "N"),
      ValueOption("every", OnEvery, s.every.c_str(), "N"),
      ValueOption("frames", OnFrames, s.frames.c_str(), "N"),
      FlagOption("scale", &state->scale,
                 "upscale distorted videos of another size to the reference's size (bilinear)"),
      FlagOption("quiet", &state->quiet, "no progress line", 'q'),
      kEndOfEntries};
  const GOptionEntry output[] = {
      ValueOption("json", OnJson,
                  "JSON on stdout instead of the score line or summary; =FILE: into FILE",
                  "[FILE]", 0, G_OPTION_FLAG_OPTIONAL_ARG),
      ValueOption("csv", OnCsv, "video: per-frame scores as CSV (rows only)", "FILE"),
      ValueOption("summary", OnFileName<&Options::summary_path>,
                  "video: the summary (of each distorted video) as JSON", "FILE"),
      ValueOption("plot", OnFileName<&Options::plot_path>, "video: score-over-time plot (SVG)",
                  "FILE"),
      ValueOption("output", OnOutput,
                  "write the scores to FILE, as --csv or --json=FILE by its extension", "FILE",
                  'o'),
      ValueOption("format", OnFormat, s.format.c_str(), s.format_values.c_str()),
      kEndOfEntries};
  const GOptionEntry help[] = {
      FlagOption("help", &state->help, "this text", 'h'),
#ifdef SSIM2_WITH_GST_OPTIONS
      FlagOption("help-all", &state->help_all, "all options, GStreamer's included"),
      FlagOption("help-gst", &state->help_gst,
                 "GStreamer's options (--gst-debug-level, --gst-plugin-path, ...)"),
#endif
      FlagOption("version", &state->version, "version, metric, CUDA engine and GStreamer version"),
      FlagOption("list-devices", &state->list_devices,
                 "the CUDA devices, and whether the engine runs on each"),
      kEndOfEntries};

  GOptionContext* context =
      g_option_context_new("REFERENCE DISTORTED [DISTORTED2 ...] | --pairs LIST");
  // Help is ours: GLib's would exit() from inside the parser.
  g_option_context_set_help_enabled(context, FALSE);
  g_option_context_set_summary(
      context,
      "SSIMULACRA 2.1 perceptual image/video quality score (gst-ssim2).\n"
      "REFERENCE, DISTORTED: PNG or JPEG images of the same size (at least 8x8),\n"
      "or videos (any other file is handed to the GStreamer video mode): one reference\n"
      "and one or more distorted videos, each scored against the reference decoded once.\n"
      "Prints the score with 8 decimals, as the reference ssimulacra2 tool does.\n"
      "HDR: a PNG's cICP chunk (BT.2020 PQ 9/16/0/1, HLG 9/18/0/1; BT.709 sRGB or linear)\n"
      "and cLLi chunk, and a video's caps colorimetry (bt2100-pq, bt2100-hlg) and\n"
      "content-light-level, are scored as libjxl's ssimulacra2 scores such PNGs.\n"
      "'ssim2 monitor --ref URI --dist NAME=URI ...' scores live renditions as a service,\n"
      "with OpenMetrics and a live page over HTTP (ssim2 monitor --help).\n"
      "\n"
      "Score scale (higher is better, 100 at most):\n"
      "  below 0   extremely poor: the distortion dominates the image\n"
      "       10   very low quality\n"
      "       30   low quality: artifacts are obvious\n"
      "       50   medium quality\n"
      "       70   high quality: artifacts hard to see without the original beside it\n"
      "       90   visually lossless: not told apart even when flicking between them\n"
      "      100   the pixels are identical");
  g_option_context_set_description(context, s.description.c_str());
  g_option_context_add_group(context, NewGroup("scoring", "Scoring options (images and videos):",
                                               "Show scoring options", scoring, state));
  g_option_context_add_group(
      context, NewGroup("pairs", "Pairs-list options (--pairs, docs/BATCH.md):",
                        "Show pairs-list options", pairs, state));
  g_option_context_add_group(
      context, NewGroup("video", "Video options:", "Show video options", video, state));
  g_option_context_add_group(
      context, NewGroup("output", "Output options:", "Show output options", output, state));
  g_option_context_add_group(
      context, NewGroup("help", "Help options:", "Show help options", help, state));
  if (gst_group != nullptr) *gst_group = nullptr;
#ifdef SSIM2_WITH_GST_OPTIONS
  if (with_gst) {
    GOptionGroup* gst = gst_init_get_option_group();
    if (gst_group != nullptr) *gst_group = gst;
    g_option_context_add_group(context, gst);
  }
#else
  (void)with_gst;
#endif
  return context;
}

void SetProgramName() {
  if (g_get_prgname() == nullptr) g_set_prgname("ssim2");
}

// GLib's own messages ("Unknown option --x") in the style of ours.
std::string MessageLine(const char* message) {
  std::string line = message;
  if (!line.empty() && line[0] >= 'A' && line[0] <= 'Z' &&
      !(line.size() > 1 && line[1] >= 'A' && line[1] <= 'Z'))
    line[0] = static_cast<char>(line[0] - 'A' + 'a');
  std::replace(line.begin(), line.end(), '\n', ' ');
  return line;
}

}  // namespace

bool ParseArgs(const std::vector<std::string>& args, Options* options, Command* command,
               std::string* error) {
  *command = Command::kScore;
  error->clear();
  SetProgramName();

  // GLib would take the word after a bare --json as its value; the rule of
  // cli_args.h needs to see all words first. So a bare --json becomes
  // "--json=" and the word after it is remembered.
  std::vector<std::string> argv_text = args;
  std::vector<bool> after_bare_json(args.size(), false);
  std::size_t end_of_options = args.size();  // index of the first "--"
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      end_of_options = i;
      break;
    }
    if (args[i] != "--json") continue;
    argv_text[i] = "--json=";
    if (i + 1 < args.size() && (args[i + 1].size() < 2 || args[i + 1][0] != '-'))
      after_bare_json[i + 1] = true;
  }

  // GLib removes what it parsed from argv and keeps the pointers of the rest,
  // which tells where each remaining word came from.
  std::string program = "ssim2";
  std::vector<char*> argv;
  argv.push_back(&program[0]);
  for (std::string& a : argv_text) argv.push_back(&a[0]);
  const std::vector<char*> original = argv;

  ParseState state;
  state.options = options;
  if (!options::ParseWords(NewContext(&state, true, nullptr), &argv, error)) {
    *error = MessageLine(error->c_str());
    return false;
  }
  if (state.help || state.help_all || state.help_gst) {
    *command = state.help_gst ? Command::kHelpGst
               : state.help_all ? Command::kHelpAll
                                : Command::kHelp;
    return true;
  }
  if (state.version) {
    *command = Command::kVersion;
    return true;
  }
  if (state.list_devices) {
    *command = Command::kListDevices;
    return true;
  }
  options->quiet = options->quiet || state.quiet;
  options->scale = options->scale || state.scale;
  options->decode_only = options->decode_only || state.decode_only;
  options->sequential_sums = options->sequential_sums || state.sequential_sums;
  if (!ResolveOutput(state, options, error)) return false;
  // --offset shifts the distorted stream's running time (or its order);
  // stream times are positions in the file, which it cannot move, and
  // content alignment finds the offset itself.
  if ((options->alignment == Alignment::kStreamTime ||
       options->alignment == Alignment::kContent) &&
      options->offset > 0) {
    *error = std::string("--offset works with --alignment running-time or sequence, not ") +
             AlignmentName(options->alignment);
    return false;
  }

  struct Word {
    std::string text;
    bool after_bare_json;
  };
  std::vector<Word> words;
  for (std::size_t k = 1; k < argv.size(); ++k) {
    const auto at = std::find(original.begin() + 1, original.end(), argv[k]);
    const std::size_t index = static_cast<std::size_t>(at - original.begin()) - 1;
    if (at == original.end() || index == end_of_options) continue;
    words.push_back({args[index], after_bare_json[index]});
  }
  // A bare --json owns the word after it only when that leaves exactly the
  // two inputs; `ssim2 --json a.png b.png` prints JSON for a.png vs b.png.
  // Three words may also be a reference and two distorted videos: a word
  // that names an existing regular file not ending in .json is then an
  // input, never an output to overwrite (devices such as /dev/full and
  // /dev/stdout stay outputs).
  if (state.bare_json) {
    bool took_file = false;
    if (words.size() == 3) {
      for (std::size_t i = 0; i < words.size(); ++i) {
        if (!words[i].after_bare_json) continue;
        if (LogFormatForPath(words[i].text) != LogFormat::kJson &&
            g_file_test(words[i].text.c_str(), G_FILE_TEST_IS_REGULAR)) {
          break;
        }
        if (!AssignOutput(LogFormat::kJson, words[i].text, options, error)) {
          *error = "--json: " + *error;
          return false;
        }
        words.erase(words.begin() + static_cast<std::ptrdiff_t>(i));
        took_file = true;
        break;
      }
    }
    if (!took_file) options->json = true;
  }
  if (!options->pairs_path.empty()) {
    // Whole images have no frames to pick or rescale: refused rather than
    // ignored.
    if (state.frame_option_given || options->scale) {
      *error = "--alignment, --offset, --every, --frames and --scale are for videos; "
               "--pairs scores whole images";
      return false;
    }
    // --json FILE: with --pairs the only word left is its file.
    if (state.bare_json && words.size() == 1 && words[0].after_bare_json) {
      options->json = false;
      if (!AssignOutput(LogFormat::kJson, words[0].text, options, error)) {
        *error = "--json: " + *error;
        return false;
      }
      words.clear();
    }
    if (words.empty()) return true;
    *error = "--pairs takes the pairs from its list, not from '" + words[0].text + "'";
    return false;
  }
  if (options->all_devices || !options->shard.empty() || options->jobs != 0 ||
      options->decode_only) {
    *error = "--device all, --shard, --jobs and --decode-only work with --pairs only";
    return false;
  }
  if (words.size() < 2) return false;  // usage
  options->reference_path = words[0].text;
  options->distorted_path = words[1].text;
  for (std::size_t i = 2; i < words.size(); ++i) {
    options->more_distorted_paths.push_back(words[i].text);
  }
  // Several distorted videos share one log (with a source column) and one
  // summary per file; libvmaf's layout holds one.
  if (!options->more_distorted_paths.empty() && !options->vmaf_json_path.empty()) {
    *error = "vmaf-json holds one distorted video: with several, use --csv or --json=FILE";
    return false;
  }
  return true;
}

std::string HelpText(Command topic) {
  SetProgramName();
  ParseState state;
  Options unused;
  state.options = &unused;
  GOptionGroup* gst_group = nullptr;
  GOptionContext* context = NewContext(&state, topic != Command::kHelp, &gst_group);
  gchar* text = g_option_context_get_help(
      context, FALSE, topic == Command::kHelpGst ? gst_group : nullptr);
  std::string help = text != nullptr ? text : "";
  g_free(text);
  g_option_context_free(context);
  if (help.empty() || help.back() != '\n') help += '\n';
  return help;
}

std::string VersionText(const char* version) {
  std::string text = std::string("ssim2 ") + version + " (gst-ssim2), SSIMULACRA 2.1\n";
  text += CudaEngineBuiltIn() ? "CUDA engine: built in (GPUs: ssim2 --list-devices)\n"
                              : "CUDA engine: not built in (CPU only)\n";
#ifdef SSIM2_WITH_GST_OPTIONS
  guint major = 0, minor = 0, micro = 0, nano = 0;
  gst_version(&major, &minor, &micro, &nano);  // the library loaded, not the headers
  text += "GStreamer: " + std::to_string(major) + "." + std::to_string(minor) + "." +
          std::to_string(micro) + " (video mode)\n";
#else
  text += "GStreamer: none (this build scores images only)\n";
#endif
  return text;
}

std::string DeviceListText(const CudaDeviceList& list) {
  if (list.devices.empty()) return list.none_reason + "\n";
  std::string text;
  for (const CudaDevice& d : list.devices) {
    char line[512];
    std::snprintf(line, sizeof line, "%d  %s  %.1f GiB  compute capability %d.%d  engine: %s\n",
                  d.index, d.name.c_str(), static_cast<double>(d.memory_bytes) / (1ull << 30),
                  d.major, d.minor, d.engine_runs ? "runs here" : "no (too old for this build)");
    text += line;
  }
  return text;
}

}  // namespace cli
}  // namespace ssim2
