#include "parameter_table.hpp"
#include "key_facts.hpp"
#include "parameter_specs.hpp"

#include "models/resilience/recovery_policy.hpp"

#include <algorithm>
#include <cstdio>

namespace fleetsim::scenario {
namespace {

using units::Dimension;
using namespace detail;  // the spec builders and the sections (parameter_specs.hpp)

// The table in the order `fleetsim describe` and docs/scenario-reference.md list it. The sections
// with many keys are declared in files of their own (job_, resilience_, fleet_, step_ and
// power_parameters.cpp); the run's keys and the fleet's carbon-aware scheduling are here.
std::vector<ParamSpec> build_table()
{
  const auto T = Dimension::Time;
  std::vector<ParamSpec> table;
  for (auto* section : {&job_parameters, &resilience_parameters, &fleet_parameters})
    for (ParamSpec& p : section())
      table.push_back(std::move(p));
  const std::vector<ParamSpec> more = {
      quantity("run.duration", T, "54d", "simulated window").into([](auto& s) -> auto& { return s.duration; }),
      real("run.token_target", "0",
           "tokens to train (e.g. 15.6e12): summary.json reports when the net tokens trained reached them for good "
           "(time_to_target); 0 = no target. The run still lasts run.duration: make it long enough",
           0.0, false, std::nullopt)
          .job_only()
          .into([](auto& s) -> auto& { return s.token_target; }),
      integer("run.seed", "1", "root random seed (overridden by --seed)", 0, 9.007199254740992e15).into([
      ](auto& s) -> auto& { return s.seed; }),
      choice("run.step_model", "simulated",
             "source of the step time: one iteration simulated on the fabric (cached), or the alpha-beta formulas",
             {"simulated", "analytic"})
          .when(facts::step_runs())
          .into([](auto& s) -> auto& { return s.step_model; }),

      // ---- a fleet's carbon-aware scheduling (docs/models/energy.md)
      flag("scheduler.carbon_aware", "false",
           "fleet: a deferrable job starts at the hour, within its deferrable delay, whose grid intensity over its "
           "run is lowest (needs power.carbon.intensity)")
          .when(given("power.carbon.intensity", "no grid profile"))
          .when(facts::a_job_is_deferrable())
          .fleet_only()
          .into([](auto& s) -> auto& { return s.scheduler.carbon_aware; }),
      quantity("workload.jobs.<name>.deferrable", T, "0s",
               "how long the job may wait past its submit for a cleaner grid (scheduler.carbon_aware; 0: not "
               "deferrable)",
               0.0, false)
          .when(is("scheduler.carbon_aware", {"true"}))
          .fleet_only(),
  };
  table.insert(table.end(), more.begin(), more.end());
  for (ParamSpec& p : step_detail_parameters())
    table.push_back(std::move(p));
  for (ParamSpec& p : power_parameters())
    table.push_back(std::move(p));
  // Each recovery policy's own keys, declared in its file (models/resilience/recovery/), after
  // recovery.policy; registered policies' too: the table is built on first use, after start-up.
  auto at = std::find_if(table.begin(), table.end(), [](const ParamSpec& p) { return p.key == "recovery.policy"; });
  at = at == table.end() ? at : at + 1;
  // A policy's keys are read under that policy only, and only when something stops the job.
  for (const std::string& name : models::recovery_policy_names())
    for (const auto& key : models::find_recovery_policy(name)->keys)
      at = table.insert(at, declared_key(
                                key, [](auto& s) -> auto& { return s.recovery; })
                                .job_only()
                                .when(is("recovery.policy", {name}))
                                .when(facts::interrupted())) +
           1;
  return table;
}

bool matches(std::string_view pattern, std::string_view key)
{
  while (true) {
    auto pdot = pattern.find('.');
    auto kdot = key.find('.');
    std::string_view pseg = pattern.substr(0, pdot);
    std::string_view kseg = key.substr(0, kdot);
    if (pseg != kseg && !(pseg == "<name>" && !kseg.empty()))
      return false;
    if (pdot == std::string_view::npos || kdot == std::string_view::npos)
      return pdot == kdot;
    pattern.remove_prefix(pdot + 1);
    key.remove_prefix(kdot + 1);
  }
}

// Does `pattern` start with the segments of `prefix` (wildcards matching)? Returns the rest.
std::optional<std::string_view> strip_prefix(std::string_view pattern, std::string_view prefix)
{
  if (prefix.empty())
    return pattern;
  while (!prefix.empty()) {
    auto pdot = pattern.find('.');
    if (pdot == std::string_view::npos)
      return std::nullopt;  // pattern is a leaf at this depth
    auto kdot = prefix.find('.');
    std::string_view pseg = pattern.substr(0, pdot);
    std::string_view kseg = prefix.substr(0, kdot);
    if (pseg != kseg && pseg != "<name>")
      return std::nullopt;
    pattern.remove_prefix(pdot + 1);
    prefix = kdot == std::string_view::npos ? std::string_view{} : prefix.substr(kdot + 1);
  }
  return pattern;
}

std::string format_number(double v)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

const std::vector<ParamSpec>& parameter_table()
{
  static const std::vector<ParamSpec> table = build_table();
  return table;
}

std::vector<std::pair<std::string, std::string>> preset_values(std::string_view preset)
{
  if (preset == "llama3")  // [L3] section 3.3.1 and shared/reference/published.md
    return {{"cluster.gpus_per_node", "8"},       {"cluster.gpus_per_rack", "16"},
            {"network.topology", "clos"},         {"network.rack_oversubscription", "1"},
            {"network.pod_size", "3072"},         {"network.pod_oversubscription", "7"},
            {"network.nic_bandwidth", "400Gbps"}, {"network.nvlink_bandwidth", "450GB/s"}};
  return {};
}

const ParamSpec* find_param(std::string_view key)
{
  for (const auto& p : parameter_table())
    if (matches(p.key, key))
      return &p;
  return nullptr;
}

std::vector<std::string> children_of(std::string_view prefix)
{
  std::vector<std::string> out;
  for (const auto& p : parameter_table()) {
    auto rest = strip_prefix(p.key, prefix);
    if (!rest)
      continue;
    std::string child(rest->substr(0, rest->find('.')));
    bool seen = false;
    for (const auto& c : out)
      seen = seen || c == child;
    if (!seen)
      out.push_back(child);
  }
  return out;
}

bool is_section(std::string_view prefix)
{
  for (const auto& p : parameter_table()) {
    auto rest = strip_prefix(p.key, prefix);
    if (rest && !rest->empty())
      return true;
  }
  return false;
}

std::vector<std::string> choices_of(const ParamSpec& spec)
{
  return spec.choices_from != nullptr ? spec.choices_from() : spec.choices;
}

std::string condition_description(const Condition& c)
{
  using Test = Condition::Test;
  switch (c.test) {
    case Test::OneOf: {
      std::string values;
      for (size_t i = 0; i < c.values.size(); ++i)
        values += (i == 0 ? "" : i + 1 == c.values.size() ? " or " : ", ") + c.values[i];
      return c.key + (c.negated ? " is not " : " is ") + values;
    }
    case Test::Above:
      if (c.negated)
        return c.key + (c.threshold == 0 ? std::string(" is 0") : " <= " + format_number(c.threshold));
      return c.key + " > " + format_number(c.threshold);
    case Test::Below: return c.key + (c.negated ? " >= " : " < ") + format_number(c.threshold);
    case Test::Given: return c.key + (c.negated ? " is not given" : " is given");
    case Test::Fact: return c.fact;
  }
  return {};
}

std::string read_when_description(const ParamSpec& spec)
{
  std::string out;
  for (const auto& alternative : spec.read_when) {
    std::string all;
    for (const Condition& c : alternative)
      all += (all.empty() ? "" : " and ") + condition_description(c);
    out += (out.empty() ? "" : "; or ") + all;
  }
  return out;
}

std::string_view applies_name(Applies a)
{
  switch (a) {
    case Applies::Job: return "job";
    case Applies::Fleet: return "fleet";
    case Applies::Both: break;
  }
  return "both";
}

std::string kind_description(const ParamSpec& spec)
{
  switch (spec.kind) {
    case Kind::Int: return "integer";
    case Kind::Float: return "number";
    case Kind::Bool: return "boolean";
    case Kind::String: return "string";
    case Kind::Enum: {
      std::string s = "one of:";
      for (const auto& c : choices_of(spec))
        s += " " + c;
      return s;
    }
    case Kind::Quantity: return std::string(units::dimension_name(spec.dimension));
  }
  return "?";
}

std::string range_description(const ParamSpec& spec)
{
  auto fmt = [&](double v) {
    return spec.kind == Kind::Quantity ? units::format_quantity(v, spec.dimension) : format_number(v);
  };
  std::string s;
  if (spec.min)
    s += (spec.min_exclusive ? "> " : ">= ") + fmt(*spec.min);
  if (spec.max)
    s += (s.empty() ? "" : ", ") + std::string("<= ") + fmt(*spec.max);
  return s;
}

}  // namespace fleetsim::scenario
