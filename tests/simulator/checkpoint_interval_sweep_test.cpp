// Sweeping the checkpoint interval on a single-cause scenario: the simulated ETTR curve peaks near
// Daly's interval, and its values agree with Daly's closed-form model of the same run.
#include "run_in_child.hpp"

#include "models/checkpoint/checkpoint_interval.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fleetsim::testing {
namespace {

// Least-squares parabola y = a x^2 + b x + c; returns the x of its vertex.
double parabola_vertex(const std::vector<double>& x, const std::vector<double>& y)
{
  double s[5] = {0, 0, 0, 0, 0}, t[3] = {0, 0, 0};
  for (size_t i = 0; i < x.size(); ++i) {
    double p = 1;
    for (int k = 0; k < 5; ++k) {
      s[k] += p;
      if (k < 3)
        t[k] += p * y[i];
      p *= x[i];
    }
  }
  // Normal equations [s4 s3 s2; s3 s2 s1; s2 s1 s0] [a b c] = [t2 t1 t0], solved by Cramer's rule.
  auto det = [](double m[3][3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  };
  double M[3][3] = {{s[4], s[3], s[2]}, {s[3], s[2], s[1]}, {s[2], s[1], s[0]}};
  double A[3][3] = {{t[2], s[3], s[2]}, {t[1], s[2], s[1]}, {t[0], s[1], s[0]}};
  double B[3][3] = {{s[4], t[2], s[2]}, {s[3], t[1], s[1]}, {s[2], t[0], s[0]}};
  const double d = det(M);
  const double a = det(A) / d, b = det(B) / d;
  return -b / (2 * a);
}

TEST(CheckpointIntervalSweep, EttrPeaksWithin15PercentOfDalysInterval)
{
  // delta = 300 s, M = 2 h: Daly's interval is 1,883 s.
  const double delta = 300, mtbf = 7200;
  const double daly = models::daly_interval(units::Seconds(delta), units::Seconds(mtbf)).si();
  ASSERT_NEAR(daly, 1883.3, 0.5);
  std::vector<double> factors = {0.4, 0.55, 0.7, 0.85, 1.0, 1.2, 1.45, 1.75, 2.1, 2.5};
  std::vector<ChildRun> runs;
  for (double f : factors)
    runs.push_back({scenario_path("scenarios/young_daly_single_cause.yaml"),
                    {"checkpoint.interval=" + std::to_string(f * daly) + "s", "run.duration=730d"},
                    11});
  const auto results = run_children(runs, 2);
  std::vector<double> log_tau, ettr;
  size_t best = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].ok) << results[i].error;
    log_tau.push_back(std::log(results[i].summary["checkpoints"]["interval_s"].get<double>()));
    ettr.push_back(results[i].summary["ettr"].get<double>());
    if (ettr[i] > ettr[best])
      best = i;
  }
  // The curve rises then falls: the best point is inside the sweep, not at an end.
  EXPECT_GT(best, 0u);
  EXPECT_LT(best, factors.size() - 1);
  // Its maximum, from a parabola through the points around the best one (in log tau).
  const size_t lo = best >= 2 ? best - 2 : 0;
  const size_t hi = std::min(factors.size(), lo + 5);
  const double peak = std::exp(
      parabola_vertex({log_tau.begin() + static_cast<long>(lo), log_tau.begin() + static_cast<long>(hi)},
                      {ettr.begin() + static_cast<long>(lo), ettr.begin() + static_cast<long>(hi)}));
  EXPECT_NEAR(peak / daly, 1.0, 0.15) << "simulated optimum " << peak << " s vs Daly " << daly << " s";
  EXPECT_NEAR(std::exp(log_tau[best]) / daly, 1.0, 0.3);

  // Daly's model of the same run predicts the ETTR itself (restart = detection + restart + reload).
  const double restart = 60 + 240 + 0.3;
  for (size_t i = 0; i < results.size(); ++i) {
    const double tau = std::exp(log_tau[i]);
    const double model = models::daly_useful_fraction(units::Seconds(tau), units::Seconds(delta),
                                                      units::Seconds(restart), units::Seconds(mtbf));
    EXPECT_NEAR(ettr[i], model, 0.01) << "tau = " << tau;
  }
}

}  // namespace
}  // namespace fleetsim::testing
