// libFuzzer target: carbon-intensity CSVs (models/energy/carbon.hpp, load_profile_text), then the
// profile they make. Checks beyond "no crash", from the header's promises:
//   - a profile (values) exactly when there is no error; at most 20 errors plus one "N more
//     errors" line, each named "<name>...: error: <message>";
//   - every value finite and >= 0;
//   - the profile over one whole cycle: its integral is the sum of its hours (to rounding), finite,
//     its mean lies between the smallest and the largest hour; at() gives each hour's value; a
//     carbon-aware start (lowest_carbon_start) falls within the allowed delay.
#include "models/energy/carbon.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <string_view>

namespace {

namespace me = fleetsim::models::energy;

void check(bool ok, const char* what)
{
  if (!ok) {
    std::fprintf(stderr, "fuzz_carbon: contract broken: %s\n", what);
    std::abort();
  }
}

void check_profile(const std::vector<double>& g)
{
  const me::CarbonProfile p(g);
  const double hours = static_cast<double>(g.size());
  const double sum = std::accumulate(g.begin(), g.end(), 0.0);
  const double integral = p.integral_hours(0, hours * me::kSecondsPerHour);
  check(std::isfinite(integral), "the integral over a cycle is finite");
  check(std::fabs(integral - sum) <= 1e-9 * std::max(1.0, sum), "the integral over a cycle is the sum of its hours");
  const auto [lo, hi] = std::minmax_element(g.begin(), g.end());
  const double mean = p.mean(0, hours * me::kSecondsPerHour);
  check(mean >= *lo * (1 - 1e-12) && mean <= *hi * (1 + 1e-12), "the mean lies between the extremes");
  for (size_t h = 0; h < std::min<size_t>(g.size(), 64); ++h)
    check(p.at((static_cast<double>(h) + 0.5) * me::kSecondsPerHour) == g[h], "at() gives the hour's value");
  const double t = 1234;
  const double start = me::lowest_carbon_start(p, t, 86400, 7200);
  check(start >= t && start <= t + 86400, "a carbon-aware start falls within the allowed delay");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string name = "fuzz.csv";
  const me::ProfileLoad load = me::load_profile_text(text, name);
  check(load.ok() != load.g_per_kwh.empty(), "values exactly when there is no error");
  check(load.errors.size() <= 21, "at most 20 errors and one 'N more errors'");
  for (const auto& e : load.errors)
    check(e.rfind(name, 0) == 0 && e.find(": error: ") != std::string::npos && e.size() > e.find(": error: ") + 9,
          "each error is '<name>...: error: <message>'");
  for (double g : load.g_per_kwh)
    check(std::isfinite(g) && g >= 0, "every value is finite and >= 0");
  if (load.ok())
    check_profile(load.g_per_kwh);
  return 0;
}
