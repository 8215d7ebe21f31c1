#include "workload_builder.hpp"

#include "data_file.hpp"
#include "models/fleet/job_generator.hpp"
#include "models/fleet/job_trace.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>
#include <string_view>

namespace fleetsim::scenario::detail {
namespace {

// A job declared `runtime: replay` (JobSpec::replayed): the scenario's own job, run by the replay's
// actors from its start (it waits in the queue from its submit) to its token target (`tokens`) or
// the window's end (`work`: the tokens its step trains in that long at full speed); `count` copies
// of it, `every` apart, are as many replayed jobs. What the fleet's
// closed-form job model reads of a declared job does not apply to it: given, it is refused at its key.
void read_replayed(Reader& r, FleetJobDecl& d)
{
  const std::string base = "workload.jobs." + d.name + ".";
  d.job.replayed = true;
  d.job.preemptible = false;
  const char* not_read[] = {"priority",        "preemptible",     "deferrable",          "checkpoint_interval",
                            "checkpoint_cost", "checkpoint_size", "checkpoint_strategy", "restart_cost",
                            "recovery"};
  for (const char* key : not_read)
    if (r.given(base + key))
      r.error(base + key, "'" + base + key + "' does not apply to a replayed job (" + base +
                              "runtime: replay): it trains from its start to its tokens or the "
                              "window's end, and its checkpoints, restarts and recovery are the scenario's "
                              "(checkpoint.*, recovery.*): leave it out");
  if (r.has(base + "tokens") && r.has(base + "work"))
    r.error_at_first_given(
        {base + "work", base + "tokens"},
        "replayed job '" + d.name + "' trains to its tokens or for its work (at full speed): give one");
  if (r.has(base + "tokens"))
    d.job.tokens = r.number(base + "tokens");
  if (r.has(base + "work"))
    d.job.work = r.number(base + "work");
}

// The fleet's jobs (workload.jobs.<name>.*) and its scheduler.
void read_workload(Reader& r, const std::vector<ResolvedValue>& resolved, Scenario& s)
{
  const std::string prefix = "workload.jobs.";
  namespace mf = models::fleet;
  const double default_interval = r.number("workload.defaults.checkpoint_interval");
  const double default_cost = r.number("workload.defaults.checkpoint_cost");
  const double default_restart = r.number("workload.defaults.restart_cost");
  const std::string default_recovery = r.text("workload.defaults.recovery");
  s.workload.default_comm_fraction = r.number("workload.defaults.comm_fraction");
  s.workload.checkpoint_size_per_gpu = r.number("workload.defaults.checkpoint_size_per_gpu");
  for (const auto& v : resolved) {
    if (v.key.rfind(prefix, 0) != 0 || v.key.substr(v.key.rfind('.')) != ".count")
      continue;  // one pass per job, keyed on its always-present count
    const std::string name = v.key.substr(prefix.size(), v.key.rfind('.') - prefix.size());
    const std::string base = prefix + name + ".";
    FleetJobDecl d;
    d.name = name;
    d.count = r.integer(base + "count");
    d.every = r.number(base + "every");
    mf::JobSpec& j = d.job;
    j.id = name;
    j.origin = "workload.jobs." + name;
    j.submit = r.number(base + "submit");
    j.gpus = r.integer(base + "gpus");
    j.priority = static_cast<int>(r.integer(base + "priority"));
    j.preemptible = r.boolean(base + "preemptible");
    j.deferrable = r.number(base + "deferrable");
    j.checkpoint_interval = r.has(base + "checkpoint_interval") ? r.number(base + "checkpoint_interval")
                                                                : default_interval;
    j.checkpoint_cost = r.has(base + "checkpoint_cost") ? r.number(base + "checkpoint_cost") : default_cost;
    j.restart_cost = r.has(base + "restart_cost") ? r.number(base + "restart_cost") : default_restart;
    j.comm_fraction = r.has(base + "comm_fraction") ? r.number(base + "comm_fraction") : -1;  // -1: its default
    if (r.has(base + "checkpoint_size"))
      j.checkpoint_bytes = r.number(base + "checkpoint_size");
    j.checkpoint_async = r.text(base + "checkpoint_strategy") == "async";
    if (j.checkpoint_async && j.checkpoint_bytes <= 0)
      r.error(base + "checkpoint_strategy", "'" + base +
                                                "checkpoint_strategy: async' needs the job's checkpoint_size: its "
                                                "checkpoints must go through the storage to drain");
    std::string recovery = r.text(base + "recovery");
    if (recovery == "default")
      recovery = default_recovery;
    j.recovery = recovery == "in_place" ? mf::JobRecovery::InPlace : mf::JobRecovery::Requeue;
    if (r.text(base + "runtime") == "replay") {
      read_replayed(r, d);
      s.workload.jobs.push_back(std::move(d));
      continue;
    }
    const bool has_work = r.has(base + "work");
    const bool has_tokens = r.has(base + "tokens");
    if (has_work == has_tokens)
      r.error_at_first_given({base + "work", base + "tokens", base + "count"},
                             "fleet job '" + name + "' needs its work: give work (a duration) or tokens, not both");
    if (has_work)
      j.work = r.number(base + "work");
    if (has_tokens)
      d.tokens = r.number(base + "tokens");
    s.workload.jobs.push_back(std::move(d));
  }
}

// The job fields a trace or the generator does not give: workload.defaults.*.
models::fleet::JobSpec job_defaults(Reader& r)
{
  models::fleet::JobSpec d;
  d.checkpoint_interval = r.number("workload.defaults.checkpoint_interval");
  d.checkpoint_cost = r.number("workload.defaults.checkpoint_cost");
  d.restart_cost = r.number("workload.defaults.restart_cost");
  d.comm_fraction = r.number("workload.defaults.comm_fraction");
  d.recovery = r.text("workload.defaults.recovery") == "in_place" ? models::fleet::JobRecovery::InPlace
                                                                  : models::fleet::JobRecovery::Requeue;
  if (r.text("workload.defaults.runtime") == "replay") {
    d.replayed = true;
    d.work_job = true;
    d.preemptible = false;
  }
  return d;
}

std::vector<std::string> split_list(const std::string& text)
{
  std::vector<std::string> out;
  std::string item;
  for (std::stringstream in(text); std::getline(in, item, ',');) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty())
      out.push_back(item);
  }
  return out;
}

