// The pairs mode's parts that need no process: the list format, --shard and
// the decode/score pipeline with several CPU workers (the same dispatch that
// --device all uses with one CUDA worker per device).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pairs_list.h"
#include "pairs_mode.h"
#include "testdata.h"

namespace ssim2 {
namespace cli {
namespace {

TEST(PairsList, FormatRules) {
  const std::string text =
      "# a comment\n"
      "Reference,Distorted,score\n"
      "\n"
      "a.png,b.png\n"
      "  c.png , d.png ,42,extra\r\n"
      "   # indented comment\n"
      "\"e,1.png\",\"f \"\"q\"\".png\"\n"
      "only-one.png\n"
      ",empty.png\n"
      "\"open.png,x.png\n"
      "\"a.png\"junk,b.png\n"
      "reference,distorted\n"  // a header only as the first entry
      "/abs/g.png,h.jpg";      // no final newline
  const std::vector<PairEntry> e = ParsePairsList(text);
  ASSERT_EQ(e.size(), 9u);
  EXPECT_EQ(e[0].line, 4u);
  EXPECT_EQ(e[0].reference, "a.png");
  EXPECT_EQ(e[0].distorted, "b.png");
  EXPECT_EQ(e[1].line, 5u);
  EXPECT_EQ(e[1].reference, "c.png");
  EXPECT_EQ(e[1].distorted, "d.png");
  EXPECT_TRUE(e[1].error.empty());
  EXPECT_EQ(e[2].reference, "e,1.png");
  EXPECT_EQ(e[2].distorted, "f \"q\".png");
  EXPECT_NE(e[3].error.find("expected REFERENCE,DISTORTED"), std::string::npos);
  EXPECT_EQ(e[3].line, 8u);
  EXPECT_NE(e[4].error.find("empty file name"), std::string::npos);
  EXPECT_NE(e[5].error.find("quotes"), std::string::npos);
  EXPECT_NE(e[6].error.find("quotes"), std::string::npos);
  EXPECT_EQ(e[7].reference, "reference");
  EXPECT_EQ(e[8].line, 13u);
  EXPECT_EQ(e[8].reference, "/abs/g.png");
  EXPECT_EQ(e[8].distorted, "h.jpg");
}

// Spreadsheet exports: a UTF-8 byte order mark before the header.
TEST(PairsList, ByteOrderMarkBeforeTheHeader) {
  const std::vector<PairEntry> e = ParsePairsList("\xEF\xBB\xBFreference,distorted\na.png,b.png\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].line, 2u);
  EXPECT_EQ(e[0].reference, "a.png");
  // Elsewhere the same bytes are part of a name.
  const std::vector<PairEntry> f = ParsePairsList("a.png,b.png\n\xEF\xBB\xBF" "c.png,d.png\n");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].reference, "\xEF\xBB\xBF" "c.png");
}

// Old Mac line ends (a bare CR) end a line as LF and CRLF do.
TEST(PairsList, BareCarriageReturnEndsALine) {
  const std::vector<PairEntry> e =
      ParsePairsList("reference,distorted\ra.png,b.png\r# note\rc.png,d.png\r\ne.png,f.png");
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].line, 2u);
  EXPECT_EQ(e[0].distorted, "b.png");
  EXPECT_EQ(e[1].line, 4u);
  EXPECT_EQ(e[1].reference, "c.png");
  EXPECT_EQ(e[1].distorted, "d.png");
  EXPECT_EQ(e[2].line, 5u);
  EXPECT_EQ(e[2].reference, "e.png");
}

