// Unit test of ssim2::Summarize (cuda/src/stats.cpp).
#include <glib.h>

#include <cmath>
#include <vector>

#include "ssim2/stats.h"

static void
test_four_values (void)
{
  ssim2::Summary s = ssim2::Summarize ({4.0, 1.0, 3.0, 2.0});
  g_assert_cmpuint (s.frames, ==, 4);
  g_assert_cmpfloat_with_epsilon (s.mean, 2.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.stddev, std::sqrt (1.25), 1e-12);
  g_assert_cmpfloat (s.min, ==, 1.0);
  g_assert_cmpfloat (s.max, ==, 4.0);
  // numpy.percentile([1,2,3,4], q): rank q/100*3 interpolated.
  g_assert_cmpfloat_with_epsilon (s.p1, 1.03, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.p5, 1.15, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.p50, 2.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.p95, 3.85, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.p99, 3.97, 1e-12);
  g_assert_cmpfloat_with_epsilon (s.harmonic_mean,
      4.0 / (1.0 + 0.5 + 1.0 / 3.0 + 0.25), 1e-12);
}

static void
test_single_and_empty (void)
{
  ssim2::Summary one = ssim2::Summarize ({42.0});
  g_assert_cmpuint (one.frames, ==, 1);
  g_assert_cmpfloat (one.mean, ==, 42.0);
  g_assert_cmpfloat (one.stddev, ==, 0.0);
  g_assert_cmpfloat (one.p1, ==, 42.0);
  g_assert_cmpfloat (one.p99, ==, 42.0);
  g_assert_cmpfloat (one.harmonic_mean, ==, 42.0);

  ssim2::Summary none = ssim2::Summarize ({});
  g_assert_cmpuint (none.frames, ==, 0);
  g_assert_true (std::isnan (none.mean));
  g_assert_true (std::isnan (none.p50));
  g_assert_true (std::isnan (none.harmonic_mean));
}

static void
test_non_positive (void)
{
  ssim2::Summary s = ssim2::Summarize ({80.0, -5.0, 60.0});
  g_assert_cmpfloat (s.harmonic_mean, ==, 0.0);
  g_assert_cmpfloat (s.min, ==, -5.0);
  g_assert_cmpfloat (s.p50, ==, 60.0);
  s = ssim2::Summarize ({80.0, 0.0});
  g_assert_cmpfloat (s.harmonic_mean, ==, 0.0);
}

static void
test_hundred (void)
{
  std::vector<double> v;
  for (int i = 100; i >= 1; --i)
    v.push_back (i);
  ssim2::Summary s = ssim2::Summarize (v);
  g_assert_cmpfloat_with_epsilon (s.p1, 1.99, 1e-9);
  g_assert_cmpfloat_with_epsilon (s.p5, 5.95, 1e-9);
  g_assert_cmpfloat_with_epsilon (s.p50, 50.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (s.p95, 95.05, 1e-9);
  g_assert_cmpfloat_with_epsilon (s.p99, 99.01, 1e-9);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stats/four-values", test_four_values);
  g_test_add_func ("/stats/single-and-empty", test_single_and_empty);
  g_test_add_func ("/stats/non-positive", test_non_positive);
  g_test_add_func ("/stats/hundred", test_hundred);
  return g_test_run ();
}
