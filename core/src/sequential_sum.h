// The result of a sequential float64 sum, s = fl(s + x[i]) for i = 0, 1, ...
// from s = 0, computed in pieces that may be formed in parallel, bit for bit.
// The CPU path sums its maps in the reference's row-major order; the CUDA
// engine reaches the same sums with these functions (host and device code
// alike, so both sides run the same arithmetic).
//
// Why it works: while s stays in one "grid" (the doubles with one exponent,
// all multiples of one ulp u), s + x rounds to s + (x rounded to a multiple
// of u), and that rounding is integer arithmetic on x / u. Only an exact tie
// (x / u ending in .5) depends on s: it rounds to the even multiple, so on
// the parity of s / u. A term's effect in grid g is therefore a pair of
// integer increments (one for an even, one for an odd s / u), and pairs
// compose associatively: a run of terms has one pair per grid, whatever
// its length. The terms here are >= 0, so s only grows; a run that ends
// inside the grid it started in never left it, and its pair is exact. A run
// whose end would leave the grid is replayed term by term with true double
// additions, as is every term whose grid is not known for sure.
//
// Which grid a run starts in depends on the sum before it. An ordinary
// parallel sum gives that prefix to within a relative 1e-9 or so, which
// names the grid of almost every run; runs near a power of two are left to
// true additions. A wrong guess costs time, never exactness: a run's pair is
// used only when the exact running sum is in the grid the pair was made for
// and stays there.
//
// Grids: a grid is a double's biased exponent field, except that 0 and the
// subnormals share grid 1 with the smallest normal binade (one spacing,
// 2^-1074, from 0 to 2^-1021). A double in grid g is P * 2^(g - 1075) with
// an integer position P < 2^53 (P >= 2^52 above grid 1).
#pragma once

#include <cstdint>
#include <vector>

#include "arith.h"