// workload.trace.*: the trace is read now, so that a bad row is a scenario error (file:line).
void read_trace(Reader& r, const std::string& file, Scenario& s)
{
  if (!r.has("workload.trace.file"))
    return;
  namespace mf = models::fleet;
  const auto data = read_data_file(r, "workload.trace.file", file);
  if (!data)
    return;
  mf::TraceOptions o;
  o.preset = r.text("workload.trace.preset") == "none" ? "" : r.text("workload.trace.preset");
  for (const std::string& f : mf::trace_field_names())
    if (r.has("workload.trace.columns." + f))
      o.columns[f] = r.text("workload.trace.columns." + f);
  o.time_unit = units::Seconds(r.number("workload.trace.time_unit"));
  o.gpus_per_node = s.fleet.gpus_per_node;
  o.keep_states = split_list(r.text("workload.trace.states"));
  o.defaults = job_defaults(r);
  mf::TraceLoad load = mf::load_trace_text(data->text, data->path, o);
  r.file_errors(load.errors);  // each at its line of the trace
  s.workload.trace_file = data->path;
  s.workload.trace_jobs = std::move(load.jobs);
  s.workload.trace_skipped = load.skipped_no_gpu + load.skipped_state;
}

// The whole of `text` as a number (from_chars: no locale, no trailing characters), or nullopt.
template <typename T>
std::optional<T> whole_number(std::string_view text)
{
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

// "1:0.6, 8:0.3" -> gang sizes and weights; false when malformed (each size a whole number, each
// weight a number, nothing else in the item: "8x:1" is not 8 GPUs), and `out` is then left as it was.
bool parse_gpu_weights(const std::string& text, std::vector<models::fleet::GpuWeight>& out)
{
  std::vector<models::fleet::GpuWeight> read;
  for (const std::string& item : split_list(text)) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos)
      return false;
    const std::string_view view(item);
    const auto g = whole_number<long>(view.substr(0, colon));
    const auto w = whole_number<double>(view.substr(colon + 1));
    if (!g || !w || *g <= 0 || !(*w >= 0))
      return false;
    read.push_back({*g, *w});
  }
  if (read.empty())
    return false;
  out = std::move(read);
  return true;
}