// A NUL byte cannot be in a file name: that line is an error entry, the
// next lines are read.
TEST(PairsList, NulByteMakesAnErrorEntry) {
  const char raw[] = "a.png,b.png\nc\0.png,d.png\ne.png,f.png\n";
  const std::string text(raw, sizeof raw - 1);
  ASSERT_EQ(text.size(), 37u);
  const std::vector<PairEntry> e = ParsePairsList(text);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_TRUE(e[0].error.empty());
  EXPECT_EQ(e[1].line, 2u);
  EXPECT_NE(e[1].error.find("NUL byte"), std::string::npos) << e[1].error;
  EXPECT_EQ(e[1].reference.find('\0'), std::string::npos);
  EXPECT_EQ(e[2].line, 3u);
  EXPECT_EQ(e[2].reference, "e.png");
}

// RFC 4180: a quoted field may hold line ends; the entry keeps the line
// where it starts and the following lines are counted on.
TEST(PairsList, QuotedFieldsHoldLineEnds) {
  const std::vector<PairEntry> e =
      ParsePairsList("\"two\nlines.png\",\"b\r\n.png\"\nc.png,d.png\n\"open.png,x.png\ne.png,f.png\n");
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].line, 1u);
  EXPECT_TRUE(e[0].error.empty()) << e[0].error;
  EXPECT_EQ(e[0].reference, "two\nlines.png");
  EXPECT_EQ(e[0].distorted, "b\r\n.png");
  EXPECT_EQ(e[1].line, 4u);
  EXPECT_EQ(e[1].reference, "c.png");
  // A quote that never closes is an error on its line; the list goes on at
  // the next line instead of ending in one endless field.
  EXPECT_EQ(e[2].line, 5u);
  EXPECT_NE(e[2].error.find("quotes"), std::string::npos);
  EXPECT_EQ(e[3].line, 6u);
  EXPECT_EQ(e[3].reference, "e.png");
}

TEST(PairsList, Paths) {
  EXPECT_EQ(ListDirectory("list.csv"), "");
  EXPECT_EQ(ListDirectory("data/sets/list.csv"), "data/sets");
  EXPECT_EQ(ListDirectory("/list.csv"), "/");
  EXPECT_EQ(ResolveListPath("", "a.png"), "a.png");
  EXPECT_EQ(ResolveListPath("data/sets", "img/a.png"), "data/sets/img/a.png");
  EXPECT_EQ(ResolveListPath("/", "a.png"), "/a.png");
  EXPECT_EQ(ResolveListPath("data", "/abs/a.png"), "/abs/a.png");
}

