// Command-line parsing of the ssim2 tool, in particular the two meanings of
// --json (stdout for images, a file for either mode).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_args.h"

namespace ssim2 {
namespace cli {
namespace {

struct Parsed {
  bool ok;
  Options options;
  Command command;
  std::string error;
};

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
  for (auto args : {std::vector<std::string>{}, {"a.png"}, {"a", "b", "c"}}) {
    const Parsed p = Parse(args);
    EXPECT_FALSE(p.ok);
    EXPECT_TRUE(p.error.empty()) << p.error;  // empty: print the usage text
  }
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

TEST(Args, HelpAndVersion) {
  EXPECT_EQ(Parse({"--help"}).command, Command::kHelp);
  EXPECT_EQ(Parse({"a", "-h"}).command, Command::kHelp);
  EXPECT_EQ(Parse({"--version"}).command, Command::kVersion);
}

TEST(Args, DoubleDashEndsOptions) {
  const Parsed p = Parse({"--", "-a.png", "b.png"});
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.options.reference_path, "-a.png");
}

TEST(Args, UsageExplainsTheScoreScale) {
  const std::string usage = UsageText("ssim2");
  for (const char* word : {"Usage: ssim2", "100", " 90", " 70", " 50", " 30", " 10", "below 0"})
    EXPECT_NE(usage.find(word), std::string::npos) << word;
}

}  // namespace
}  // namespace cli
}  // namespace ssim2