// workload.generator.*: a preset's laws, overridden key by key.
void read_generator(Reader& r, Scenario& s)
{
  namespace mf = models::fleet;
  const std::string g = "workload.generator.";
  const std::string preset = r.text(g + "preset");
  const bool given = preset != "none" || r.has(g + "jobs") || r.has(g + "window") || r.has(g + "arrivals_per_day");
  if (!given)
    return;
  mf::GeneratorSpec spec = preset != "none" ? mf::generator_preset(preset).value_or(mf::GeneratorSpec{})
                                            : mf::GeneratorSpec{};
  if (r.has(g + "jobs"))
    spec.jobs = r.integer(g + "jobs");
  else if (r.has(g + "window") || r.has(g + "arrivals_per_day"))
    spec.jobs = 0;  // a preset's job count is its trace's: a window or a rate of its own replaces it
  spec.window = units::Seconds(r.has(g + "window") ? r.number(g + "window") : r.number("run.duration"));
  if (r.has(g + "arrivals_per_day"))
    spec.rate = r.number(g + "arrivals_per_day") / 86400;
  else if (r.has(g + "jobs"))
    spec.rate = 0;  // jobs / window
  if (r.has(g + "arrival") || preset == "none")
    spec.arrival = r.text(g + "arrival") == "trace_shaped" ? mf::ArrivalProcess::TraceShaped
                                                           : mf::ArrivalProcess::Poisson;
  if (r.has(g + "hourly_weights")) {
    const auto items = split_list(r.text(g + "hourly_weights"));
    if (items.size() != 24)
      r.error(g + "hourly_weights",
              "workload.generator.hourly_weights needs 24 numbers, got " + std::to_string(items.size()));
    for (size_t h = 0; h < std::min<size_t>(24, items.size()); ++h) {
      const auto w = whole_number<double>(items[h]);
      if (!w)
        r.error(g + "hourly_weights", "workload.generator.hourly_weights: '" + items[h] + "' (hour " +
                                          std::to_string(h) + ") is not a number");
      spec.hourly_weights[h] = w.value_or(0);
    }
  }
  if (r.has(g + "gpus") && !parse_gpu_weights(r.text(g + "gpus"), spec.gpus))
    r.error(g + "gpus", "workload.generator.gpus must read \"gpus:weight, ...\" with positive GPUs, got '" +
                            r.text(g + "gpus") + "'");
  if (r.has(g + "duration") || preset == "none")
    spec.duration = r.text(g + "duration") == "weibull" ? mf::DurationLaw::Weibull : mf::DurationLaw::Lognormal;
  if (r.has(g + "median"))
    spec.median = units::Seconds(r.number(g + "median"));
  if (r.has(g + "sigma"))
    spec.sigma = r.number(g + "sigma");
  if (r.has(g + "shape"))
    spec.shape = r.number(g + "shape");
  if (r.has(g + "scale"))
    spec.scale = units::Seconds(r.number(g + "scale"));
  if (r.has(g + "max_duration"))
    spec.max_duration = units::Seconds(r.number(g + "max_duration"));
  if (r.has(g + "size_duration_correlation"))
    spec.size_duration_correlation = r.number(g + "size_duration_correlation");
  spec.defaults = job_defaults(r);
  for (const std::string& problem : mf::validate(spec))
    r.error_at_first_given({g + "jobs", g + "window", g + "arrivals_per_day", g + "gpus", g + "median", g + "preset"},
                           "workload.generator: " + problem);
  s.workload.generator = spec;
}

}  // namespace

