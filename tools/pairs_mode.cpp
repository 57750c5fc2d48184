#include "pairs_mode.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
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
#include "run_guard.h"
#include "stdout_status.h"

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
    so.memory_limit = worker_.memory_limit;
    // A list's rows are the single-pair command's, bit for bit (PNG decoding
    // bounds a list's rate, not these sums: docs/PERFORMANCE.md).
    so.sequential_sums = true;
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
// `opening` hears of each file before it is read (the watchdog's message
// names the one that blocks).
bool DecodeEntry(const PairEntry& entry, const std::string& list_dir, DecodedPair* pair,
                 PairRow* row, const std::function<void(const char*, const std::string&)>& opening) {
  row->entry = entry;
  if (!entry.error.empty()) {
    row->error = entry.error;
    return false;
  }
  const std::string reference = ResolveListPath(list_dir, entry.reference);
  opening("original", reference);
  if (!LoadOne("original", reference, &pair->reference, &row->error)) return false;
  if (pair->reference.width() < 8 || pair->reference.height() < 8) {
    row->error = "Minimum image size is 8x8 pixels";
    return false;
  }
  const std::string distorted = ResolveListPath(list_dir, entry.distorted);
  opening("distorted", distorted);
  if (!LoadOne("distorted", distorted, &pair->distorted, &row->error)) return false;
  if (pair->reference.width() != pair->distorted.width() ||
      pair->reference.height() != pair->distorted.height()) {
    row->error = "Image size mismatch";
    return false;
  }
  row->width = pair->reference.width();
  row->height = pair->reference.height();
  return true;
}

// Pairs given up on whose reader threads may still be blocked; beyond this
// many, the rest of the list is not read (each blocked thread keeps its
// stack and, when the distorted file blocks, a decoded reference).
constexpr std::size_t kMaxBlockedReads = 8;

// How often the run checks for SIGINT/SIGTERM (a signal handler cannot wake
// a condition variable).
constexpr std::chrono::milliseconds kSignalPoll(100);