TEST(PairsShard, ParseRejectsBadShards) {
  Shard s;
  std::string error;
  EXPECT_TRUE(ParseShard("0/1", &s, &error));
  EXPECT_TRUE(ParseShard("3/4", &s, &error));
  EXPECT_EQ(s.index, 3u);
  EXPECT_EQ(s.count, 4u);
  for (const char* bad : {"4/4", "1/0", "0/0", "-1/4", "1", "a/b", "1/4x", "/4", "1/", " 1/4"}) {
    EXPECT_FALSE(ParseShard(bad, &s, &error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

// Every entry lands in exactly one shard, for N below, equal to and above the
// number of entries; comments and malformed lines count like any entry.
TEST(PairsShard, ShardsPartitionTheList) {
  std::string text = "reference,distorted\n";
  for (int i = 0; i < 23; ++i) {
    if (i % 5 == 0) text += "# comment\n\n";
    text += i % 7 == 3 ? "malformed-" + std::to_string(i) + "\n"
                       : "r" + std::to_string(i) + ".png,d" + std::to_string(i) + ".png\n";
  }
  const std::vector<PairEntry> all = ParsePairsList(text);
  ASSERT_EQ(all.size(), 23u);
  for (std::uint64_t n : {1u, 2u, 3u, 5u, 7u, 22u, 23u, 24u, 100u}) {
    std::map<std::size_t, int> seen;  // line -> shards that hold it
    std::size_t total = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::vector<PairEntry> part = SelectShard(all, Shard{i, n});
      total += part.size();
      // Round robin: sizes differ by at most one, and the order is kept.
      EXPECT_LE(part.size(), (all.size() + n - 1) / n);
      EXPECT_GE(part.size(), all.size() / n);
      for (std::size_t k = 0; k < part.size(); ++k) {
        ++seen[part[k].line];
        if (k > 0) {
          EXPECT_LT(part[k - 1].line, part[k].line);
        }
      }
    }
    EXPECT_EQ(total, all.size()) << "N=" << n;
    EXPECT_EQ(seen.size(), all.size()) << "N=" << n;
    for (const auto& [line, count] : seen) EXPECT_EQ(count, 1) << "line " << line << " N=" << n;
  }
  // A huge N must not overflow the stride.
  EXPECT_EQ(SelectShard(all, Shard{5, ~std::uint64_t{0}}).size(), 1u);
  EXPECT_EQ(SelectShard(all, Shard{~std::uint64_t{0} - 1, ~std::uint64_t{0}}).size(), 0u);
}

struct Expected {
  std::string reference, distorted, score;
};

std::vector<Expected> ReadScoresCsv() {
  std::ifstream in(std::string(SSIM2_TESTDATA_DIR) + "/scores.csv");
  std::vector<Expected> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (f.size() >= 5) rows.push_back({f[0], f[1], f[4]});
  }
  return rows;
}

std::string Score8(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.8f", v);
  return buf;
}

// Small pairs of scores.csv (the big ones would slow the test down), a broken
// line and a size mismatch among them.
PairsConfig SmallPairs(const std::vector<Expected>& expected, std::vector<std::string>* scores) {
  std::string text = "reference,distorted\n";
  for (const Expected& e : expected) {
    if (e.reference.find("1920x1080") != std::string::npos ||
        e.reference.find("1280x720") != std::string::npos)
      continue;
    text += e.reference + "," + e.distorted + "\n";
    scores->push_back(e.score);
    if (scores->size() == 5) {
      text += "images/coffee_8x8/reference.png,images/gravel_64x64/reference.png\n";
      scores->push_back("Image size mismatch");
      text += "images/coffee_8x8/reference.png,no/such.png\n";
      scores->push_back("Could not load distorted image");
    }
  }
  PairsConfig config;
  config.entries = ParsePairsList(text);
  config.list_dir = SSIM2_TESTDATA_DIR;
  return config;
}

// Three CPU workers share the queue: every pair is scored exactly once, rows
// come in list order and equal the expected scores; failures are rows.
TEST(PairsPipeline, SeveralWorkersScoreEveryPairOnceInOrder) {
  const std::vector<Expected> expected = ReadScoresCsv();
  ASSERT_GE(expected.size(), 60u) << "test data missing: " << SSIM2_TESTDATA_DIR;
  std::vector<std::string> want;
  PairsConfig config = SmallPairs(expected, &want);
  ASSERT_EQ(config.entries.size(), want.size());
  for (int w = 0; w < 3; ++w) config.workers.push_back({Backend::kCpu, -1, 1});
  config.decode_threads = 2;
  config.queue_capacity = 1;  // the smallest queue still completes

  std::vector<PairRow> rows;
  std::vector<std::size_t> per_worker;
  const PairsSummary summary =
      RunPairs(config, [&](const PairRow& row) { rows.push_back(row); }, &per_worker);
  ASSERT_EQ(rows.size(), want.size());
  EXPECT_EQ(summary.pairs, want.size());
  EXPECT_EQ(summary.failed, 2u);
  EXPECT_EQ(summary.scored, want.size() - 2);
  ASSERT_EQ(per_worker.size(), 3u);
  std::size_t scored_by_workers = 0;
  for (std::size_t n : per_worker) scored_by_workers += n;
  EXPECT_EQ(scored_by_workers, want.size() - 2);  // failed decodes reach no worker
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].entry.line, config.entries[i].line);
    if (rows[i].status == PairStatus::kOk) {
      EXPECT_EQ(Score8(rows[i].score), want[i]) << rows[i].entry.distorted;
      EXPECT_GE(rows[i].worker, 0);
      EXPECT_LT(rows[i].worker, 3);
    } else {
      EXPECT_EQ(rows[i].error.rfind(want[i], 0), 0u) << rows[i].error;
      EXPECT_EQ(rows[i].worker, -1);
    }
  }
}

