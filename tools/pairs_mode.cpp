#include "pairs_mode.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>

#include "image_io.h"

namespace ssim2 {
namespace cli {
namespace {

using Clock = std::chrono::steady_clock;

// Scorers of one worker, one per image size, the least recently used dropped
// beyond kMaxSizes so that a list of many sizes cannot exhaust (device) memory.
class ScorerCache {
 public:
  explicit ScorerCache(const PairsWorker& worker) : worker_(worker) {}

  Status Get(int width, int height, Scorer** out) {
    for (auto it = scorers_.begin(); it != scorers_.end(); ++it) {
      if ((*it)->width() == width && (*it)->height() == height) {
        scorers_.splice(scorers_.begin(), scorers_, it);
        *out = scorers_.front().get();
        return Status::Ok();
      }
    }
    if (scorers_.size() >= kMaxSizes) scorers_.pop_back();
    ScorerOptions so;
    so.backend = worker_.backend;
    so.cuda_device = worker_.cuda_device;
    so.cpu_threads = worker_.cpu_threads;
    std::unique_ptr<Scorer> scorer;
    if (Status s = Scorer::Create(width, height, so, &scorer); !s.ok()) return s;
    scorers_.push_front(std::move(scorer));
    *out = scorers_.front().get();
    return Status::Ok();
  }

 private:
  static constexpr std::size_t kMaxSizes = 4;
  PairsWorker worker_;
  std::list<std::unique_ptr<Scorer>> scorers_;
};

// Counts the decoded pairs alive, and the most there were at once.
class LiveCounter {
 public:
  void Add() {
    const std::size_t now = ++live_;
    std::size_t peak = peak_.load();
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
  }
  void Remove() { --live_; }
  std::size_t peak() const { return peak_.load(); }

 private:
  std::atomic<std::size_t> live_{0};
  std::atomic<std::size_t> peak_{0};
};

struct DecodedPair {
  explicit DecodedPair(LiveCounter* counter) : counter(counter) { counter->Add(); }
  ~DecodedPair() { counter->Remove(); }
  DecodedPair(const DecodedPair&) = delete;
  DecodedPair& operator=(const DecodedPair&) = delete;
  LiveCounter* counter;
  std::size_t index = 0;
  io::Image reference;
  io::Image distorted;
};

// The single-pair command's messages, so a row's error reads like its line.
bool LoadOne(const char* which, const std::string& path, io::Image* image, std::string* error) {
  io::FileKind kind;
  Status s = io::SniffFile(path, &kind);
  if (s.ok() && kind == io::FileKind::kText) {
    s = Status(StatusCode::kIoError, "not a PNG or JPEG image (looks like text)");
  } else if (s.ok() && kind == io::FileKind::kOther) {
    s = Status(StatusCode::kIoError, "not a PNG or JPEG image (videos are scored one pair per run)");
  }
  if (s.ok()) s = io::LoadImage(path, image);
  if (s.ok()) return true;
  *error = std::string("Could not load ") + which + " image: " + path + " (" + s.message() + ")";
  return false;
}

// Decodes one entry the way the single-pair command checks it: the reference
// first, its size alone, then the distorted image and the size match.
bool DecodeEntry(const PairEntry& entry, const std::string& list_dir, DecodedPair* pair,
                 PairRow* row) {
  row->entry = entry;
  if (!entry.error.empty()) {
    row->error = entry.error;
    return false;
  }
  if (!LoadOne("original", ResolveListPath(list_dir, entry.reference), &pair->reference,
               &row->error)) {
    return false;
  }
  if (pair->reference.width() < 8 || pair->reference.height() < 8) {
    row->error = "Minimum image size is 8x8 pixels";
    return false;
  }
  if (!LoadOne("distorted", ResolveListPath(list_dir, entry.distorted), &pair->distorted,
               &row->error)) {
    return false;
  }
  if (pair->reference.width() != pair->distorted.width() ||
      pair->reference.height() != pair->distorted.height()) {
    row->error = "Image size mismatch";
    return false;
  }
  row->width = pair->reference.width();
  row->height = pair->reference.height();
  return true;
}

class Batch {
 public:
  Batch(const PairsConfig& config, const std::function<void(const PairRow&)>& on_row)
      : config_(config), on_row_(on_row) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    decode_threads_ = config.decode_threads > 0 ? static_cast<std::size_t>(config.decode_threads) : hw;
    capacity_ = config.queue_capacity > 0 ? config.queue_capacity : 2 * config.workers.size() + 2;
    // Rows finished ahead of an unfinished one wait in `pending_`; decoders
    // stay within this many entries of the first unfinished one.
    window_ = 1024 + capacity_ + decode_threads_;
    rows_per_worker_.assign(config.workers.size(), 0);
  }

