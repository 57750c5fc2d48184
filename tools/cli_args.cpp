#include "cli_args.h"

#include <cerrno>
#include <cstdlib>

namespace ssim2 {
namespace cli {
namespace {

bool ParseUnsigned(const std::string& text, std::uint64_t* value) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;  // no sign, no space
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *value = v;
  return true;
}

bool ParseBackend(const std::string& text, Backend* backend) {
  if (text == "auto") *backend = Backend::kAuto;
  else if (text == "cpu") *backend = Backend::kCpu;
  else if (text == "cuda") *backend = Backend::kCuda;
  else return false;
  return true;
}

bool ParseAlignment(const std::string& text, Alignment* alignment) {
  if (text == "running-time") *alignment = Alignment::kRunningTime;
  else if (text == "sequence") *alignment = Alignment::kSequence;
  else return false;
  return true;
}

// Options that take a value, as `--name VALUE` or `--name=VALUE`.
bool TakesValue(const std::string& name) {
  return name == "--backend" || name == "--device" || name == "--csv" || name == "--plot" ||
         name == "--alignment" || name == "--offset" || name == "--every" ||
         name == "--frames" || name == "--pairs" || name == "--shard" || name == "--jobs";
}

bool ApplyValue(const std::string& name, const std::string& value, Options* o,
                std::string* error) {
  std::uint64_t n = 0;
  auto number = [&](std::uint64_t* dst, std::uint64_t min) {
    if (!ParseUnsigned(value, &n) || n < min) {
      *error = name + ": expected a whole number" + (min > 0 ? " >= 1" : "") + ", got '" +
               value + "'";
      return false;
    }
    *dst = n;
    return true;
  };
  if (name == "--backend") {
    if (ParseBackend(value, &o->backend)) return true;
    *error = "--backend: expected auto, cpu or cuda, got '" + value + "'";
    return false;
  }
  if (name == "--alignment") {
    if (ParseAlignment(value, &o->alignment)) return true;
    *error = "--alignment: expected running-time or sequence, got '" + value + "'";
    return false;
  }
  if (name == "--device" && value == "all") {
    o->all_devices = true;
    return true;
  }
  if (name == "--device") {
    std::uint64_t device = 0;
    if (!number(&device, 0)) return false;
    if (device > 1024) {
      *error = "--device: no such device number '" + value + "'";
      return false;
    }
    o->cuda_device = static_cast<int>(device);
    return true;
  }
  if (name == "--offset") return number(&o->offset, 0);
  if (name == "--every") return number(&o->every, 1);
  if (name == "--frames") return number(&o->frames, 0);
  if (name == "--jobs") return number(&o->jobs, 1);
  if (value.empty()) {
    *error = name + ": expected a file name";
    return false;
  }
  if (name == "--csv") o->csv_path = value;
  if (name == "--plot") o->plot_path = value;
  if (name == "--pairs") o->pairs_path = value;
  if (name == "--shard") o->shard = value;
  return true;
}

struct Word {
  std::string text;
  bool after_bare_json;  // directly follows a bare --json: may be its file
};

}  // namespace

bool ParseArgs(const std::vector<std::string>& args, Options* options, Command* command,
               std::string* error) {
  *command = Command::kScore;
  error->clear();
  std::vector<Word> words;
  bool bare_json = false;
  bool options_done = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool follows_json = i > 0 && args[i - 1] == "--json";
    if (options_done || arg.size() < 2 || arg[0] != '-') {
      words.push_back({arg, follows_json});
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      *command = Command::kHelp;
      return true;
    }
    if (arg == "--version") {
      *command = Command::kVersion;
      return true;
    }
    if (arg == "--quiet" || arg == "-q") {
      options->quiet = true;
      continue;
    }
    if (arg == "--decode-only") {
      options->decode_only = true;
      continue;
    }
    if (arg == "--json") {
      bare_json = true;
      continue;
    }
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    if (name == "--json") {
      const std::string value = arg.substr(eq + 1);
      if (value.empty() || value == "-") options->json = true;
      else options->json_path = value;
      continue;
    }
    if (!TakesValue(name)) {
      *error = "unknown option '" + arg + "'";
      return false;
    }
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      *error = name + ": missing value";
      return false;
    }
    if (!ApplyValue(name, value, options, error)) return false;
  }
  // A bare --json owns the word after it only when that leaves exactly the
  // two inputs; `ssim2 --json a.png b.png` prints JSON for a.png vs b.png.
  if (bare_json) {
    bool took_file = false;
    if (words.size() == 3) {
      for (std::size_t i = 0; i < words.size(); ++i) {
        if (!words[i].after_bare_json) continue;
        options->json_path = words[i].text;
        words.erase(words.begin() + static_cast<std::ptrdiff_t>(i));
        took_file = true;
        break;
      }
    }
    if (!took_file) options->json = true;
  }
  if (!options->pairs_path.empty()) {
    // --json FILE: with --pairs the only word left is its file.
    if (bare_json && words.size() == 1 && words[0].after_bare_json) {
      options->json = false;
      options->json_path = words[0].text;
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
  if (words.size() != 2) return false;  // usage
  options->reference_path = words[0].text;
  options->distorted_path = words[1].text;
  return true;
}

std::string UsageText(const std::string& program) {
  return "SSIMULACRA 2.1 perceptual image/video quality score (gst-ssim2)\n"
         "Usage: " + program + " [options] REFERENCE DISTORTED\n"
         "       " + program + " [options] --pairs LIST.csv|-\n"
         "  REFERENCE, DISTORTED: PNG or JPEG images of the same size (at least 8x8),\n"
         "  or two videos (any other file is handed to the GStreamer video mode).\n"
         "Prints the score with 8 decimals, as the reference ssimulacra2 tool does.\n"
         "\n"
         "Score scale (higher is better, 100 at most):\n"
         "  below 0   extremely poor: the distortion dominates the image\n"
         "       10   very low quality\n"
         "       30   low quality: artifacts are obvious\n"
         "       50   medium quality\n"
         "       70   high quality: artifacts hard to see without the original beside it\n"
         "       90   visually lossless: not told apart even when flicking between them\n"
         "      100   the pixels are identical\n"
         "\n"
         "Options:\n"
         "  --backend auto|cpu|cuda  where to compute (default auto: CUDA when usable)\n"
         "  --device N               CUDA device number\n"
         "  --json, --json=-         images: print JSON (score, scales, backend and the\n"
         "                           108 sub-scores) on stdout instead of the score\n"
         "  --json=FILE, --json FILE write that JSON to FILE (video: per-frame scores\n"
         "                           and summary); '--json FILE' only when FILE is\n"
         "                           followed by both inputs\n"
         "  --csv FILE               video: per-frame scores and summary as CSV\n"
         "  --plot FILE              video: score-over-time plot (SVG)\n"
         "  --alignment running-time|sequence\n"
         "                           video: pair frames by timestamp (default) or order\n"
         "  --offset N               video: skip the first N distorted frames\n"
         "  --every N                video: score every Nth frame pair (default 1)\n"
         "  --frames N               video: stop after N scored pairs (default: all)\n"
         "  --quiet, -q              video, pairs: no progress or summary line\n"
         "  --pairs LIST|-           score every REFERENCE,DISTORTED line of LIST (or\n"
         "                           stdin); rows as CSV on stdout, or --csv/--json\n"
         "  --shard I/N              pairs: only entries k with k mod N = I (I from 0)\n"
         "  --device all             pairs: spread the pairs over every CUDA device\n"
         "  --jobs N                 pairs: decoder threads (default: all cores)\n"
         "  --decode-only            pairs: decode every pair, score none (rate check)\n"
         "  --help, -h               this text\n"
         "  --version                version and metric\n"
         "\n"
         "Exit status: 0 on success, 1 on any error (one line on stderr).\n";
}

}  // namespace cli
}  // namespace ssim2
