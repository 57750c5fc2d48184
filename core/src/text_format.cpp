// Text helpers of the writers (see text_format.h).
#include "text_format.h"

#include <charconv>
#include <cmath>

namespace ssim2 {
namespace {

constexpr const char* kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD, UTF-8

// Length of the valid UTF-8 sequence at the start of `s`, 0 if invalid
// (overlong forms, surrogates and values above U+10FFFF are invalid).
std::size_t Utf8SequenceLength(std::string_view s) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto cont = [&](std::size_t i) { return i < s.size() && (b(i) & 0xC0) == 0x80; };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace

std::string FormatFixed(double value, int decimals) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // Finite doubles print in at most 309 integer digits plus the decimals.
  char buf[400];
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::fixed, decimals);
  if (ec != std::errc()) return "nan";
  return std::string(buf, end);
}

std::string FormatShortest(double value) {
  if (!std::isfinite(value)) return FormatFixed(value, 0);
  char buf[32];  // the longest shortest form of a double is 24 characters
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  if (ec != std::errc()) return "nan";
  return std::string(buf, end);
}

std::string FormatScore(double score) { return FormatFixed(score, 8); }

std::string ToValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t n = Utf8SequenceLength(text.substr(i));
    if (n == 0) {
      out += kReplacementCharacter;
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string JsonString(std::string_view text) { return "\"" + JsonEscape(text) + "\""; }

std::string CsvField(std::string_view text) {
  const bool edge_space = !text.empty() && (text.front() == ' ' || text.back() == ' ');
  if (!edge_space && text.find_first_of(",\"\r\n") == std::string_view::npos)
    return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string JsonEscape(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char ch : ToValidUtf8(text)) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {  // other control characters
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out += ch;  // bytes of valid UTF-8 sequences pass as they are
    }
  }
  return out;
}

}  // namespace ssim2
