// Coefficients of libjxl's recursive Gaussian (Charalampidis 2016), computed
// in double on the host exactly as CreateRecursiveGaussian() does, then
// rounded to float. Both backends take their blur constants from here.
#pragma once

namespace ssim2 {

struct BlurConstants {
  int radius;  // N = 5 for sigma 1.5
  // Per term k in {1, 3, 5} (index 0..2), used by the vertical recursion:
  // y = fma(n2, in, fma(-d1, y_prev, -y_prev2)).
  float n2[3];
  float d1[3];
  // The horizontal pass produces four outputs per step; lane j of term k
  // uses mul_in[k][j] etc. (gauss_blur.h RecursiveGaussian).
  float mul_in[3][4];
  float mul_prev[3][4];
  float mul_prev2[3][4];
};

// The constants for sigma = 1.5 (computed once, thread-safe).
const BlurConstants& GetBlurConstants();
BlurConstants ComputeBlurConstants(double sigma);

}  // namespace ssim2
