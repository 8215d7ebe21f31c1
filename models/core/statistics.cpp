#include "statistics.hpp"

#include "check.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace fleetsim::models {

double student_t975(long dof)
{
  FLEETSIM_CHECK(dof >= 1, "Student's t needs at least one degree of freedom");
  return boost::math::quantile(boost::math::students_t(static_cast<double>(dof)), 0.975);
}

double quantile(std::vector<double> values, double q)
{
  FLEETSIM_CHECK(!values.empty() && q >= 0 && q <= 1, "a quantile of a non-empty sample, q in [0, 1]");
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
