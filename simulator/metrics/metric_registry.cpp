#include "metric_registry.hpp"

#include "models/fleet/fleet_summary.hpp"
#include "models/summary/fleet_summary_fields.hpp"
#include "models/summary/run_energy_fields.hpp"
#include "models/summary/run_summary_fields.hpp"

#include <cmath>
#include <deque>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace fleetsim::metrics {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
namespace ms = models::summary;
namespace sr = models::summary::run;
namespace sf = models::summary::fleet;

// The value at `path` in a summary; `absent` when a key is missing or the value is not a number.
double at_path(const nlohmann::json& j, const std::vector<std::string>& path, double absent)
{
  const nlohmann::json* at = &j;
  for (const auto& k : path) {
    if (!at->is_object() || !at->contains(k))
      return absent;
    at = &(*at)[k];
  }
  if (at->is_boolean())
    return at->get<bool>() ? 1 : 0;
  return at->is_number() ? at->get<double>() : absent;
}

// A field of summary.json, times `scale`; `absent` when the run does not have it.
Metric field(std::string name, std::string unit, std::string description, std::vector<std::string> path,
             double scale = 1, double absent = kNaN)
{
  std::string dotted;
  for (const auto& k : path)
    dotted += (dotted.empty() ? "" : ".") + k;
  auto read = [path = std::move(path), scale, absent](const nlohmann::json& j) {
    const double v = at_path(j, path, absent);
    return std::isnan(v) ? v : v * scale;
  };
  Metric m;
  m.name = std::move(name);
  m.unit = std::move(unit);
  m.description = std::move(description);
  m.read = std::move(read);
  m.path = std::move(dotted);
  m.scale = scale;
  return m;
}

// A fleet's summary (simulator/output/fleet_outputs.cpp): absent (NaN) in a single-job run's.
void append_fleet_metrics(std::vector<Metric>& v)
{
  constexpr double h = 1.0 / 3600;
  namespace gh = sf::gpu_hours;
  namespace di = sf::distribution;
  v.push_back(field("allocated_utilisation", "", "fleet: GPU-time held by jobs / the cluster's GPU-time",
                    {sf::kUtilisation.key, sf::utilisation::kAllocated.key}));
  v.push_back(field("productive_utilisation", "", "fleet: productive GPU-time / the cluster's GPU-time",
                    {sf::kUtilisation.key, sf::utilisation::kProductive.key}));
  v.push_back(field("goodput_gpu_h", "GPU-h", "fleet: productive GPU-hours", {sf::kGoodputGpuHours.key}));
  v.push_back(field("lost_gpu_h", "GPU-h",
                    "fleet: GPU-hours held but lost (checkpoints, start-ups, preemption, failures)",
                    {sf::kGpuHours.key, gh::kLost.key}));
  for (const char* cause : {"checkpoint", "startup", "preemption"})
    v.push_back(field(std::string("lost_") + cause + "_gpu_h", "GPU-h",
                      std::string("fleet: gpu_hours.lost_by_cause.") + cause,
                      {sf::kGpuHours.key, gh::kLostByCause.key, cause}, 1, 0));
  for (const ms::Field* q : {&di::kMean, &di::kP50, &di::kP99})
    v.push_back(field(std::string("wait_") + q->key + "_h", "h",
                      std::string("fleet: queueing delay, ") + q->key + ", in hours", {sf::kWaitS.key, q->key}, h));
  // The metrics' names of the size classes (models/fleet/fleet_summary.hpp kSizeClasses), in their order.
  constexpr const char* suffixes[] = {"1gpu", "2_8", "9_64", "65_512", "513plus"};
  static_assert(std::size(suffixes) == std::size(models::fleet::kSizeClasses));
  for (size_t i = 0; i < std::size(suffixes); ++i) {
    const char* key = models::fleet::kSizeClasses[i].name;
    v.push_back(field(std::string("wait_p99_h_") + suffixes[i], "h",
                      std::string("fleet: p99 queueing delay of jobs of ") + key + " GPUs, in hours",
                      {sf::kWaitSByGpus.key, key, di::kP99.key}, h));
  }
  v.push_back(field("bounded_slowdown_mean", "", "fleet: mean of (wait + run) / max(run, 10 s) over finished jobs",
                    {sf::kBoundedSlowdown.key, di::kMean.key}));
  v.push_back(field("fragmentation", "", "fleet: idle GPU-time while jobs wait / the cluster's GPU-time",
                    {sf::kFragmentation.key, sf::fragmentation::kFractionOfCapacity.key}));
  v.push_back(
      field("jobs_finished", "", "fleet: jobs finished in the window", {sf::kJobs.key, sf::jobs::kFinished.key}));
  v.push_back(field("jobs_waiting_at_end", "", "fleet: jobs still waiting when the window closed",
                    {sf::kJobs.key, sf::jobs::kWaitingAtEnd.key}));
  v.push_back(field("job_interruptions", "", "fleet: failures that interrupted a job", {sf::kInterruptions.key}));
  v.push_back(field("preemptions", "", "fleet: jobs preempted", {sf::kPreemptions.key}));
}