  PairsSummary Run() {
    const auto start = Clock::now();
    decoders_left_ = decode_threads_;
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < decode_threads_; ++i) threads.emplace_back([this] { Decode(); });
    if (!config_.decode_only) {
      for (std::size_t w = 0; w < config_.workers.size(); ++w) {
        threads.emplace_back([this, w] { Score(w); });
      }
    }
    for (std::thread& t : threads) t.join();
    summary_.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    summary_.peak_decoded = live_.peak();
    return summary_;
  }

  const std::vector<std::size_t>& rows_per_worker() const { return rows_per_worker_; }

 private:
  void Decode() {
    const std::size_t n = config_.entries.size();
    for (;;) {
      std::size_t i;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return next_take_ >= n || next_take_ < next_emit_ + window_; });
        if (next_take_ >= n) break;
        i = next_take_++;
      }
      auto pair = std::make_unique<DecodedPair>(&live_);
      pair->index = i;
      PairRow row;
      bool ok = false;
      try {
        ok = DecodeEntry(config_.entries[i], config_.list_dir, pair.get(), &row);
      } catch (const std::exception& e) {  // e.g. bad_alloc for a huge image
        row.error = std::string("cannot decode: ") + e.what();
      }
      if (ok && !config_.decode_only && config_.workers.empty()) {
        ok = false;
        row.error = "no worker to score on";
      }
      if (!ok || config_.decode_only) {
        row.status = ok ? PairStatus::kDecoded : PairStatus::kError;
        pair.reset();
        std::lock_guard<std::mutex> lock(mutex_);
        Deliver(i, std::move(row));
        continue;
      }
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return queue_.size() < capacity_; });
      queue_.push_back({std::move(pair), std::move(row)});
      changed_.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    --decoders_left_;
    changed_.notify_all();
  }

  void Score(std::size_t worker) {
    ScorerCache cache(config_.workers[worker]);
    for (;;) {
      Item item;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return !queue_.empty() || decoders_left_ == 0; });
        if (queue_.empty()) break;
        item = std::move(queue_.front());
        queue_.pop_front();
        changed_.notify_all();
      }
      PairRow& row = item.row;
      row.worker = static_cast<int>(worker);
      try {
        Scorer* scorer = nullptr;
        Result result;
        Status s = cache.Get(row.width, row.height, &scorer);
        if (s.ok()) s = scorer->Compute(item.pair->reference.view(), item.pair->distorted.view(), &result);
        if (s.ok()) {
          row.status = PairStatus::kOk;
          row.score = result.score;
        } else {
          row.error = s.message();
        }
      } catch (const std::exception& e) {
        row.error = std::string("cannot score: ") + e.what();
      }
      const std::size_t index = item.pair->index;
      item.pair.reset();  // free the pixels before waiting for the lock
      std::lock_guard<std::mutex> lock(mutex_);
      ++rows_per_worker_[worker];
      Deliver(index, std::move(row));
    }
  }

  // Under mutex_: emits every row that is next in list order.
  void Deliver(std::size_t index, PairRow row) {
    pending_.emplace(index, std::move(row));
    while (!pending_.empty() && pending_.begin()->first == next_emit_) {
      const PairRow& r = pending_.begin()->second;
      ++summary_.pairs;
      if (r.status == PairStatus::kOk) ++summary_.scored;
      else if (r.status == PairStatus::kDecoded) ++summary_.decoded;
      else ++summary_.failed;
      on_row_(r);
      pending_.erase(pending_.begin());
      ++next_emit_;
    }
    changed_.notify_all();
  }

  struct Item {
    std::unique_ptr<DecodedPair> pair;
    PairRow row;
  };

  const PairsConfig& config_;
  const std::function<void(const PairRow&)>& on_row_;
  std::size_t decode_threads_ = 1;
  std::size_t capacity_ = 1;
  std::size_t window_ = 1;

  LiveCounter live_;

  std::mutex mutex_;  // guards everything below
  std::condition_variable changed_;
  std::deque<Item> queue_;
  std::size_t next_take_ = 0;
  std::size_t next_emit_ = 0;
  std::size_t decoders_left_ = 0;
  std::map<std::size_t, PairRow> pending_;
  PairsSummary summary_;
  std::vector<std::size_t> rows_per_worker_;
};

