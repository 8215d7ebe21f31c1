// libFuzzer target: `--set key=value` overrides (apply_overrides and everything after it), on top of
// a small valid scenario. Each line of the input is one override.
#include "simulator/scenario/scenario_loader.hpp"

#include <cstdint>
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
  const LoadResult r = load_scenario_text(kBase, "base.yaml", overrides);
  if (r.scenario.has_value() != r.diagnostics.empty())
    std::abort();
  return 0;
}
