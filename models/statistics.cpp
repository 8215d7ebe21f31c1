#include "statistics.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <iterator>

namespace fleetsim::models {

double student_t975(long dof)
{
  // Tabulated for 1..30 degrees of freedom; beyond, the normal quantile with a 1/dof correction
  // (within 0.001 of the exact value).
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  assert(dof >= 1);
  if (dof <= static_cast<long>(std::size(kTable)))
    return kTable[dof - 1];
  return 1.959964 + 2.37 / static_cast<double>(dof);
}

double quantile(std::vector<double> values, double q)
{
  assert(!values.empty() && q >= 0 && q <= 1);
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

SampleSummary summarize(const std::vector<double>& values)
{
  SampleSummary s;
  s.n = static_cast<long>(values.size());
  if (s.n == 0)
    return s;
  double sum = 0;
  for (double v : values)
    sum += v;
  s.mean = sum / static_cast<double>(s.n);
  if (s.n >= 2) {
    double ss = 0;
    for (double v : values)
      ss += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(ss / static_cast<double>(s.n - 1));
    s.ci95 = student_t975(s.n - 1) * s.sd / std::sqrt(static_cast<double>(s.n));
  }
  s.p5 = quantile(values, 0.05);
  s.p95 = quantile(values, 0.95);
  return s;
}

}  // namespace fleetsim::models
