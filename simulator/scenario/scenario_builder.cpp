#include "scenario_builder.hpp"

#include "carbon_builder.hpp"
#include "kernel_table_builder.hpp"
#include "key_usage.hpp"
#include "parameter_table.hpp"
#include "scenario_reader.hpp"
#include "workload_builder.hpp"

#include "models/step/iteration_plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace fleetsim::scenario {
namespace {

using detail::Reader;

// The step input no declaration binds: the torus shape.
void read_step_inputs(Reader& r, Scenario& s)
{
  (void)r.text("network.preset");  // validated here; the loader already put its values in place
  const std::string dims = r.text("network.torus_dims");
  if (!dims.empty()) {
    // XxYxZ: positive integers separated by 'x'.
    bool ok = true;
    for (size_t start = 0; ok && start <= dims.size();) {
      const size_t end = std::min(dims.find('x', start), dims.size());
      int d = 0;
      auto [p, ec] = std::from_chars(dims.data() + start, dims.data() + end, d);
      ok = ec == std::errc() && p == dims.data() + end && d >= 1;
      if (ok)
        s.fabric.torus_dims.push_back(d);
      start = end + 1;
    }
    if (!ok || s.fabric.torus_dims.size() > 3) {
      r.error("network.torus_dims",
              "network.torus_dims must be one to three positive integers like 16x16x64 (got '" + dims + "')");
      s.fabric.torus_dims.clear();
    }
  }
  // NVLink islands for the step's collectives (data-parallel rings per NIC): a Clos fabric's nodes.
  const bool islands = s.fabric.topology != "torus" && s.step.fabric.nvlink_bandwidth.si() > 0;
  s.step.fabric.gpus_per_node = islands ? s.fleet.gpus_per_node : 1;
}

void read_causes(Reader& r, const std::vector<ResolvedValue>& resolved, Scenario& s)
{
  const std::string prefix = "failures.causes.";
  const auto ref_window = units::Seconds(r.number("failures.reference_window"));
  const long ref_gpus = r.integer("failures.reference_gpus");
  for (const auto& v : resolved) {
    if (v.key.rfind(prefix, 0) != 0 || v.key.substr(v.key.rfind('.')) != ".scope")
      continue;  // one pass per cause, keyed on its always-present scope
    const std::string name = v.key.substr(prefix.size(), v.key.rfind('.') - prefix.size());
    const std::string base = prefix + name + ".";
    models::FailureCause c;
    c.name = name;
    c.category = r.text(base + "category");
    c.scope = models::scope_from_name(r.text(base + "scope")).value_or(models::Scope::Gpu);
    c.reference_window = ref_window;
    c.reference_gpus = ref_gpus;
    c.scales_with_fleet = r.boolean(base + "scales_with_fleet");
    if (r.has(base + "count"))
      c.count = r.number(base + "count");
    if (r.has(base + "mtbf"))
      c.component_mtbf = units::Seconds(r.number(base + "mtbf"));
    if (r.has(base + "detection"))
      c.detection = units::Seconds(r.number(base + "detection"));
    if (r.has(base + "repair"))
      c.repair = units::Seconds(r.number(base + "repair"));
    const std::string detected_by = r.text(base + "detected_by");
    c.hang = detected_by == "watchdog" || (detected_by == "auto" && c.scope.model().hangs());
    std::vector<std::string> cause_keys;
    for (const char* k :
         {"mtbf", "count", "scope", "category", "scales_with_fleet", "detection", "repair", "detected_by"})
      cause_keys.push_back(base + k);
    if (c.count && c.component_mtbf)
      r.error_at_first_given(cause_keys, "failure cause '" + name + "' gives both count and mtbf; keep one");
    else if (!c.count && !c.component_mtbf)
      r.error_at_first_given(cause_keys,
                             "failure cause '" + name + "' needs a rate: count (over the reference window) or mtbf");
    s.causes.push_back(std::move(c));
  }
}

// GPUs the scenario's model and layout run on: the cluster, or in a fleet the layout's own.
long job_model_gpus(const Scenario& s)
{
  const models::ParallelLayout& l = s.step.layout;
  return s.is_fleet() ? static_cast<long>(l.tp) * l.cp * l.pp * l.dp : s.fleet.gpus;
}

// The layout rules involve many keys; each problem is reported at the first one the scenario sets.
// Returns whether there was any.
bool check_layout(Reader& r, const Scenario& s)
{
  const std::vector<std::string> layout_keys = {"parallelism.dp",
                                                "parallelism.tp",
                                                "parallelism.pp",
                                                "parallelism.virtual_stages",
                                                "parallelism.cp",
                                                "model.attention_heads",
                                                "model.kv_heads",
                                                "parallelism.ep",
                                                "model.experts",
                                                "model.experts_per_token",
                                                "model.expert_parameters",
                                                "cluster.gpus",
                                                "model.global_batch_tokens",
                                                "model.sequence_length",
                                                "model.micro_batch_size",
                                                "model.layers",
                                                "network.nvlink_bandwidth",
                                                "network.nic_bandwidth"};
  // A fleet's model and layout are those of its token-target jobs, on GPUs of their own.
  const auto layout_problems = models::check_step_inputs(s.step, job_model_gpus(s));
  for (const auto& msg : layout_problems) {
    // Point at the keys the message is about first, then at the layout in general.
    std::vector<std::string> keys;
    if (msg.find("expert") != std::string::npos)
      keys = {"model.experts", "model.experts_per_token", "model.expert_parameters", "parallelism.ep"};
    else if (msg.find("heads") != std::string::npos)
      keys = {"model.attention_heads", "model.kv_heads"};
    else if (msg.find("does not fit in HBM") != std::string::npos)
      keys = {"accelerator.memory_check", "accelerator.memory"};
    else if (msg.find("multiple of cp") != std::string::npos)
      keys = {"parallelism.cp", "model.sequence_length"};
    else if (msg.find("embedding chunks") != std::string::npos)
      keys = {"parallelism.embedding_chunks"};
    keys.insert(keys.end(), layout_keys.begin(), layout_keys.end());
    r.error_at_first_given(keys, msg);
  }
  return !layout_problems.empty();
}

// What run.step_model: simulated can simulate.
void check_simulated_step(Reader& r, const Scenario& s)
{
  const models::ParallelLayout& l = s.step.layout;
  const double m = s.step.workload.global_batch_tokens /
                   (static_cast<double>(s.step.workload.sequence_length) * s.step.workload.micro_batch_size * l.dp);
  if (!models::schedule_supported(l.pp, static_cast<int>(std::lround(m)), l.virtual_stages))
    r.error_at_first_given({"parallelism.virtual_stages", "parallelism.pp", "model.global_batch_tokens"},
                           "the interleaved pipeline schedule (virtual_stages > 1) needs the micro-batches per "
                           "step (" +
                               std::to_string(std::lround(m)) + ") to be a multiple of parallelism.pp");
  const long gpus = job_model_gpus(s);
  const long ep_flows = gpus * (static_cast<long>(l.ep) - 1);
  if (ep_flows > kMaxSimulatedExpertFlows)
    r.error_at_first_given({"parallelism.ep", "cluster.gpus", "run.step_model"},
                           "run.step_model: simulated times the expert all-to-all with all its " +
                               std::to_string(ep_flows) + " flows at once (cluster.gpus x (ep - 1)); keep it under " +
                               std::to_string(kMaxSimulatedExpertFlows) + " or use analytic");
  if (gpus > kMaxSimulatedGpus)
    r.error_at_first_given({"cluster.gpus", "run.step_model"},
                           "run.step_model: simulated runs one SimGrid actor per GPU and handles at most " +
                               std::to_string(kMaxSimulatedGpus) + " GPUs; use analytic for larger fleets");
}

// Checks across keys, once every value has its type (after the rack and the layout checks).
void check_cross_keys(Reader& r, const Scenario& s)
{
  if (s.checkpoint.strategy == CheckpointStrategy::MultiLevel && s.recovery.policy_name != "in_memory")
    r.error_at_first_given({"checkpoint.strategy", "recovery.policy"},
                           "checkpoint.strategy: multi_level restores from peers' host memory: it needs "
                           "recovery.policy: in_memory, which models which copies a failure leaves");
  if (s.recovery.elastic_min_dp > s.step.layout.dp)
    r.error_at_first_given({"recovery.elastic_min_dp", "parallelism.dp"},
                           "recovery.elastic_min_dp (" + std::to_string(s.recovery.elastic_min_dp) +
                               ") cannot exceed parallelism.dp (" + std::to_string(s.step.layout.dp) + ")");
  // A policy that resizes the job drops whole data-parallel replicas (models/resilience/recovery_policy.hpp).
  const models::RecoveryPolicyEntry* policy = models::find_recovery_policy(s.recovery.policy_name);
  if (policy != nullptr && policy->make()->resizes() && s.step.layout.ep > 1)
    r.error_at_first_given({"recovery.policy", "parallelism.ep"},
                           "recovery.policy " + s.recovery.policy_name +
                               " drops whole data-parallel replicas, which expert parallelism "
                               "(parallelism.ep > 1) shards experts over; use another policy");
  if (s.fabric.pod_size > 0 && s.fabric.pod_size % s.fleet.gpus_per_rack != 0)
    r.error_at_first_given({"network.pod_size", "cluster.gpus_per_rack"},
                           "network.pod_size must be a whole number of racks (cluster.gpus_per_rack)");
  if (s.fabric.topology == "torus") {
    double product = 1;  // three int dimensions can overflow a long
    for (int d : s.fabric.torus_dims)
      product *= d;
    // The torus is the fabric of the step: the cluster's, or in a fleet the layout's own GPUs.
    const long gpus = job_model_gpus(s);
    if (s.fabric.torus_dims.empty() || product != static_cast<double>(gpus))
      r.error_at_first_given(
          {"network.torus_dims", "network.topology", "cluster.gpus"},
          "network.topology torus needs network.torus_dims whose product is " +
              std::string(s.is_fleet() ? "the GPUs of the layout's step (tp x cp x pp x dp = " : "cluster.gpus (") +
              std::to_string(gpus) + ")");
  }  // the torus keys under another topology: key_usage.cpp (their declarations read them under torus only)
  if (s.fabric.topology == "rail_optimized" && s.fleet.gpus_per_node < 2)
    r.error_at_first_given({"network.topology", "cluster.gpus_per_node"},
                           "network.topology rail_optimized needs more than one GPU per node (one rail per GPU)");
}

// The storage system's token bucket and the checkpoint size given for the whole model (the keys
// themselves are bound at their declarations).
void read_storage_and_checkpoint(Reader& r, Scenario& s)
{
  if (s.storage.burst_bandwidth.si() > 0 && s.storage.burst_bytes.si() <= 0)
    r.error("storage.burst_bandwidth", "'storage.burst_bandwidth' needs 'storage.burst_bytes', the burst credit");
  if (s.storage.burst_bandwidth.si() > 0 && s.storage.bandwidth.si() <= 0)
    r.error("storage.burst_bandwidth",
            "'storage.burst_bandwidth' needs 'storage.bandwidth', the sustained rate it bursts above");
  if (s.storage.burst_bandwidth.si() > 0 && s.storage.burst_bandwidth.si() <= s.storage.bandwidth.si())
    r.error("storage.burst_bandwidth", "'storage.burst_bandwidth' must exceed 'storage.bandwidth'");

  // The model's whole checkpoint, when given, fixes each GPU's share at any cluster size.
  if (r.has("checkpoint.state_total"))
    s.checkpoint.state_per_gpu = units::Bytes(r.number("checkpoint.state_total") /
                                              static_cast<double>(std::max<long>(1, s.fleet.gpus)));
}

}  // namespace

