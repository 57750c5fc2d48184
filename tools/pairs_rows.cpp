#include "pairs_rows.h"

#include <string>

#include "ssim2/score_log.h"
#include "text_format.h"

namespace ssim2 {
namespace cli {
namespace {

const char* StatusName(PairStatus status) {
  switch (status) {
    case PairStatus::kOk: return "ok";
    case PairStatus::kDecoded: return "decoded";
    case PairStatus::kError: break;
  }
  return "error";
}

std::string JsonScore(const PairRow& row) {
  return row.status == PairStatus::kOk ? FormatScore(row.score) : "null";
}

}  // namespace


void PairRowWriter::Begin() {
  if (format_ == RowFormat::kCsv) {
    std::fputs("line,reference,distorted,width,height,score,status,error\n", out_);
  } else {
    std::fputs("{\n  \"metric\": \"SSIMULACRA 2.1\",\n  \"pairs\": [", out_);
  }
}

void PairRowWriter::Write(const PairRow& row) {
  const std::string w = row.width > 0 ? std::to_string(row.width) : "";
  const std::string h = row.height > 0 ? std::to_string(row.height) : "";
  std::string text;
  if (format_ == RowFormat::kCsv) {
    text = std::to_string(row.entry.line) + "," + CsvField(row.entry.reference) + "," +
           CsvField(row.entry.distorted) + "," + w + "," + h + "," +
           (row.status == PairStatus::kOk ? FormatScore(row.score) : "") + "," +
           StatusName(row.status) + "," + CsvField(row.error) + "\n";
  } else {
    text = std::string(first_row_ ? "\n" : ",\n") + "    {\"line\": " +
           std::to_string(row.entry.line) + ", \"reference\": " +
           JsonString(row.entry.reference) + ", \"distorted\": " +
           JsonString(row.entry.distorted) + ", \"width\": " + (w.empty() ? "null" : w) +
           ", \"height\": " + (h.empty() ? "null" : h) + ", \"score\": " + JsonScore(row) +
           ", \"status\": \"" + StatusName(row.status) + "\"" +
           (row.status == PairStatus::kError ? ", \"error\": " + JsonString(row.error) : "") +
           "}";
  }
  first_row_ = false;
  std::fwrite(text.data(), 1, text.size(), out_);
}

void PairRowWriter::End(const PairsSummary& summary) {
  if (format_ == RowFormat::kCsv) return;
  std::fprintf(out_,
               "%s  ],\n  \"summary\": {\"pairs\": %zu, \"scored\": %zu, \"decoded\": %zu, "
               "\"failed\": %zu%s}\n}\n",
               first_row_ ? "" : "\n", summary.pairs, summary.scored, summary.decoded,
               summary.failed, summary.stop_signal != 0 ? ", \"interrupted\": true" : "");
}

}  // namespace cli
}  // namespace ssim2