namespace ssim2 {
namespace seqsum {

using arith::BitsDouble;
using arith::DoubleBits;

constexpr std::uint64_t kLimit = std::uint64_t(1) << 53;  // positions are below
constexpr std::uint64_t kImplicitBit = std::uint64_t(1) << 52;
constexpr std::uint64_t kMantissaMask = kImplicitBit - 1;
constexpr int kNoGrid = -1;  // the grid is not known: true double additions

// The grid of s >= 0; kNoGrid for negative values, infinities and NaN (only
// true additions follow those).
SSIM2_HD int GridOf(double s) {
  const std::uint64_t bits = DoubleBits(s);
  if (bits >> 63) return bits == (std::uint64_t(1) << 63) ? 1 : kNoGrid;  // -0 is 0
  const int e = static_cast<int>(bits >> 52);
  if (e == 2047) return kNoGrid;
  return e < 1 ? 1 : e;
}

// Position of s in its grid (GridOf(s) != kNoGrid).
SSIM2_HD std::uint64_t PositionOf(double s) {
  const std::uint64_t bits = DoubleBits(s) & ~(std::uint64_t(1) << 63);
  const std::uint64_t m = bits & kMantissaMask;
  return (bits >> 52) == 0 ? m : (m | kImplicitBit);
}

// The double at position p < kLimit of grid g.
SSIM2_HD double AtPosition(int g, std::uint64_t p) {
  if (p < kImplicitBit) return BitsDouble(p);  // grid 1 only: 0 or subnormal
  return BitsDouble((static_cast<std::uint64_t>(g) << 52) | (p & kMantissaMask));
}

// A term's (or a run of terms') effect in one grid: the position moves by
// step[P & 1] from position P, as long as it stays below kLimit; kLimit
// means "leaves the grid" (saturated).
struct Step {
  std::uint64_t step[2];
};

SSIM2_HD Step NoStep() { return Step{{0, 0}}; }

// x in grid g: x / u rounded to an integer, ties to the even position.
SSIM2_HD Step TermStep(double x, int g) {
  const std::uint64_t bits = DoubleBits(x);
  if ((bits << 1) == 0) return NoStep();  // +0 and -0 leave s unchanged
  const int e = static_cast<int>(bits >> 52);  // includes the sign: negative x is >= 2048
  if (e >= 2047) return Step{{kLimit, kLimit}};  // negative, inf, NaN: true addition
  const std::uint64_t m = e == 0 ? (bits & kMantissaMask) : ((bits & kMantissaMask) | kImplicitBit);
  const int shift = (e == 0 ? 1 : e) - g;  // x / u = m * 2^shift
  if (shift > 0) return Step{{kLimit, kLimit}};  // x >= 2^53 u: leaves the grid
  if (shift == 0) return Step{{m, m}};
  const int r = -shift;
  if (r >= 54) return NoStep();  // x < u / 2: m < 2^53 <= half
  const std::uint64_t k = m >> r;
  const std::uint64_t rem = m & ((std::uint64_t(1) << r) - 1);
  const std::uint64_t half = std::uint64_t(1) << (r - 1);
  if (rem < half) return Step{{k, k}};
  if (rem > half) return Step{{k + 1, k + 1}};
  // A tie: the sum lands on position P + k or P + k + 1, whichever is even.
  return Step{{k + (k & 1), k + ((k + 1) & 1)}};
}

// a, then b.
SSIM2_HD Step Compose(const Step& a, const Step& b) {
  Step c;
  for (int p = 0; p < 2; ++p) {
    const std::uint64_t first = a.step[p];
    if (first >= kLimit) {
      c.step[p] = kLimit;
    } else {
      const std::uint64_t total = first + b.step[(p + first) & 1];
      c.step[p] = total < kLimit ? total : kLimit;
    }
  }
  return c;
}

// Applies a run's step for grid g to *s when *s is in grid g and stays there;
// false (and *s unchanged) otherwise: then the run needs true additions.
SSIM2_HD bool TryStep(double* s, int g, const Step& run) {
  if (g == kNoGrid || GridOf(*s) != g) return false;
  const std::uint64_t p = PositionOf(*s);
  const std::uint64_t step = run.step[p & 1];
  if (step >= kLimit - p) return false;
  *s = AtPosition(g, p + step);
  return true;
}

// The grid of every running sum between `before` and `after` (approximate
// prefixes, relative error below `slack`), or kNoGrid when that is not sure.
SSIM2_HD int SureGrid(double before, double after, double slack) {
  const int lo = GridOf(before * (1.0 - slack));
  const int hi = GridOf(after * (1.0 + slack));
  return lo == hi ? lo : kNoGrid;
}

// Relative slack of the grid guesses. The exact sequential sum and any
// ordinary parallel sum of n terms >= 0 are both within n * 2^-53 (relative)
// of the exact prefix; 2^-20 covers n up to 2^32 with room to spare.
constexpr double kGridSlack = 1.0 / (1 << 20);

// ---------------------------------------------------------------------------
// Runs of terms: a chunk (a fixed number of consecutive terms) is cut into at
// most kMaxPieces pieces of one sure grid each (or of unknown grid); a chunk
// with more pieces is replayed term by term. A group of consecutive chunks
// is summarised the same way, from its chunks' pieces: a sum that crosses a
// power of two inside a group costs a few pieces, not a walk through its
// chunks.

constexpr int kMaxPieces = 4;

struct Piece {
  int grid;    // kNoGrid: true additions
  int length;  // terms
  Step step;   // the piece's step in `grid`
};

struct Summary {
  int pieces;  // 1..kMaxPieces; 0: walk the terms (a chunk) or the chunks (a group)
  Piece piece[kMaxPieces];
};

// Appends a piece, merging it into the last one of the same grid; false when
// that would make more than kMaxPieces.
SSIM2_HD bool AppendPiece(Summary* out, const Piece& piece) {
  if (out->pieces > 0 && out->piece[out->pieces - 1].grid == piece.grid) {
    Piece& last = out->piece[out->pieces - 1];
    last.length += piece.length;
    last.step = Compose(last.step, piece.step);
    return true;
  }
  if (out->pieces == kMaxPieces) return false;
  out->piece[out->pieces++] = piece;
  return true;
}

// `term(i)`, i in [0, n): the chunk's terms; `before`: the approximate sum of
// everything before the chunk. Terms are visited once, in order.
template <class Terms>
SSIM2_HD Summary SummarizeChunk(const Terms& term, int n, double before, double slack) {
  Summary out;
  out.pieces = 0;
  double approx = before;
  for (int i = 0; i < n; ++i) {
    const double x = term(i);
    const double next = approx + x;
    const int g = SureGrid(approx, next, slack);
    approx = next;
    if (!AppendPiece(&out, Piece{g, 1, g == kNoGrid ? NoStep() : TermStep(x, g)})) {
      out.pieces = 0;
      return out;
    }
  }
  return out;
}

// A group of `count` consecutive chunks.
SSIM2_HD Summary SummarizeGroup(const Summary* chunks, int count) {
  Summary out;
  out.pieces = 0;
  for (int c = 0; c < count; ++c) {
    bool fits = chunks[c].pieces > 0;
    for (int p = 0; p < chunks[c].pieces && fits; ++p) fits = AppendPiece(&out, chunks[c].piece[p]);
    if (!fits) {
      out.pieces = 0;
      return out;
    }
  }
  return out;
}

// True additions of term(first) .. term(first + count - 1). The terms are
// formed eight at a time before they are added (in order), so that a GPU
// thread waits for eight terms' loads at once, not for each in turn.
template <class Terms>
SSIM2_HD double AddTerms(double s, const Terms& term, long long first, long long count) {
  constexpr int kAhead = 8;
  const long long end = first + count;
  long long i = first;
  for (; i + kAhead <= end; i += kAhead) {
    double x[kAhead];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int j = 0; j < kAhead; ++j) x[j] = term(i + j);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int j = 0; j < kAhead; ++j) s += x[j];
  }
  for (; i < end; ++i) s += term(i);
  return s;
}

