#include "blur_constants.h"

#include <cmath>

#include "constants.h"

namespace ssim2 {
namespace {

// 3x3 inverse with the cofactor order and double intermediates of libjxl's
// Inv3x3Matrix, so that the rounded coefficients come out identical.
bool Invert3x3(double m[9]) {
  double t[9];
  t[0] = m[4] * m[8] - m[5] * m[7];
  t[1] = m[2] * m[7] - m[1] * m[8];
  t[2] = m[1] * m[5] - m[2] * m[4];
  t[3] = m[5] * m[6] - m[3] * m[8];
  t[4] = m[0] * m[8] - m[2] * m[6];
  t[5] = m[2] * m[3] - m[0] * m[5];
  t[6] = m[3] * m[7] - m[4] * m[6];
  t[7] = m[1] * m[6] - m[0] * m[7];
  t[8] = m[0] * m[4] - m[1] * m[3];
  const double det = m[0] * t[0] + m[1] * t[3] + m[2] * t[6];
  if (std::abs(det) < 1e-10) return false;
  const double inv_det = 1.0 / det;
  for (int i = 0; i < 9; ++i) m[i] = t[i] * inv_det;
  return true;
}

}  // namespace

BlurConstants ComputeBlurConstants(double sigma) {
  constexpr double kPi = 3.141592653589793238;
  // Equation numbers refer to Charalampidis 2016, as in libjxl.
  const double radius = std::round(static_cast<float>(3.2795 * sigma + 0.2546));  // (57)
  const double pi_div_2r = kPi / (2.0 * radius);
  const double omega[3] = {pi_div_2r, 3.0 * pi_div_2r, 5.0 * pi_div_2r};
  const double p1 = +1.0 / std::tan(0.5 * omega[0]);  // (37)
  const double p3 = -1.0 / std::tan(0.5 * omega[1]);
  const double p5 = +1.0 / std::tan(0.5 * omega[2]);
  const double r1 = +p1 * p1 / std::sin(omega[0]);  // (44)
  const double r3 = -p3 * p3 / std::sin(omega[1]);
  const double r5 = +p5 * p5 / std::sin(omega[2]);
  const double neg_half_sigma2 = -0.5 * sigma * sigma;  // (50)
  const double recip_radius = 1.0 / radius;
  double rho[3];
  for (int i = 0; i < 3; ++i) {
    rho[i] = std::exp(neg_half_sigma2 * omega[i] * omega[i]) * recip_radius;
  }
  const double d13 = p1 * r3 - r1 * p3;  // (52)
  const double d35 = p3 * r5 - r3 * p5;
  const double d51 = p5 * r1 - r5 * p1;
  const double recip_d13 = 1.0 / d13;
  const double zeta15 = d35 * recip_d13;
  const double zeta35 = d51 * recip_d13;
  double a[9] = {p1, p3, p5, r1, r3, r5, zeta15, zeta35, 1};  // (56)
  Invert3x3(a);  // never singular for sigma > 0
  const double gamma[3] = {1, radius * radius - sigma * sigma,  // (55)
                           zeta15 * rho[0] + zeta35 * rho[1] + rho[2]};
  double beta[3];  // (53), summed in the order of libjxl's MatMul
  for (int y = 0; y < 3; ++y) {
    double e = 0;
    for (int z = 0; z < 3; ++z) e += a[y * 3 + z] * gamma[z];
    beta[y] = e;
  }

  BlurConstants c{};
  c.radius = static_cast<int>(radius);
  for (int i = 0; i < 3; ++i) {
    const double n2 = -beta[i] * std::cos(omega[i] * (radius + 1.0));  // (33)
    const double d1 = -2.0 * std::cos(omega[i]);
    const double d_2 = d1 * d1;
    c.n2[i] = static_cast<float>(n2);
    c.d1[i] = static_cast<float>(d1);
    // Four consecutive outputs of (35) expanded in terms of the two previous
    // outputs and the four inputs.
    c.mul_prev[i][0] = static_cast<float>(-d1);
    c.mul_prev[i][1] = static_cast<float>(d_2 - 1.0);
    c.mul_prev[i][2] = static_cast<float>(-d_2 * d1 + 2.0 * d1);
    c.mul_prev[i][3] = static_cast<float>(d_2 * d_2 - 3.0 * d_2 + 1.0);
    c.mul_prev2[i][0] = static_cast<float>(-1.0);
    c.mul_prev2[i][1] = static_cast<float>(d1);
    c.mul_prev2[i][2] = static_cast<float>(-d_2 + 1.0);
    c.mul_prev2[i][3] = static_cast<float>(d_2 * d1 - 2.0 * d1);
    c.mul_in[i][0] = static_cast<float>(n2);
    c.mul_in[i][1] = static_cast<float>(-d1 * n2);
    c.mul_in[i][2] = static_cast<float>(d_2 * n2 - n2);
    c.mul_in[i][3] = static_cast<float>(-d_2 * d1 * n2 + 2.0 * d1 * n2);
  }
  return c;
}

const BlurConstants& GetBlurConstants() {
  static const BlurConstants constants = ComputeBlurConstants(kBlurSigma);
  return constants;
}

}  // namespace ssim2
