// The sequential float64 sum s = fl(s + x[i]), i = 0, 1, ..., from s = +0,
// of terms x[i] >= 0, in steps that can be formed in parallel and applied
// bit for bit. The CPU path sums its error maps that way, pixel after pixel
// as the reference does; the CUDA engine reproduces those sums with these
// functions when asked for sequential sums (EngineOptions::sequential_sums),
// and its walk (kernels_device.cuh, SeqWalkKernel) is built on them. Host
// and device code alike, so both run the same integer arithmetic.
//
// Why it works: the doubles with one exponent (a "grid") are the multiples
// of one spacing u. While s stays in its grid, fl(s + x) = s + (x rounded to
// a multiple of u), and that rounding is integer arithmetic on x / u. Only
// an exact tie (x / u ending in .5) depends on s: it goes to the even
// multiple, so to the parity of s / u. A term's effect in a grid is
// therefore a pair of integer moves (from an even and from an odd position),
// and such pairs compose associatively: a run of terms has one pair per
// grid, whatever its length, formed in any tree. The terms are >= 0, so s
// only grows: a run whose composed move, applied, ends inside the grid it
// started in never left it, and the result is exact. A run that would
// leave its grid is not applied (the caller goes down to smaller runs and in
// the end adds a few terms with true additions), so a guess of the grid
// costs time when wrong, never exactness.
//
// Grids: a grid is a double's biased exponent field, except that 0 and the
// subnormals share grid 1 with the smallest normal binade (one spacing,
// 2^-1074, from 0 to 2^-1021). A double in grid g is P * 2^(g - 1075) with an
// integer position P < 2^53 (P >= 2^52 above grid 1).
#pragma once

#include <cstdint>

#include "arith.h"