// The power model. Draws the scenario does not give are fractions of the compute draw (the
// parameter table's descriptions). A power limit slows the compute: the accelerator reaches
// compute_speed() of its GEMM efficiency, on every step model.
void read_power(Reader& r, Scenario& s)
{
  models::energy::PowerSpec& p = s.power;
  auto watts = [&r](const char* key, double fallback) { return r.has(key) ? r.number(key) : fallback; };
  using models::energy::GpuState;
  auto at = [&p](GpuState st) -> double& { return p.gpu_w[static_cast<size_t>(st)]; };
  const double compute = watts("power.gpu.compute", s.accelerator_power.si());
  at(GpuState::Compute) = compute;
  at(GpuState::Communicate) = watts("power.gpu.communicate", compute / 2);
  at(GpuState::Idle) = watts("power.gpu.idle", compute / 7);
  at(GpuState::Checkpoint) = watts("power.gpu.checkpoint", compute * 3 / 14);
  at(GpuState::Off) = watts("power.gpu.off", 0);
  p.node_w = watts("power.node", compute * s.fleet.gpus_per_node / 2);
  p.gpu_power_limit_w = watts("power.gpu_power_limit", 0);
  p.power_floor_w = watts("power.floor", 0);
  // No step completes before the last group of ranks is up: the stagger lengthens each warmup.
  s.recovery.warmup = s.recovery.warmup + units::Seconds(p.restart_stagger_s);
  for (GpuState st : {GpuState::Communicate, GpuState::Idle, GpuState::Checkpoint, GpuState::Off})
    if (at(st) > compute) {
      const std::string key = "power.gpu." + std::string(models::energy::gpu_state_name(st));
      r.error_at_first_given({key, "power.gpu.compute", "accelerator.power"},
                             "'" + key + "' (" + std::to_string(at(st)) + " W) exceeds the compute draw (" +
                                 std::to_string(compute) + " W)");
    }
  if (p.gpu_power_limit_w > 0 && p.gpu_power_limit_w <= at(GpuState::Idle))
    r.error("power.gpu_power_limit", "'power.gpu_power_limit' must exceed the idle draw (" +
                                         std::to_string(at(GpuState::Idle)) + " W): the accelerator could not run");
  const double cap = p.gpu_power_limit_w > 0 ? std::min(compute, p.gpu_power_limit_w) : compute;
  if (p.power_floor_w > cap)
    r.error("power.floor", "'power.floor' (" + std::to_string(p.power_floor_w) +
                               " W) exceeds what the accelerator may draw (" + std::to_string(cap) + " W)");
  s.step.accelerator.speed = models::energy::compute_speed(p);
}

