#include "collective_simulation.hpp"

#include "simulator/actors/collective_rank.hpp"
#include "simulator/run/engine_setup.hpp"
#include "simulator/run/step_simulation.hpp"

#include <chrono>
#include <string>

namespace fleetsim::sim {

CollectiveTiming run_collective(const models::CollectivePlan& plan, const FabricSpec& fabric, bool full)
{
  const auto wall0 = std::chrono::steady_clock::now();
  auto engine = make_engine();
  const Fabric f = build_fabric(fabric);
  CollectiveShared shared;
  launch_collective(shared, plan, full, f.ranks);
  engine->run();

  CollectiveTiming t;
  t.pods = f.pods;
  t.fabric = describe_fabric(fabric, f);
  t.step_seconds = shared.step_seconds;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    t.time_s += shared.step_seconds[s] * static_cast<double>(plan.steps[s].repetitions);
    t.steps_simulated += full ? plan.steps[s].repetitions : 1;
  }
  t.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return t;
}

}  // namespace fleetsim::sim
