#include "pairs_rows.h"

#include <charconv>
#include <string>

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

// RFC 4180: quoted when the field holds a separator, a quote, a line break or
// edge spaces (which the list parser would otherwise trim on a round trip).
std::string CsvField(const std::string& text) {
  bool quote = !text.empty() && (text.front() == ' ' || text.back() == ' ');
  for (const char c : text) quote = quote || c == ',' || c == '"' || c == '\n' || c == '\r';
  if (!quote) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string JsonString(const std::string& text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// The score as the single-pair command prints it: 8 decimals, '.' always.
std::string ScoreText(double score) {
  // to_chars with a precision is printf("%.8f") in the C locale; a score that
  // is not finite (never expected) spells like printf's too.
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, score, std::chars_format::fixed, 8);
  if (r.ec != std::errc()) return "nan";
  return std::string(buf, r.ptr);
}

std::string JsonScore(const PairRow& row) {
  return row.status == PairStatus::kOk ? ScoreText(row.score) : "null";
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
           (row.status == PairStatus::kOk ? ScoreText(row.score) : "") + "," +
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
  std::fputs(text.c_str(), out_);
}

void PairRowWriter::End(const PairsSummary& summary) {
  if (format_ == RowFormat::kCsv) return;
  std::fprintf(out_,
               "%s  ],\n  \"summary\": {\"pairs\": %zu, \"scored\": %zu, \"decoded\": %zu, "
               "\"failed\": %zu}\n}\n",
               first_row_ ? "" : "\n", summary.pairs, summary.scored, summary.decoded,
               summary.failed);
}

}  // namespace cli
}  // namespace ssim2