// The pieces of `summary` (its terms from `first` on) applied to *s; false
// (and *s unchanged) when a piece of sure grid cannot be applied. Pieces of
// unknown grid are added term by term; `added` counts those terms.
template <class Terms>
SSIM2_HD bool ApplyPieces(double* s, const Terms& term, long long first, const Summary& summary,
                          long long* added) {
  double t = *s;
  long long count = 0;
  for (int p = 0; p < summary.pieces; ++p) {
    const Piece& piece = summary.piece[p];
    if (piece.grid == kNoGrid) {
      t = AddTerms(t, term, first, piece.length);
      count += piece.length;
    } else if (!TryStep(&t, piece.grid, piece.step)) {
      return false;
    }
    first += piece.length;
  }
  *s = t;
  if (added) *added += count;
  return true;
}

// The sequential sum of n terms from its chunk and group summaries: chunk c
// holds terms [c * chunk_terms, ...), group g chunks [g * group_chunks, ...).
// A group whose pieces do not apply is walked chunk by chunk, a chunk whose
// pieces do not apply term by term. `added` (may be null) counts the terms
// added one by one.
template <class Terms>
SSIM2_HD double WalkSum(const Terms& term, long long n, int chunk_terms, int group_chunks,
                        const Summary* chunks, const Summary* groups,
                        long long* added = nullptr) {
  const long long num_chunks = (n + chunk_terms - 1) / chunk_terms;
  const long long num_groups = (num_chunks + group_chunks - 1) / group_chunks;
  double s = 0.0;
  for (long long g = 0; g < num_groups; ++g) {
    const long long c0 = g * group_chunks;
    if (groups[g].pieces > 0 && ApplyPieces(&s, term, c0 * chunk_terms, groups[g], added)) continue;
    const long long c_end = c0 + group_chunks < num_chunks ? c0 + group_chunks : num_chunks;
    for (long long c = c0; c < c_end; ++c) {
      const long long first = c * chunk_terms;
      if (chunks[c].pieces > 0 && ApplyPieces(&s, term, first, chunks[c], added)) continue;
      const long long count = (first + chunk_terms < n ? first + chunk_terms : n) - first;
      s = AddTerms(s, term, first, count);
      if (added) *added += count;
    }
  }
  return s;
}

// The whole computation on the host, in the passes the CUDA engine runs
// (each loop over chunks or groups is one launch there): chunk sums in any
// order, their prefix, chunk summaries, group summaries, the walk.
// `prefix_bias` multiplies the approximate prefixes: a test hook that makes
// the grid guesses wrong (the result must not change). `added`: as WalkSum.
template <class Terms>
double SumInPieces(const Terms& term, long long n, int chunk_terms, int group_chunks,
                   double prefix_bias = 1.0, long long* added = nullptr,
                   double slack = kGridSlack) {
  const long long num_chunks = (n + chunk_terms - 1) / chunk_terms;
  const long long num_groups = (num_chunks + group_chunks - 1) / group_chunks;
  std::vector<double> before(num_chunks);
  double approx = 0.0;
  for (long long c = 0; c < num_chunks; ++c) {
    before[c] = approx * prefix_bias;
    double chunk_sum = 0.0;
    const long long end = (c + 1) * chunk_terms < n ? (c + 1) * chunk_terms : n;
    for (long long i = end - 1; i >= c * chunk_terms; --i) chunk_sum += term(i);  // any order
    approx += chunk_sum;
  }
  std::vector<Summary> chunks(num_chunks);
  for (long long c = 0; c < num_chunks; ++c) {
    const long long first = c * chunk_terms;
    const int count = static_cast<int>((first + chunk_terms < n ? first + chunk_terms : n) - first);
    chunks[c] = SummarizeChunk([&](int i) { return term(first + i); }, count, before[c], slack);
  }
  std::vector<Summary> groups(num_groups);
  for (long long g = 0; g < num_groups; ++g) {
    const long long c0 = g * group_chunks;
    const long long count = (c0 + group_chunks < num_chunks ? c0 + group_chunks : num_chunks) - c0;
    groups[g] = SummarizeGroup(chunks.data() + c0, static_cast<int>(count));
  }
  return WalkSum(term, n, chunk_terms, group_chunks, chunks.data(), groups.data(), added);
}

}  // namespace seqsum
}  // namespace ssim2