int Fail(const std::string& line) {
  std::fprintf(stderr, "ssim2: %s\n", line.c_str());
  return 1;
}

bool ReadAll(std::FILE* f, std::string* text) {
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text->append(buf, n);
  return !std::ferror(f);
}

// Counts the devices a CUDA scorer can be created on, from device 0 up to
// the first that fails; `why` gets that failure when none works.
int CountCudaDevices(std::string* why) {
  constexpr int kMaxDevices = 64;
  int count = 0;
  for (; count < kMaxDevices; ++count) {
    ScorerOptions so;
    so.backend = Backend::kCuda;
    so.cuda_device = count;
    std::unique_ptr<Scorer> probe;
    const Status s = Scorer::Create(8, 8, so, &probe);
    if (!s.ok()) {
      if (count == 0) *why = s.message();
      break;
    }
  }
  return count;
}

// One line on stderr, rewritten in place, only on a terminal.
class Progress {
 public:
  Progress(bool enabled, std::size_t total) : enabled_(enabled), total_(total) {}
  void Update(const PairsSummary& s) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (shown_ && now - last_ < std::chrono::milliseconds(200) && s.pairs < total_) return;
    last_ = now;
    const double t = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\r\033[Kssim2: %zu/%zu pairs, %zu failed, %.1f pairs/s", s.pairs, total_,
                 s.failed, t > 0 ? s.pairs / t : 0.0);
    std::fflush(stderr);
    shown_ = true;
  }
  void Clear() {
    if (!shown_) return;
    std::fputs("\r\033[K", stderr);
    shown_ = false;
  }

 private:
  bool enabled_;
  std::size_t total_;
  bool shown_ = false;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_;
};

struct Output {
  std::FILE* file = nullptr;
  bool owned = false;
  std::string name;
  std::unique_ptr<PairRowWriter> writer;
};

}  // namespace

PairsSummary RunPairs(const PairsConfig& config, const std::function<void(const PairRow&)>& on_row,
                      std::vector<std::size_t>* rows_per_worker) {
  Batch batch(config, on_row);
  const PairsSummary summary = batch.Run();
  if (rows_per_worker) *rows_per_worker = batch.rows_per_worker();
  return summary;
}

