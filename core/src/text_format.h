// Text helpers, shared by everything that writes numbers or JSON strings:
// the score log (score_log.cpp) and the ssim2 tool's own outputs. Not part
// of the installed API: compiled into libssim2 (hidden) and, as the static
// library ssim2_text, into the tool and the tests (core/meson.build).
#pragma once

#include <string>
#include <string_view>

namespace ssim2 {

// `value` with `decimals` digits after a '.', whatever the C locale; "nan",
// "inf" or "-inf" when not finite.
std::string FormatFixed(double value, int decimals);
// The shortest text that reads back as exactly `value` ("nan"/"inf" when not
// finite), whatever the C locale.
std::string FormatShortest(double value);
// The score as the reference tool prints it: 8 decimals.
std::string FormatScore(double score);
// `text` with every byte that is not part of a valid UTF-8 sequence replaced
// by U+FFFD (file names need not be UTF-8; JSON, XML and SVG must be).
std::string ToValidUtf8(std::string_view text);
// `text` as the inside of a JSON string literal: quotes, backslashes and
// control characters escaped; bytes that are not valid UTF-8 replaced by
// U+FFFD, so the output is always valid UTF-8.
std::string JsonEscape(std::string_view text);
// `text` as a JSON string literal: JsonEscape(text) in double quotes.
std::string JsonString(std::string_view text);
// `text` as one CSV field (RFC 4180): quoted, with quotes doubled, when it
// holds a comma, a quote, a line break or a space at either end (which a
// reader that trims fields would lose).
std::string CsvField(std::string_view text);

}  // namespace ssim2
