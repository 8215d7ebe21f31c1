#include "run.hpp"

#include "models/core/check.hpp"

namespace fleetsim::sim {

Prepared prepare(const scenario::Scenario& s)
{
  Prepared p;
  if (!s.is_fleet())
    p.step = resolve_step(s);
  return p;
}

Outcome run(const scenario::Scenario& s, std::uint64_t seed, const Prepared& prepared, const ProgressFn& progress)
{
  if (s.is_fleet())
    return Outcome(run_fleet(s, seed));
  FLEETSIM_CHECK(prepared.step.has_value(), "a single job's run is prepared with its step");
  return Outcome(run_simulation(s, seed, *prepared.step, progress));
}

Outcome run(const scenario::Scenario& s, std::uint64_t seed) { return run(s, seed, prepare(s)); }

}  // namespace fleetsim::sim
