// Lists of image pairs for `ssim2 --pairs`: parsing the list text and
// selecting one shard of it. No I/O of images here, so tests can drive it.
//
// The format (docs/BATCH.md is the user-facing description):
//   - one pair per line: REFERENCE,DISTORTED; further comma-separated fields
//     are ignored (so a scores table such as reference,distorted,score works);
//   - fields may be double-quoted as in RFC 4180 (a comma, quote or line end
//     in a file name; "" is a quote inside quotes); spaces around unquoted
//     fields are trimmed; lines end in LF, CRLF or a bare CR; a UTF-8 byte
//     order mark at the start is skipped;
//   - blank lines and lines whose first non-space character is '#' are skipped;
//   - the first entry is a header, and skipped, when its two fields are
//     `reference` and `distorted` (any case);
//   - relative paths are relative to the list file's folder (standard input:
//     the current folder).
// A line that does not parse (one field, empty field, open quote, a NUL byte)
// is still an entry: it becomes a failed row, so that it is reported in
// exactly one shard; the list goes on at the next line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ssim2 {
namespace cli {

struct PairEntry {
  std::size_t line = 0;       // 1-based line number in the list
  std::string reference;      // as written in the list
  std::string distorted;
  std::string error;          // non-empty: the line is malformed
};

// Parses the whole list text. Entries are in list order.
std::vector<PairEntry> ParsePairsList(const std::string& text);

// Resolves `path` as written in a list whose folder is `list_dir` ("" for the
// current folder): absolute paths stay, relative ones get the folder prefix.
std::string ResolveListPath(const std::string& list_dir, const std::string& path);

// The folder part of a list file name ("" when it has none, "/" for the root).
std::string ListDirectory(const std::string& list_path);

// --shard I/N: entry k (0-based, counted over entries only, so comments and
// blank lines do not shift it) belongs to shard k mod N.
struct Shard {
  std::uint64_t index = 0;  // I, 0 <= I < N
  std::uint64_t count = 1;  // N >= 1
};

// Parses "I/N". On failure returns false and sets `error` to one line.
bool ParseShard(const std::string& text, Shard* shard, std::string* error);

// The entries of `shard`, in list order.
std::vector<PairEntry> SelectShard(const std::vector<PairEntry>& entries, const Shard& shard);

}  // namespace cli
}  // namespace ssim2
