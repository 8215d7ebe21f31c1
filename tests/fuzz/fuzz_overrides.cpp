// libFuzzer target: `--set key=value` overrides (apply_overrides and everything after it), on top of
// a small valid scenario. Each line of the input is one override. The base scenario sits in the
// fixtures' directory (fuzz_fixtures.hpp), so an override can name its files
// (workload.trace.file=traces/helios.csv, power.carbon.intensity=carbon/flat.csv).
// Checks: a Scenario exactly when there is no diagnostic; every diagnostic names a file (the base
// or "command line") and has a message.
#include "fuzz_fixtures.hpp"
#include "fuzz_report.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr const char* kBase =
    "name: fuzz\n"
    "cluster: {gpus: 1024}\n"
    "parallelism: {tp: 8, pp: 4, dp: 32}\n"
    "failures:\n"
    "  causes:\n"
    "    gpu: {count: 148, scope: gpu, category: hardware}\n";

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
  (void)fleetsim::fuzz::scenario_dir();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace fleetsim::scenario;
  std::vector<std::string> overrides;
  std::string cur;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      overrides.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (!cur.empty())
    overrides.push_back(cur);
  static const std::string base = fleetsim::fuzz::scenario_dir() + "/base.yaml";
  const LoadResult r = load_scenario_text(kBase, base, overrides);
  fleetsim::fuzz::report(r);
  if (r.scenario.has_value() != r.diagnostics.empty())
    std::abort();
  for (const auto& d : r.diagnostics.items())
    if (d.message.empty() || d.where.file.empty())
      std::abort();
  return 0;
}