// The memory bound: never more decoded pairs than decoders + queue + workers,
// however long the list (here 4 times the small pairs).
TEST(PairsPipeline, DecodedPairsStayBounded) {
  const std::vector<Expected> expected = ReadScoresCsv();
  std::vector<std::string> want;
  PairsConfig config = SmallPairs(expected, &want);
  const std::vector<PairEntry> once = config.entries;
  for (int i = 0; i < 3; ++i) config.entries.insert(config.entries.end(), once.begin(), once.end());
  config.workers = {{Backend::kCpu, -1, 1}};
  config.decode_threads = 4;
  config.queue_capacity = 2;
  std::size_t rows = 0;
  const PairsSummary summary = RunPairs(config, [&](const PairRow&) { ++rows; });
  EXPECT_EQ(rows, config.entries.size());
  EXPECT_GE(summary.peak_decoded, 1u);
  EXPECT_LE(summary.peak_decoded, 4u + 2u + 1u);
}

TEST(PairsPipeline, DecodeOnlyScoresNothing) {
  const std::vector<Expected> expected = ReadScoresCsv();
  std::vector<std::string> want;
  PairsConfig config = SmallPairs(expected, &want);
  config.decode_only = true;
  config.decode_threads = 3;
  std::vector<PairRow> rows;
  const PairsSummary summary = RunPairs(config, [&](const PairRow& row) { rows.push_back(row); });
  ASSERT_EQ(rows.size(), want.size());
  EXPECT_EQ(summary.scored, 0u);
  EXPECT_EQ(summary.failed, 2u);
  EXPECT_EQ(summary.decoded, want.size() - 2);
  for (const PairRow& row : rows) {
    if (row.status != PairStatus::kError) {
      EXPECT_EQ(row.status, PairStatus::kDecoded);
      EXPECT_GE(row.width, 8);
    }
  }
}

// A FIFO in a fresh folder: opening it for reading blocks until a writer
// comes, like a stalled mount. Unblock() lets a reader left behind finish.
class BlockingPath {
 public:
  BlockingPath() {
    char dir[] = "/tmp/ssim2-pairs-XXXXXX";
    EXPECT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    path_ = dir_ + "/blocks.png";
    EXPECT_EQ(mkfifo(path_.c_str(), 0600), 0);
  }
  ~BlockingPath() {
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  const std::string& path() const { return path_; }
  // Opens the writing end (which succeeds only while a reader is blocked in
  // open()) and closes it: the reader gets end of file.
  bool Unblock() const {
    const int fd = open(path_.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd < 0) return false;
    close(fd);
    return true;
  }

 private:
  std::string dir_, path_;
};

PairsConfig ListWith(const std::string& text) {
  PairsConfig config;
  config.entries = ParsePairsList(text);
  config.list_dir = SSIM2_TESTDATA_DIR;
  config.workers.push_back({Backend::kCpu, -1, 1});
  config.decode_threads = 1;
  return config;
}

const char kGoodPair[] = "images/coffee_8x8/reference.png,images/coffee_8x8/identical.png\n";

// Issue 23 item 4: a pair whose file blocks (a FIFO without a writer) gets an
// error row when its read passes the limit; another decoder takes over, so
// the pairs after it are scored, and the run ends with the reader left
// behind.
TEST(PairsPipeline, BlockedReadBecomesAnErrorRow) {
  BlockingPath fifo;
  PairsConfig config = ListWith(std::string(kGoodPair) + "images/coffee_8x8/reference.png," +
                                fifo.path() + "\n" + kGoodPair);
  config.read_timeout_s = 2;  // the good pairs are 8x8 images
  std::vector<PairRow> rows;
  const PairsSummary summary = RunPairs(config, [&](const PairRow& row) { rows.push_back(row); });
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].status, PairStatus::kOk);
  EXPECT_EQ(rows[1].status, PairStatus::kError);
  EXPECT_EQ(rows[1].entry.line, 2u);
  EXPECT_EQ(rows[1].error, "Could not load distorted image: " + fifo.path() +
                               " (still blocked after 2 s, e.g. a pipe with no writer or a "
                               "stalled mount: given up)");
  EXPECT_EQ(rows[2].status, PairStatus::kOk);
  EXPECT_EQ(rows[2].score, 100.0);
  EXPECT_EQ(summary.blocked_reads, 1u);
  EXPECT_EQ(summary.failed, 1u);
  EXPECT_EQ(summary.scored, 2u);
  EXPECT_TRUE(summary.threads_left);
  EXPECT_TRUE(fifo.Unblock());  // the reader left behind ends on its own
}

