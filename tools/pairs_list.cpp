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

// Splits one CSV record (RFC 4180 quoting within the line). Returns false on
// an open quote or text between a closing quote and the next comma.
bool SplitFields(const std::string& line, std::vector<std::string>* fields) {
  fields->clear();
  std::size_t i = 0;
  const std::size_t n = line.size();
  while (true) {
    while (i < n && IsBlank(line[i])) ++i;
    std::string field;
    if (i < n && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < n) {
        if (line[i] == '"') {
          if (i + 1 < n && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        field += line[i++];
      }
      if (!closed) return false;
      while (i < n && IsBlank(line[i])) ++i;
      if (i < n && line[i] != ',') return false;
    } else {
      const std::size_t start = i;
      while (i < n && line[i] != ',') ++i;
      field = Trim(line.substr(start, i - start));
    }
    fields->push_back(std::move(field));
    if (i >= n) return true;
    ++i;  // the comma
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
  std::size_t pos = 0;
  std::size_t line_number = 0;
  bool first_entry = true;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string trimmed = Trim(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    PairEntry entry;
    entry.line = line_number;
    if (!SplitFields(line, &fields)) {
      entry.error = "malformed line: unbalanced double quotes";
    } else if (fields.size() < 2) {
      entry.error = "malformed line: expected REFERENCE,DISTORTED";
    } else if (fields[0].empty() || fields[1].empty()) {
      entry.error = "malformed line: empty file name";
    } else {
      entry.reference = fields[0];
      entry.distorted = fields[1];
    }
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