// The batch is shared by its threads: a decoder thread blocked in open() or
// read() cannot be stopped, so it is left behind (detached) and keeps the
// batch alive until it returns, when it sees that its pair was given up and
// ends. Rows are only handed to `on_row` while Run() runs.
class Batch : public std::enable_shared_from_this<Batch> {
 public:
  Batch(PairsConfig config, std::function<void(const PairRow&)> on_row)
      : config_(std::move(config)), on_row_(std::move(on_row)) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    decode_threads_ = config_.decode_threads > 0 ? static_cast<std::size_t>(config_.decode_threads) : hw;
    capacity_ = config_.queue_capacity > 0 ? config_.queue_capacity : 2 * config_.workers.size() + 2;
    // Rows finished ahead of an unfinished one wait in `pending_`; decoders
    // stay within this many entries of the first unfinished one.
    window_ = 1024 + capacity_ + decode_threads_;
    rows_per_worker_.assign(config_.workers.size(), 0);
    read_limit_ = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
        config_.read_timeout_s > 0 ? config_.read_timeout_s : WatchdogSeconds()));
  }

  PairsSummary Run(std::vector<std::size_t>* rows_per_worker) {
    const auto start = Clock::now();
    const std::size_t n = config_.entries.size();
    std::unique_lock<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < decode_threads_; ++i) StartDecoder();
    if (!config_.decode_only) {
      for (std::size_t w = 0; w < config_.workers.size(); ++w) {
        ++active_threads_;
        std::thread([self = shared_from_this(), w] { self->Score(w); }).detach();
      }
    }
    while (next_emit_ < n || active_threads_ > 0) {
      if (config_.stop_signal != nullptr && *config_.stop_signal != 0) {
        Stop(*config_.stop_signal);
        break;
      }
      const Clock::time_point now = Clock::now();
      GiveUpBlockedReads(now);
      Clock::time_point wake = Clock::time_point::max();
      for (const auto& [index, reading] : reading_) {
        if (!reading.given_up) wake = std::min(wake, reading.since + read_limit_);
      }
      if (config_.stop_signal != nullptr) wake = std::min(wake, now + kSignalPoll);
      if (wake == Clock::time_point::max()) changed_.wait(lock);
      else changed_.wait_until(lock, wake);
    }
    on_row_ = nullptr;  // nothing reaches the caller after Run()
    summary_.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    summary_.peak_decoded = live_.peak();
    summary_.threads_left = active_threads_ + blocked_threads_ > 0;
    if (rows_per_worker) *rows_per_worker = rows_per_worker_;
    return summary_;
  }

 private:
  struct Reading {
    Clock::time_point since;
    const char* which = "original";
    std::string path;
    bool given_up = false;
  };

  // Under mutex_.
  void StartDecoder() {
    ++decoders_left_;
    ++active_threads_;
    std::thread([self = shared_from_this()] { self->Decode(); }).detach();
  }

  void Decode() {
    const std::size_t n = config_.entries.size();
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] {
        return stopping_ || next_take_ >= n || next_take_ < next_emit_ + window_;
      });
      if (stopping_ || next_take_ >= n) break;
      const std::size_t i = next_take_++;
      Reading& reading = reading_[i];
      reading.since = Clock::now();
      reading.path = config_.entries[i].reference;
      changed_.notify_all();  // the watchdog's next deadline
      lock.unlock();

      auto pair = std::make_unique<DecodedPair>(&live_);
      pair->index = i;
      PairRow row;
      bool ok = false;
      try {
        ok = DecodeEntry(config_.entries[i], config_.list_dir, pair.get(), &row,
                         [this, i](const char* which, const std::string& path) {
                           std::lock_guard<std::mutex> guard(mutex_);
                           Reading& r = reading_[i];
                           r.which = which;
                           r.path = path;
                         });
      } catch (const std::exception& e) {  // e.g. bad_alloc for a huge image
        row.error = std::string("cannot decode: ") + e.what();
      }
      if (ok && !config_.decode_only && config_.workers.empty()) {
        ok = false;
        row.error = "no worker to score on";
      }
      if (!ok || config_.decode_only) pair.reset();

      lock.lock();
      const bool given_up = reading_[i].given_up;
      reading_.erase(i);
      if (given_up) {
        // The watchdog wrote this pair's row and started another decoder.
        --blocked_threads_;
        return;
      }
      if (!ok || config_.decode_only) {
        row.status = ok ? PairStatus::kDecoded : PairStatus::kError;
        Deliver(i, std::move(row));
        continue;
      }
      changed_.wait(lock, [&] { return stopping_ || queue_.size() < capacity_; });
      if (stopping_) break;
      queue_.push_back({std::move(pair), std::move(row)});
      changed_.notify_all();
    }
    --decoders_left_;
    --active_threads_;
    changed_.notify_all();
  }

  void Score(std::size_t worker) {
    ScorerCache cache(config_.workers[worker]);
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty() || decoders_left_ == 0; });
      if (stopping_ || queue_.empty()) break;
      Item item = std::move(queue_.front());
      queue_.pop_front();
      changed_.notify_all();
      lock.unlock();
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
      lock.lock();
      ++rows_per_worker_[worker];
      Deliver(index, std::move(row));
    }
    --active_threads_;
    changed_.notify_all();
  }

  // Under mutex_: a pair whose files have been read for longer than the
  // limit gets its error row now; its thread is left behind and another
  // decoder takes its place, up to kMaxBlockedReads.
  void GiveUpBlockedReads(Clock::time_point now) {
    for (auto& [index, reading] : reading_) {
      if (reading.given_up || now - reading.since <= read_limit_) continue;
      reading.given_up = true;
      ++summary_.blocked_reads;
      ++blocked_threads_;
      --decoders_left_;
      --active_threads_;
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", WatchdogLimitSeconds());
      PairRow row;
      row.entry = config_.entries[index];
      row.error = std::string("Could not load ") + reading.which + " image: " + reading.path +
                  " (still blocked after " + seconds +
                  " s, e.g. a pipe with no writer or a stalled mount: given up)";
      Deliver(index, std::move(row));
      if (summary_.blocked_reads < kMaxBlockedReads) {
        StartDecoder();
      } else {
        // The rest of the list is not read: one more stalled mount would
        // only leave one more thread behind.
        for (; next_take_ < config_.entries.size(); ++next_take_) {
          PairRow skipped;
          skipped.entry = config_.entries[next_take_];
          skipped.error = "not read: " + std::to_string(kMaxBlockedReads) +
                          " pairs of this list could not be read (blocked files); the rest is "
                          "skipped";
          Deliver(next_take_, std::move(skipped));
        }
      }
    }
  }

  double WatchdogLimitSeconds() const {
    return std::chrono::duration<double>(read_limit_).count();
  }

  // Under mutex_: SIGINT/SIGTERM. The rows that are finished come out (in
  // list order, with gaps where pairs are still in flight); the threads end
  // at their next step, and nothing more is delivered.
  void Stop(int signal) {
    summary_.stop_signal = signal;
    for (auto& [index, row] : pending_) Emit(row);
    pending_.clear();
    stopping_ = true;
    changed_.notify_all();
  }

  // Under mutex_: counts one row and hands it to the caller.
  void Emit(const PairRow& r) {
    ++summary_.pairs;
    if (r.status == PairStatus::kOk) ++summary_.scored;
    else if (r.status == PairStatus::kDecoded) ++summary_.decoded;
    else ++summary_.failed;
    on_row_(r);
  }

  // Under mutex_: emits every row that is next in list order.
  void Deliver(std::size_t index, PairRow row) {
    if (stopping_) return;
    pending_.emplace(index, std::move(row));
    while (!pending_.empty() && pending_.begin()->first == next_emit_) {
      Emit(pending_.begin()->second);
      pending_.erase(pending_.begin());
      ++next_emit_;
    }
    changed_.notify_all();
  }

  struct Item {
    std::unique_ptr<DecodedPair> pair;
    PairRow row;
  };

  const PairsConfig config_;
  std::function<void(const PairRow&)> on_row_;
  std::size_t decode_threads_ = 1;
  std::size_t capacity_ = 1;
  std::size_t window_ = 1;
  Clock::duration read_limit_{};

  LiveCounter live_;

  std::mutex mutex_;  // guards everything below
  std::condition_variable changed_;
  std::deque<Item> queue_;
  std::size_t next_take_ = 0;
  std::size_t next_emit_ = 0;
  std::size_t decoders_left_ = 0;    // decoders that may still queue a pair
  std::size_t active_threads_ = 0;   // decoders and workers not left behind
  std::size_t blocked_threads_ = 0;  // decoders left behind, not yet returned
  bool stopping_ = false;
  std::map<std::size_t, Reading> reading_;  // entries being read, by index
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
  std::string error;  // the first write error (strerror), empty while none

  // Pushes what was written to the file, so that a run ended by a signal or
  // a crash loses no finished row.
  void Flush() {
    errno = 0;
    if ((std::fflush(file) != 0 || std::ferror(file)) && error.empty())
      error = errno != 0 ? std::strerror(errno) : "write error";
  }
};

}  // namespace