namespace {

// A key the scenario gives that its kind of run does not model is refused at the key: a fleet
// does not read a replay-only key (parameter_table.hpp's Applies), nor a single job a fleet's.
void check_applies(Reader& r, const std::vector<ResolvedValue>& resolved)
{
  const bool fleet = gives_workload(resolved);  // a workload that failed to load is still a fleet's
  const bool replayed = gives_replayed_job(resolved);  // whose replayed job reads the job's keys
  for (const ResolvedValue& v : resolved) {
    const ParamSpec* spec = v.is_default ? nullptr : find_param(v.key);
    if (spec == nullptr)
      continue;
    if (fleet && spec->applies == Applies::Job && !replayed)
      r.error_at_first_given({v.key}, "'" + v.key +
                                          "' applies to a single job's replay; a fleet (workload.*) reads it only for "
                                          "a job declared runtime: replay: leave it out, or declare one "
                                          "(docs/models/fleet.md says what a fleet models)");
    else if (!fleet && spec->applies == Applies::Fleet)
      r.error_at_first_given({v.key}, "'" + v.key +
                                          "' applies to a fleet, and this scenario has none: it gives no "
                                          "workload.jobs, workload.trace or workload.generator");
  }
}

}  // namespace

Scenario build_scenario(const std::vector<ResolvedValue>& resolved, const std::string& file, Diagnostics& diags,
                        UnusedKeys unused)
{
  Reader r(resolved, file, diags);
  Scenario s;
  s.source = file;
  // Every key whose declaration binds it to a field (ParamSpec::into); the section builders below
  // read the rest: derived defaults, enums, the wildcard sections and what depends on other keys.
  for (const ParamSpec& p : parameter_table())
    if (p.binding.read)
      p.binding.read(s, r, p.key);
  read_step_inputs(r, s);
  detail::read_kernel_tables(r, file, s);
  read_storage_and_checkpoint(r, s);
  read_causes(r, resolved, s);
  read_power(r, s);
  detail::read_fleet(r, resolved, file, s);
  detail::read_carbon(r, file, s);
  check_applies(r, resolved);

  s.fleet.gpus_per_pod = s.fabric.pod_size;
  if (!diags.empty())
    return s;  // cross-key checks only make sense on well-typed values
  if (s.fleet.gpus_per_rack % s.fleet.gpus_per_node != 0)
    r.error_at_first_given({"cluster.gpus_per_rack", "cluster.gpus_per_node"},
                           "cluster.gpus_per_rack must be a multiple of cluster.gpus_per_node");
  const bool layout_ok = !check_layout(r, s);
  check_cross_keys(r, s);
  if (s.is_fleet())
    detail::check_fleet(r, s);
  const bool needs_step = !s.is_fleet() || std::any_of(s.workload.jobs.begin(), s.workload.jobs.end(),
                                                       [](const FleetJobDecl& d) { return d.tokens > 0; });
  if (s.step_model == "simulated" && layout_ok && needs_step)
    check_simulated_step(r, s);
  if (!diags.empty())
    return s;  // a key's conditions are read on well-formed values
  s.unused_keys = find_unused_keys(resolved, s);
  if (unused == UnusedKeys::Refuse)
    for (const UnusedKey& u : s.unused_keys)
      if (!u.included && !u.by_override)
        r.error_at_first_given({u.key}, unused_key_message(u));
  return s;
}

}  // namespace fleetsim::scenario