// After kMaxBlockedReads (8) blocked pairs the rest of the list is skipped,
// with a row each, instead of leaving a thread behind per entry.
TEST(PairsPipeline, BlockedReadsAreBounded) {
  BlockingPath fifo;
  std::string text;
  for (int i = 0; i < 10; ++i) text += "images/coffee_8x8/reference.png," + fifo.path() + "\n";
  PairsConfig config = ListWith(text + kGoodPair);
  config.read_timeout_s = 0.2;  // one decoder: the pairs are given up one after the other
  std::vector<PairRow> rows;
  const PairsSummary summary = RunPairs(config, [&](const PairRow& row) { rows.push_back(row); });
  ASSERT_EQ(rows.size(), 11u);
  EXPECT_EQ(summary.blocked_reads, 8u);
  EXPECT_EQ(summary.failed, 11u);
  std::size_t given_up = 0, skipped = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    EXPECT_EQ(rows[k].entry.line, k + 1);
    if (rows[k].error.find("given up") != std::string::npos) ++given_up;
    if (rows[k].error.find("the rest is skipped") != std::string::npos) ++skipped;
  }
  EXPECT_EQ(given_up, 8u);
  EXPECT_EQ(skipped, 3u);
  // The readers given up are still blocked in open(), so the first writer
  // finds one; one writer may release several of them at once, so how many
  // later opens still find a reader depends on the scheduler.
  EXPECT_TRUE(fifo.Unblock());
  for (int i = 0; i < 8 && fifo.Unblock(); ++i) {
  }
}

// Issue 23 item 5: a stop signal while a pair is provably in flight (its
// file blocks): RunPairs returns with the rows finished so far, in list
// order, and hands over none afterwards.
TEST(PairsPipeline, StopSignalKeepsTheFinishedRows) {
  BlockingPath fifo;
  PairsConfig config = ListWith(std::string(kGoodPair) + kGoodPair + fifo.path() + "," +
                                fifo.path() + "\n" + kGoodPair);
  config.read_timeout_s = 3600;  // only the signal ends this run
  volatile std::sig_atomic_t stop = 0;
  config.stop_signal = &stop;
  std::vector<PairRow> rows;
  bool returned = false;
  const PairsSummary summary = RunPairs(config, [&](const PairRow& row) {
    EXPECT_FALSE(returned);
    rows.push_back(row);
    if (row.entry.line == 2) stop = SIGTERM;
  });
  returned = true;
  EXPECT_EQ(summary.stop_signal, SIGTERM);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].entry.line, 1u);
  EXPECT_EQ(rows[1].entry.line, 2u);
  EXPECT_EQ(rows[1].status, PairStatus::kOk);
  EXPECT_EQ(summary.pairs, 2u);
  EXPECT_EQ(summary.scored, 2u);
  EXPECT_TRUE(summary.threads_left);  // the reader of line 3
  EXPECT_TRUE(fifo.Unblock());
}

}  // namespace
}  // namespace cli
}  // namespace ssim2