void read_fleet(Reader& r, const std::vector<ResolvedValue>& resolved, const std::string& file, Scenario& s)
{
  read_workload(r, resolved, s);
  read_trace(r, file, s);
  read_generator(r, s);
}

namespace {

// A trace's or the generator's jobs on the runtime (workload.defaults.runtime: replay): what the
// runtime does not model for them yet is refused at the key.
void check_work_runtime(Reader& r, const Scenario& s)
{
  if (!r.has("workload.defaults.runtime") || r.text("workload.defaults.runtime") != "replay" ||
      (s.workload.trace_jobs.empty() && !s.workload.generator))
    return;
  if (s.scheduler.preemption != models::fleet::Preemption::None)
    r.error_at_first_given({"scheduler.preemption", "workload.defaults.runtime"},
                           "'scheduler.preemption' of the jobs on the replay's runtime "
                           "(workload.defaults.runtime: replay) is not modelled yet: leave it out, or run them "
                           "closed_form");
  if (s.fabric.fleet == FleetFabricMode::Shared)
    r.error_at_first_given({"network.fleet_fabric", "workload.defaults.runtime"},
                           "'network.fleet_fabric: shared' beside the jobs on the replay's runtime "
                           "(workload.defaults.runtime: replay) is not modelled yet (their flows are not on the "
                           "shared fabric): leave it out, or run the jobs closed_form");
  if (s.stragglers.episode_interval > 0 && s.stragglers.episode_speed < 1)
    r.error_at_first_given({"stragglers.episode_interval", "workload.defaults.runtime"},
                           "'stragglers.episode_interval': slowdown episodes beside the jobs on the replay's "
                           "runtime (workload.defaults.runtime: replay) are not modelled yet (each job would draw "
                           "them over the whole cluster): leave them out, or run the jobs closed_form");
  // The replay's node pool holds one job per node: a job of part of a node is not modelled there yet.
  const int gpn = s.fleet.gpus_per_node;
  std::vector<long> sizes;
  for (const auto& j : s.workload.trace_jobs)
    sizes.push_back(j.gpus);
  if (s.workload.generator)
    for (const auto& w : s.workload.generator->gpus)
      if (w.probability > 0)
        sizes.push_back(w.gpus);
  if (const auto part = std::find_if(sizes.begin(), sizes.end(), [gpn](long g) { return g % gpn != 0; });
      part != sizes.end())
    r.error_at_first_given({"workload.defaults.runtime"},
                           "'workload.defaults.runtime: replay' needs jobs of whole nodes: a job of " +
                               std::to_string(*part) + " GPUs on " + std::to_string(gpn) +
                               "-GPU nodes would share its node, which the replay's node pool does not model yet; "
                               "run the jobs closed_form");
  for (const auto& c : s.causes)
    if (c.scope == models::Scope::Storage)
      r.error_at_first_given({"failures.causes." + c.name + ".scope", "workload.defaults.runtime"},
                             "'failures.causes." + c.name +
                                 ".scope: storage' beside the jobs on the replay's "
                                 "runtime (workload.defaults.runtime: replay) is not modelled yet (each job would draw "
                                 "the storage's outages itself): give the cause another scope, or run the jobs "
                                 "closed_form");
}

}  // namespace

