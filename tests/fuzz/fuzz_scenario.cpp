// libFuzzer target: a scenario file's text through the loader (YAML, includes, structure, values,
// cross-key checks, and the job trace and carbon profile it names). Bad input must come back as
// diagnostics: a crash, a hang, an escaping exception or a sanitizer report is a bug. The scenario
// sits in a private directory of fixed files (fuzz_fixtures.hpp), so `include:`,
// workload.trace.file and power.carbon.intensity reach real files.
//
// Checks: a Scenario exactly when there is no diagnostic; every diagnostic names a file and has a
// message; a trace's jobs have positive GPUs and finite, non-negative times; a carbon profile's
// values are finite and >= 0; a scenario that loads loads again from dump_resolved (what
// `fleetsim validate --dump-resolved` prints), in the same directory.
#include "fuzz_fixtures.hpp"
#include "fuzz_report.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

void check(bool ok, const char* what)
{
  if (!ok) {
    std::fprintf(stderr, "fuzz_scenario: contract broken: %s\n", what);
    std::abort();
  }
}

void check_result(const fleetsim::scenario::LoadResult& r)
{
  check(r.scenario.has_value() == r.diagnostics.empty(), "a scenario exactly when there is no diagnostic");
  for (const auto& d : r.diagnostics.items())
    check(!d.message.empty() && !d.where.file.empty(), "every diagnostic has a file and a message");
  if (!r.scenario)
    return;
  for (const auto& job : r.scenario->workload.trace_jobs)
    check(job.gpus > 0 && std::isfinite(job.submit) && job.submit >= 0 && std::isfinite(job.work) && job.work >= 0,
          "trace jobs have GPUs and finite, non-negative times");
  for (double g : r.scenario->carbon.profile.hourly())
    check(std::isfinite(g) && g >= 0, "carbon intensities are finite and >= 0");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
  (void)fleetsim::fuzz::scenario_dir();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace fleetsim::scenario;
  static const std::string file = fleetsim::fuzz::scenario_dir() + "/fuzz.yaml";
  static const std::string dump = fleetsim::fuzz::scenario_dir() + "/dump.yaml";
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const LoadResult r = load_scenario_text(text, file, {});
  fleetsim::fuzz::report(r);
  check_result(r);
  if (r.scenario) {
    const LoadResult again = load_scenario_text(dump_resolved(r.resolved, &*r.scenario), dump, {});
    if (!again.scenario)
      std::fprintf(stderr, "dump_resolved did not load again:\n%s\n", again.diagnostics.to_string().c_str());
    check(again.scenario.has_value(), "a scenario that loads loads again from dump_resolved");
  }
  return 0;
}
