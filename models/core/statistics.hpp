#pragma once
// Summary statistics of Monte Carlo replicas: mean, sample standard deviation, the half-width of a
// 95 % confidence interval of the mean (Student's t with n - 1 degrees of freedom), and the 5th and
// 95th percentiles (linear interpolation between order statistics, as numpy's default).

#include <vector>

namespace fleetsim::models {

struct SampleSummary {
  long n = 0;
  double mean = 0;
  double sd = 0;    // sample standard deviation (n - 1); 0 for n < 2
  double ci95 = 0;  // half-width: t(0.975, n - 1) sd / sqrt(n); 0 for n < 2
  double p5 = 0;
  double p95 = 0;
};

/// The 0.975 quantile of Student's t with `dof` degrees of freedom (Boost.Math, to double precision).
[[nodiscard]] double student_t975(long dof);

/// The q-quantile (0 <= q <= 1) of `values`, linear between order statistics.
[[nodiscard]] double quantile(std::vector<double> values, double q);

[[nodiscard]] SampleSummary summarize(const std::vector<double>& values);

}  // namespace fleetsim::models