// Jobs that cannot fit the cluster (what a fleet does not model is refused by key: check_applies).
void check_fleet(Reader& r, const Scenario& s)
{
  const long cluster_gpus = s.fleet.gpus;
  const models::ParallelLayout& l = s.step.layout;
  const long layout_gpus = static_cast<long>(l.tp) * l.cp * l.pp * l.dp;
  const bool others = s.workload.jobs.size() > 1 || !s.workload.trace_jobs.empty() || s.workload.generator;
  const auto replayed_jobs = std::count_if(s.workload.jobs.begin(), s.workload.jobs.end(),
                                           [](const FleetJobDecl& d) { return d.job.replayed; });
  // Slowdown episodes strike nodes, but each replayed job draws them over the whole pool itself.
  if (replayed_jobs > 1 && s.stragglers.episode_interval > 0 && s.stragglers.episode_speed < 1)
    r.error_at_first_given({"stragglers.episode_interval"},
                           "'stragglers.episode_interval': slowdown episodes beside more than one replayed job "
                           "(workload.jobs.<name>.runtime: replay) are not modelled yet (each job would draw them "
                           "over the whole cluster); leave them out, or replay one job");
  check_work_runtime(r, s);
  // The shared fleet fabric is built at node resolution from the Clos's racks and pods
  // (simulator/platform/fleet_fabric.hpp); a rail-optimized fabric or a torus is not, yet.
  if (s.fabric.fleet == FleetFabricMode::Shared && s.fabric.topology != "clos")
    r.error_at_first_given({"network.fleet_fabric", "network.topology"},
                           "'network.fleet_fabric: shared' needs 'network.topology: clos' (a fleet's shared fabric is "
                           "built from its racks and pods at node resolution), not '" + s.fabric.topology + "'");
  // Training data is read at a job's token rate: only a job declared by tokens (or replayed) has one.
  if (s.data.bytes_per_token.si() > 0 &&
      std::none_of(s.workload.jobs.begin(), s.workload.jobs.end(),
                   [](const FleetJobDecl& d) { return d.tokens > 0 || d.job.replayed; }))
    r.error_at_first_given({"data.bytes_per_token"},
                           "'data.bytes_per_token' needs a job that trains tokens: in a fleet, a job declared by "
                           "tokens (workload.jobs.<name>.tokens) or replayed loads data; the others have no token rate");
  for (const auto& d : s.workload.jobs) {
    const std::string base = "workload.jobs." + d.name + ".";
    const long gpus = d.job.gpus > 0 ? d.job.gpus : layout_gpus;
    // A job declared by tokens trains at its layout's step speed: on other GPUs that speed is not its own.
    if (d.tokens > 0 && d.job.gpus > 0 && gpus != layout_gpus)
      r.error(base + "gpus", "'" + base + "gpus' (" + std::to_string(gpus) +
                                 ") disagrees with the layout whose step speed a job declared by tokens trains at "
                                 "(parallelism.tp x cp x pp x dp = " +
                                 std::to_string(layout_gpus) + "): leave it out, or give the job work instead");
    if (d.job.replayed && gpus != layout_gpus)
      r.error(base + "gpus", "'" + base + "gpus' (" + std::to_string(gpus) +
                                 ") disagrees with the layout a replayed job runs (parallelism.tp x cp x pp x dp = " +
                                 std::to_string(layout_gpus) + "): leave it out");
    // The storage is the fleet's: a replayed job draws its outages itself, which other jobs would
    // not see (the failures of nodes, racks and pods are drawn once for the whole fleet).
    if (d.job.replayed && others)
      for (const auto& c : s.causes)
        if (c.scope == models::Scope::Storage)
          r.error_at_first_given({"failures.causes." + c.name + ".scope"},
                                 "'failures.causes." + c.name + ".scope: storage': a replayed job (" + base +
                                     "runtime: replay) would share the storage with the fleet's other jobs, which "
                                     "is not modelled yet (its runtime draws the storage's outages itself); give "
                                     "the job a fleet of its own, or the cause another scope");
    // (A replayed job's GPUs are its layout's, which may be its own: check_replayed_fit, once built.)
    if (!d.job.replayed && gpus > cluster_gpus - s.capacity.spare_nodes * s.fleet.gpus_per_node)
      r.error_at_first_given({base + "gpus", "cluster.gpus", "spares.nodes"},
                             "fleet job '" + d.name + "' asks for " + std::to_string(gpus) +
                                 " GPUs, more than the cluster schedules (cluster.gpus less the spare nodes)");
  }
}

}  // namespace fleetsim::scenario::detail