int RunPairsMode(const Options& o) {
  // The rows are CSV or JSON (pairs_rows.cpp); the video logs have no
  // counterpart here.
  if (!o.vmaf_json_path.empty() || !o.plot_path.empty())
    return Fail("vmaf-json and --plot output are for videos; with --pairs use --csv or --json");
  const bool from_stdin = o.pairs_path == "-";
  const std::string list_name = from_stdin ? "stdin" : o.pairs_path;
  std::string text;
  if (from_stdin) {
    if (!ReadAll(stdin, &text)) return Fail("cannot read the pairs list from standard input");
  } else {
    std::FILE* f = std::fopen(o.pairs_path.c_str(), "rb");
    if (f == nullptr) {
      return Fail("cannot open pairs list " + o.pairs_path + ": " + std::strerror(errno));
    }
    const bool ok = ReadAll(f, &text);
    std::fclose(f);
    if (!ok) return Fail("cannot read pairs list " + o.pairs_path);
  }

  PairsConfig config;
  config.entries = ParsePairsList(text);
  if (!o.shard.empty()) {
    Shard shard;
    std::string error;
    if (!ParseShard(o.shard, &shard, &error)) return Fail(error);
    config.entries = SelectShard(config.entries, shard);
  }
  config.list_dir = from_stdin ? "" : ListDirectory(o.pairs_path);
  config.decode_threads = static_cast<int>(std::min<std::uint64_t>(o.jobs, 1024));
  config.decode_only = o.decode_only;

  // Two engines per GPU: while one waits for its upload of pageable host
  // pixels, the other computes (ssim2-bench's host column with --engines 2
  // measures the gain). The CPU scorer uses every core by itself: one worker.
  constexpr int kEnginesPerGpu = 2;
  if (o.all_devices) {
    if (o.backend == Backend::kCpu) return Fail("--device all needs the CUDA backend");
    std::string why;
    const int devices = CountCudaDevices(&why);
    if (devices == 0) return Fail("--device all: " + why);
    for (int e = 0; e < kEnginesPerGpu; ++e) {
      for (int d = 0; d < devices; ++d) config.workers.push_back({Backend::kCuda, d, 0});
    }
  } else {
    const bool gpu = o.backend == Backend::kCuda || (o.backend == Backend::kAuto && CudaAvailable());
    for (int e = 0; e < (gpu ? kEnginesPerGpu : 1); ++e) {
      config.workers.push_back({o.backend, o.cuda_device, o.cpu_threads});
    }
    if (o.backend == Backend::kCuda && !o.decode_only) {
      // Fail once, up front, rather than on every row.
      ScorerOptions so;
      so.backend = Backend::kCuda;
      so.cuda_device = o.cuda_device;
      std::unique_ptr<Scorer> probe;
      if (Status s = Scorer::Create(8, 8, so, &probe); !s.ok()) return Fail(s.message());
    }
  }

  // Rows go to the named files ("--csv -": stdout); to stdout as JSON with
  // --json, else as CSV unless a file was named.
  std::vector<Output> outputs;
  auto add_file = [&](const std::string& path, RowFormat format) {
    Output out;
    out.file = std::fopen(path.c_str(), "wb");
    if (out.file == nullptr) return false;
    out.owned = true;
    out.name = path;
    out.writer = std::make_unique<PairRowWriter>(format, out.file);
    outputs.push_back(std::move(out));
    return true;
  };
  auto close_all = [&]() {
    bool ok = true;
    for (Output& out : outputs) {
      if (out.owned) ok = std::fclose(out.file) == 0 && ok;
    }
    outputs.clear();
    return ok;
  };
  for (const auto& [path, format] : {std::make_pair(o.csv_path, RowFormat::kCsv),
                                     std::make_pair(o.json_path, RowFormat::kJson)}) {
    if (path.empty() || (path == "-" && format == RowFormat::kCsv)) continue;
    if (!add_file(path, format)) {
      const std::string reason = std::strerror(errno);
      close_all();
      return Fail("cannot write " + path + ": " + reason);
    }
  }
  const bool csv_to_stdout = o.csv_path == "-";
  if (o.json && csv_to_stdout) {
    close_all();
    return Fail("--json and --csv - would both write to standard output");
  }
  if (o.json || csv_to_stdout || outputs.empty()) {
    Output out;
    out.file = stdout;
    out.name = "standard output";
    out.writer = std::make_unique<PairRowWriter>(o.json ? RowFormat::kJson : RowFormat::kCsv, stdout);
    outputs.push_back(std::move(out));
  }

  Progress progress(!o.quiet && isatty(STDERR_FILENO), config.entries.size());
  for (Output& out : outputs) out.writer->Begin();
  PairsSummary running;
  const PairsSummary summary = RunPairs(config, [&](const PairRow& row) {
    for (Output& out : outputs) out.writer->Write(row);
    if (row.status == PairStatus::kError) {
      progress.Clear();
      std::fprintf(stderr, "ssim2: %s:%zu: %s\n", list_name.c_str(), row.entry.line,
                   row.error.c_str());
      ++running.failed;
    }
    ++running.pairs;
    progress.Update(running);
  });
  progress.Clear();
  for (Output& out : outputs) out.writer->End(summary);
  bool written = true;
  std::string bad;
  for (Output& out : outputs) {
    if (std::fflush(out.file) != 0 || std::ferror(out.file)) {
      written = false;
      bad = out.name;
    }
  }
  if (!close_all() && written) {
    written = false;
    bad = "an output file";
  }
  if (!written) return Fail("cannot write " + bad);
  if (!o.quiet) {
    const double rate = summary.seconds > 0 ? summary.pairs / summary.seconds : 0.0;
    std::fprintf(stderr, "ssim2: %zu pairs in %.2f s (%.1f pairs/s): %zu %s, %zu failed\n",
                 summary.pairs, summary.seconds, rate,
                 o.decode_only ? summary.decoded : summary.scored,
                 o.decode_only ? "decoded" : "scored", summary.failed);
  }
  return summary.failed == 0 ? 0 : 1;
}

}  // namespace cli
}  // namespace ssim2
