#include "metric_registry.hpp"

#include <cmath>
#include <deque>
#include <limits>

namespace fleetsim::metrics {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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
  auto read = [path = std::move(path), scale, absent](const nlohmann::json& j) {
    const double v = at_path(j, path, absent);
    return std::isnan(v) ? v : v * scale;
  };
  return Metric{std::move(name), std::move(unit), std::move(description), std::move(read), {}};
}

std::vector<Metric> builtins()
{
  constexpr double h = 1.0 / 3600;
  std::vector<Metric> v = {
      field("ettr", "", "effective training time ratio: productive time / elapsed time", {"ettr"}),
      field("goodput_ratio", "", "tokens trained / what the uniform full fleet would train in the window",
            {"goodput_ratio"}),
      field("tokens_trained", "tokens", "net tokens trained at the end of the window", {"tokens_trained"}),
      field("time_to_target_h", "h", "when run.token_target was reached for good (blank if not)",
            {"token_target", "time_to_target_s"}, h),
      field("target_reached", "", "1 if run.token_target was reached, else 0", {"token_target", "reached"}),
      field("unexpected_interruptions", "", "failures that stopped the job", {"interruptions", "unexpected"}),
  };
  for (const auto& term : models::kBreakdownTerms)
    v.push_back(field(std::string(term.name) + "_h", "h", std::string("time_breakdown_s.") + term.name + " in hours",
                      {"time_breakdown_s", term.name}, h));
  v.push_back(Metric{"lost_to_failures_h",
                     "h",
                     "time charged to the scenario's failure causes, in hours",
                     [](const nlohmann::json& j) {
                       double sum = 0;
                       if (j.contains("interruptions") && j["interruptions"].contains("by_cause"))
                         for (const auto& [cause, count] : j["interruptions"]["by_cause"].items())
                           sum += at_path(j, {"lost_time_by_cause_s", cause}, 0);
                       return sum / 3600;
                     },
                     {}});
  for (const char* k : {"stragglers", "elastic_shrink", "elastic_regrow"})
    v.push_back(field(std::string("lost_to_") + k + "_h", "h", std::string("lost_time_by_cause_s.") + k + " in hours",
                      {"lost_time_by_cause_s", k}, h, 0));
  for (const char* k :
       {"swaps", "spares_exhausted", "shrinks", "regrows", "memory_restores", "storage_restores", "nodes_retired"})
    v.push_back(
        field(k, "", std::string("recovery.") + k + " (0 when the policy does not report it)", {"recovery", k}, 1, 0));
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

std::string metric_names()
{
  std::string names;
  for (const auto& m : registry())
    names += (names.empty() ? "" : ", ") + m.name;
  return names;
}

bool register_metric(Metric m)
{
  if (m.name.empty() || !m.compute || find_metric(m.name) != nullptr)
    return false;
  if (!m.read)
    m.read = [name = m.name](const nlohmann::json& j) { return at_path(j, {"metrics", name}, kNaN); };
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
  static const std::vector<std::string> names = {"ettr",
                                                 "goodput_ratio",
                                                 "tokens_trained",
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
    std::vector<std::string> v = {"ettr",           "goodput_ratio",           "tokens_trained", "time_to_target_h",
                                  "target_reached", "unexpected_interruptions"};
    for (const auto& term : models::kBreakdownTerms)
      v.push_back(std::string(term.name) + "_h");
    return v;
  }();
  return names;
}

nlohmann::ordered_json registered_values(const RunFacts& run)
{
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& m : registry())
    if (m.registered()) {
      const auto v = m.compute(run);
      j[m.name] = v && std::isfinite(*v) ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
    }
  return j;
}

}  // namespace fleetsim::metrics
