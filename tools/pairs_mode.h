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
#pragma once

#include <cstddef>
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
};

struct PairsConfig {
  std::vector<PairEntry> entries;  // already the selected shard
  std::string list_dir;            // relative paths are resolved against it
  std::vector<PairsWorker> workers;
  int decode_threads = 0;          // 0: all hardware threads
  std::size_t queue_capacity = 0;  // decoded pairs waiting; 0: 2 per worker + 2
  bool decode_only = false;        // decode every pair, score none
};

// Runs the batch. `on_row` is called once per entry, in list order, never
// from two threads at once. Returns the counts and the wall time.
PairsSummary RunPairs(const PairsConfig& config, const std::function<void(const PairRow&)>& on_row,
                      std::vector<std::size_t>* rows_per_worker = nullptr);

// The tool's --pairs command; returns the process exit code (0: every pair
// scored, 1: any failed line or a fatal error).
int RunPairsMode(const Options& options);

}  // namespace cli
}  // namespace ssim2