namespace ssim2 {
namespace seqsum {

constexpr std::uint64_t kLimit = std::uint64_t(1) << 53;  // positions are below
constexpr std::uint64_t kImplicitBit = std::uint64_t(1) << 52;
constexpr std::uint64_t kMantissaMask = kImplicitBit - 1;
constexpr int kNoGrid = -1;  // negative, infinite or NaN: no grid

// The grid of s >= 0; kNoGrid for negative values, infinities and NaN (only
// true additions follow those).
SSIM2_HD int GridOf(double s) {
  const std::uint64_t bits = arith::DoubleBits(s);
  if (bits >> 63) return bits == (std::uint64_t(1) << 63) ? 1 : kNoGrid;  // -0 is 0
  const int e = static_cast<int>(bits >> 52);
  if (e == 2047) return kNoGrid;
  return e < 1 ? 1 : e;
}

// Position of s in its grid (GridOf(s) != kNoGrid).
SSIM2_HD std::uint64_t PositionOf(double s) {
  const std::uint64_t bits = arith::DoubleBits(s) & ~(std::uint64_t(1) << 63);
  const std::uint64_t m = bits & kMantissaMask;
  return (bits >> 52) == 0 ? m : (m | kImplicitBit);
}

// The double at position p < kLimit of grid g.
SSIM2_HD double AtPosition(int g, std::uint64_t p) {
  if (p < kImplicitBit) return arith::BitsDouble(p);  // grid 1 only: 0 or subnormal
  return arith::BitsDouble((static_cast<std::uint64_t>(g) << 52) | (p & kMantissaMask));
}

// The move of a term (or a run of terms) in one grid: from position P the
// position goes to P + move[P & 1], as long as that stays below kLimit;
// kLimit means "leaves the grid, or cannot be expressed here" (saturated).
struct Step {
  std::uint64_t move[2];
};

// The move from a position of parity `parity & 1` (a select, not an index:
// a run-time index would put the step in local memory on the device).
SSIM2_HD std::uint64_t MoveFrom(const Step& s, std::uint64_t parity) {
  return (parity & 1) ? s.move[1] : s.move[0];
}

SSIM2_HD Step NoStep() { return Step{{0, 0}}; }
SSIM2_HD Step Saturated() { return Step{{kLimit, kLimit}}; }

// The step of x in grid g: x / u rounded to an integer, a tie to whichever of
// P + k and P + k + 1 is even.
SSIM2_HD Step TermStep(double x, int g) {
  const std::uint64_t bits = arith::DoubleBits(x);
  if ((bits << 1) == 0) return NoStep();  // +0 and -0 leave s unchanged
  const int e = static_cast<int>(bits >> 52);  // includes the sign: negative x is >= 2048
  if (e >= 2047 || g < 1) return Saturated();  // negative, inf, NaN, no grid: true addition
  const std::uint64_t m = e == 0 ? (bits & kMantissaMask) : ((bits & kMantissaMask) | kImplicitBit);
  const int shift = (e == 0 ? 1 : e) - g;  // x / u = m * 2^shift
  if (shift > 0) return Saturated();       // x >= 2^53 u: leaves the grid
  if (shift == 0) return Step{{m, m}};
  const int r = -shift;
  if (r >= 54) return NoStep();  // x < u / 2: m < 2^53 <= half
  const std::uint64_t k = m >> r;
  const std::uint64_t rem = m & ((std::uint64_t(1) << r) - 1);
  const std::uint64_t half = std::uint64_t(1) << (r - 1);
  if (rem < half) return Step{{k, k}};
  if (rem > half) return Step{{k + 1, k + 1}};
  return Step{{k + (k & 1), k + ((k + 1) & 1)}};
}

// Bulk steps in float64. Most terms of a long sum are far below the sum and
// never tie, so a chunk's step in grid g is one integer, the sum of its
// terms' units x / u rounded to the nearest: formed in float64 (integers
// below 2^53 add exactly, in any order) at a few float64 operations a term.
// Anything the one integer cannot say (a tie, whose rounding depends on the
// parity of the sum; a term that is negative, NaN or too large) makes the
// units +inf, and the walk goes down to TermStep for those terms.
constexpr double kUnitsLimit = 0x1p53;  // units >= this: the run leaves its grid

// 2^(1075 - g): x times this is x / u in grid g. 0 where that scale is not a
// normal double (grids below 52, sums below 2^-971: TermStep's business).
SSIM2_HD double UnitScale(int g) {
  const int e = 1075 - g;  // unbiased exponent of the scale
  if (e < -1022 || e > 1023) return 0.0;
  return arith::BitsDouble(static_cast<std::uint64_t>(e + 1023) << 52);
}

// x / u of grid g (scale = UnitScale(g)) rounded to an integer, exactly; +inf
// where a tie, a negative, NaN or infinite term, a term of 2^53 u or more, or
// a grid without a scale leaves it to TermStep. The product is exact (a
// power of two) unless it is subnormal, and then it is far below 1/2 either
// way.
SSIM2_HD double TermUnits(double x, double scale) {
  const double kInf = arith::BitsDouble(std::uint64_t(0x7ff) << 52);
  if (!(x >= 0.0) || scale == 0.0) return kInf;
  const double y = x * scale;
  if (!(y < kUnitsLimit)) return kInf;
  const double whole = floor(y);
  const double rest = y - whole;
  if (rest == 0.5) return kInf;
  return rest > 0.5 ? whole + 1.0 : whole;
}

// A run's units (a sum of TermUnits) as a step.
SSIM2_HD Step UnitsStep(double units) {
  if (!(units < kUnitsLimit)) return Saturated();
  const std::uint64_t n = static_cast<std::uint64_t>(units);
  return Step{{n, n}};
}

// a, then b.
SSIM2_HD Step Compose(const Step& a, const Step& b) {
  auto then = [&](std::uint64_t p, std::uint64_t first) {
    if (first >= kLimit) return kLimit;
    const std::uint64_t total = first + MoveFrom(b, p + first);
    return total < kLimit ? total : kLimit;
  };
  return Step{{then(0, a.move[0]), then(1, a.move[1])}};
}

// Applies `run`, a step formed in grid g, to *s when *s is in grid g and
// stays there; false (and *s unchanged) otherwise: then the run needs
// smaller steps or true additions. Ending exactly on the next power of two
// counts as leaving: the last addition may have rounded on the coarser grid.
SSIM2_HD bool TryStep(double* s, int g, const Step& run) {
  if (g < 1 || GridOf(*s) != g) return false;
  const std::uint64_t p = PositionOf(*s);
  const std::uint64_t move = MoveFrom(run, p);
  if (move >= kLimit - p) return false;
  *s = AtPosition(g, p + move);
  return true;
}

}  // namespace seqsum
}  // namespace ssim2
