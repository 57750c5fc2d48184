// Result rows of `ssim2 --pairs` as CSV or JSON (the formats are described
// in docs/BATCH.md). Numbers are written without the C library's locale, so
// a comma-decimal LC_NUMERIC cannot change the files.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include "pairs_list.h"

namespace ssim2 {
namespace cli {

enum class PairStatus { kOk, kError, kDecoded };

struct PairRow {
  PairEntry entry;
  PairStatus status = PairStatus::kError;
  int width = 0;  // 0: unknown (the images were not both decoded)
  int height = 0;
  double score = 0.0;  // valid when status is kOk
  std::string error;   // when status is kError
  int worker = -1;     // index of the worker that scored it (-1: none)
};

struct PairsSummary {
  std::size_t pairs = 0;
  std::size_t scored = 0;   // kOk rows
  std::size_t decoded = 0;  // kDecoded rows (--decode-only)
  std::size_t failed = 0;   // kError rows
  double seconds = 0.0;
  // Most decoded pairs alive at once (the memory bound of pairs_mode.h).
  std::size_t peak_decoded = 0;
  std::size_t blocked_reads = 0;  // pairs given up because their files blocked
  int stop_signal = 0;            // the signal that stopped the run, 0: none
  bool threads_left = false;      // threads still running after the run (see RunPairs)
};

enum class RowFormat { kCsv, kJson };

// Writes rows to a FILE it does not own, in the order given.
class PairRowWriter {
 public:
  PairRowWriter(RowFormat format, std::FILE* out) : format_(format), out_(out) {}
  void Begin();
  void Write(const PairRow& row);
  void End(const PairsSummary& summary);

 private:
  RowFormat format_;
  std::FILE* out_;
  bool first_row_ = true;
};

}  // namespace cli
}  // namespace ssim2
