// append_fixed must print exactly what std::to_chars(fixed) prints: the CSV outputs are compared
// byte for byte across builds, seeds and machines.
#include "simulator/trace/fixed_text.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <random>

namespace {

std::string reference(double v, int decimals)
{
  char buf[400];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

std::string fast(double v, int decimals)
{
  std::string s = "x";  // appends, never overwrites
  fleetsim::sim::append_fixed(s, v, decimals);
  return s.substr(1);
}

TEST(FixedText, MatchesToCharsOnEdgeCases)
{
  const double cases[] = {0.0,
                          -0.0,
                          1e-9,
                          -1e-9,
                          0.5,
                          1.5,
                          2.5,
                          -2.5,
                          0.0000005,
                          0.0000015,
                          0.0000025,
                          603.09962,
                          4665600.0,
                          1577058304.0,
                          10834906284589.121,
                          9007199254740993.0,
                          1e300,
                          -1e300,
                          123456789.1234565,
                          0.9999995,
                          0.99999949999,
                          std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::quiet_NaN(),
                          std::numeric_limits<double>::denorm_min(),
                          std::nextafter(0.5, 1.0),
                          std::nextafter(0.5, 0.0),
                          std::nextafter(2.5, 3.0)};
  for (double v : cases)
    for (int d : {0, 1, 3, 6, 9, 12})
      EXPECT_EQ(fast(v, d), reference(v, d)) << "value " << v << " with " << d << " decimals";
}

TEST(FixedText, MatchesToCharsOnAMillionRandomValuesOfEveryMagnitude)
{
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> exponent(-12, 17);
  std::uniform_real_distribution<double> mantissa(1, 10);
  long fast_path_differences = 0;
  for (int i = 0; i < 1000000; ++i) {
    const double sign = (i % 3 == 0) ? -1 : 1;
    const double v = sign * mantissa(rng) * std::pow(10.0, std::floor(exponent(rng)));
    const int d = i % 10;
    if (fast(v, d) != reference(v, d) && ++fast_path_differences <= 5)
      ADD_FAILURE() << "value " << v << " with " << d << " decimals: " << fast(v, d) << " vs " << reference(v, d);
  }
  EXPECT_EQ(fast_path_differences, 0);
  // Values a hair from a rounding tie, where the scaled product's rounding error matters most.
  for (long k = 0; k < 200000; ++k) {
    const double tie = (static_cast<double>(k) + 0.5) / 1e6 + 1000.0;
    for (double v : {tie, std::nextafter(tie, 0.0), std::nextafter(tie, 1e9)})
      ASSERT_EQ(fast(v, 6), reference(v, 6)) << v;
  }
}

}  // namespace
