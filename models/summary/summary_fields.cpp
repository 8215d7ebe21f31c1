#include "models/summary/summary_fields.hpp"

#include "models/accounting/goodput.hpp"
#include "models/accounting/trace_records.hpp"
#include "models/energy/power_model.hpp"
#include "models/fleet/fleet_summary.hpp"
#include "models/summary/fleet_summary_fields.hpp"
#include "models/summary/run_energy_fields.hpp"
#include "models/summary/run_summary_fields.hpp"
#include "models/summary/step_fields.hpp"

namespace fleetsim::models::summary {

std::string path(std::initializer_list<const char*> keys)
{
  std::string out;
  for (const char* k : keys)
    out.append(out.empty() ? "" : ".").append(k);
  return out;
}

const Field* find_field(Fields fields, std::string_view key)
{
  for (const Field* f : fields)
    if (key == f->key)
      return f;
  return nullptr;
}

const Field* find_path(Fields root, std::string_view dotted)
{
  const Field* at = nullptr;
  Fields fields = root;
  bool in_map = false;  // the next key is a map's: any name
  while (!dotted.empty()) {
    const size_t dot = dotted.find('.');
    const std::string_view key = dotted.substr(0, dot);
    dotted = dot == std::string_view::npos ? std::string_view() : dotted.substr(dot + 1);
    if (in_map) {
      in_map = false;
      if (at->items != Type::Object)
        return dotted.empty() ? at : nullptr;
      fields = at->fields;
      continue;
    }
    at = find_field(fields, key);
    if (at == nullptr)
      return nullptr;
    in_map = at->type == Type::Map || at->type == Type::Array;
    fields = at->fields;
  }
  return at;
}

std::vector<std::string> energy::component_names()
{
  std::vector<std::string> out;
  for (models::energy::GpuState st : models::energy::kAllGpuStates)
    out.push_back(component::kGpuPrefix + std::string(models::energy::gpu_state_name(st)));
  for (const char* name :
       {component::kPowerFloor, component::kNode, component::kNetwork, component::kStorage, component::kOverhead})
    out.emplace_back(name);
  return out;
}

std::vector<std::string> run::breakdown_names()
{
  std::vector<std::string> out;
  for (const auto& term : kBreakdownTerms)
    out.emplace_back(term.name);
  return out;
}

std::vector<std::string> run::energy::phase_names()
{
  std::vector<std::string> out;
  for (Phase p : kPhases)
    out.emplace_back(phase_name(p));
  return out;
}

std::vector<std::string> fleet::size_class_names()
{
  std::vector<std::string> out;
  for (const auto& c : models::fleet::kSizeClasses)
    out.emplace_back(c.name);
  return out;
}

namespace {

constexpr const Field* kRunFields[] = {&kScenario,
                                       &run::kScenarioFile,
                                       &kUnusedKeys,
                                       &kSeed,
                                       &run::kGpus,
                                       &run::kSimulatedTimeS,
                                       &run::kEttr,
                                       &run::kGoodputRatio,
                                       &run::kTokensTrained,
                                       &run::kStepsTrained,
                                       &run::kStepTimeS,
                                       &run::kMfu,
                                       &run::kInterruptions,
                                       &run::kTimeBreakdownS,
                                       &run::kLostTimeByCauseS,
                                       &run::kRecovery,
                                       &run::kCheckpoints,
                                       &run::kEnergy,
                                       &run::kTokenTarget,
                                       &kStep,
                                       &kMemory,
                                       &run::kStragglers,
                                       &run::kHeterogeneous,
                                       &kMetrics,
                                       &kWallTimeS};

constexpr const Field* kFleetFields[] = {&kScenario,
                                         &fleet::kKind,
                                         &kUnusedKeys,
                                         &kSeed,
                                         &fleet::kWindowDays,
                                         &fleet::kCluster,
                                         &fleet::kScheduler,
                                         &fleet::kJobs,
                                         &fleet::kUtilisation,
                                         &fleet::kGpuHours,
                                         &fleet::kGoodputGpuHours,
                                         &fleet::kWaitS,
                                         &fleet::kWaitSByGpus,
                                         &fleet::kBoundedSlowdown,
                                         &fleet::kFragmentation,
                                         &fleet::kRacksSpannedMean,
                                         &fleet::kFabric,
                                         &kMemory,
                                         &fleet::kFailures,
                                         &fleet::kInterruptions,
                                         &fleet::kFailuresOnIdleNodes,
                                         &fleet::kPreemptions,
                                         &fleet::kRequeues,
                                         &fleet::kInPlaceRecoveries,
                                         &fleet::kRepairs,
                                         &fleet::kEnergy,
                                         &fleet::kCarbonAware,
                                         &kMetrics,
                                         &fleet::kReplayedJobs,
                                         &kWallTimeS};

}  // namespace

Fields run::fields() { return kRunFields; }
Fields fleet::fields() { return kFleetFields; }

}  // namespace fleetsim::models::summary
