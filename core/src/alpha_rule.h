// The reference tool's alpha rule, written once for every backend (the CPU
// scorer, the CUDA engine and the scalar replay).
//
// The reference looks at the reference image's alpha only. Without it the
// pair is scored once, and a distorted image with alpha is blended against
// grey 0.5 (the reference's default argument). With it the pair is scored
// twice, blended against a dark (0.1) and a bright (0.9) grey on the encoded
// values, and the lower score wins; on a tie the dark pass is kept.
#pragma once

#include "ssim2/ssim2.h"

namespace ssim2 {

constexpr float kAlphaBackgroundDark = 0.1f;
constexpr float kAlphaBackgroundBright = 0.9f;
constexpr float kAlphaBackgroundDefault = 0.5f;

// How many passes a pair needs: 1, or 2 when the reference has alpha.
constexpr int AlphaPassCount(bool reference_has_alpha) { return reference_has_alpha ? 2 : 1; }
constexpr int kMaxAlphaPasses = 2;

// The grey level the colour of pass `pass` is blended against.
constexpr float AlphaBackground(bool reference_has_alpha, int pass) {
  return !reference_has_alpha ? kAlphaBackgroundDefault
         : pass == 0          ? kAlphaBackgroundDark
                              : kAlphaBackgroundBright;
}

// Folds the result of pass `pass` into *best: the first pass is taken as it
// is, a later one only when its score is strictly lower.
inline void KeepLowerScore(int pass, const Result& pass_result, Result* best) {
  if (pass == 0 || pass_result.score < best->score) *best = pass_result;
}

// Calls `score_pass(pass, background)` (returning Status) for each pass of a
// pair whose reference does or does not have alpha; stops at the first error.
template <typename ScorePass>
Status ForEachAlphaPass(bool reference_has_alpha, ScorePass&& score_pass) {
  for (int pass = 0; pass < AlphaPassCount(reference_has_alpha); ++pass) {
    if (Status s = score_pass(pass, AlphaBackground(reference_has_alpha, pass)); !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

}  // namespace ssim2