// Energy and power (simulator/output/energy_outputs.cpp): a run's and, where the fleet writes the
// same keys, a fleet's.
void append_energy_metrics(std::vector<Metric>& v)
{
  namespace en = ms::energy;
  namespace re = sr::energy;
  const char* energy = en::kKey;
  v.push_back(field("step_time_s", "s", "the full job's training step", {sr::kStepTimeS.key}));
  v.push_back(field("mfu", "", "model FLOPs utilisation of the step", {sr::kMfu.key}));
  v.push_back(field("energy_mwh", "MWh", "the facility's energy over the window", {energy, en::kFacilityMwh.key}));
  v.push_back(field("it_energy_mwh", "MWh", "the IT equipment's energy (facility without the PUE overhead)",
                    {energy, en::kItMwh.key}));
  v.push_back(
      field("energy_per_token_j", "J", "facility energy per net token trained", {energy, re::kJoulesPerToken.key}));
  v.push_back(field("mean_power_mw", "MW", "the facility's mean power", {energy, en::kMeanMw.key}));
  v.push_back(field("peak_power_mw", "MW", "the facility's highest power over a timeline row",
                    {energy, re::kPeakMw.key, en::kMw.key}));
  v.push_back(field("step_swing_mw", "MW", "the facility's swing inside a training step (compute against communicate)",
                    {energy, re::kStepSwingMw.key}));
  v.push_back(field("operational_carbon_t", "t", "operational carbon over the grid's profile (blank without one)",
                    {energy, en::kCarbon.key, ms::carbon::kOperationalT.key}));
  v.push_back(field("embodied_carbon_t", "t", "the hardware's embodied carbon amortised over the window",
                    {energy, en::kCarbon.key, ms::carbon::kEmbodiedT.key}));
  v.push_back(field("power_floor_mwh", "MWh", "energy the power floor burnt above the GPUs' own draw",
                    {energy, en::kByComponentMwh.key, en::component::kPowerFloor}, 1, 0));
}

std::vector<Metric> builtins()
{
  constexpr double h = 1.0 / 3600;
  namespace in = sr::interruptions;
  namespace tt = sr::token_target;
  std::vector<Metric> v = {
      field(sr::kEttr.key, "", sr::kEttr.doc, {sr::kEttr.key}),
      field(sr::kGoodputRatio.key, "", sr::kGoodputRatio.doc, {sr::kGoodputRatio.key}),
      field(sr::kTokensTrained.key, "tokens", "net tokens trained at the end of the window", {sr::kTokensTrained.key}),
      field("time_to_target_h", "h", "when run.token_target was reached for good (blank if not)",
            {sr::kTokenTarget.key, tt::kTimeToTargetS.key}, h),
      field("target_reached", "", "1 if run.token_target was reached, else 0",
            {sr::kTokenTarget.key, tt::kReached.key}),
      field("unexpected_interruptions", "", in::kUnexpected.doc, {sr::kInterruptions.key, in::kUnexpected.key}),
      field("planned_interruptions", "", in::kPlanned.doc, {sr::kInterruptions.key, in::kPlanned.key}),
  };
  for (const auto& term : models::kBreakdownTerms)
    v.push_back(field(std::string(term.name) + "_h", "h",
                      std::string(sr::kTimeBreakdownS.key) + "." + term.name + " in hours",
                      {sr::kTimeBreakdownS.key, term.name}, h));
  v.push_back(Metric{"lost_to_failures_h",
                     "h",
                     "time charged to the scenario's failure causes, in hours",
                     [](const nlohmann::json& j) {
                       double sum = 0;
                       const char* key = sr::kInterruptions.key;
                       if (j.contains(key) && j[key].contains(in::kByCause.key))
                         for (const auto& [cause, count] : j[key][in::kByCause.key].items())
                           sum += at_path(j, {sr::kLostTimeByCauseS.key, cause}, 0);
                       return sum / 3600;
                     },
                     {}, nullptr, "", 1});
  for (const char* k : {"stragglers", "elastic_shrink", "elastic_regrow"})
    v.push_back(field(std::string("lost_to_") + k + "_h", "h",
                      std::string(sr::kLostTimeByCauseS.key) + "." + k + " in hours", {sr::kLostTimeByCauseS.key, k}, h,
                      0));
  // The recovery counters: the restart's and, for the others, those the policies report (their names
  // are the policies': models/resilience/recovery/).
  for (const char* k : {sr::recovery::kSwaps.key, sr::recovery::kSparesExhausted.key, "shrinks", "regrows",
                        "memory_restores", "storage_restores", sr::recovery::kNodesRetired.key})
    v.push_back(field(k, "", std::string(sr::kRecovery.key) + "." + k + " (0 when the policy does not report it)",
                      {sr::kRecovery.key, k}, 1, 0));
  append_energy_metrics(v);
  append_fleet_metrics(v);
  return v;
}

