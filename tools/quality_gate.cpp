#include "quality_gate.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>

#include "text_format.h"

namespace ssim2 {
namespace cli {
namespace {

bool ParseDecimal(const std::string& text, double* value) {
  if (text.empty() || text.find_first_not_of("-0123456789.") != std::string::npos) return false;
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, *value, std::chars_format::fixed);
  return ec == std::errc() && at == end && std::isfinite(*value);
}

// A floor on the spread of the scores means nothing: stddev is no gate.
bool Gateable(const SummaryField& f) { return std::strcmp(f.name, "stddev") != 0; }

}  // namespace

std::string QualityGateStatistics() {
  std::string out;
  for (const SummaryField& f : kSummaryFields) {
    if (Gateable(f)) out += (out.empty() ? "" : ", ") + std::string(f.name);
  }
  return out;
}

bool ParseQualityGate(const std::string& text, QualityGate* gate, std::string* error) {
  const std::size_t colon = text.find(':');
  const std::string name = colon == std::string::npos ? "mean" : text.substr(0, colon);
  const std::string number = colon == std::string::npos ? text : text.substr(colon + 1);
  const SummaryField* field = nullptr;
  for (const SummaryField& f : kSummaryFields) {
    if (Gateable(f) && name == f.name) field = &f;
  }
  if (field == nullptr) {
    *error = "--fail-below: '" + name + "' is not a statistic a gate can use (" +
             QualityGateStatistics() + ")";
    return false;
  }
  // A plain decimal number with '.' whatever the locale (GStreamer sets the
  // user's): no "inf", "nan", exponent, hex or spaces. Scores run from minus
  // infinity to 100.
  double value = 0.0;
  const bool ok = ParseDecimal(number, &value) && value <= 100.0;
  if (!ok) {
    *error = "--fail-below: expected [STAT:]SCORE with SCORE a number up to 100 (e.g. 70 or p5:60), "
             "got '" + text + "'";
    return false;
  }
  gate->field = field;
  gate->threshold = value;
  return true;
}

std::optional<std::string> QualityGateFailure(const QualityGate& gate, const Summary& summary,
                                              const std::string& what) {
  if (gate.field == nullptr) return std::nullopt;
  // The value as printed (8 decimals) decides: a score shown as 71.34748104
  // passes a gate of 71.34748104, and a failure never reads "x < x".
  const std::string shown = FormatScore(summary.*(gate.field->value));
  double printed = 0.0;
  if (ParseDecimal(shown, &printed) && printed >= gate.threshold) return std::nullopt;
  return std::string("below the quality gate: ") + gate.field->name + " " + shown + " < " +
         FormatShortest(gate.threshold) + " (" + what + ")";
}

}  // namespace cli
}  // namespace ssim2
