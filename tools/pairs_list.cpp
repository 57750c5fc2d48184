#include "pairs_list.h"

#include <cerrno>
#include <cstdlib>

namespace ssim2 {
namespace cli {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

std::string Trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && IsBlank(s[b])) ++b;
  while (e > b && IsBlank(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::string Lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// Where a line end starts at `i`: its length ("\r\n", "\n" or a bare "\r"),
// 0 when there is none.
std::size_t LineEndAt(const std::string& text, std::size_t i) {
  if (i >= text.size()) return 0;
  if (text[i] == '\n') return 1;
  if (text[i] != '\r') return 0;
  return i + 1 < text.size() && text[i + 1] == '\n' ? 2 : 1;
}

// The position after the line end that follows `i` (or the end of the text).
std::size_t NextLine(const std::string& text, std::size_t i) {
  while (i < text.size() && LineEndAt(text, i) == 0) ++i;
  return i + LineEndAt(text, i);
}

// Reads one CSV record (RFC 4180: a quoted field may hold commas, "" and
// line ends) from `*pos`, which it moves past the record's line end, and
// counts the line ends it crosses in `*lines`. Returns an error text, empty
// when the record parsed.
std::string ReadRecord(const std::string& text, std::size_t* pos, std::size_t* lines,
                       std::vector<std::string>* fields) {
  fields->clear();
  std::size_t i = *pos;
  const std::size_t n = text.size();
  std::string error;
  for (;;) {
    while (i < n && IsBlank(text[i])) ++i;
    std::string field;
    if (i < n && text[i] == '"') {
      ++i;
      bool closed = false;
      while (i < n) {
        if (text[i] == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        if (text[i] == '\n' || (text[i] == '\r' && LineEndAt(text, i) == 1)) ++*lines;
        field += text[i++];
      }
      while (i < n && IsBlank(text[i])) ++i;
      if (!closed || (i < n && text[i] != ',' && LineEndAt(text, i) == 0)) {
        *pos = i;
        return "malformed line: unbalanced double quotes";
      }
    } else {
      const std::size_t start = i;
      while (i < n && text[i] != ',' && LineEndAt(text, i) == 0) ++i;
      field = Trim(text.substr(start, i - start));
    }
    // A NUL cannot be part of a file name: the list is not text.
    if (field.find('\0') != std::string::npos) error = "malformed line: NUL byte (not a text list?)";
    fields->push_back(std::move(field));
    if (i < n && text[i] == ',') {
      ++i;
      continue;
    }
    const std::size_t end = LineEndAt(text, i);
    if (end > 0) ++*lines;
    *pos = i + end;
    return error;
  }
}

bool ParseCount(const std::string& text, std::uint64_t* value) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *value = v;
  return true;
}

}  // namespace

std::vector<PairEntry> ParsePairsList(const std::string& text) {
  std::vector<PairEntry> entries;
  std::vector<std::string> fields;
  // A UTF-8 byte order mark (spreadsheet exports) is not part of the header.
  static const std::string kBom = "\xEF\xBB\xBF";
  std::size_t pos = text.compare(0, kBom.size(), kBom) == 0 ? kBom.size() : 0;
  std::size_t line_number = 1;  // of the line at `pos`
  bool first_entry = true;
  while (pos < text.size()) {
    std::size_t first = pos;
    while (first < text.size() && IsBlank(text[first])) ++first;
    if (LineEndAt(text, first) > 0 || first == text.size() || text[first] == '#') {
      pos = NextLine(text, pos);  // a blank line or a comment
      ++line_number;
      continue;
    }
    PairEntry entry;
    entry.line = line_number;
    const std::size_t record_start = pos;
    std::size_t lines = 0;
    entry.error = ReadRecord(text, &pos, &lines, &fields);
    if (!entry.error.empty()) {
      // Go on at the next line, so that a stray quote cannot swallow the
      // rest of the list.
      pos = NextLine(text, record_start);
      lines = 1;
    } else if (fields.size() < 2) {
      entry.error = "malformed line: expected REFERENCE,DISTORTED";
    } else if (fields[0].empty() || fields[1].empty()) {
      entry.error = "malformed line: empty file name";
    } else {
      entry.reference = fields[0];
      entry.distorted = fields[1];
    }
    line_number += lines;
    if (first_entry && entry.error.empty() && Lower(entry.reference) == "reference" &&
        Lower(entry.distorted) == "distorted") {
      first_entry = false;
      continue;  // the header
    }
    first_entry = false;
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string ResolveListPath(const std::string& list_dir, const std::string& path) {
  if (list_dir.empty() || path.empty() || path[0] == '/') return path;
  if (list_dir.back() == '/') return list_dir + path;
  return list_dir + "/" + path;
}

std::string ListDirectory(const std::string& list_path) {
  const std::size_t slash = list_path.rfind('/');
  if (slash == std::string::npos) return "";
  if (slash == 0) return "/";
  return list_path.substr(0, slash);
}

bool ParseShard(const std::string& text, Shard* shard, std::string* error) {
  const std::size_t slash = text.find('/');
  std::uint64_t index = 0, count = 0;
  if (slash == std::string::npos || !ParseCount(text.substr(0, slash), &index) ||
      !ParseCount(text.substr(slash + 1), &count) || count == 0) {
    *error = "--shard: expected I/N with 0 <= I < N (e.g. 0/4), got '" + text + "'";
    return false;
  }
  if (index >= count) {
    *error = "--shard: index " + std::to_string(index) + " is not below the count " +
             std::to_string(count) + " (shards are numbered from 0)";
    return false;
  }
  shard->index = index;
  shard->count = count;
  return true;
}

std::vector<PairEntry> SelectShard(const std::vector<PairEntry>& entries, const Shard& shard) {
  std::vector<PairEntry> selected;
  // Stepping by count could overflow for a huge N; stop before that.
  for (std::uint64_t k = shard.index; k < entries.size(); k += shard.count) {
    selected.push_back(entries[static_cast<std::size_t>(k)]);
    if (entries.size() - k <= shard.count) break;
  }
  return selected;
}

}  // namespace cli
}  // namespace ssim2