std::deque<Metric>& registry()
{
  // A deque: registering a metric never moves the others (find_metric hands out pointers).
  static std::deque<Metric> metrics = [] {
    auto v = builtins();
    return std::deque<Metric>(v.begin(), v.end());
  }();
  return metrics;
}

}  // namespace

const std::deque<Metric>& all_metrics() { return registry(); }

const Metric* find_metric(std::string_view name)
{
  for (const auto& m : registry())
    if (m.name == name)
      return &m;
  return nullptr;
}

MetricField metric_field(std::string_view name)
{
  const Metric* m = find_metric(name);
  if (m == nullptr || m->path.empty())
    throw std::logic_error("metric '" + std::string(name) + "' is not a field of summary.json");
  return {m->path, m->scale};
}

std::string metric_names()
{
  std::string names;
  for (const auto& m : registry())
    names += (names.empty() ? "" : ", ") + m.name;
  return names;
}

bool register_metric(Metric m)
{
  if (m.name.empty() || !m.registered() || find_metric(m.name) != nullptr)
    return false;
  if (!m.read) {
    m.read = [name = m.name](const nlohmann::json& j) { return at_path(j, {ms::kMetrics.key, name}, kNaN); };
    m.path = std::string(ms::kMetrics.key) + "." + m.name;
    m.scale = 1;
  }
  registry().push_back(std::move(m));
  return true;
}

std::vector<const Metric*> default_metrics(const std::vector<std::string>& builtin_names)
{
  std::vector<const Metric*> out;
  for (const auto& name : builtin_names)
    if (const Metric* m = find_metric(name))
      out.push_back(m);
  for (const auto& m : registry())
    if (m.registered())
      out.push_back(&m);
  return out;
}

const std::vector<std::string>& compare_defaults()
{
  static const std::vector<std::string> names = {sr::kEttr.key,
                                                 sr::kGoodputRatio.key,
                                                 sr::kTokensTrained.key,
                                                 "unexpected_interruptions",
                                                 "detection_h",
                                                 "restart_h",
                                                 "reload_h",
                                                 "warmup_h",
                                                 "waiting_h",
                                                 "lost_work_h",
                                                 "checkpoint_h",
                                                 "planned_h",
                                                 "lost_to_failures_h",
                                                 "lost_to_stragglers_h",
                                                 "lost_to_elastic_shrink_h",
                                                 "lost_to_elastic_regrow_h",
                                                 "swaps",
                                                 "spares_exhausted",
                                                 "shrinks",
                                                 "regrows",
                                                 "memory_restores",
                                                 "storage_restores",
                                                 "nodes_retired"};
  return names;
}

const std::vector<std::string>& sweep_defaults()
{
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = {sr::kEttr.key,      sr::kGoodputRatio.key, sr::kTokensTrained.key,
                                  "time_to_target_h", "target_reached",      "unexpected_interruptions"};
    for (const auto& term : models::kBreakdownTerms)
      v.push_back(std::string(term.name) + "_h");
    return v;
  }();
  return names;
}

const std::vector<std::string>& fleet_compare_defaults()
{
  static const std::vector<std::string> names = {"allocated_utilisation",
                                                 "productive_utilisation",
                                                 "goodput_gpu_h",
                                                 "lost_gpu_h",
                                                 "lost_checkpoint_gpu_h",
                                                 "lost_startup_gpu_h",
                                                 "lost_preemption_gpu_h",
                                                 "wait_mean_h",
                                                 "wait_p50_h",
                                                 "wait_p99_h",
                                                 "wait_p99_h_1gpu",
                                                 "wait_p99_h_2_8",
                                                 "wait_p99_h_9_64",
                                                 "wait_p99_h_65_512",
                                                 "wait_p99_h_513plus",
                                                 "bounded_slowdown_mean",
                                                 "fragmentation",
                                                 "jobs_finished",
                                                 "jobs_waiting_at_end",
                                                 "job_interruptions",
                                                 "preemptions"};
  return names;
}

const std::vector<std::string>& fleet_sweep_defaults() { return fleet_compare_defaults(); }

namespace {

// Each registered metric's value for a run of one kind: null when it has no value, or no
// computation for this kind of run.
template <class Facts, class Compute>
nlohmann::ordered_json values(const Facts& facts, Compute Metric::*compute)
{
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& m : registry())
    if (m.registered()) {
      const auto v = m.*compute ? (m.*compute)(facts) : std::nullopt;
      j[m.name] = v && std::isfinite(*v) ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
    }
  return j;
}

}  // namespace

nlohmann::ordered_json registered_values(const RunFacts& run) { return values(run, &Metric::compute); }

nlohmann::ordered_json registered_values(const FleetFacts& fleet) { return values(fleet, &Metric::compute_fleet); }

}  // namespace fleetsim::metrics
