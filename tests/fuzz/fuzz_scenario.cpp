// libFuzzer target: a scenario file's text through the loader (YAML, structure, values, cross-key
// checks). Bad input must come back as diagnostics: a crash, a hang, an escaping exception or a
// sanitizer report is a bug. A scenario that loads must also survive the round trip through
// dump_resolved (what `fleetsim validate --dump` prints).
#include "simulator/scenario/scenario_loader.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace fleetsim::scenario;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const LoadResult r = load_scenario_text(text, "fuzz.yaml", {});
  if (r.scenario.has_value() != r.diagnostics.empty())
    std::abort();  // the header's contract: a scenario exactly when there is no diagnostic
  for (const auto& d : r.diagnostics.items())
    if (d.message.empty())
      std::abort();
  if (r.scenario) {
    const LoadResult again = load_scenario_text(dump_resolved(r.resolved), "dump.yaml", {});
    if (!again.scenario) {
      std::fprintf(stderr, "dump_resolved did not load again:\n%s\n", again.diagnostics.to_string().c_str());
      std::abort();
    }
  }
  return 0;
}
