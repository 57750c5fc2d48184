// `ssim2 --pairs LIST`: many image pairs in one process (docs/BATCH.md).
//
// A pool of decoder threads reads the pairs ahead of the scorers and hands
// them over through a bounded queue, so at most
//   decode_threads + queue_capacity + workers
// decoded pairs exist at once, whatever the list length. Each worker (two per
// GPU in use, or one for the CPU scorer, which has threads of its own) takes
// the next decoded pair from the shared queue, so a faster device simply
// takes more, and keeps one scorer per image size. Rows come out in list
// order. The list itself is read whole before the first pair.
//
// A pair whose files are still being read after the watchdog's limit (a FIFO
// with no writer, a stalled mount) gets an error row and the batch goes on;
// its thread, which cannot be stopped in open() or read(), is left behind.
// After kMaxBlockedReads such pairs the rest of the list is skipped. A stop
// signal ends the run with the rows finished so far.
#pragma once

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli_options.h"
#include "pairs_list.h"
#include "pairs_rows.h"
#include "ssim2/ssim2.h"

namespace ssim2 {
namespace cli {

// Where one worker scores: the scorer options of its scorers.
struct PairsWorker {
  Backend backend = Backend::kAuto;
  int cuda_device = -1;
  int cpu_threads = 0;  // CPU backend: 0 = all hardware threads
  std::uint64_t memory_limit = 0;  // CUDA: ScorerOptions::memory_limit
};

struct PairsConfig {
  std::vector<PairEntry> entries;  // already the selected shard
  std::string list_dir;            // relative paths are resolved against it
  std::vector<PairsWorker> workers;
  int decode_threads = 0;          // 0: all hardware threads
  std::size_t queue_capacity = 0;  // decoded pairs waiting; 0: 2 per worker + 2
  bool decode_only = false;        // decode every pair, score none
  // Seconds a pair's files may take to be read and decoded; 0: the
  // watchdog's limit (run_guard.h).
  double read_timeout_s = 0.0;
  // Polled while the batch runs: when it becomes non-zero (a signal's
  // number), the batch stops with the rows finished so far. nullptr: never.
  const volatile std::sig_atomic_t* stop_signal = nullptr;
};

// Runs the batch. `on_row` is called once per entry, in list order, never
// from two threads at once and never after RunPairs returns; a stopped run
// (stop_signal) also hands over the rows finished out of order, in list
// order, and none for the pairs in flight. Returns the counts and the wall
// time. With summary.threads_left, threads that are blocked or finishing a
// pair still run (they own what they use); a process should then end with
// _exit() rather than run its static destructors under them.
PairsSummary RunPairs(PairsConfig config, std::function<void(const PairRow&)> on_row,
                      std::vector<std::size_t>* rows_per_worker = nullptr);

// The tool's --pairs command; returns the process exit code (0: every pair
// scored, 1: any failed line or a fatal error).
int RunPairsMode(const Options& options);

}  // namespace cli
}  // namespace ssim2
