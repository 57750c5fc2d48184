// --fail-below: an exit status for quality gates in CI jobs. The gate names
// one pooled value of the summary (the mean unless told) and a threshold; a
// run whose value lies below it exits with kExitBelowGate, which is distinct
// from the status of an error (1), so that a job can tell "worse than
// allowed" from "could not measure".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ssim2/stats.h"

namespace ssim2 {
namespace cli {

// The exit status of a run whose score is below the gate.
constexpr int kExitBelowGate = 3;

struct QualityGate {
  const SummaryField* field = nullptr;  // nullptr: no gate
  double threshold = 0.0;
};

// Parses "SCORE" (the mean) or "STAT:SCORE", STAT one of the summary's pooled
// values that a gate can hold a floor on (every kSummaryFields name but
// stddev). On failure returns false with one line in `error`.
bool ParseQualityGate(const std::string& text, QualityGate* gate, std::string* error);

// The statistics a gate accepts, as "mean, min, p1, ...".
std::string QualityGateStatistics();

// The line to print when `summary` fails the gate ("below the quality gate:
// p5 55.12345678 < 60 (WHAT)"), `what` naming what was measured; no value when
// it passes or there is no gate. The value is compared as printed, rounded to
// 8 decimals. A summary of no scores fails (NaN is not at or above anything).
std::optional<std::string> QualityGateFailure(const QualityGate& gate, const Summary& summary,
                                              const std::string& what);

}  // namespace cli
}  // namespace ssim2
