// Command-line parsing of the ssim2 tool: the two meanings of --json (stdout
// for images, a file for either mode), -o/--format, number ranges, the
// grouped help and GStreamer's option group.
#include <string>
#include <vector>

#include <glib.h>
#include <glib/gstdio.h>
#include <gtest/gtest.h>
#ifdef SSIM2_WITH_GST_OPTIONS
#include <gst/gst.h>
#endif

#include "cli_args.h"
#include "quality_gate.h"
#include "ssim2/stats.h"

namespace ssim2 {
namespace cli {
namespace {

struct Parsed {
  bool ok;
  Options options;
  Command command;
  std::string error;
};

bool Contains(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

Parsed Parse(std::vector<std::string> args) {
  Parsed p;
  p.ok = ParseArgs(args, &p.options, &p.command, &p.error);
  return p;
}

TEST(Args, TwoInputs) {
  const Parsed p = Parse({"a.png", "b.png"});
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.command, Command::kScore);
  EXPECT_EQ(p.options.reference_path, "a.png");
  EXPECT_EQ(p.options.distorted_path, "b.png");
  EXPECT_FALSE(p.options.json);
  EXPECT_EQ(p.options.backend, Backend::kAuto);
}

TEST(Args, WrongNumberOfInputsAsksForUsage) {
  for (auto args : {std::vector<std::string>{}, {"a.png"}}) {
    const Parsed p = Parse(args);
    EXPECT_FALSE(p.ok);
    EXPECT_TRUE(p.error.empty()) << p.error;  // empty: print the usage text
  }
}

// One reference and several distorted videos; vmaf-json holds one distorted
// input, so it is refused with several.
TEST(Args, SeveralDistortedInputs) {
  const Parsed p = Parse({"ref.mkv", "a.mkv", "b.mkv", "c.mkv"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.options.reference_path, "ref.mkv");
  EXPECT_EQ(p.options.distorted_path, "a.mkv");
  EXPECT_EQ(p.options.more_distorted_paths, (std::vector<std::string>{"b.mkv", "c.mkv"}));
  EXPECT_FALSE(p.options.scale);
  EXPECT_TRUE(Parse({"--scale", "ref.mkv", "a.mkv"}).options.scale);
  EXPECT_TRUE(Parse({"--plot", "p.svg", "ref.mkv", "a.mkv", "b.mkv"}).ok);
  const Parsed vmaf = Parse({"--format", "vmaf-json", "-o", "v.json", "ref.mkv", "a.mkv", "b.mkv"});
  EXPECT_FALSE(vmaf.ok);
  EXPECT_NE(vmaf.error.find("vmaf-json"), std::string::npos) << vmaf.error;
}

TEST(Args, JsonToStdout) {
  for (auto args : {std::vector<std::string>{"--json", "a.png", "b.png"},
                    {"a.png", "b.png", "--json"},
                    {"a.png", "--json=-", "b.png"}}) {
    const Parsed p = Parse(args);
    ASSERT_TRUE(p.ok);
    EXPECT_TRUE(p.options.json);
    EXPECT_TRUE(p.options.json_path.empty());
    EXPECT_EQ(p.options.reference_path, "a.png");
    EXPECT_EQ(p.options.distorted_path, "b.png");
  }
}

TEST(Args, JsonToFile) {
  for (auto args : {std::vector<std::string>{"--json", "out.json", "a.mkv", "b.mkv"},
                    {"--json=out.json", "a.mkv", "b.mkv"},
                    {"a.mkv", "b.mkv", "--json=out.json"}}) {
    const Parsed p = Parse(args);
    ASSERT_TRUE(p.ok);
    EXPECT_FALSE(p.options.json);
    EXPECT_EQ(p.options.json_path, "out.json");
    EXPECT_EQ(p.options.reference_path, "a.mkv");
    EXPECT_EQ(p.options.distorted_path, "b.mkv");
  }
}

// `--json REF D1 D2`: an existing input after a bare --json is not taken as
// the JSON file (it would be overwritten); the three words are the inputs.
TEST(Args, BareJsonBeforeThreeExistingInputs) {
  char dir_template[] = "/tmp/ssim2-args-XXXXXX";
  ASSERT_NE(g_mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::vector<std::string> inputs{dir + "/r.mkv", dir + "/a.mkv", dir + "/b.mkv"};
  for (const std::string& path : inputs) {
    ASSERT_TRUE(g_file_set_contents(path.c_str(), "x", 1, nullptr));
  }
  const Parsed p = Parse({"--json", inputs[0], inputs[1], inputs[2]});
  for (const std::string& path : inputs) g_remove(path.c_str());
  g_rmdir(dir.c_str());
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_TRUE(p.options.json);
  EXPECT_TRUE(p.options.json_path.empty());
  EXPECT_EQ(p.options.reference_path, inputs[0]);
  EXPECT_EQ(p.options.more_distorted_paths, (std::vector<std::string>{inputs[2]}));
}

TEST(Args, VideoOptions) {
  const Parsed p = Parse({"--csv", "f.csv", "--plot=p.svg", "--alignment", "sequence",
                          "--offset", "3", "--every=2", "--frames", "10", "-q", "--backend",
                          "cuda", "--device", "1", "r.mkv", "d.mkv"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.options.csv_path, "f.csv");
  EXPECT_EQ(p.options.plot_path, "p.svg");
  EXPECT_EQ(p.options.alignment, Alignment::kSequence);
  EXPECT_EQ(p.options.offset, 3u);
  EXPECT_EQ(p.options.every, 2u);
  EXPECT_EQ(p.options.frames, 10u);
  EXPECT_TRUE(p.options.quiet);
  EXPECT_EQ(p.options.backend, Backend::kCuda);
  EXPECT_EQ(p.options.cuda_device, 1);
}

TEST(Args, StreamTimeAlignment) {
  const Parsed p = Parse({"--alignment", "stream-time", "r.mkv", "d.mkv"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.options.alignment, Alignment::kStreamTime);
  EXPECT_STREQ(AlignmentName(p.options.alignment), "stream-time");
  // --offset moves running time or order, not a position in the file.
  const Parsed with_offset = Parse({"--alignment=stream-time", "--offset", "2", "r.mkv", "d.mkv"});
  EXPECT_FALSE(with_offset.ok);
  EXPECT_NE(with_offset.error.find("--offset works with --alignment running-time or sequence"),
            std::string::npos)
      << with_offset.error;
}

TEST(Args, BadValuesGiveOneLineErrors) {
  for (auto args : {std::vector<std::string>{"--backend", "gpu", "a", "b"},
                    {"--every", "0", "a", "b"},
                    {"--offset", "-1", "a", "b"},
                    {"--frames", "12x", "a", "b"},
                    {"--alignment", "pts", "a", "b"},
                    {"--bogus", "a", "b"},
                    {"a", "b", "--csv"}}) {
    const Parsed p = Parse(args);
    EXPECT_FALSE(p.ok) << args[0];
    EXPECT_FALSE(p.error.empty()) << args[0];
    EXPECT_EQ(p.error.find('\n'), std::string::npos) << p.error;
  }
}

TEST(Args, Version) {
  EXPECT_EQ(Parse({"--version"}).command, Command::kVersion);
  EXPECT_EQ(Parse({"--list-devices"}).command, Command::kListDevices);
  // Without inputs, as --version.
  EXPECT_TRUE(Parse({"--list-devices"}).ok);
}

TEST(Args, VersionSaysWhatTheBuildHas) {
  const std::string text = VersionText("9.8.7");
  EXPECT_TRUE(Contains(text, "ssim2 9.8.7 (gst-ssim2), SSIMULACRA 2.1\n")) << text;
  EXPECT_TRUE(Contains(text, CudaEngineBuiltIn() ? "CUDA engine: built in"
                                                 : "CUDA engine: not built in"))
      << text;
#ifdef SSIM2_WITH_GST_OPTIONS
  EXPECT_TRUE(Contains(text, "GStreamer: 1.")) << text;
#else
  EXPECT_TRUE(Contains(text, "GStreamer: none")) << text;
#endif
}

// The device lines from a made-up list (the test machine has no GPU).
TEST(Args, DeviceListText) {
  CudaDeviceList list;
  list.none_reason = "no CUDA device: no CUDA-capable device is detected (cudaErrorNoDevice)";
  EXPECT_EQ(DeviceListText(list), list.none_reason + "\n");
  list.none_reason.clear();
  CudaDevice h200;
  h200.index = 0;
  h200.name = "NVIDIA H200";
  h200.memory_bytes = 150ull << 30;
  h200.major = 9;
  h200.minor = 0;
  h200.engine_runs = true;
  CudaDevice old = h200;
  old.index = 1;
  old.name = "Tesla P100";
  old.memory_bytes = 16ull << 30;
  old.major = 6;
  old.engine_runs = false;
  list.devices = {h200, old};
  EXPECT_EQ(DeviceListText(list),
            "0  NVIDIA H200  150.0 GiB  compute capability 9.0  engine: runs here\n"
            "1  Tesla P100  16.0 GiB  compute capability 6.0  engine: no (too old for this build)\n");
}

// --fail-below [STAT:]SCORE: the mean by default, any pooled value but stddev.
TEST(Args, FailBelow) {
  EXPECT_EQ(Parse({"a.png", "b.png"}).options.fail_below.field, nullptr);
  Parsed p = Parse({"--fail-below", "70", "a.png", "b.png"});
  ASSERT_TRUE(p.ok) << p.error;
  ASSERT_NE(p.options.fail_below.field, nullptr);
  EXPECT_STREQ(p.options.fail_below.field->name, "mean");
  EXPECT_EQ(p.options.fail_below.threshold, 70.0);
  p = Parse({"--fail-below=p5:-12.5", "a.mkv", "b.mkv"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_STREQ(p.options.fail_below.field->name, "p5");
  EXPECT_EQ(p.options.fail_below.threshold, -12.5);
  for (const char* bad : {"stddev:3", "p5:", ":60", "p6:60", "nan", "inf", "-inf", "1e3",
                          "100.5", " 60", "0x40", "60%"}) {
    p = Parse({"--fail-below", bad, "a.png", "b.png"});
    EXPECT_FALSE(p.ok) << bad;
    EXPECT_TRUE(Contains(p.error, "--fail-below: ")) << p.error;
  }
}

TEST(QualityGate, BelowFailsAtOrAbovePasses) {
  QualityGate gate;
  std::string error;
  Summary s = Summarize({40.0, 60.0, 80.0});
  EXPECT_FALSE(QualityGateFailure(gate, s, "x"));  // no gate
  ASSERT_TRUE(ParseQualityGate("60", &gate, &error));
  EXPECT_FALSE(QualityGateFailure(gate, s, "x"));  // mean 60: at the gate
  ASSERT_TRUE(ParseQualityGate("min:40.5", &gate, &error));
  EXPECT_EQ(QualityGateFailure(gate, s, "distorted b.mkv"),
            "below the quality gate: min 40.00000000 < 40.5 (distorted b.mkv)");
  // Nothing scored: no statistic to pass the gate with.
  ASSERT_TRUE(ParseQualityGate("-1000", &gate, &error));
  EXPECT_TRUE(QualityGateFailure(gate, Summarize({}), "x"));
}

TEST(Args, DoubleDashEndsOptions) {
  const Parsed p = Parse({"--", "-a.png", "b.png"});
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.options.reference_path, "-a.png");
}

TEST(Args, UsageExplainsTheScoreScale) {
  const std::string usage = UsageText();
  for (const char* word : {"Usage:", "ssim2 [OPTION", "100", " 90", " 70", " 50", " 30", " 10",
                           "below 0"})
    EXPECT_NE(usage.find(word), std::string::npos) << word;
}

TEST(Args, HelpIsGrouped) {
  const std::string help = HelpText(Command::kHelp);
  std::size_t last = 0;
  for (const char* title : {"Scoring options", "Video options:", "Output options:",
                            "Help options:"}) {
    const std::size_t at = help.find(title);
    ASSERT_NE(at, std::string::npos) << title;
    EXPECT_GT(at, last) << title << " out of order";
    last = at;
  }
  for (const char* option : {"--backend=", "--device=N", "--threads=N", "--memory-limit=BYTES",
                             "--alignment=",
                             "--offset=N", "--every=N", "--frames=N", "-q, --quiet", "--json",
                             "--csv=FILE", "--plot=FILE", "-o, --output=FILE",
                             "--format=csv|json|vmaf-json", "-h, --help", "--version",
                             "--list-devices", "--fail-below=[STAT:]SCORE"})
    EXPECT_TRUE(Contains(help, option)) << option;
  // The ranges are in the help text.
  EXPECT_TRUE(Contains(help, "1 to 4294967295")) << help;
  // GStreamer's options only in --help-all / --help-gst.
  EXPECT_FALSE(Contains(help, "--gst-debug-level=")) << help;
}

TEST(Args, HelpCommands) {
  EXPECT_EQ(Parse({"--help"}).command, Command::kHelp);
  EXPECT_EQ(Parse({"a", "-h"}).command, Command::kHelp);
  EXPECT_EQ(Parse({"-qh"}).command, Command::kHelp);
#ifdef SSIM2_WITH_GST_OPTIONS
  EXPECT_EQ(Parse({"--help-all"}).command, Command::kHelpAll);
  EXPECT_EQ(Parse({"--help-gst"}).command, Command::kHelpGst);
#endif
}

#ifdef SSIM2_WITH_GST_OPTIONS
TEST(Args, GStreamerOptionsAreParsed) {
  const GstDebugLevel before = gst_debug_get_default_threshold();
  const Parsed p = Parse({"--gst-debug-level=2", "a.png", "b.png"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.options.reference_path, "a.png");
  EXPECT_EQ(p.options.distorted_path, "b.png");
  EXPECT_EQ(gst_debug_get_default_threshold(), GST_LEVEL_WARNING);
  EXPECT_TRUE(gst_is_initialized());
  const Parsed spaced = Parse({"a.png", "--gst-debug-level", "1", "b.png"});
  ASSERT_TRUE(spaced.ok) << spaced.error;
  EXPECT_EQ(spaced.options.distorted_path, "b.png");
  EXPECT_EQ(gst_debug_get_default_threshold(), GST_LEVEL_ERROR);
  gst_debug_set_default_threshold(before);

  const std::string all = HelpText(Command::kHelpAll);
  EXPECT_TRUE(Contains(all, "--gst-debug-level=")) << all;
  EXPECT_TRUE(Contains(all, "--gst-plugin-path=")) << all;
  EXPECT_TRUE(Contains(all, "--threads=N")) << all;
  const std::string gst_only = HelpText(Command::kHelpGst);
  EXPECT_TRUE(Contains(gst_only, "--gst-debug-level=")) << gst_only;
  EXPECT_FALSE(Contains(gst_only, "--threads=N")) << gst_only;
}
#else
TEST(Args, NoGStreamerOptionsWithoutGStreamer) {
  const Parsed p = Parse({"--gst-debug-level=2", "a.png", "b.png"});
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error.rfind("unknown option", 0), 0u) << p.error;
}
#endif

TEST(Args, Threads) {
  EXPECT_EQ(Parse({"a", "b"}).options.cpu_threads, 0);
  const Parsed p = Parse({"--threads", "3", "a", "b"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.options.cpu_threads, 3);
  EXPECT_EQ(Parse({"--threads=1024", "a", "b"}).options.cpu_threads, 1024);
}

TEST(Args, MemoryLimit) {
  EXPECT_EQ(Parse({"a", "b"}).options.memory_limit, 0u);
  const Parsed p = Parse({"--memory-limit", "2000000000", "a", "b"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.options.memory_limit, 2000000000u);
  EXPECT_EQ(Parse({"--memory-limit=512K", "a", "b"}).options.memory_limit, 512u << 10);
  EXPECT_EQ(Parse({"--memory-limit=3m", "a", "b"}).options.memory_limit, 3u << 20);
  EXPECT_EQ(Parse({"--memory-limit=2G", "a", "b"}).options.memory_limit, 2ull << 30);
  for (const char* bad : {"--memory-limit=", "--memory-limit=G", "--memory-limit=2T",
                          "--memory-limit=-1", "--memory-limit=1.5G",
                          "--memory-limit=17179869184G"}) {
    const Parsed q = Parse({bad, "a", "b"});
    EXPECT_FALSE(q.ok) << bad;
    EXPECT_NE(q.error.find("--memory-limit"), std::string::npos) << q.error;
    EXPECT_EQ(q.error.find('\n'), std::string::npos) << q.error;
  }
}

TEST(Args, OutputFormatFromExtension) {
  Parsed p = Parse({"-o", "scores.csv", "a", "b"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.options.csv_path, "scores.csv");
  EXPECT_TRUE(p.options.json_path.empty());
  p = Parse({"a", "b", "--output=Scores.JSON"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.options.json_path, "Scores.JSON");
  EXPECT_TRUE(p.options.csv_path.empty());
  EXPECT_FALSE(p.options.json);
  // The same file through -o and its long-standing option is one file.
  p = Parse({"--csv", "s.csv", "-o", "s.csv", "a", "b"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.options.csv_path, "s.csv");
}

// File names are bytes: GLib must not convert them from the locale's charset
// (the C locale's ASCII refuses anything else).
TEST(Args, FileNamesKeepTheirBytes) {
  const std::string utf8 = "sc\xc3\xb6re";    // UTF-8
  const std::string latin1 = "sc\xf6re";       // not UTF-8
  for (const std::string& name : {utf8, latin1}) {
    Parsed p = Parse({"-o", name + ".json", "--csv", name + ".csv", "--plot=" + name + ".svg",
                      name + ".png", "b.png"});
    ASSERT_TRUE(p.ok) << p.error;
    EXPECT_EQ(p.options.json_path, name + ".json");
    EXPECT_EQ(p.options.csv_path, name + ".csv");
    EXPECT_EQ(p.options.plot_path, name + ".svg");
    EXPECT_EQ(p.options.reference_path, name + ".png");
    p = Parse({"--json=" + name + ".json", "a", "b"});
    ASSERT_TRUE(p.ok) << p.error;
    EXPECT_EQ(p.options.json_path, name + ".json");
  }
}

TEST(Args, ExplicitFormatWins) {
  Parsed p = Parse({"-o", "scores.json", "--format", "csv", "a", "b"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.options.csv_path, "scores.json");
  EXPECT_TRUE(p.options.json_path.empty());
  p = Parse({"--format=json", "-o", "scores.txt", "a", "b"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.options.json_path, "scores.txt");
  p = Parse({"--format=json", "-o", "-", "a", "b"});  // as --json=-
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_TRUE(p.options.json);
  EXPECT_TRUE(p.options.json_path.empty());
}

TEST(Args, VmafJsonIsChosenByFormatOnly) {
  for (auto args : {std::vector<std::string>{"--format", "vmaf-json", "-o", "v.json", "a", "b"},
                    {"-o", "v.json", "--format=vmaf-json", "a", "b"}}) {
    const Parsed p = Parse(args);
    ASSERT_TRUE(p.ok) << p.error;
    EXPECT_EQ(p.options.vmaf_json_path, "v.json");
    EXPECT_TRUE(p.options.json_path.empty());
  }
  const Parsed by_name = Parse({"-o", "v.json", "a", "b"});  // the extension means plain JSON
  ASSERT_TRUE(by_name.ok) << by_name.error;
  EXPECT_EQ(by_name.options.json_path, "v.json");
  EXPECT_TRUE(by_name.options.vmaf_json_path.empty());
}

TEST(Args, OutputErrors) {
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {{"-o", "scores.txt", "a", "b"}, "cannot tell the format"},
           {{"-o", "scores", "a", "b"}, "cannot tell the format"},
           {{"--format", "json", "a", "b"}, "no -o was given"},
           {{"--format", "xml", "-o", "x.xml", "a", "b"}, "expected csv, json, vmaf-json"},
           {{"-o", "a.csv", "-o", "b.json", "a", "b"}, "given twice"},
           {{"--csv", "a.csv", "-o", "b.csv", "a", "b"}, "two csv files"},
           {{"--json=a.json", "-o", "b.json", "a", "b"}, "two json files"},
           {{"-o", "", "a", "b"}, "expected a file name"}}) {
    const Parsed p = Parse(c.args);
    EXPECT_FALSE(p.ok) << c.args[0];
    EXPECT_TRUE(Contains(p.error, c.message)) << p.error;
    EXPECT_EQ(p.error.find('\n'), std::string::npos) << p.error;
  }
}

TEST(Args, NumbersOutOfRangeAreErrors) {
  struct Case {
    std::vector<std::string> args;
    const char* range;
  };
  for (const Case& c : std::vector<Case>{
           {{"--every", "4294967296"}, "1 to 4294967295"},
           {{"--every", "4294967297"}, "1 to 4294967295"},
           {{"--every=18446744073709551616"}, "1 to 4294967295"},
           {{"--every", "99999999999999999999999"}, "1 to 4294967295"},
           {{"--every", "0"}, "1 to 4294967295"},
           {{"--offset", "4294967296"}, "0 to 4294967295"},
           {{"--frames", "4294967296"}, "0 to 4294967295"},
           {{"--device", "1025"}, "0 to 1024"},
           {{"--threads", "1025"}, "0 to 1024"},
           {{"--threads", "-1"}, "0 to 1024"},
           {{"--threads", "0x10"}, "0 to 1024"},
           {{"--threads", " 4"}, "0 to 1024"}}) {
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"a", "b"});
    const Parsed p = Parse(args);
    EXPECT_FALSE(p.ok) << c.args[0] << " " << c.args.back();
    EXPECT_EQ(p.error.rfind(c.args[0].substr(0, c.args[0].find('=')) + ": expected a whole number",
                            0),
              0u)
        << p.error;
    EXPECT_TRUE(Contains(p.error, c.range)) << p.error;
    EXPECT_EQ(p.error.find('\n'), std::string::npos) << p.error;
  }
  // The largest values are taken as they are.
  const Parsed p = Parse({"--every", "4294967295", "--offset", "4294967295", "--frames",
                          "4294967295", "--device", "1024", "a", "b"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.options.every, 4294967295u);
  EXPECT_EQ(p.options.offset, 4294967295u);
  EXPECT_EQ(p.options.frames, 4294967295u);
  EXPECT_EQ(p.options.cuda_device, 1024);
}

// An unset $SLURM_ARRAY_TASK_ID gives "--shard /N" or, with a variable for
// the whole value, an empty one: an error, never "no shard" (which would
// score the whole list in every task).
TEST(Args, EmptyShardIsAnError) {
  ASSERT_TRUE(Parse({"--pairs", "list.csv", "--shard", "1/4"}).ok);
  EXPECT_EQ(Parse({"--pairs", "list.csv", "--shard", "1/4"}).options.shard, "1/4");
  for (auto args : {std::vector<std::string>{"--pairs", "list.csv", "--shard", ""},
                    {"--pairs", "list.csv", "--shard="}, {"--shard=", "--pairs", "list.csv"}}) {
    const Parsed p = Parse(args);
    EXPECT_FALSE(p.ok) << args.back();
    EXPECT_NE(p.error.find("--shard: expected I/N"), std::string::npos) << p.error;
  }
}

// Frame selection and scaling have no meaning for whole images: with --pairs
// they are refused, as --plot is, even at their default values.
TEST(Args, PairsRefusesVideoOptions) {
  for (auto extra : {std::vector<std::string>{"--every", "2"}, {"--every", "1"},
                     {"--offset", "3"}, {"--frames", "10"}, {"--scale"},
                     {"--alignment", "sequence"}}) {
    std::vector<std::string> args = {"--pairs", "list.csv"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Parsed p = Parse(args);
    EXPECT_FALSE(p.ok) << extra[0];
    EXPECT_EQ(p.error,
              "--alignment, --offset, --every, --frames and --scale are for videos; "
              "--pairs scores whole images")
        << extra[0];
    // The same options still work for videos.
    std::vector<std::string> video = extra;
    video.insert(video.end(), {"ref.mkv", "dist.mkv"});
    EXPECT_TRUE(Parse(video).ok) << extra[0];
  }
}

TEST(Args, UnknownOptionIsOneLine) {
  const Parsed p = Parse({"--frobnicate", "a", "b"});
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "unknown option --frobnicate");
}

}  // namespace
}  // namespace cli
}  // namespace ssim2
