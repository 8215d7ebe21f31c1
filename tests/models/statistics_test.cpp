#include "models/core/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace fleetsim::models {
namespace {

TEST(Statistics, SummarizesASmallSampleByHand)
{
  // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample variance 32/7.
  const auto s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.n, 8);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_NEAR(s.sd, std::sqrt(32.0 / 7.0), 1e-12);
  // t(0.975, 7) = 2.36462425159278 (2.365 in the 3-decimal tables).
  EXPECT_NEAR(s.ci95, 2.364624251592785 * std::sqrt(32.0 / 7.0) / std::sqrt(8.0), 1e-12);
  // Sorted 2 4 4 4 5 5 7 9: p5 at position 0.35 -> 2 + 0.35 x 2; p95 at 6.65 -> 7 + 0.65 x 2.
  EXPECT_NEAR(s.p5, 2.7, 1e-12);
  EXPECT_NEAR(s.p95, 8.3, 1e-12);
}

TEST(Statistics, HasNoSpreadForOneValueAndNothingForNone)
{
  const auto one = summarize({3.5});
  EXPECT_EQ(one.n, 1);
  EXPECT_EQ(one.mean, 3.5);
  EXPECT_EQ(one.sd, 0);
  EXPECT_EQ(one.ci95, 0);
  EXPECT_EQ(one.p5, 3.5);
  EXPECT_EQ(one.p95, 3.5);
  EXPECT_EQ(summarize({}).n, 0);
}

TEST(Statistics, StudentQuantileApproachesTheNormalOne)
{
  // The tables' values (e.g. NIST/SEMATECH e-Handbook, Table of t, 0.975), to their 3 decimals.
  EXPECT_NEAR(student_t975(1), 12.706, 5e-4);
  EXPECT_NEAR(student_t975(2), 4.303, 5e-4);
  EXPECT_NEAR(student_t975(10), 2.228, 5e-4);
  EXPECT_NEAR(student_t975(30), 2.042, 5e-4);
  EXPECT_NEAR(student_t975(1), 12.7062047361747, 1e-9) << "t(0.975, 1) = tan(0.475 pi)";
  EXPECT_NEAR(student_t975(60), 2.000, 0.001);
  EXPECT_NEAR(student_t975(120), 1.980, 0.001);
  EXPECT_NEAR(student_t975(100000), 1.960, 0.001);
}

TEST(Statistics, ConfidenceIntervalNarrowsAsTheSquareRootOfTheReplicas)
{
  std::vector<double> small, large;
  for (int i = 0; i < 100; ++i)
    small.push_back(i % 2 == 0 ? 1.0 : -1.0);
  for (int i = 0; i < 400; ++i)
    large.push_back(i % 2 == 0 ? 1.0 : -1.0);
  const auto a = summarize(small);
  const auto b = summarize(large);
  // sd = sqrt(n / (n - 1)) for +-1 values; ci = t sd / sqrt(n): four times the replicas, half the width.
  const double expected = (student_t975(99) * std::sqrt(100.0 / 99) / 10) /
                          (student_t975(399) * std::sqrt(400.0 / 399) / 20);
  EXPECT_NEAR(a.ci95 / b.ci95, expected, 1e-12);
  EXPECT_NEAR(a.ci95 / b.ci95, 2.0, 0.05);
}

}  // namespace
}  // namespace fleetsim::models