PairsSummary RunPairs(PairsConfig config, std::function<void(const PairRow&)> on_row,
                      std::vector<std::size_t>* rows_per_worker) {
  auto batch = std::make_shared<Batch>(std::move(config), std::move(on_row));
  return batch->Run(rows_per_worker);
}

int RunPairsMode(const Options& o) {
  // The rows are CSV or JSON (pairs_rows.cpp); the video logs have no
  // counterpart here.
  if (!o.vmaf_json_path.empty() || !o.summary_path.empty() || !o.plot_path.empty())
    return Fail("vmaf-json, --summary and --plot output are for videos; with --pairs use --csv "
                "or --json");
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

  // From here on SIGINT and SIGTERM end the batch with the rows finished so
  // far (not before: reading the list may block, and then the signal's
  // default action is the way out).
  StopSignals signals;
  PairsConfig config;
  config.stop_signal = StopSignals::received();
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
      for (int d = 0; d < devices; ++d) {
        config.workers.push_back({Backend::kCuda, d, 0, o.memory_limit});
      }
    }
  } else {
    const bool gpu = o.backend == Backend::kCuda || (o.backend == Backend::kAuto && CudaAvailable());
    for (int e = 0; e < (gpu ? kEnginesPerGpu : 1); ++e) {
      config.workers.push_back({o.backend, o.cuda_device, o.cpu_threads, o.memory_limit});
    }
    if (o.backend == Backend::kCuda && !o.decode_only) {
      // Fail once, up front, rather than on every row.
      ScorerOptions so;
      so.backend = Backend::kCuda;
      so.cuda_device = o.cuda_device;
      so.memory_limit = o.memory_limit;
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
  for (Output& out : outputs) {
    out.writer->Begin();
    out.Flush();
  }
  PairsSummary running;
  std::vector<double> scores;  // for --fail-below
  const PairsSummary summary = RunPairs(std::move(config), [&](const PairRow& row) {
    if (row.status == PairStatus::kOk) scores.push_back(row.score);
    for (Output& out : outputs) {
      out.writer->Write(row);
      out.Flush();
    }
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
  std::string bad;
  for (Output& out : outputs) {
    out.writer->End(summary);
    out.Flush();
    if (!out.error.empty() && bad.empty()) bad = out.name + ": " + out.error;
  }
  if (!close_all() && bad.empty()) bad = "an output file";
  int code = summary.failed == 0 ? 0 : 1;
  if (!bad.empty()) {
    code = Fail("cannot write " + bad);
  } else if (summary.stop_signal != 0) {
    std::fprintf(stderr,
                 "ssim2: interrupted by %s: %zu rows written (%zu of them failed), the pairs in "
                 "flight and the rest of the list have none\n",
                 summary.stop_signal == SIGINT ? "SIGINT" : "SIGTERM", summary.pairs,
                 summary.failed);
    code = SignalExitCode(summary.stop_signal);
  } else if (!o.quiet) {
    const double rate = summary.seconds > 0 ? summary.pairs / summary.seconds : 0.0;
    std::fprintf(stderr, "ssim2: %zu pairs in %.2f s (%.1f pairs/s): %zu %s, %zu failed\n",
                 summary.pairs, summary.seconds, rate,
                 o.decode_only ? summary.decoded : summary.scored,
                 o.decode_only ? "decoded" : "scored", summary.failed);
  }
  if (code == 0 && !o.decode_only) {
    if (auto below = QualityGateFailure(o.fail_below, Summarize(scores), list_name)) {
      Fail(*below);
      code = kExitBelowGate;
    }
  }
  if (summary.threads_left) {
    // A reader blocked in open() or read() (or a pair being scored when a
    // signal came) cannot be joined; the results are out, so the process
    // ends here rather than run its destructors under that thread.
    const int final_code = FinishStdout(code);
    std::fflush(stderr);
    _exit(final_code);
  }
  return code;
}

}  // namespace cli
}  // namespace ssim2
